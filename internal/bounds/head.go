package bounds

import (
	"strconv"
	"strings"
	"unicode"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/yamlnull"
)

// HeadFault is a field of an item's head that does not have the shape every KRM tool
// reads it with (BadHead).
type HeadFault struct {
	// Field is the field's path as results spell it ("metadata.annotations",
	// "metadata.annotations.a"); "" for the item itself.
	Field string
	// Problem is what is wrong and what would be right, as the message goes on after the
	// field: `is a list; it is a map of string keys to string values`. A scalar's value
	// in it is quoted and cut to 40 bytes, so no control character or whole document
	// reaches a message.
	Problem string
}

// Message is the fault as one sentence: "metadata.annotations is a list; it is a map of
// string keys to string values" ("the item ..." for the item itself).
func (f *HeadFault) Message() string {
	what := f.Field
	if what == "" {
		what = "the item"
	}
	return what + " " + f.Problem
}

// fault is a HeadFault at field: "is <got(n)>; <want>".
func fault(field string, n *yaml.Node, want string) *HeadFault {
	return &HeadFault{Field: field, Problem: "is " + got(n) + "; " + want}
}

// mergeKey is the fault of a map at field that holds a YAML merge key.
func mergeKey(field string) *HeadFault {
	return &HeadFault{Field: field, Problem: "has a YAML merge key (<<); write the fields out: kyaml's reads of the head do not see merged fields"}
}

// BadHead returns the first field of item's head (item is a resource as a ResourceList
// holds it: a map, or a document holding one) whose shape kyaml's readers and annotation
// edits, which run on every item before a function sees it, cannot take, or would read
// differently from a YAML decoder; nil when there is none. They fail with no word on
// where ("wrong node kind"), panic, or drop or misread the field:
//
//   - the item is not a map (a list, a scalar, null, an alias);
//   - apiVersion or kind, when given, is not a scalar;
//   - metadata, when given and not null, is not a map;
//   - metadata.name or metadata.namespace, when given, is not a scalar;
//   - apiVersion, kind, metadata.name or metadata.namespace holds a control character:
//     results name the resource by them (resourceRef), and kpt prints results to a
//     terminal, where an escape sequence would act;
//   - metadata.annotations or metadata.labels, when given and not null, is not a map, or
//     has a key or a value that is not a scalar;
//   - any of these is an alias, or the item, metadata, annotations or labels holds a
//     YAML merge key (<<): kyaml's field reads take an alias's name for its value and
//     do not see merged fields, where a decoder (GetMeta) follows both.
//
// Other fields are not looked at. Cost: the head's keys.
func BadHead(item *yaml.Node) *HeadFault {
	if item != nil && item.Kind == yaml.DocumentNode && len(item.Content) == 1 {
		item = item.Content[0]
	}
	const resource = "an item is a KRM resource: a map with apiVersion, kind and metadata"
	if item == nil || item.Kind != yaml.MappingNode {
		return fault("", item, resource)
	}
	if hasMergeKey(item) {
		return mergeKey("")
	}
	if f := scalarField(item, "apiVersion", "", `it is a string such as "apps/v1"`); f != nil {
		return f
	}
	if f := scalarField(item, "kind", "", `it is a string such as "Deployment"`); f != nil {
		return f
	}
	md := field(item, yaml.MetadataField)
	if md == nil || yamlnull.Is(md) {
		return nil
	}
	if md.Kind != yaml.MappingNode {
		return fault("metadata", md, "it is a map (name, namespace, labels, annotations)")
	}
	if hasMergeKey(md) {
		return mergeKey("metadata")
	}
	for _, name := range []string{"name", "namespace"} {
		if f := scalarField(md, name, "metadata.", "it is a string"); f != nil {
			return f
		}
	}
	for _, m := range []struct{ name, one string }{{yaml.AnnotationsField, "an annotation"}, {yaml.LabelsField, "a label"}} {
		if f := stringMap(field(md, m.name), "metadata."+m.name, m.one); f != nil {
			return f
		}
	}
	return nil
}

// stringMap checks a map of string keys to string values (annotations, labels) at path;
// absent or null is fine.
func stringMap(m *yaml.Node, path, one string) *HeadFault {
	if m == nil || yamlnull.Is(m) {
		return nil
	}
	const want = "it is a map of string keys to string values"
	if m.Kind != yaml.MappingNode {
		return fault(path, m, want)
	}
	if hasMergeKey(m) {
		return mergeKey(path)
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return &HeadFault{Field: path, Problem: "has a key that is " + got(k) + "; keys are strings"}
		}
		if v.Kind != yaml.ScalarNode {
			return fault(path+"."+printable(k.Value), v, one+" value is a string (quote it)")
		}
	}
	return nil
}

// scalarField checks that m's field name, when given, is a scalar; path prefixes the
// field's name in the fault.
func scalarField(m *yaml.Node, name, path, want string) *HeadFault {
	v := field(m, name)
	if v != nil && v.Kind == yaml.ScalarNode && strings.IndexFunc(v.Value, unicode.IsControl) >= 0 {
		return &HeadFault{Field: path + name, Problem: "holds a control character (" + quoted(v.Value) + "); " +
			"results name a resource by it, and a host prints them to a terminal"}
	}
	if v == nil || v.Kind == yaml.ScalarNode {
		return nil
	}
	if v.Kind == yaml.AliasNode {
		want = "write the value out: kyaml reads an alias's name, not its value"
	}
	return fault(path+name, v, want)
}

// field is m's first field name (the one kyaml's reads find), nil when absent.
func field(m *yaml.Node, name string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Kind == yaml.ScalarNode && m.Content[i].Value == name {
			return m.Content[i+1]
		}
	}
	return nil
}

func hasMergeKey(m *yaml.Node) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == "<<" && (k.Tag == "" || k.ShortTag() == "!!merge") {
			return true
		}
	}
	return false
}

// Describe names what n is, for messages: "a map", "a list", `a scalar ("x")` (the
// value quoted and cut to 40 bytes, so no control character or whole document reaches a
// message), "an alias (*a)", "null (empty)" (also for a nil n), "a document".
func Describe(n *yaml.Node) string { return got(n) }

// got is Describe.
func got(n *yaml.Node) string {
	switch {
	case n == nil || yamlnull.Is(n):
		return "null (empty)"
	case n.Kind == yaml.MappingNode:
		return "a map"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.AliasNode:
		return "an alias (*" + n.Value + ")"
	case n.Kind == yaml.DocumentNode:
		return "a document"
	}
	return "a scalar (" + quoted(n.Value) + ")"
}

// quoted is v quoted as Go does (control characters escaped), cut to 40 bytes.
func quoted(v string) string {
	if len(v) > 40 {
		return strconv.Quote(v[:40]) + "..."
	}
	return strconv.Quote(v)
}

// printable is key as a field path shows it: quoted when it holds a control character.
func printable(key string) string {
	if strings.IndexFunc(key, unicode.IsControl) >= 0 {
		return strconv.Quote(key)
	}
	return key
}

// AliasOutside returns the name of the first alias in n (preorder) whose anchor is
// neither n nor inside n, "" when there is none: n written on its own (a functionConfig
// echoed back without the fields around it) would hold an alias with no anchor, which
// no parser reads. Cost: one walk of n, aliases not followed.
func AliasOutside(n *yaml.Node) string {
	inside := map[*yaml.Node]bool{}
	var aliases []*yaml.Node
	var walk func(*yaml.Node)
	walk = func(x *yaml.Node) {
		if x == nil || inside[x] {
			return
		}
		inside[x] = true
		if x.Kind == yaml.AliasNode {
			aliases = append(aliases, x)
			return
		}
		for _, c := range x.Content {
			walk(c)
		}
	}
	walk(n)
	for _, a := range aliases {
		if !inside[a.Alias] {
			return a.Value
		}
	}
	return ""
}
