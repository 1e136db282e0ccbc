package brokerprobe

import (
	"reflect"
	"strings"
	"testing"
)

func TestParsePrefix(t *testing.T) {
	cases := []struct {
		in        string
		truncated bool
		want      frame
		wantErr   bool
	}{
		{in: `{"type":"runner:info","name":"JS Task Runner","types":["javascript"]}`,
			want: frame{Type: "runner:info", Name: "JS Task Runner", Types: []string{"javascript"}}},
		{in: `{"type":"runner:taskoffer","taskType":"javascript","offerId":"o1","validFor":5123}`,
			want: frame{Type: "runner:taskoffer", OfferID: "o1", ValidFor: 5123, HasValidFor: true}},
		{in: `{"type":"runner:taskoffer","offerId":"l","validFor":-1}`,
			want: frame{Type: "runner:taskoffer", OfferID: "l", ValidFor: -1, HasValidFor: true}},
		{in: `{"type":"runner:taskrejected","taskId":"t","reason":"No open task slots"}`,
			want: frame{Type: "runner:taskrejected", TaskID: "t", Reason: "No open task slots"}},
		{in: ` {"data":{"a":[1,{"b":null}]},"type":"broker:taskofferaccept","offerId":"o","taskId":"t"} `,
			want: frame{Type: "broker:taskofferaccept", TaskID: "t", OfferID: "o"}},
		// A frame cut by the prefix limit keeps the fields before the cut.
		{in: `{"type":"runner:taskdone","taskId":"t9","data":{"result":"xxxx`, truncated: true,
			want: frame{Type: "runner:taskdone", TaskID: "t9"}},
		// A number touching the cut may be incomplete and is dropped.
		{in: `{"type":"runner:taskoffer","offerId":"o","validFor":50`, truncated: true,
			want: frame{Type: "runner:taskoffer", OfferID: "o"}},
		{in: `{"type":"runner:taskdone","taskId":"t9","data":{"result":"xxxx`, wantErr: true},
		{in: `{"type":"runner:taskoffer","offerId":"o","validFor":"soon"}`, wantErr: true},
		{in: `{"type":null}`, wantErr: true},
		{in: `{"type":"a","type":null}`, wantErr: true},
		{in: `{"type":"a"}x`, wantErr: true},
		{in: `{"data":"` + strings.Repeat("x", 5000), truncated: true, wantErr: true},
	}
	for _, c := range cases {
		got, err := parsePrefix([]byte(c.in), c.truncated)
		if (err != nil) != c.wantErr || !reflect.DeepEqual(got, c.want) {
			t.Errorf("parsePrefix(%.60q, %v) = %+v, %v; want %+v, err %v", c.in, c.truncated, got, err, c.want, c.wantErr)
		}
	}
}

func TestRejectionReasonsAreBounded(t *testing.T) {
	for reason, want := range map[string]string{
		"No open task slots":                                           "at_capacity",
		"No open task slots - runner already at capacity":              "at_capacity",
		"Offer expired and no open task slots":                         "offer_expired",
		"Offer expired - not accepted within validity window":          "offer_expired",
		"Runner is shutting down":                                      "shutting_down",
		"anything a hostile runner likes " + strings.Repeat("z", 1000): "other",
	} {
		if got := rejectionLabels[rejectionIndex(reason)]; got != want {
			t.Errorf("%q → %s, want %s", reason, got, want)
		}
	}
}
