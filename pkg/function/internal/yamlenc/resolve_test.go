package yamlenc

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// plainTag is the tag yaml.v3's decoder gives s written as a plain scalar (its
// resolve("", s)), and false when s does not decode as that plain scalar.
func plainTag(s string) (string, bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(s), &doc); err != nil || len(doc.Content) != 1 {
		return "", false
	}
	n := doc.Content[0]
	if n.Kind != yaml.ScalarNode || n.Style != 0 || n.Value != s || s == "<<" {
		return "", false
	}
	return n.Tag, true
}

// TestResolve: resolve gives the decoder's tag for every string of up to 4 characters
// over an alphabet of the characters numbers, timestamps and the special values are
// made of, and for the tricky values.
func TestResolve(t *testing.T) {
	alphabet := "019_.eE+-xobBaf:TZ ~nN"
	n := 4
	if testing.Short() {
		n = 3
	}
	var strs []string
	var gen func(prefix string)
	gen = func(prefix string) {
		strs = append(strs, prefix)
		if len(prefix) == n {
			return
		}
		for _, c := range alphabet {
			gen(prefix + string(c))
		}
	}
	gen("")
	strs = append(strs, tricky...)
	strs = append(strs, "2001-12-14t21:59:43.10-05:00", "2002-12-14", "1_0", "0b1_0", "0o1_7",
		"0x_1F", "+0x1F", "-0x1F", "0xFFFFFFFFFFFFFFFF", "0x1FFFFFFFFFFFFFFFF", "-0b1111111111111111111111111111111111111111111111111111111111111111",
		"0o1777777777777777777777", "1__0", "1e1_0", "0.1e+10", "+.5", "-.5e-3", "1.e5", "07", "08", "0_8", "1:2:3")
	checked := 0
	for _, s := range strs {
		want, ok := plainTag(s)
		if !ok {
			continue
		}
		checked++
		if got := resolve(s); got != want {
			t.Errorf("resolve(%q) = %s, the decoder says %s", s, got, want)
		}
	}
	t.Logf("%d plain scalars checked", checked)
}
