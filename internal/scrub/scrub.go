package scrub

import (
	"strconv"
	"strings"
	"unicode"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
)

// String returns s with each character that is not graphic (unicode.IsGraphic) but the
// newline, and each byte that is not UTF-8, written as a Go escape: control characters
// (`\x1b`, `\t`), bidi controls such as U+202E (`\u202e`), the line and paragraph
// separators U+2028 and U+2029, tag characters (`\U000e0041`) and other format
// characters. Letters, marks, numbers, punctuation, symbols and spaces of any script
// are kept as they are. It is the rule `krm-merge pkg update` prints by
// (Escape), but keeping newlines: a message may span lines.
func String(s string) string { return escape(s, keep, quoteGo) }

// keep reports whether String writes r as it is.
func keep(r rune) bool { return r == '\n' || unicode.IsGraphic(r) }

// quoteGo writes r as strconv.QuoteRuneToASCII writes it, without the quotes.
func quoteGo(b *strings.Builder, r rune) {
	q := strconv.QuoteRuneToASCII(r)
	b.WriteString(q[1 : len(q)-1])
}

// Results makes rs safe to print on a terminal, in place: each message, file path and
// field path through String, and the strings of each field's currentValue and
// proposedValue (map keys included; maps and lists are rebuilt, never shared with the
// input), and each tag's key and value (the map is rebuilt). A resourceRef whose apiVersion, kind, name or namespace holds a control
// character is dropped (the message names the item: such an item is refused); one
// holding another character String escapes has it escaped. Nil entries are skipped.
func Results(rs framework.Results) {
	for _, r := range rs {
		if r == nil {
			continue
		}
		r.Message = String(r.Message)
		if r.File != nil {
			r.File.Path = String(r.File.Path)
		}
		if r.Field != nil {
			r.Field.Path = String(r.Field.Path)
			r.Field.CurrentValue = Value(r.Field.CurrentValue)
			r.Field.ProposedValue = Value(r.Field.ProposedValue)
		}
		if len(r.Tags) > 0 {
			tags := make(map[string]string, len(r.Tags))
			for k, v := range r.Tags {
				tags[String(k)] = String(v)
			}
			r.Tags = tags
		}
		if ref := r.ResourceRef; ref != nil {
			switch all := ref.APIVersion + ref.Kind + ref.Name + ref.Namespace; {
			case strings.IndexFunc(all, unicode.IsControl) >= 0:
				r.ResourceRef = nil
			case String(all) != all:
				c := *ref
				c.APIVersion, c.Kind, c.Name, c.Namespace = String(c.APIVersion), String(c.Kind), String(c.Name), String(c.Namespace)
				r.ResourceRef = &c
			}
		}
	}
}

// Value returns v (a result's value: a string, number, bool, nil, or maps and lists of
// them as YAML decodes them) with every string, map keys included, through String. A
// value without such a string is returned as it is; otherwise maps and lists are new.
func Value(v interface{}) interface{} {
	switch x := v.(type) {
	case string:
		return String(x)
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, e := range x {
			out[i] = Value(e)
		}
		return out
	case map[string]interface{}:
		out := make(map[string]interface{}, len(x))
		for k, e := range x {
			out[String(k)] = Value(e)
		}
		return out
	case map[interface{}]interface{}:
		out := make(map[interface{}]interface{}, len(x))
		for k, e := range x {
			out[Value(k)] = Value(e)
		}
		return out
	}
	return v
}
