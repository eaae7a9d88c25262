package render

import (
	"encoding/json"
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

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
