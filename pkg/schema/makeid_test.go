package schema

import "testing"

// TestMakeIDInjective: different key tuples never share an identity, including values
// that look like the built forms ("\x01=" value, "\x01-" absent).
func TestMakeIDInjective(t *testing.T) {
	one := [][]string{{"a"}, {""}, {"\x01-"}, {"\x01=a"}, {"\x01"}, {"-"}, {"=a"}}
	two := [][]string{{"a", "b"}, {"a", ""}, {"", "b"}, {"a\x01=b", ""}, {"a", "\x01=b"}, {"\x01-", "b"}}
	for _, set := range [][][]string{one, two} {
		seen := map[string][]string{}
		for _, vals := range set {
			id := makeID(vals)
			if prev, dup := seen[id]; dup {
				t.Errorf("values %q and %q share the identity %q", prev, vals, id)
			}
			seen[id] = vals
		}
	}
}
