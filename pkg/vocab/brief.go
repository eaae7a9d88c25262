package vocab

import (
	"strings"
	"unicode/utf8"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// briefMax is the longest value a message shows, in bytes; briefLead is how much of the
// common beginning briefAll keeps before the first difference.
const (
	briefMax  = 60
	briefLead = 16
)

// briefAll renders each value as OneLine and Cut do, except that where two or more values are
// longer than briefMax and begin alike for more than briefLead bytes, every such value is
// cut at the front to start briefLead bytes before the first byte where any of them
// differ, marked with "...".
func briefAll(ns ...*yaml.RNode) []string {
	full := make([]string, len(ns))
	var long []string
	for i, n := range ns {
		full[i] = OneLine(n)
		if n != nil && !n.IsNil() && len(full[i]) > briefMax {
			long = append(long, full[i])
		}
	}
	start := 0
	if len(long) > 1 {
		p := commonPrefix(long)
		if p > briefLead {
			start = p - briefLead
			for start > 0 && !utf8.RuneStart(long[0][start]) {
				start--
			}
		}
	}
	out := make([]string, len(ns))
	for i, n := range ns {
		s := full[i]
		if start > 0 && n != nil && !n.IsNil() && len(s) > briefMax {
			s = "..." + s[start:]
		}
		out[i] = Cut(s)
	}
	return out
}

// commonPrefix returns the length in bytes of the beginning all of ss share.
func commonPrefix(ss []string) int {
	p := len(ss[0])
	for _, s := range ss[1:] {
		if len(s) < p {
			p = len(s)
		}
		for i := 0; i < p; i++ {
			if s[i] != ss[0][i] {
				p = i
				break
			}
		}
	}
	return p
}

// OneLine renders a value on one line, whole, as conflict messages show values: a
// scalar's value, a collection's YAML with its white space folded; "<absent>" for nil,
// "<unprintable>" for a collection that does not serialize.
func OneLine(n *yaml.RNode) string {
	if n.IsNil() {
		return "<absent>"
	}
	if n.YNode().Kind == yaml.ScalarNode {
		return n.YNode().Value
	}
	s, err := n.String()
	if err != nil {
		return "<unprintable>"
	}
	return strings.Join(strings.Fields(s), " ")
}

// Cut cuts s to 60 bytes (briefMax) for a message, ending in "..." and never inside a
// UTF-8 sequence; a shorter s is returned as it is.
func Cut(s string) string {
	if len(s) <= briefMax {
		return s
	}
	end := briefMax - 3
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "..."
}

// briefTexts cuts texts for a message as briefAll cuts values.
func briefTexts(ss ...string) []string {
	ns := make([]*yaml.RNode, len(ss))
	for i, s := range ss {
		ns[i] = yaml.NewScalarRNode(s)
	}
	return briefAll(ns...)
}
