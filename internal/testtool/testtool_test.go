package testtool

import (
	"testing"
)

func TestRequireFindsAnInstalledBinary(t *testing.T) {
	if p := Require(t, "go", "golang-go"); p == "" {
		t.Error("no path for go")
	}
}

func TestRequiredFollowsTheEnvironment(t *testing.T) {
	for _, c := range []struct {
		ci, require string
		want        bool
	}{{"", "", false}, {"true", "", true}, {"", "1", true}, {"false", "0", false}} {
		t.Setenv("CI", c.ci)
		t.Setenv("N8N_CEILING_REQUIRE_TOOLS", c.require)
		if got := Required(); got != c.want {
			t.Errorf("CI=%q REQUIRE=%q: Required() = %v, want %v", c.ci, c.require, got, c.want)
		}
	}
}
