package config

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	openapierrors "k8s.io/kube-openapi/pkg/validation/errors"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

//go:embed schema.yaml
var schemaYAML string

var (
	schemaOnce   sync.Once
	schemaParsed *spec.Schema
	schemaErr    error
)

// sharedSchema parses the embedded schema (schema.yaml: the OpenAPI v3 schema of the
// typed functionConfig, fn.krm-merge.dev/v1alpha1 ResourceMerge, against which Load
// validates that form; docs/function.md, "functionConfig": "validated against an
// OpenAPI schema with errors that name the field") once. It has no $ref, so
// kube-openapi's validate.AgainstSchema can use it as it is. Callers must not change
// the result. The error is non-nil only if the embedded schema does not parse, which
// the package's tests rule out.
func sharedSchema() (*spec.Schema, error) {
	schemaOnce.Do(func() {
		schemaParsed, schemaErr = parseSchema(schemaYAML)
	})
	return schemaParsed, schemaErr
}

// parseSchema reads an OpenAPI schema written in YAML (anchors allowed).
func parseSchema(text string) (*spec.Schema, error) {
	node, err := yaml.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("config: parsing the ResourceMerge schema: %w", err)
	}
	b, err := node.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("config: parsing the ResourceMerge schema: %w", err)
	}
	s := &spec.Schema{}
	if err := json.Unmarshal(b, s); err != nil {
		return nil, fmt.Errorf("config: parsing the ResourceMerge schema: %w", err)
	}
	return s, nil
}

// schemaCodesReportedByLoad are the kube-openapi failure codes whose rules Load checks
// itself with better messages (naming the key or value and listing the valid ones), so
// the schema's own report of them would only repeat the problem.
var schemaCodesReportedByLoad = map[int32]bool{
	openapierrors.UnallowedPropertyCode: true, // unknown key
	openapierrors.EnumFailCode:          true, // bad enum value
	openapierrors.UniqueFailCode:        true, // duplicate associative key
	openapierrors.MinItemsFailCode:      true, // empty associativeKeys
}

// schemaErrors turns the failures of the typed functionConfig's validation against the
// schema (kube-openapi's validate.AgainstSchema, as framework.LoadFunctionConfig runs
// it; data is the functionConfig as JSON values) into one Error per failure, sorted by
// field, leaving out the failures Load reports itself (schemaCodesReportedByLoad, and
// empty strings in roleAnnotation and associativeKeys). nil for no failure.
func schemaErrors(verr error, data interface{}) Errors {
	if verr == nil {
		return nil
	}
	var fails []error
	if c, ok := verr.(*openapierrors.CompositeError); ok {
		fails = flattenComposite(c)
	} else {
		fails = []error{verr}
	}
	var errs Errors
	for _, f := range fails {
		e := &Error{Message: f.Error()}
		if v, ok := f.(*openapierrors.Validation); ok {
			if reportedByRules(v.Name) {
				continue
			}
			if schemaCodesReportedByLoad[v.Code()] {
				continue
			}
			if v.Code() == openapierrors.TooShortFailCode && reportedByLoad(v.Name) {
				continue
			}
			e.Field = v.Name
			if v.Code() == openapierrors.InvalidTypeCode {
				// v.Value is the name of the wrong type; report the value itself.
				e.Value = scalarAt(data, v.Name)
			} else if v.Value != nil {
				e.Value = fmt.Sprint(v.Value)
			}
			for _, val := range v.Values {
				e.Valid = append(e.Valid, fmt.Sprint(val))
			}
		}
		errs = append(errs, e)
	}
	sort.SliceStable(errs, func(i, j int) bool {
		if errs[i].Field != errs[j].Field {
			return errs[i].Field < errs[j].Field
		}
		return errs[i].Message < errs[j].Message
	})
	return errs
}

// scalarAt returns the scalar at a validator path such as "spec.original[1].kind" in
// data decoded from JSON, as text; "" when there is none or it is a map or list.
func scalarAt(data interface{}, path string) string {
	cur := data
	for _, seg := range strings.Split(path, ".") {
		name, rest, _ := strings.Cut(seg, "[")
		m, ok := cur.(map[string]interface{})
		if !ok {
			return ""
		}
		if cur, ok = m[name]; !ok {
			return ""
		}
		for rest != "" {
			var i int
			var tail string
			if _, err := fmt.Sscanf(rest, "%d]", &i); err != nil {
				return ""
			}
			_, tail, _ = strings.Cut(rest, "]")
			rest = strings.TrimPrefix(tail, "[")
			list, ok := cur.([]interface{})
			if !ok || i < 0 || i >= len(list) {
				return ""
			}
			cur = list[i]
		}
	}
	switch cur.(type) {
	case map[string]interface{}, []interface{}:
		return ""
	case nil:
		return "null"
	}
	return fmt.Sprint(cur)
}

// reportedByLoad reports whether Load checks the length of the field at path itself.
func reportedByLoad(path string) bool {
	return path == "spec."+KeyRoleAnnotation || strings.HasPrefix(path, "spec."+KeyAssociativeKeys+"[")
}

// reportedByRules reports whether the field at path is in the mergeKeys or fieldRules
// tables, which Load checks itself in both forms (rules.go), so that each problem is
// reported once, with the same message.
func reportedByRules(path string) bool {
	for _, k := range []string{KeyMergeKeys, KeyFieldRules} {
		if path == "spec."+k || strings.HasPrefix(path, "spec."+k+"[") || strings.HasPrefix(path, "spec."+k+".") {
			return true
		}
	}
	return false
}

// flattenComposite lists the leaf failures of a kube-openapi CompositeError.
func flattenComposite(c *openapierrors.CompositeError) []error {
	var out []error
	for _, e := range c.Errors {
		if inner, ok := e.(*openapierrors.CompositeError); ok {
			out = append(out, flattenComposite(inner)...)
			continue
		}
		out = append(out, e)
	}
	return out
}
