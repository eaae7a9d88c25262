package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestLoadErrors covers every problem Load reports, in both forms where the problem
// exists in both. Each case names the field (Error.Field), and the message text that
// must appear.
func TestLoadErrors(t *testing.T) {
	const dataKeys = "mode, roleAnnotation, originalPath, updatedPath, destPath, srcPath, mergeOnPath, onConflict, keepSources, associativeKeys, schema, mergeKeys, fieldRules, plan, valueMerge, showSecretValues"
	const specKeys = dataKeys + ", original, updated, src"
	tests := []struct {
		name  string
		input string
		field string
		msg   string   // must be in the first error's message
		valid []string // the first error's Valid, when set
		count int      // number of problems; 0 means 1
	}{
		// The functionConfig as a whole.
		{name: "not a map", input: "[a, b]",
			msg: "must be a map (a v1 ConfigMap or a fn.krm-merge.dev/v1alpha1 ResourceMerge); got a list"},
		{name: "other kind", input: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n", field: "kind",
			msg:   `apiVersion "apps/v1", kind "Deployment" is not accepted; accepted: v1 ConfigMap, fn.krm-merge.dev/v1alpha1 ResourceMerge`,
			valid: []string{"v1 ConfigMap", "fn.krm-merge.dev/v1alpha1 ResourceMerge"}},
		{name: "ResourceMerge of another version", input: "apiVersion: fn.krm-merge.dev/v1\nkind: ResourceMerge\n",
			field: "apiVersion", msg: `apiVersion "fn.krm-merge.dev/v1", kind "ResourceMerge" is not accepted`},
		{name: "map without kind", input: "data: {mode: 2way}\n", field: "kind", msg: `apiVersion "", kind "" is not accepted`},

		// Keys whose values do not go together.
		{name: "onConflict dest in apply mode", input: cm("mode", "apply") + "  onConflict: dest\n", field: "data.onConflict",
			msg: "onConflict: dest does not apply in apply mode", valid: []string{"updated", "error"}},

		// Unknown and repeated keys.
		{name: "unknown data key", input: cm("mergeOnpath", "true"), field: "data.mergeOnpath",
			msg:   `unknown key "mergeOnpath"; valid keys: ` + dataKeys + `; did you mean "mergeOnPath"?`,
			valid: strings.Split(dataKeys, ", ")},
		{name: "unknown spec key", input: typed("mergeOnpath: true"), field: "spec.mergeOnpath",
			msg:   `unknown key "mergeOnpath"; valid keys: ` + specKeys + `; did you mean "mergeOnPath"?`,
			valid: strings.Split(specKeys, ", ")},
		{name: "unknown spec key the schema validator ignores", input: typed("id: x"), field: "spec.id",
			msg: `unknown key "id"; valid keys: ` + specKeys},
		{name: "unknown key, no suggestion", input: cm("flavour", "x"), field: "data.flavour",
			msg: `unknown key "flavour"; valid keys: ` + dataKeys + "\x00"},
		{name: "inline key in a ConfigMap", input: cm("original", "x"), field: "data.original",
			msg: `unknown key "original"; valid keys: ` + dataKeys + ` (inline original, updated and src need the typed fn.krm-merge.dev/v1alpha1 ResourceMerge form)`},
		{name: "config key at the top of a ConfigMap", input: cm() + "mode: 2way\n", field: "mode",
			msg:   `unknown top-level key "mode"; valid keys: apiVersion, kind, metadata, data; functionConfig keys go under data`,
			valid: []string{"apiVersion", "kind", "metadata", "data"}},
		{name: "misspelt spec", input: typed("") + "specs: {mode: 2way}\n", field: "specs",
			msg: `unknown top-level key "specs"; valid keys: apiVersion, kind, metadata, spec`},
		{name: "repeated data key", input: cm("mode", "2way", "mode", "3way"), field: "data.mode",
			msg: `key "mode" is given twice`},
		{name: "repeated spec key", input: typed("keepSources: true\nkeepSources: false"), field: "spec.keepSources",
			msg: `key "keepSources" is given twice`},
		{name: "repeated top-level key of a ConfigMap, with a bad value", input: "apiVersion: v1\nkind: ConfigMap\napiVersion: v1\ndata: {mode: x}\n",
			field: "apiVersion", msg: `top-level key "apiVersion" is given twice`, count: 2},

		// Enum values.
		{name: "bad mode in data", input: cm("mode", "3-way"), field: "data.mode",
			msg:   `mode "3-way" is invalid; valid values: 3way, 2way, apply; did you mean "3way"?`,
			valid: []string{"3way", "2way", "apply"}},
		{name: "bad mode in spec", input: typed("mode: merge"), field: "spec.mode",
			msg: `mode "merge" is invalid; valid values: 3way, 2way, apply` + "\x00"},
		{name: "empty mode", input: cm("mode", ""), field: "data.mode", msg: `mode "" is invalid; valid values: 3way, 2way, apply`},
		{name: "bad onConflict in data", input: cm("onConflict", "theirs"), field: "data.onConflict",
			msg: `onConflict "theirs" is invalid; valid values: updated, dest, error, mark`, valid: []string{"updated", "dest", "error", "mark"}},
		{name: "bad onConflict in spec", input: typed("onConflict: Dest"), field: "spec.onConflict",
			msg: `onConflict "Dest" is invalid; valid values: updated, dest, error, mark; did you mean "dest"?`},
		{name: "bad schema in data", input: cm("schema", "openapi"), field: "data.schema",
			msg: `schema "openapi" is invalid; valid values: kubernetes, none`, valid: []string{"kubernetes", "none"}},
		{name: "bad schema in spec", input: typed("schema: None"), field: "spec.schema",
			msg: `schema "None" is invalid; valid values: kubernetes, none; did you mean "none"?`},
		{name: "bad bool mergeOnPath in data", input: cm("mergeOnPath", "yes"), field: "data.mergeOnPath",
			msg: `mergeOnPath "yes" is invalid; valid values: true, false`, valid: []string{"true", "false"}},
		{name: "bad bool keepSources in data", input: cm("keepSources", "1"), field: "data.keepSources",
			msg: `keepSources "1" is invalid; valid values: true, false`},
		{name: "bad bool plan in data", input: cm("plan", "yes"), field: "data.plan",
			msg: `plan "yes" is invalid; valid values: true, false`},
		{name: "string for plan", input: typed(`plan: "true"`), field: "spec.plan",
			msg: `spec.plan in body must be of type boolean`},
		{name: "bad bool valueMerge in data", input: cm("valueMerge", "off"), field: "data.valueMerge",
			msg: `valueMerge "off" is invalid; valid values: true, false`, valid: []string{"true", "false"}},
		{name: "string for valueMerge", input: typed(`valueMerge: "false"`), field: "spec.valueMerge",
			msg: `spec.valueMerge in body must be of type boolean`},

		// Types in the typed form, from the schema, naming the field.
		{name: "string for a boolean", input: typed(`mergeOnPath: "true"`), field: "spec.mergeOnPath",
			msg: `spec.mergeOnPath in body must be of type boolean`},
		{name: "string for keepSources", input: typed(`keepSources: "false"`), field: "spec.keepSources",
			msg: `spec.keepSources in body must be of type boolean`},
		{name: "number for mode", input: typed("mode: 3"), field: "spec.mode", msg: `spec.mode in body must be of type string`},
		{name: "null for mode", input: typed("mode: null"), field: "spec.mode", msg: `spec.mode in body must be of type string`},
		{name: "map for a path", input: typed("destPath: {a: b}"), field: "spec.destPath",
			msg: `spec.destPath in body must be of type string`},
		{name: "comma string for associativeKeys", input: typed("associativeKeys: name,id"), field: "spec.associativeKeys",
			msg: `spec.associativeKeys in body must be of type array`},
		{name: "number in associativeKeys", input: typed("associativeKeys: [name, 1]"), field: "spec.associativeKeys[1]",
			msg: `spec.associativeKeys[1] in body must be of type string`},
		{name: "spec a list", input: typed("") + "spec: [mode]\n", field: "spec", msg: `spec in body must be of type object`},
		{name: "metadata a string", input: "apiVersion: fn.krm-merge.dev/v1alpha1\nkind: ResourceMerge\nmetadata: x\n",
			field: "metadata", msg: `metadata in body must be of type object`},
		{name: "inline list a map", input: typed("original: {a: b}\nupdated: []"), field: "spec.original",
			msg: `spec.original in body must be of type array`},
		{name: "inline item a string", input: typed("mode: 2way\nsrc: [x]"), field: "spec.src[0]",
			msg: `spec.src[0] in body must be of type object`},
		{name: "inline item without name", input: typed("mode: apply\nupdated:\n- {apiVersion: v1, kind: ConfigMap, metadata: {}}"),
			field: "spec.updated[0].metadata.name", msg: `spec.updated[0].metadata.name in body is required`},
		{name: "inline item without kind", input: typed("original: []\nupdated:\n- {apiVersion: v1, metadata: {name: a}}"),
			field: "spec.updated[0].kind", msg: `spec.updated[0].kind in body is required`},
		{name: "several type errors, all reported, sorted by field", input: typed("schema: 1\nkeepSources: x\nmode: 2\n"),
			field: "spec.keepSources", msg: `spec.keepSources in body must be of type boolean`, count: 3},
		{name: "ConfigMap value a map", input: cm() + "data:\n  mode: {a: b}\n", field: "data.mode",
			msg: "mode must be a string; got a map (ConfigMap data values are strings)"},
		{name: "ConfigMap associativeKeys a list", input: cm() + "data:\n  associativeKeys: [a, b]\n", field: "data.associativeKeys",
			msg: `associativeKeys must be a string; got a list (ConfigMap data values are strings; write a list as "mountPath,name")`},
		{name: "ConfigMap data a list", input: cm() + "data: [a]\n", field: "data", msg: "data must be a map of string values; got a list"},

		// roleAnnotation.
		{name: "roleAnnotation with a space", input: cm("roleAnnotation", "merge source"), field: "data.roleAnnotation",
			msg: `roleAnnotation "merge source" is not a valid annotation key: the name "merge source" must be`},
		{name: "roleAnnotation with an uppercase prefix", input: typed("roleAnnotation: Example.com/role"), field: "spec.roleAnnotation",
			msg: `roleAnnotation "Example.com/role" is not a valid annotation key: the prefix "Example.com" must be a DNS subdomain`},
		{name: "empty roleAnnotation", input: typed(`roleAnnotation: ""`), field: "spec.roleAnnotation",
			msg: `roleAnnotation "" is not a valid annotation key: it is empty`},
		{name: "roleAnnotation name too long", input: cm("roleAnnotation", "a/"+strings.Repeat("x", 64)), field: "data.roleAnnotation",
			msg: "must be at most 63 characters"},

		// Paths.
		{name: "absolute path in data", input: cm("destPath", "/pkg/dest"), field: "data.destPath",
			msg: `destPath "/pkg/dest" is absolute; paths are relative to the package root`},
		{name: "absolute path in spec", input: typed("mode: 2way\nsrcPath: /src\ndestPath: dest"), field: "spec.srcPath",
			msg: `srcPath "/src" is absolute`},
		{name: "path leaving the package in data", input: cm("originalPath", "../original"), field: "data.originalPath",
			msg: `originalPath "../original" leaves the package root`},
		{name: "path leaving the package after cleaning", input: typed("updatedPath: a/../../b"), field: "spec.updatedPath",
			msg: `updatedPath "a/../../b" leaves the package root`},
		{name: "path ..", input: cm("destPath", ".."), field: "data.destPath", msg: `destPath ".." leaves the package root`},

		// associativeKeys.
		{name: "duplicate associative key in data", input: cm("associativeKeys", "name,id, name"), field: "data.associativeKeys",
			msg: `associativeKeys lists "name" twice`},
		{name: "duplicate associative key in spec", input: typed("associativeKeys: [name, name]"), field: "spec.associativeKeys",
			msg: `associativeKeys lists "name" twice`},
		{name: "empty associative key in data", input: cm("associativeKeys", "name,,id"), field: "data.associativeKeys",
			msg: "associativeKeys has an empty key"},
		{name: "empty associative key in spec", input: typed(`associativeKeys: [name, ""]`), field: "spec.associativeKeys",
			msg: "associativeKeys has an empty key"},
		{name: "blank associativeKeys in data", input: cm("associativeKeys", " "), field: "data.associativeKeys",
			msg: "associativeKeys must list at least one key; leave it out for the defaults (mountPath, devicePath"},
		{name: "empty associativeKeys in spec", input: typed("associativeKeys: []"), field: "spec.associativeKeys",
			msg: "associativeKeys must list at least one key"},
		{name: "associative key with a space", input: typed(`associativeKeys: ["container port"]`), field: "spec.associativeKeys",
			msg: `associativeKeys key "container port" contains a comma or whitespace`},

		// Role keys of another mode.
		{name: "srcPath in 3way", input: cm("srcPath", "src", "destPath", "dest"), field: "data.srcPath",
			msg:   "srcPath does not apply in 3way mode (the default) (it selects the src role of 2way mode); 3way mode (the default) selects roles by path with originalPath, updatedPath and destPath",
			valid: []string{"originalPath", "updatedPath", "destPath"}},
		{name: "srcPath in explicit 3way", input: typed("mode: 3way\nsrcPath: src"), field: "spec.srcPath",
			msg: "srcPath does not apply in 3way mode (it selects"},
		{name: "originalPath and updatedPath in 2way", input: cm("mode", "2way", "originalPath", "o", "updatedPath", "u", "destPath", "d"),
			field: "data.originalPath", count: 2,
			msg: "originalPath does not apply in 2way mode (it selects the original role of 3way mode); 2way mode selects roles by path with srcPath and destPath"},
		{name: "updatedPath in 2way", input: typed("mode: 2way\nupdatedPath: u\nsrcPath: s\ndestPath: d"), field: "spec.updatedPath",
			msg: "updatedPath does not apply in 2way mode (it selects the updated role of 3way and apply modes)"},
		{name: "originalPath in apply", input: cm("mode", "apply", "originalPath", "o"), field: "data.originalPath",
			msg: "originalPath does not apply in apply mode (apply mode takes the original from the dest's kubectl.kubernetes.io/last-applied-configuration annotation); apply mode selects roles by path with updatedPath and destPath"},
		{name: "srcPath in apply", input: typed("mode: apply\nsrcPath: s"), field: "spec.srcPath",
			msg: "srcPath does not apply in apply mode (it selects the src role of 2way mode)"},
		{name: "inline src in 3way", input: typed("src: []"), field: "spec.src",
			msg:   "spec.src does not apply in 3way mode (the default) (it holds the src role of 2way mode); 3way mode (the default) takes inline sources in spec.original and spec.updated",
			valid: []string{"spec.original", "spec.updated"}},
		{name: "inline original and updated in 2way", input: typed("mode: 2way\noriginal: []\nupdated: []"), field: "spec.original", count: 2,
			msg: "spec.original does not apply in 2way mode (it holds the original role of 3way mode); 2way mode takes inline sources in spec.src"},
		{name: "inline original in apply", input: typed("mode: apply\noriginal: []\nupdated: []"), field: "spec.original",
			msg: "spec.original does not apply in apply mode (apply mode takes the original from the dest's kubectl.kubernetes.io/last-applied-configuration annotation); apply mode takes inline sources in spec.updated"},
		{name: "valueMerge in 2way, data", input: cm("mode", "2way", "valueMerge", "true"), field: "data.valueMerge",
			msg: "valueMerge does not apply in 2way mode: only the 3-way merge merges inside a value"},
		{name: "valueMerge in apply, spec", input: typed("mode: apply\nvalueMerge: false"), field: "spec.valueMerge",
			msg: "valueMerge does not apply in apply mode"},
		{name: "onConflict in 2way, data", input: cm("mode", "2way", "onConflict", "dest"), field: "data.onConflict",
			msg: "onConflict does not apply in 2way mode: a 2-way merge has no original"},
		{name: "onConflict in 2way, spec", input: typed("mode: 2way\nonConflict: updated"), field: "spec.onConflict",
			msg: "onConflict does not apply in 2way mode"},

		// Inline sources with path keys or mergeOnPath.
		{name: "inline and destPath", input: typed("original: []\nupdated: []\ndestPath: dest"), field: "spec.destPath",
			msg: "destPath cannot be combined with inline sources (spec.original and spec.updated): with inline sources every input item without a role is dest"},
		{name: "inline and all 3way paths", input: typed("original: []\nupdated: []\noriginalPath: o\nupdatedPath: u\ndestPath: d"),
			field: "spec.originalPath", count: 3, msg: "originalPath cannot be combined with inline sources"},
		{name: "inline src and srcPath", input: typed("mode: 2way\nsrc: []\nsrcPath: s\ndestPath: d"), field: "spec.srcPath", count: 2,
			msg: "srcPath cannot be combined with inline sources (spec.src)"},
		{name: "inline and mergeOnPath", input: typed("mode: 2way\nsrc: []\nmergeOnPath: true"), field: "spec.mergeOnPath",
			msg: "mergeOnPath cannot be used with inline sources (spec.src): inline resources have no file path"},

		// Incomplete selection.
		{name: "3way inline without original", input: typed("updated: []"), field: "spec.original",
			msg: "inline sources in 3way mode (the default) need spec.original and spec.updated (give [] for an empty one); missing: spec.original"},
		{name: "3way paths without destPath", input: cm("originalPath", "o", "updatedPath", "u"), field: "data.destPath",
			msg: "path selection in 3way mode (the default) needs originalPath, updatedPath and destPath; missing: destPath"},
		{name: "3way destPath alone", input: typed("destPath: d"), field: "spec.originalPath",
			msg: "needs originalPath, updatedPath and destPath; missing: originalPath and updatedPath"},
		{name: "2way srcPath alone", input: cm("mode", "2way", "srcPath", "s"), field: "data.destPath",
			msg: "path selection in 2way mode needs srcPath and destPath; missing: destPath"},
		{name: "apply destPath alone", input: typed("mode: apply\ndestPath: d"), field: "spec.updatedPath",
			msg: "path selection in apply mode needs updatedPath and destPath; missing: updatedPath"},

		// Role directories must differ.
		{name: "same directory after cleaning", input: cm("mode", "2way", "srcPath", "./pkg/", "destPath", "pkg"), field: "data.destPath",
			msg: `srcPath and destPath both name "pkg"; each role needs its own directory`},
		{name: "same directory, 3way", input: typed("originalPath: up\nupdatedPath: up/\ndestPath: ."), field: "spec.updatedPath",
			msg: `originalPath and updatedPath both name "up"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fc := yaml.MustParse(tt.input)
			before := fc.MustString()
			c, err := Load(fc)
			if err == nil {
				t.Fatalf("no error; got config %+v", c)
			}
			if c != nil {
				t.Errorf("got a config with the error: %+v", c)
			}
			if fc.MustString() != before {
				t.Errorf("Load changed its input")
			}
			var all Errors
			if !errors.As(err, &all) {
				t.Fatalf("error %T is not config.Errors: %v", err, err)
			}
			var first *Error
			if !errors.As(err, &first) || first != all[0] {
				t.Fatalf("errors.As(*Error) did not find the first problem")
			}
			want := tt.count
			if want == 0 {
				want = 1
			}
			if len(all) != want {
				t.Errorf("got %d problems, want %d:\n%v", len(all), want, err)
			}
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "functionConfig: ") {
					t.Errorf("line %q does not start with functionConfig:", line)
				}
			}
			// A trailing NUL in msg means: the message ends there.
			msg, exact := strings.CutSuffix(tt.msg, "\x00")
			if !strings.Contains(first.Message, msg) || (exact && !strings.HasSuffix(first.Message, msg)) {
				t.Errorf("message\n  %q\ndoes not contain\n  %q", first.Message, msg)
			}
			if first.Error() != ErrorPrefix+first.Message {
				t.Errorf("Error() = %q", first.Error())
			}
			if first.Field != tt.field {
				t.Errorf("Field = %q, want %q", first.Field, tt.field)
			}
			if tt.valid != nil && !reflect.DeepEqual(first.Valid, tt.valid) {
				t.Errorf("Valid = %q, want %q", first.Valid, tt.valid)
			}
		})
	}
}

// TestLoadErrorValues: Error.Value holds what the user wrote.
func TestLoadErrorValues(t *testing.T) {
	for input, want := range map[string]string{
		cm("mode", "3-way"):              "3-way",
		cm("mergeOnpath", "true"):        "mergeOnpath",
		typed(`mergeOnPath: "true"`):     "true",
		typed("mode: 3"):                 "3",
		cm("destPath", "../x"):           "../x",
		typed("associativeKeys: [a, a]"): "a",
	} {
		_, err := Load(yaml.MustParse(input))
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: got %v", input, err)
		}
		if e.Value != want {
			t.Errorf("%s: Value = %q, want %q", input, e.Value, want)
		}
	}
}

// TestLoadCrossChecksWaitForValidKeys: with a bad value, the rules between keys are not
// checked, so a bad mode does not also produce role-key complaints.
func TestLoadCrossChecksWaitForValidKeys(t *testing.T) {
	_, err := Load(yaml.MustParse(cm("mode", "two-way", "srcPath", "s")))
	var all Errors
	if !errors.As(err, &all) || len(all) != 1 || all[0].Field != "data.mode" {
		t.Fatalf("got %v", err)
	}
}
