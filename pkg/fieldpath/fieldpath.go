package fieldpath

import (
	"strconv"
	"strings"
)

// StepKind says how a Step selects its child.
type StepKind int

const (
	// Field selects a map field by name.
	Field StepKind = iota
	// Key selects a keyed list element by its merge key values.
	Key
	// Value selects a primitive set element by its value.
	Value
	// Index selects a list element by its position.
	Index
)

// Step is one selector in a Path.
type Step struct {
	// Kind says which of the other fields are used.
	Kind StepKind
	// Name is the field name (Field).
	Name string
	// Keys and Values are the merge key names and their values (Key), same length.
	Keys, Values []string
	// Val is the element value (Value).
	Val string
	// Idx is the element position (Index), zero based.
	Idx int
}

// Path is a field path from the resource root. The zero value is the root.
type Path []Step

// Field returns a new path with a field step appended; p is not changed.
func (p Path) Field(name string) Path { return p.with(Step{Kind: Field, Name: name}) }

// Key returns a new path with a keyed element step appended; keys and values must have
// the same length.
func (p Path) Key(keys, values []string) Path {
	return p.with(Step{Kind: Key, Keys: keys, Values: values})
}

// Value returns a new path with a primitive set element step appended.
func (p Path) Value(v string) Path { return p.with(Step{Kind: Value, Val: v}) }

// Index returns a new path with a positional element step appended.
func (p Path) Index(i int) Path { return p.with(Step{Kind: Index, Idx: i}) }

func (p Path) with(s Step) Path {
	out := make(Path, len(p), len(p)+1)
	copy(out, p)
	return append(out, s)
}

// String renders the path as described in the package doc, field names as they are (a
// result's field.path); the root is "". Escaped gives the form Parse reads back.
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p {
		switch s.Kind {
		case Field:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Name)
		case Key:
			b.WriteByte('[')
			for j := range s.Keys {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString(s.Keys[j])
				b.WriteByte('=')
				b.WriteString(s.Values[j])
			}
			b.WriteByte(']')
		case Value:
			b.WriteString("[=")
			b.WriteString(s.Val)
			b.WriteByte(']')
		case Index:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.Idx))
			b.WriteByte(']')
		}
	}
	return b.String()
}

// Escaped renders the path in the form Parse reads: String's, with a backslash before
// each dot, '[' and backslash inside a field name (metadata.annotations.example\.com/owner),
// so that Parse(p.Escaped()) gives p back. Use it to turn a path from a result into a
// fieldRules or field-rules-annotation path.
func (p Path) Escaped() string {
	q := make(Path, len(p))
	for i, s := range p {
		if s.Kind == Field {
			s.Name = fieldEscaper.Replace(s.Name)
		}
		q[i] = s
	}
	return q.String()
}

// fieldEscaper escapes the characters Parse reads as structure inside a field name.
var fieldEscaper = strings.NewReplacer(`\`, `\\`, ".", `\.`, "[", `\[`)
