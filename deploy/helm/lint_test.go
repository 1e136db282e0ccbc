package helm

import (
	"testing"

	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
)

// helm lint, as `helm lint --strict` judges: no warning or error with the
// defaults or with every option on. (The chart has no icon: an info.)
func TestLint(t *testing.T) {
	for name, vals := range valueSets {
		res := lint.AllWithKubeVersion(chartDir, values(t, vals), namespace, nil)
		for _, m := range res.Messages {
			if m.Severity >= support.WarningSev {
				t.Errorf("%s: %s", name, m)
			}
		}
		if len(res.Messages) == 0 {
			t.Errorf("%s: lint said nothing at all; is the chart found?", name)
		}
	}
}
