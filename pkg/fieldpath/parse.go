package fieldpath

import (
	"fmt"
	"strconv"
	"strings"
)

// Parse reads a path in the String form, as a user writes it in a functionConfig (the
// fieldRules and mergeKeys keys) or an annotation:
//
//	spec.replicas
//	spec.template.spec.containers[name=app].image
//	spec.template.spec.containers[name=app].ports[containerPort=80,protocol=TCP]
//	metadata.finalizers[=example.com/protect]
//	metadata.annotations.example\.com/owner
//
// A field name holding a dot, a '[' or a backslash escapes it with a backslash, since the
// String form joins fields with dots. Selectors follow a field: [key=value,...] (Key),
// [=value] (Value) or [N] (Index, N >= 0). Selector values may not hold ']' or ','.
//
// Output: the Path, never empty. Errors: an empty path, an empty field name (leading,
// trailing or doubled dot), a selector that is not closed, empty, or has an empty key,
// a key given twice, a negative or non-numeric index, or text after a selector that is
// not '.' or another selector; the message quotes the path and the offending part.
func Parse(s string) (Path, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("empty field path")
	}
	var p Path
	i := 0
	expectField := true
	for i < len(s) {
		if expectField {
			var name strings.Builder
			for i < len(s) && s[i] != '.' && s[i] != '[' {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				name.WriteByte(s[i])
				i++
			}
			if name.Len() == 0 {
				return nil, fmt.Errorf("field path %q has an empty field name at offset %d", s, i)
			}
			p = append(p, Step{Kind: Field, Name: name.String()})
			expectField = false
			continue
		}
		switch s[i] {
		case '.':
			i++
			if i == len(s) {
				return nil, fmt.Errorf("field path %q ends with a dot", s)
			}
			expectField = true
		case '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("field path %q has a selector %q that is not closed with ']'", s, s[i:])
			}
			step, err := parseSelector(s, s[i+1:i+end])
			if err != nil {
				return nil, err
			}
			p = append(p, step)
			i += end + 1
		default:
			return nil, fmt.Errorf("field path %q: expected '.' or '[' at offset %d, got %q", s, i, s[i:])
		}
	}
	return p, nil
}

// parseSelector reads the inside of one [...] selector of path s.
func parseSelector(s, sel string) (Step, error) {
	switch {
	case sel == "":
		return Step{}, fmt.Errorf("field path %q has an empty selector []; write [key=value], [=value] or [index]", s)
	case strings.HasPrefix(sel, "="):
		return Step{Kind: Value, Val: sel[1:]}, nil
	case !strings.Contains(sel, "="):
		n, err := strconv.Atoi(sel)
		if err != nil || n < 0 {
			return Step{}, fmt.Errorf("field path %q has a selector [%s] that is neither [key=value], [=value] nor an index >= 0", s, sel)
		}
		return Step{Kind: Index, Idx: n}, nil
	}
	step := Step{Kind: Key}
	for _, kv := range strings.Split(sel, ",") {
		k, v, _ := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if k == "" || !strings.Contains(kv, "=") {
			return Step{}, fmt.Errorf("field path %q has a selector [%s] with an empty key; write [key=value,...]", s, sel)
		}
		for _, seen := range step.Keys {
			if seen == k {
				return Step{}, fmt.Errorf("field path %q has a selector [%s] that names key %q twice", s, sel, k)
			}
		}
		step.Keys = append(step.Keys, k)
		step.Values = append(step.Values, strings.TrimSpace(v))
	}
	return step, nil
}

// Fields reports whether every step of p is a Field step (a path through maps only).
func (p Path) Fields() bool {
	for _, s := range p {
		if s.Kind != Field {
			return false
		}
	}
	return true
}

// HasPrefix reports whether prefix is p or an ancestor of p: each step of prefix
// selects what p's step at the same place does (Selects).
func (p Path) HasPrefix(prefix Path) bool {
	if len(prefix) > len(p) {
		return false
	}
	for i, s := range prefix {
		if !s.Selects(p[i]) {
			return false
		}
	}
	return true
}

// Selects reports whether step s, as a user wrote it, selects the place step t names
// (as the merge engine names it): the same field; the same set value or index; for a
// keyed element, every key=value of s is among t's (so [containerPort=80] selects
// [containerPort=80,protocol=TCP], the element of a list with two merge keys).
func (s Step) Selects(t Step) bool {
	if s.Kind != t.Kind {
		return false
	}
	switch s.Kind {
	case Field:
		return s.Name == t.Name
	case Value:
		return s.Val == t.Val
	case Index:
		return s.Idx == t.Idx
	}
	for i, k := range s.Keys {
		found := false
		for j, tk := range t.Keys {
			if tk == k && t.Values[j] == s.Values[i] {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
