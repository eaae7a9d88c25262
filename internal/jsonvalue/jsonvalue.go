package jsonvalue

import (
	"encoding/json"
	"math"
	"math/big"
	"reflect"
)

// Equal reports whether two JSON-like values are the same value: maps by key, lists in
// order, numbers by value (int64 2 equals float64 2), other scalars (strings, booleans,
// nil, timestamps) as Go values.
func Equal(a, b interface{}) bool {
	switch x := a.(type) {
	case map[string]interface{}:
		y, ok := b.(map[string]interface{})
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !Equal(v, w) {
				return false
			}
		}
		return true
	case []interface{}:
		y, ok := b.([]interface{})
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case string, bool, nil:
		return a == b
	}
	xa, ok1 := number(a)
	xb, ok2 := number(b)
	if ok1 || ok2 {
		return ok1 && ok2 && xa.Cmp(xb) == 0
	}
	return reflect.DeepEqual(a, b)
}

// number is v as a big.Float when v is a finite number.
func number(v interface{}) (*big.Float, bool) {
	switch x := v.(type) {
	case int64:
		return new(big.Float).SetInt64(x), true
	case int:
		return new(big.Float).SetInt64(int64(x)), true
	case uint64:
		return new(big.Float).SetUint64(x), true
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, false
		}
		return big.NewFloat(x), true
	case json.Number:
		f, _, err := big.ParseFloat(string(x), 10, 64, big.ToNearestEven)
		return f, err == nil
	}
	return nil, false
}
