package apply

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	kjson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/krm-merge/krm-merge/internal/render"
	"github.com/krm-merge/krm-merge/pkg/fieldpath"
)

// maxDepth bounds the nesting of the YAML turned into JSON (and of aliases followed),
// as k8s.io/apimachinery/pkg/util/json bounds decoding.
const maxDepth = 10000

// ValueError is a YAML value that has no JSON form (kubectl could not send it either):
// a non-scalar map key, .inf or .nan, nesting deeper than 10000.
type ValueError struct {
	// Path is where the value is.
	Path fieldpath.Path
	// Msg says what is wrong.
	Msg string
}

// Error returns the message; the path is reported separately (as the field).
func (e *ValueError) Error() string { return e.Msg }

// toValue turns a YAML node into the value kubectl would hold after reading the same
// document as JSON (k8s.io/apimachinery/pkg/util/json): map[string]interface{},
// []interface{}, string, bool, nil, int64 for integers and float64 otherwise. Scalars
// are read as kyaml reads them (YAML 1.2 core schema, yaml.v3). Aliases are followed.
func toValue(n *yaml.Node, path fieldpath.Path) (interface{}, error) {
	return toValueDepth(n, path, 0)
}

func toValueDepth(n *yaml.Node, path fieldpath.Path, depth int) (interface{}, error) {
	if depth > maxDepth {
		return nil, &ValueError{Path: path, Msg: fmt.Sprintf("nesting deeper than %d levels", maxDepth)}
	}
	if n == nil {
		return nil, nil
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return toValueDepth(n.Content[0], path, depth+1)
	case yaml.AliasNode:
		return toValueDepth(n.Alias, path, depth+1)
	case yaml.MappingNode:
		m := make(map[string]interface{}, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			for k.Kind == yaml.AliasNode && k.Alias != nil {
				k = k.Alias
			}
			if k.Kind != yaml.ScalarNode {
				return nil, &ValueError{Path: path, Msg: "a map key that is not a scalar has no JSON form"}
			}
			v, err := toValueDepth(n.Content[i+1], path.Field(k.Value), depth+1)
			if err != nil {
				return nil, err
			}
			m[k.Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		l := make([]interface{}, 0, len(n.Content))
		for i, c := range n.Content {
			v, err := toValueDepth(c, path.Index(i), depth+1)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return l, nil
	case yaml.ScalarNode:
		return scalarValue(n, path)
	}
	return nil, &ValueError{Path: path, Msg: fmt.Sprintf("unexpected YAML node kind %d", n.Kind)}
}

// scalarValue decodes one scalar by its resolved tag.
func scalarValue(n *yaml.Node, path fieldpath.Path) (interface{}, error) {
	switch n.ShortTag() {
	case yaml.NodeTagNull:
		return nil, nil
	case yaml.NodeTagBool:
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, &ValueError{Path: path, Msg: err.Error()}
		}
		return b, nil
	case yaml.NodeTagInt:
		var i int64
		if err := n.Decode(&i); err == nil {
			return i, nil
		}
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, &ValueError{Path: path, Msg: err.Error()}
		}
		return f, nil
	case yaml.NodeTagFloat:
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, &ValueError{Path: path, Msg: err.Error()}
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, &ValueError{Path: path, Msg: fmt.Sprintf("%s has no JSON form", n.Value)}
		}
		if f == math.Trunc(f) && math.Abs(f) < 1<<63 {
			// JSON has one number type: kubectl reads 2.0 back as the integer 2
			return int64(f), nil
		}
		return f, nil
	}
	return n.Value, nil
}

// toJSON encodes a value as kubectl does (encoding/json: sorted keys, HTML escaped).
func toJSON(v interface{}) ([]byte, error) {
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// fromJSON decodes JSON as the API machinery does (integers as int64).
func fromJSON(b []byte) (interface{}, error) {
	var v interface{}
	if err := kjson.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// fromValue builds fresh YAML for a value: maps with sorted keys, block style; the
// encoder quotes strings that would otherwise read as another type.
func fromValue(v interface{}) *yaml.Node {
	switch x := v.(type) {
	case map[string]interface{}:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: yaml.NodeTagMap}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			n.Content = append(n.Content, newString(k), fromValue(x[k]))
		}
		return n
	case []interface{}:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: yaml.NodeTagSeq}
		for _, e := range x {
			n.Content = append(n.Content, fromValue(e))
		}
		return n
	case string:
		return newString(x)
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagBool, Value: strconv.FormatBool(x)}
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagNull, Value: "null"}
	case int64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagInt, Value: strconv.FormatInt(x, 10)}
	case int:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagInt, Value: strconv.Itoa(x)}
	case float64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagFloat, Value: strconv.FormatFloat(x, 'g', -1, 64)}
	case json.Number:
		tag := yaml.NodeTagFloat
		if _, err := x.Int64(); err == nil {
			tag = yaml.NodeTagInt
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: x.String()}
	}
	return newString(fmt.Sprint(v))
}

// newString is a fresh string scalar. Strings that a YAML 1.1 reader (kubectl's
// sigs.k8s.io/yaml) would take for another type, such as yes, on, 0777 or 1:20, are
// double quoted; yaml.v3 quotes only what YAML 1.2 would misread.
func newString(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: s}
	if len(s) < 64 && !strings.Contains(s, "\n") {
		if b, err := sigsyaml.YAMLToJSON([]byte(s)); err != nil || len(b) == 0 || b[0] != '"' {
			n.Style = yaml.DoubleQuotedStyle
		}
	}
	return n
}

// scalarText renders a scalar value for a field path selector ([name=x], [=x]), as the
// plan's paths render it (render.Render, render.Whole).
func scalarText(v interface{}) string { return render.Render(v, render.Whole) }
