package vocab

import (
	"encoding/json"
	"fmt"
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

// briefAll renders each value as oneLine and cut do, except that where two or more values are
// longer than briefMax and begin alike for more than briefLead bytes, every such value is
// cut at the front to start briefLead bytes before the first byte where any of them
// differ, marked with "...".
func briefAll(ns ...*yaml.RNode) []string {
	full := make([]string, len(ns))
	var long []string
	for i, n := range ns {
		full[i] = oneLine(n)
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
		out[i] = cut(s)
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

// Form is how Render shows a value.
type Form uint8

const (
	// Whole shows the value whole: a scalar node's text, a map or list node as its YAML
	// with white space folded ("<unprintable>" if it does not serialize); a plain string
	// as it is, a plain nil as "null", a plain map or list as JSON, another plain scalar
	// with fmt. Field path selectors ([name=x], [=x]) and the lines of a list merged
	// inside show values so.
	Whole Form = iota
	// Short shows a scalar as Whole does and a map or list as JSON (no comments; a node
	// that does not decode as Whole shows it), cut to 60 bytes, ending in "..." and
	// never inside a UTF-8 sequence. Field rule effects show values so.
	Short
	// Long shows a scalar as Whole does and a map or list as JSON, cut to 80 bytes (77
	// and "...", counted in bytes). Plans and apply's changes show values so.
	Long
)

// longMax is the longest value Long shows, in bytes.
const longMax = 80

// Render renders v on one line in form f, for a message or a field path selector. v is
// a *yaml.RNode (nil, or a node holding nothing: "<absent>" in every form) or a plain
// value as encoding/json or RNode.Map decodes one (map[string]interface{},
// []interface{}, string, bool, numbers, nil).
func Render(v interface{}, f Form) string {
	var s string
	if n, ok := v.(*yaml.RNode); ok {
		switch {
		case n.IsNil():
			return "<absent>"
		case f == Whole || n.YNode().Kind == yaml.ScalarNode:
			s = oneLine(n)
		default:
			s = jsonLine(n)
		}
	} else {
		s = plainText(v)
	}
	switch f {
	case Short:
		return cut(s)
	case Long:
		if len(s) > longMax {
			return s[:longMax-3] + "..."
		}
	}
	return s
}

// jsonLine is a map or list node as JSON, or as oneLine shows it when it does not
// decode or encode.
func jsonLine(n *yaml.RNode) string {
	var v interface{}
	if err := n.YNode().Decode(&v); err != nil {
		return oneLine(n)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return oneLine(n)
	}
	return string(b)
}

// plainText renders a plain value whole (Whole's rules for plain values).
func plainText(v interface{}) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return "null"
	case map[string]interface{}, []interface{}:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return fmt.Sprint(v)
}

// oneLine renders a value on one line, whole, as conflict messages show values: a
// scalar's value, a collection's YAML with its white space folded; "<absent>" for nil,
// "<unprintable>" for a collection that does not serialize.
func oneLine(n *yaml.RNode) string {
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

// cut cuts s to 60 bytes (briefMax) for a message, ending in "..." and never inside a
// UTF-8 sequence; a shorter s is returned as it is.
func cut(s string) string {
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
