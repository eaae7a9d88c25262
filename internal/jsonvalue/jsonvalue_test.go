package jsonvalue

import (
	"encoding/json"
	"math"
	"testing"
)

// TestEqual: numbers by value across Go types, maps by key, lists in order.
func TestEqual(t *testing.T) {
	for _, c := range []struct {
		a, b interface{}
		want bool
	}{
		{int64(2), float64(2), true},
		{json.Number("2.0"), 2, true},
		{uint64(3), float64(2), false},
		{math.NaN(), math.NaN(), false},
		{"2", int64(2), false},
		{nil, nil, true},
		{map[string]interface{}{"a": int64(1)}, map[string]interface{}{"a": 1.0}, true},
		{map[string]interface{}{"a": 1}, map[string]interface{}{"b": 1}, false},
		{[]interface{}{1, "x"}, []interface{}{1, "x"}, true},
		{[]interface{}{1, "x"}, []interface{}{"x", 1}, false},
	} {
		if got := Equal(c.a, c.b); got != c.want {
			t.Errorf("Equal(%#v, %#v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
