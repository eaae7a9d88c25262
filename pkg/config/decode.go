package config

import (
	"errors"

	openapierrors "k8s.io/kube-openapi/pkg/validation/errors"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The functionConfig is decoded by kyaml's framework.LoadFunctionConfig, which runs
// its steps on functionConfig below: validate against Schema() (the typed form's
// OpenAPI schema), decode into the struct with sigs.k8s.io/yaml, Default(), then
// Validate(), the schema's failures (wrapped in a go-errors error) and Validate's
// combined into one CompositeError; when the decoding fails it returns the schema's
// failures, or else the decoding error, and runs neither Default nor Validate. Both
// forms load into the one Config.
//
// What stays this package's, and why:
//   - before the call (load.go), the shape checks LoadFunctionConfig has none of: the
//     apiVersion and kind (it decodes any object), unknown and repeated keys in the
//     order they appear (its decoding drops unknown keys and fails on the first repeated
//     one with sigs.k8s.io/yaml's wording), and the typed form read as JSON values: a
//     node without a JSON form is "cannot read the ResourceMerge", where
//     LoadFunctionConfig would panic (kube-openapi's validator gets nil);
//   - the inline resources, which LoadFunctionConfig would encode to YAML text and read
//     back three times (the schema's JSON, the struct's YAML, and this package's JSON):
//     it sees them cut down to the fields the schema checks (view.go);
//   - the values (Default, values.go): sigs.k8s.io/yaml reads YAML 1.1 and goes through
//     JSON, so an unquoted yes would be true and 1.0 would be 1 (the ConfigMap's values
//     are taken as written), key order is lost (problems are reported in the order the
//     keys appear) and inline resources would lose their comments and field order. The
//     struct therefore decodes only apiVersion and kind; Default reads the values from
//     the node as written;
//   - the schema's failures are filtered and sorted (openapi.go, schemaErrors), and the
//     checks of several keys run only once every value is valid on its own (Load, after
//     the call), which LoadFunctionConfig cannot tell Validate.

// functionConfig is what framework.LoadFunctionConfig decodes into: apiVersion and kind
// by sigs.k8s.io/yaml, the rest read by Default from the node as written into the
// loader's Config. It implements framework.ValidationSchemaProvider, framework.Defaulter
// and framework.Validator.
type functionConfig struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`

	l *loader
}

var (
	_ framework.ValidationSchemaProvider = (*functionConfig)(nil)
	_ framework.Defaulter                = (*functionConfig)(nil)
	_ framework.Validator                = (*functionConfig)(nil)
)

// Schema returns the typed form's OpenAPI schema (schema.yaml, sharedSchema), or for the ConfigMap form an
// empty schema, which accepts any object: its data values are checked by Default.
func (f *functionConfig) Schema() (*spec.Schema, error) {
	if f.l.prefix != "spec" {
		return &spec.Schema{}, nil
	}
	return sharedSchema()
}

// Default fills the Config: Defaults(), then each key given, checked as it is read (the
// problems go to the loader, for Validate). It never fails.
func (f *functionConfig) Default() error {
	*f.l.cfg = *Defaults()
	if f.Kind == Kind {
		f.l.typedValues()
	} else {
		f.l.configMapValues()
	}
	return nil
}

// Validate returns the problems found so far (Errors), nil for none.
func (f *functionConfig) Validate() error {
	if len(f.l.errs) == 0 {
		return nil
	}
	return f.l.errs
}

// decode runs framework.LoadFunctionConfig on node, whose form checkConfigMap or
// checkTyped has checked, and records its problems: the schema's failures
// (schemaErrors) before the values' problems, and a failure of its decoding as "cannot
// read the ...". The typed form is handed over as checkTyped's view, its inline
// resources cut down to the fields the schema checks (checkTyped has read the view as
// JSON: LoadFunctionConfig panics on a node that has no JSON form); the ConfigMap form
// as its apiVersion and kind: its metadata is ignored and its data read as written.
func (l *loader) decode(node *yaml.Node) {
	form := Kind
	view := node
	if l.prefix != "spec" {
		form = ConfigMapKind
		view = &yaml.Node{Kind: yaml.MappingNode, Tag: yaml.NodeTagMap}
		// apiVersion and kind once each: a repeated key (reported by checkTopLevel) has
		// no JSON form, and LoadFunctionConfig panics on a node without one
		for _, k := range []string{"apiVersion", "kind"} {
			view.Content = append(view.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: k}, mapValue(node, k))
		}
	}
	err := framework.LoadFunctionConfig(yaml.NewRNode(view), &functionConfig{l: l})
	if err == nil {
		return
	}
	leaves := []error{err}
	var combined *openapierrors.CompositeError
	if errors.As(err, &combined) {
		leaves = combined.Errors
	}
	var schemaFails []error
	var other error
	for _, e := range leaves {
		var ours Errors
		var composite *openapierrors.CompositeError
		var v *openapierrors.Validation
		switch {
		case errors.As(e, &ours):
			// l.errs, returned by Validate
		case errors.As(e, &composite):
			schemaFails = append(schemaFails, composite.Errors...)
		case errors.As(e, &v):
			schemaFails = append(schemaFails, v)
		default:
			other = e
		}
	}
	var schemaErrs Errors
	if len(schemaFails) > 0 {
		schemaErrs = schemaErrors(&openapierrors.CompositeError{Errors: schemaFails}, l.data)
	}
	l.errs = append(schemaErrs, l.errs...)
	if other != nil {
		l.fail("", "", nil, "cannot read the %s: %v", form, other)
	}
}
