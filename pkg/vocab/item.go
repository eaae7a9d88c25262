package vocab

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Location is where an item is: its resource and the file it comes from (a result's
// resourceRef and file, docs/function.md, "Output").
type Location struct {
	// Resource identifies the resource (apiVersion, kind, namespace, name); nil when
	// unknown.
	Resource *yaml.ResourceIdentifier
	// File is the item's path annotation (kpt's file path), "" when unknown; package
	// roles gives an inline source the name "functionConfig spec.<role>[i]" here.
	File string
	// Index is the item's index annotation within File.
	Index int
}

// LocationOf reads an item's location: ResourceRef(n), the path annotation as written
// (internal.config.kubernetes.io/path, else the legacy config.kubernetes.io/path, as
// kyaml's kioutil.GetFileAnnotations reads them; "" when absent) and the index
// annotation (internal.config.kubernetes.io/index, else config.kubernetes.io/index)
// read as a decimal number as fmt.Sscanf's %d reads one: leading spaces and a sign are
// taken, text after the digits is ignored, 0 when there is no number.
func LocationOf(n *yaml.RNode) Location {
	file, index, _ := kioutil.GetFileAnnotations(n)
	l := Location{Resource: ResourceRef(n), File: file}
	fmt.Sscanf(index, "%d", &l.Index)
	return l
}

// ResourceRef returns the identifier of a resource for a result's resourceRef: its
// apiVersion, kind, namespace and name as written; nil for a nil node or one whose
// metadata does not read.
func ResourceRef(n *yaml.RNode) *yaml.ResourceIdentifier {
	if n.IsNil() {
		return nil
	}
	m, err := n.GetMeta()
	if err != nil {
		return nil
	}
	return &yaml.ResourceIdentifier{
		TypeMeta: yaml.TypeMeta{APIVersion: m.APIVersion, Kind: m.Kind},
		NameMeta: yaml.NameMeta{Name: m.Name, Namespace: m.Namespace},
	}
}

// ItemError is bad input tied to a place: which resource, which file, which field.
// Every package that validates input returns it, so a user always learns where; package
// results turns it into an error result with that resourceRef, file and field
// (results.FromError).
type ItemError struct {
	// Location is the item's resource, file and index, each when known.
	Location
	// Field is the field path, when the problem is one field.
	Field string
	// Msg says what is wrong and what would be right.
	Msg string
}

// Error renders "<file>: <apiVersion> <kind> [<namespace>/]<name>: <field>: <msg>",
// leaving out the parts that are unknown, e.g. `dest/app.yaml: apps/v1 Deployment web:
// spec.replicas: ...`.
func (e *ItemError) Error() string {
	var parts []string
	if e.File != "" {
		parts = append(parts, e.File)
	}
	if e.Resource != nil {
		parts = append(parts, DescribeResource(e.Resource))
	}
	if e.Field != "" {
		parts = append(parts, e.Field)
	}
	parts = append(parts, e.Msg)
	return strings.Join(parts, ": ")
}

// DescribeResource renders a resource as results, errors and pkg update's report name
// it: "<apiVersion> <kind> [<namespace>/]<name>", e.g. "apps/v1 Deployment prod/web"
// (apiVersion and kind joined by a space and trimmed; then a space and the name, with
// the namespace and a slash before it when there is one, when there is a name).
func DescribeResource(r *yaml.ResourceIdentifier) string {
	name := r.Name
	if r.Namespace != "" {
		name = r.Namespace + "/" + name
	}
	s := strings.TrimSpace(r.APIVersion + " " + r.Kind)
	if name != "" {
		s += " " + name
	}
	return s
}
