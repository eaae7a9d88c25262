package gen

import (
	"bufio"
	"strconv"
	"strings"
)

// Obj is an ordered map for building resources: values are string (plain), Str
// (single-quoted), int, bool, *Obj or []any.
type Obj struct {
	keys []string
	vals map[string]any
}

// Str is a string written single-quoted (values YAML would otherwise read as numbers).
type Str string

// O makes an Obj from key, value pairs.
func O(kv ...any) *Obj {
	o := &Obj{vals: make(map[string]any, len(kv)/2)}
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// Len is the number of fields.
func (o *Obj) Len() int { return len(o.keys) }

// Get returns a field's value or nil.
func (o *Obj) Get(k string) any { return o.vals[k] }

// Ref returns a pointer to a list field, for editing it in place.
func (o *Obj) Ref(k string) *[]any {
	if p, ok := o.vals[k].(*[]any); ok {
		return p
	}
	l := o.vals[k].([]any)
	p := &l
	o.vals[k] = p
	return p
}

// Set sets a field, appending it when new.
func (o *Obj) Set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// Delete removes a field.
func (o *Obj) Delete(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, x := range o.keys {
		if x == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

// Clone deep-copies o.
func (o *Obj) Clone() *Obj {
	c := &Obj{keys: append([]string(nil), o.keys...), vals: make(map[string]any, len(o.vals))}
	for k, v := range o.vals {
		c.vals[k] = cloneValue(v)
	}
	return c
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case *Obj:
		return x.Clone()
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = cloneValue(x[i])
		}
		return out
	case *[]any:
		return cloneValue(*x)
	}
	return v
}

// writeItem writes o as an element of the top-level items list (compact sequence
// indentation, two-space indent, as kyaml writes a ResourceList).
func writeItem(b *bufio.Writer, o *Obj) {
	b.WriteString("- ")
	writeMap(b, o, 2, true)
}

func indent(b *bufio.Writer, n int) {
	for i := 0; i < n; i++ {
		b.WriteByte(' ')
	}
}

// writeMap writes o's fields at column n; the first one is already positioned when
// inline is set (after "- ").
func writeMap(b *bufio.Writer, o *Obj, n int, inline bool) {
	for i, k := range o.keys {
		if i > 0 || !inline {
			indent(b, n)
		}
		b.WriteString(k)
		b.WriteByte(':')
		writeValue(b, o.vals[k], n)
	}
}

// writeValue writes a field value after "key:".
func writeValue(b *bufio.Writer, v any, n int) {
	if p, ok := v.(*[]any); ok {
		v = *p
	}
	switch x := v.(type) {
	case *Obj:
		if x.Len() == 0 {
			b.WriteString(" {}\n")
			return
		}
		b.WriteByte('\n')
		writeMap(b, x, n+2, false)
	case []any:
		if len(x) == 0 {
			b.WriteString(" []\n")
			return
		}
		b.WriteByte('\n')
		for _, el := range x {
			indent(b, n)
			b.WriteString("- ")
			if p, ok := el.(*[]any); ok {
				el = *p
			}
			if m, ok := el.(*Obj); ok && m.Len() > 0 {
				writeMap(b, m, n+2, true)
				continue
			}
			writeScalar(b, el)
			b.WriteByte('\n')
		}
	default:
		b.WriteByte(' ')
		writeScalar(b, v)
		b.WriteByte('\n')
	}
}

func writeScalar(b *bufio.Writer, v any) {
	switch x := v.(type) {
	case string:
		b.WriteString(x)
	case Str:
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(string(x), "'", "''"))
		b.WriteByte('\'')
	case int:
		b.WriteString(strconv.Itoa(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	default:
		b.WriteString("null")
	}
}
