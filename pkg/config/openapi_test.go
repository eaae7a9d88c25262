package config

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"

	"github.com/krm-merge/krm-merge/pkg/schema"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

func TestSchemaMatchesKeys(t *testing.T) {
	s, err := OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	if !s.Type.Contains("object") || s.AdditionalProperties == nil || s.AdditionalProperties.Allows {
		t.Errorf("root schema must be a closed object: %+v", s.Type)
	}
	if got := s.Properties["apiVersion"].Enum; len(got) != 1 || got[0] != APIVersion {
		t.Errorf("apiVersion enum = %v", got)
	}
	if got := s.Properties["kind"].Enum; len(got) != 1 || got[0] != Kind {
		t.Errorf("kind enum = %v", got)
	}
	specSchema := s.Properties["spec"]
	if specSchema.AdditionalProperties == nil || specSchema.AdditionalProperties.Allows {
		t.Error("spec must not allow unknown keys")
	}
	var props []string
	for name := range specSchema.Properties {
		props = append(props, name)
	}
	sort.Strings(props)
	names := keyNames(true)
	sort.Strings(names)
	if !reflect.DeepEqual(props, names) {
		t.Fatalf("spec properties %v differ from Keys() %v", props, names)
	}

	wantType := map[string]string{"string": "string", "boolean": "boolean", "list of strings": "array", "list of objects": "array", "list of resources": "array"}
	for _, k := range Keys() {
		p := specSchema.Properties[k.Name]
		if !p.Type.Contains(wantType[k.Type]) {
			t.Errorf("%s: schema type %v, Keys() type %q", k.Name, p.Type, k.Type)
		}
		if k.Type == "list of strings" && !p.Items.Schema.Type.Contains("string") {
			t.Errorf("%s: items are not strings", k.Name)
		}
		if k.Type == "list of resources" && !p.Items.Schema.Type.Contains("object") {
			t.Errorf("%s: items are not objects", k.Name)
		}
		// Enums (booleans aside) list the Go constants, in the same order.
		if k.Valid != nil && k.Type == "string" {
			var enum []string
			for _, v := range p.Enum {
				enum = append(enum, v.(string))
			}
			if !reflect.DeepEqual(enum, k.Valid) {
				t.Errorf("%s: schema enum %v, Keys() valid %v", k.Name, enum, k.Valid)
			}
		}
		// Documented defaults agree.
		switch def := p.Default.(type) {
		case nil:
			if k.Default != "" {
				t.Errorf("%s: Keys() default %q, none in the schema", k.Name, k.Default)
			}
		case string:
			if def != k.Default {
				t.Errorf("%s: schema default %q, Keys() %q", k.Name, def, k.Default)
			}
		case bool:
			if (map[bool]string{true: "true", false: "false"})[def] != k.Default {
				t.Errorf("%s: schema default %v, Keys() %q", k.Name, def, k.Default)
			}
		case []interface{}:
			var list []string
			for _, v := range def {
				list = append(list, v.(string))
			}
			if strings.Join(list, ",") != k.Default || !reflect.DeepEqual(list, schema.DefaultAssociativeKeys()) {
				t.Errorf("%s: schema default %v, Keys() %q", k.Name, list, k.Default)
			}
		default:
			t.Errorf("%s: unexpected default %T", k.Name, def)
		}
	}
	if got := specSchema.Properties["mode"].Enum; len(got) != 3 || got[0] != string(vocab.ThreeWay) || got[1] != string(vocab.TwoWay) || got[2] != string(vocab.Apply) {
		t.Errorf("mode enum %v", got)
	}
}

// TestSchemaIsACopy: callers may change what Schema returns.
func TestSchemaIsACopy(t *testing.T) {
	a, err := OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	delete(a.Properties, "spec")
	b, err := OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := b.Properties["spec"]; !ok {
		t.Fatal("Schema returns a shared value")
	}
	if !strings.Contains(OpenAPIYAML(), "ResourceMerge") {
		t.Error("OpenAPIYAML lacks the kind")
	}
}

// TestSchemaValidates: the exported schema works with kube-openapi's validator as it is
// (no $ref), accepting a full typed config and naming the field of a bad one.
func TestSchemaValidates(t *testing.T) {
	s, err := OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	good := map[string]interface{}{
		"apiVersion": APIVersion, "kind": Kind,
		"metadata": map[string]interface{}{"name": "x", "annotations": map[string]interface{}{"a": "b"}},
		"spec": map[string]interface{}{
			"mode": "3way", "roleAnnotation": "a/b", "mergeOnPath": true, "keepSources": false,
			"onConflict": "error", "schema": "none", "associativeKeys": []interface{}{"name"},
			"original": []interface{}{map[string]interface{}{"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]interface{}{"name": "a"}, "data": map[string]interface{}{"k": "v"}}},
			"updated": []interface{}{},
		},
	}
	if err := validate.AgainstSchema(s, good, strfmt.Default); err != nil {
		t.Errorf("valid config rejected: %v", err)
	}
	bad := map[string]interface{}{"apiVersion": APIVersion, "kind": Kind,
		"spec": map[string]interface{}{"keepSources": "yes", "mode": "4way", "extra": 1}}
	err = validate.AgainstSchema(s, bad, strfmt.Default)
	if err == nil {
		t.Fatal("bad config accepted")
	}
	for _, want := range []string{"spec.keepSources in body must be of type boolean", "spec.mode in body should be one of", "spec.extra in body is a forbidden property"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("schema error %q lacks %q", err, want)
		}
	}
}
