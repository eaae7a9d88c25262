package function_test

import (
	"strings"
	"testing"
)

// Results reach kpt's terminal: a bidi override (U+202E), a line separator (U+2028) or
// tag characters in a key, a value or a name passed raw, where `pkg update` escapes
// them. They are escaped in messages, field paths, values and the resourceRef.
func TestResultsEscapeNonGraphicCharacters(t *testing.T) {
	cm := func(role, v string) string {
		return "- {apiVersion: v1, kind: ConfigMap, metadata: {name: \"a\\u202Eb\", annotations: {config.kubernetes.io/merge-source: " + role +
			"}}, data: {\"k\\u2028\\U000E0041\": \"" + v + "\"}}\n"
	}
	rl, err := runStdin(t, rlHead+"items:\n"+cm("original", "x")+cm("updated", "y\\u202Ez")+cm("dest", "w\\u2029"))
	if err != nil {
		t.Fatal(err)
	}
	res := resultsOf(rl)
	if strings.ContainsAny(res, "\u202e\u2028\u2029\U000E0041") {
		t.Errorf("results hold raw non-graphic characters:\n%s", res)
	}
	for _, want := range []string{`data.k\u2028\U000e0041`, `y\u202ez`, `a\u202eb`} {
		if !strings.Contains(res, want) {
			t.Errorf("results do not show %s:\n%s", want, res)
		}
	}
}
