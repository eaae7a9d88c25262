package fieldpath_test

import (
	"fmt"

	"github.com/krm-merge/krm-merge/pkg/fieldpath"
)

// describe names a step's selector (StepKind has no String method).
func describe(s fieldpath.Step) string {
	switch s.Kind {
	case fieldpath.Key:
		return fmt.Sprintf("key %v=%v", s.Keys, s.Values)
	case fieldpath.Value:
		return fmt.Sprintf("value %q", s.Val)
	case fieldpath.Index:
		return fmt.Sprintf("index %d", s.Idx)
	default:
		return fmt.Sprintf("field %q", s.Name)
	}
}

// A path as a user writes it (fieldRules, the field-rules annotation) and as results
// print it: fields joined by dots, [key=value] for a keyed list element, [=value] for
// a set element, [N] for a position. A dot inside a field name is escaped when
// written; String does not escape it (it renders a results entry's field.path, which
// kpt prints unescaped), so Parse(p.String()) is p only for names without dots.
func ExampleParse() {
	for _, s := range []string{
		"spec.template.spec.containers[name=app].ports[containerPort=80,protocol=TCP]",
		"metadata.finalizers[=example.com/protect]",
		`metadata.annotations.example\.com/owner`,
		"spec.rules[0].host",
	} {
		p, err := fieldpath.Parse(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s\n  %d steps, the last a %s\n", p, len(p), describe(p[len(p)-1]))
	}
	// Output:
	// spec.template.spec.containers[name=app].ports[containerPort=80,protocol=TCP]
	//   7 steps, the last a key [containerPort protocol]=[80 TCP]
	// metadata.finalizers[=example.com/protect]
	//   3 steps, the last a value "example.com/protect"
	// metadata.annotations.example.com/owner
	//   3 steps, the last a field "example.com/owner"
	// spec.rules[0].host
	//   4 steps, the last a field "host"
}

// Parse errors quote the path and the offending part.
func ExampleParse_errors() {
	for _, s := range []string{"spec..replicas", "spec.containers[name=app", "spec.ports[-1]"} {
		_, err := fieldpath.Parse(s)
		fmt.Println(err)
	}
	// Output:
	// field path "spec..replicas" has an empty field name at offset 5
	// field path "spec.containers[name=app" has a selector "[name=app" that is not closed with ']'
	// field path "spec.ports[-1]" has a selector [-1] that is neither [key=value], [=value] nor an index >= 0
}

// Building a path step by step, as the merge engine names the place of a conflict, and
// matching it against a path a user wrote: a selector with fewer keys selects the
// element of a list with two merge keys.
func ExamplePath_HasPrefix() {
	var p fieldpath.Path
	p = p.Field("spec").Field("template").Field("spec").Field("containers").
		Key([]string{"name"}, []string{"app"}).Field("ports").
		Key([]string{"containerPort", "protocol"}, []string{"80", "TCP"})
	fmt.Println(p)

	rule, _ := fieldpath.Parse("spec.template.spec.containers[name=app].ports[containerPort=80]")
	fmt.Println(p.HasPrefix(rule))
	other, _ := fieldpath.Parse("spec.template.spec.containers[name=sidecar]")
	fmt.Println(p.HasPrefix(other))
	// Output:
	// spec.template.spec.containers[name=app].ports[containerPort=80,protocol=TCP]
	// true
	// false
}
