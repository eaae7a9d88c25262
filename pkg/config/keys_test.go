package config

import (
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// contractKeys are the keys of docs/function.md's functionConfig table, in its order, then
// the keys this project adds (mergeKeys, fieldRules, plan, valueMerge).
var contractKeys = []string{"mode", "roleAnnotation", "originalPath", "updatedPath", "destPath", "srcPath",
	"mergeOnPath", "onConflict", "keepSources", "associativeKeys", "schema", "mergeKeys", "fieldRules", "plan", "valueMerge", "showSecretValues"}

func TestKeys(t *testing.T) {
	keys := Keys()
	var names, typedOnly []string
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k.Name] {
			t.Errorf("key %q listed twice", k.Name)
		}
		seen[k.Name] = true
		if k.TypedOnly {
			typedOnly = append(typedOnly, k.Name)
		} else {
			names = append(names, k.Name)
		}
		if k.Meaning == "" || k.Type == "" {
			t.Errorf("key %q lacks a meaning or type", k.Name)
		}
	}
	if !reflect.DeepEqual(names, contractKeys) {
		t.Errorf("ConfigMap keys %v, contract %v", names, contractKeys)
	}
	if !reflect.DeepEqual(typedOnly, []string{"original", "updated", "src"}) {
		t.Errorf("typed-only keys %v", typedOnly)
	}
	if !reflect.DeepEqual(keyNames(false), contractKeys) {
		t.Errorf("keyNames(false) = %v", keyNames(false))
	}

	// Keys returns copies.
	keys[0].Valid[0] = "changed"
	keys[0].Name = "changed"
	if again := Keys(); again[0].Name != "mode" || again[0].Valid[0] != "3way" {
		t.Error("Keys returns shared values")
	}
}

// TestKeysDefaultsAreReal: giving each key its documented default changes nothing, and
// every documented valid value loads.
func TestKeysDefaultsAreReal(t *testing.T) {
	for _, k := range Keys() {
		if k.Default == "" {
			continue
		}
		c := mustLoad(t, cm(k.Name, k.Default))
		if !reflect.DeepEqual(c, Defaults()) {
			t.Errorf("%s=%s gives %+v, not the defaults", k.Name, k.Default, c)
		}
		for _, v := range k.Valid {
			if _, err := Load(yaml.MustParse(cm(k.Name, v))); err != nil {
				t.Errorf("%s=%s: %v", k.Name, v, err)
			}
		}
	}
	// The onConflict default is documented as what kyaml does: updated wins.
	if k := Keys()[7]; k.Name != "onConflict" || !strings.Contains(k.Meaning, "updated wins") {
		t.Errorf("unexpected onConflict doc %+v", k)
	}
}
