package config

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/schema"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// cm builds a ConfigMap functionConfig, as kpt makes from `-- k=v ...`, from key/value
// pairs. Values are double-quoted, as ConfigMap data values are strings.
func cm(kv ...string) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\n" +
		"  annotations:\n    config.kubernetes.io/local-config: \"true\"\n")
	if len(kv) == 0 {
		return b.String()
	}
	b.WriteString("data:\n")
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString("  " + kv[i] + ": " + strconv.Quote(kv[i+1]) + "\n")
	}
	return b.String()
}

// typed builds a ResourceMerge functionConfig with body (YAML, unindented) under spec.
func typed(body string) string {
	s := "apiVersion: fn.krm-merge.dev/v1alpha1\nkind: ResourceMerge\nmetadata:\n  name: merge\n"
	if body == "" {
		return s
	}
	s += "spec:\n"
	for _, line := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
		s += "  " + line + "\n"
	}
	return s
}

func mustLoad(t *testing.T, text string) *Config {
	t.Helper()
	c, err := Load(yaml.MustParse(text))
	if err != nil {
		t.Fatalf("Load(%q): unexpected error: %v", text, err)
	}
	return c
}

func TestLoadDefaults(t *testing.T) {
	want := &Config{
		Mode:            vocab.ThreeWay,
		RoleAnnotation:  "config.kubernetes.io/merge-source",
		OnConflict:      vocab.UpdatedWins,
		Schema:          SchemaKubernetes,
		AssociativeKeys: []string{"mountPath", "devicePath", "ip", "type", "topologyKey", "name", "containerPort"},
		ValueMerge:      true,
	}
	if got := Defaults(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Defaults() = %+v, want %+v", got, want)
	}
	inputs := map[string]*yaml.RNode{
		"nil RNode":              nil,
		"RNode without node":     yaml.NewRNode(nil),
		"null":                   yaml.MustParse("null"),
		"empty map":              yaml.MustParse("{}"),
		"ConfigMap without data": yaml.MustParse(cm()),
		"ConfigMap, data null":   yaml.MustParse(cm() + "data: null\n"),
		"ConfigMap, data empty":  yaml.MustParse(cm() + "data: {}\n"),
		"ResourceMerge, no spec": yaml.MustParse(typed("")),
		"ResourceMerge, {} spec": yaml.MustParse(typed("") + "spec: {}\n"),
		"document node":          yaml.NewRNode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{yaml.MustParse("{}").YNode()}}),
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			got, err := Load(in)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got %+v, want %+v", got, want)
			}
			if got.ByPath() || got.Inline() {
				t.Errorf("ByPath() = %v, Inline() = %v; want both false", got.ByPath(), got.Inline())
			}
		})
	}

	// The defaults are copies: changing a result changes neither schema.DefaultAssociativeKeys
	// nor the next result.
	c := mustLoad(t, "{}")
	c.AssociativeKeys[0] = "changed"
	if schema.DefaultAssociativeKeys()[0] != "mountPath" || mustLoad(t, "{}").AssociativeKeys[0] != "mountPath" {
		t.Fatal("Load shares its AssociativeKeys slice with schema.DefaultAssociativeKeys")
	}
}

// TestLoadKeys sets each key in both forms and checks the Config field it sets.
func TestLoadKeys(t *testing.T) {
	tests := []struct {
		name  string
		cm    []string // ConfigMap data pairs
		typed string   // spec body
		want  func(c *Config) bool
	}{
		{"mode 2way", []string{"mode", "2way"}, "mode: 2way",
			func(c *Config) bool { return c.Mode == vocab.TwoWay }},
		{"mode apply", []string{"mode", "apply"}, "mode: apply",
			func(c *Config) bool { return c.Mode == vocab.Apply }},
		{"mode 3way explicit", []string{"mode", "3way"}, "mode: 3way",
			func(c *Config) bool { return c.Mode == vocab.ThreeWay }},
		{"roleAnnotation", []string{"roleAnnotation", "example.com/role"}, "roleAnnotation: example.com/role",
			func(c *Config) bool { return c.RoleAnnotation == "example.com/role" }},
		{"roleAnnotation without prefix", []string{"roleAnnotation", "role"}, "roleAnnotation: role",
			func(c *Config) bool { return c.RoleAnnotation == "role" }},
		{"3way paths, cleaned",
			[]string{"originalPath", "./original/", "updatedPath", "updated/", "destPath", "./a/../dest"},
			"originalPath: ./original/\nupdatedPath: updated/\ndestPath: ./a/../dest",
			func(c *Config) bool {
				return c.OriginalPath == "original" && c.UpdatedPath == "updated" && c.DestPath == "dest" &&
					c.SrcPath == "" && c.ByPath() && !c.Inline()
			}},
		{"nested role directories are cleaned too",
			[]string{"originalPath", "up/old/", "updatedPath", "up/new", "destPath", "pkg//local"},
			"originalPath: up/old/\nupdatedPath: up/new\ndestPath: pkg//local",
			func(c *Config) bool {
				return c.OriginalPath == "up/old" && c.UpdatedPath == "up/new" && c.DestPath == "pkg/local"
			}},
		{"nested role directories, package root as dest",
			[]string{"originalPath", "upstream/old", "updatedPath", "upstream/new/", "destPath", "./"},
			"originalPath: upstream/old\nupdatedPath: upstream/new/\ndestPath: ./",
			func(c *Config) bool {
				return c.OriginalPath == "upstream/old" && c.UpdatedPath == "upstream/new" && c.DestPath == "."
			}},
		{"source directory inside dest", []string{"mode", "apply", "updatedPath", "live/local", "destPath", "live"},
			"mode: apply\nupdatedPath: live/local\ndestPath: live",
			func(c *Config) bool { return c.UpdatedPath == "live/local" && c.DestPath == "live" }},
		{"whole directory names: dest and destination do not overlap",
			[]string{"originalPath", "destination", "updatedPath", "dest2", "destPath", "dest"},
			"originalPath: destination\nupdatedPath: dest2\ndestPath: dest",
			func(c *Config) bool { return c.OriginalPath == "destination" && c.DestPath == "dest" }},
		{"2way paths", []string{"mode", "2way", "srcPath", "src/", "destPath", "./dest"},
			"mode: 2way\nsrcPath: src/\ndestPath: ./dest",
			func(c *Config) bool { return c.SrcPath == "src" && c.DestPath == "dest" && c.ByPath() }},
		{"apply paths", []string{"mode", "apply", "updatedPath", "local", "destPath", "live"},
			"mode: apply\nupdatedPath: local\ndestPath: live",
			func(c *Config) bool { return c.UpdatedPath == "local" && c.DestPath == "live" }},
		{"empty path is unset", []string{"destPath", ""}, `destPath: ""`,
			func(c *Config) bool { return c.DestPath == "" && !c.ByPath() }},
		{"mergeOnPath true", []string{"mergeOnPath", "true"}, "mergeOnPath: true",
			func(c *Config) bool { return c.MergeOnPath }},
		{"mergeOnPath false", []string{"mergeOnPath", "false"}, "mergeOnPath: false",
			func(c *Config) bool { return !c.MergeOnPath }},
		{"keepSources true", []string{"keepSources", "true"}, "keepSources: true",
			func(c *Config) bool { return c.KeepSources }},
		{"keepSources false", []string{"keepSources", "false"}, "keepSources: false",
			func(c *Config) bool { return !c.KeepSources }},
		{"plan true", []string{"plan", "true"}, "plan: true",
			func(c *Config) bool { return c.Plan }},
		{"plan false", []string{"plan", "false"}, "plan: false",
			func(c *Config) bool { return !c.Plan }},
		{"valueMerge false", []string{"valueMerge", "false"}, "valueMerge: false",
			func(c *Config) bool { return !c.ValueMerge }},
		{"valueMerge true", []string{"valueMerge", "true"}, "valueMerge: true",
			func(c *Config) bool { return c.ValueMerge }},
		{"onConflict dest", []string{"onConflict", "dest"}, "onConflict: dest",
			func(c *Config) bool { return c.OnConflict == vocab.DestWins }},
		{"onConflict error", []string{"onConflict", "error"}, "onConflict: error",
			func(c *Config) bool { return c.OnConflict == vocab.FailOnConflict }},
		{"onConflict in apply mode", []string{"mode", "apply", "onConflict", "error"}, "mode: apply\nonConflict: error",
			func(c *Config) bool { return c.OnConflict == vocab.FailOnConflict && c.Mode == vocab.Apply }},
		{"associativeKeys", []string{"associativeKeys", " name, containerPort ,id"}, "associativeKeys: [name, containerPort, id]",
			func(c *Config) bool {
				return reflect.DeepEqual(c.AssociativeKeys, []string{"name", "containerPort", "id"})
			}},
		{"associativeKeys, one", []string{"associativeKeys", "id"}, "associativeKeys: [id]",
			func(c *Config) bool { return reflect.DeepEqual(c.AssociativeKeys, []string{"id"}) }},
		{"schema none", []string{"schema", "none"}, "schema: none",
			func(c *Config) bool { return c.Schema == SchemaNone }},
		{"schema kubernetes", []string{"schema", "kubernetes"}, "schema: kubernetes",
			func(c *Config) bool { return c.Schema == SchemaKubernetes }},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/ConfigMap", func(t *testing.T) {
			if c := mustLoad(t, cm(tt.cm...)); !tt.want(c) {
				t.Errorf("unexpected config %+v", c)
			}
		})
		t.Run(tt.name+"/ResourceMerge", func(t *testing.T) {
			if c := mustLoad(t, typed(tt.typed)); !tt.want(c) {
				t.Errorf("unexpected config %+v", c)
			}
		})
	}
}

// TestLoadConfigMapLenient: values YAML reads as booleans are taken as written, and
// metadata (kpt's and kustomize's annotations) is ignored.
func TestLoadConfigMapLenient(t *testing.T) {
	c := mustLoad(t, `apiVersion: v1
kind: ConfigMap
metadata:
  name: fn
  annotations:
    config.kubernetes.io/function: |
      exec:
        path: ./bin/krm-merge
    config.kubernetes.io/local-config: "true"
data:
  keepSources: true
  mergeOnPath: false
  mode: 2way
`)
	if !c.KeepSources || c.MergeOnPath || c.Mode != vocab.TwoWay {
		t.Fatalf("unexpected config %+v", c)
	}
}

func TestLoadInline(t *testing.T) {
	text := typed(`original:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
  spec:
    replicas: 1 # upstream default
- apiVersion: v1
  kind: Service
  metadata: {name: web, namespace: demo}
updated:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
  spec:
    replicas: 2
keepSources: true
`)
	fc := yaml.MustParse(text)
	before := fc.MustString()
	c, err := Load(fc)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Inline() || c.ByPath() || c.Src != nil || !c.KeepSources {
		t.Fatalf("unexpected config %+v", c)
	}
	if len(c.Original) != 2 || len(c.Updated) != 1 {
		t.Fatalf("got %d original and %d updated items, want 2 and 1", len(c.Original), len(c.Updated))
	}
	if c.Original[0].GetKind() != "Deployment" || c.Original[1].GetKind() != "Service" ||
		c.Original[1].GetNamespace() != "demo" || c.Updated[0].GetName() != "web" {
		t.Errorf("inline items out of order or wrong: %s / %s", c.Original[0].MustString(), c.Original[1].MustString())
	}
	if s := c.Original[0].MustString(); !strings.Contains(s, "replicas: 1 # upstream default") {
		t.Errorf("comment lost in inline item:\n%s", s)
	}
	// The items are copies: changing them leaves the functionConfig as it was.
	if err := c.Original[0].PipeE(yaml.SetField("kind", yaml.NewScalarRNode("Changed"))); err != nil {
		t.Fatal(err)
	}
	if after := fc.MustString(); after != before {
		t.Errorf("Load's items share nodes with the functionConfig; it changed to:\n%s", after)
	}

	// Explicit empty lists are non-nil and empty; absent lists are nil.
	c = mustLoad(t, typed("original: []\nupdated:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}"))
	if c.Original == nil || len(c.Original) != 0 || len(c.Updated) != 1 || c.Src != nil || !c.Inline() {
		t.Errorf("original: [] gave Original=%#v, Updated=%d items, Src=%#v", c.Original, len(c.Updated), c.Src)
	}
	c = mustLoad(t, typed("mode: 2way\nsrc: []"))
	if c.Src == nil || len(c.Src) != 0 || c.Original != nil || c.Updated != nil || !c.Inline() {
		t.Errorf("src: [] gave %+v", c)
	}
	c = mustLoad(t, typed("mode: apply\nupdated:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}"))
	if len(c.Updated) != 1 || c.Original != nil {
		t.Errorf("apply inline gave %+v", c)
	}
}

// TestLoadAliases: anchors and aliases are expanded (the items carry no alias into the
// merge), the functionConfig is left unchanged, and an alias bomb is refused quickly.
func TestLoadAliases(t *testing.T) {
	fc := yaml.MustParse(typed(`original:
- &web
  apiVersion: v1
  kind: ConfigMap
  metadata: {name: web}
  data: &data {a: "1"}
updated:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: web}
  data:
    <<: *data
    b: "2"
associativeKeys: &keys [name, id]
`))
	before := fc.MustString()
	c, err := Load(fc)
	if err != nil {
		t.Fatal(err)
	}
	if fc.MustString() != before {
		t.Error("Load changed a functionConfig holding aliases")
	}
	if got := c.Updated[0].MustString(); strings.Contains(got, "*") || strings.Contains(got, "<<") ||
		!strings.Contains(got, "a: \"1\"") || !strings.Contains(got, "b: \"2\"") {
		t.Errorf("updated item not expanded:\n%s", got)
	}
	if got := c.Original[0].MustString(); strings.Contains(got, "&") {
		t.Errorf("original item keeps its anchor:\n%s", got)
	}
	if !reflect.DeepEqual(c.AssociativeKeys, []string{"name", "id"}) {
		t.Errorf("AssociativeKeys = %v", c.AssociativeKeys)
	}

	bomb := "original:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: x}\n  data:\n" +
		"    a: &a [x,x,x,x,x,x,x,x,x]\n"
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		bomb += "    " + n + ": &" + n + " [" + strings.Repeat("*"+prev+",", 8) + "*" + prev + "]\n"
		prev = n
	}
	start := time.Now()
	_, err = Load(yaml.MustParse(typed(bomb + "updated: []\n")))
	if err == nil || !strings.Contains(err.Error(), "functionConfig: cannot expand YAML aliases") {
		t.Errorf("alias bomb: got error %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("alias bomb took %v", d)
	}
}

// TestLoadErrors covers every problem Load reports, in both forms where the problem
// exists in both. Each case names the field (Error.Field), and the message text that
// must appear.
func TestLoadErrors(t *testing.T) {
	const dataKeys = "mode, roleAnnotation, originalPath, updatedPath, destPath, srcPath, mergeOnPath, onConflict, keepSources, associativeKeys, schema, mergeKeys, fieldRules, plan, valueMerge"
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

// A Config built by hand is checked by Validate as Load checks its own result.
func TestValidate(t *testing.T) {
	if err := Defaults().Validate(); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
	for _, tt := range []struct {
		name  string
		edit  func(c *Config)
		field string
		msg   string
	}{
		{"empty mode", func(c *Config) { c.Mode = "" }, "mode", `mode "" is invalid; valid values: 3way, 2way, apply`},
		{"unknown onConflict", func(c *Config) { c.OnConflict = "maybe" }, "onConflict", `onConflict "maybe" is invalid`},
		{"no role annotation", func(c *Config) { c.RoleAnnotation = "" }, "roleAnnotation", "roleAnnotation is empty"},
		{"no associative keys", func(c *Config) { c.AssociativeKeys = nil }, "associativeKeys", "associativeKeys is empty"},
		{"a path key of another mode", func(c *Config) { c.Mode, c.SrcPath, c.DestPath = vocab.ThreeWay, "src", "dest" }, "srcPath", "srcPath does not apply in 3way mode"},
		{"incomplete path selection", func(c *Config) { c.DestPath = "dest" }, "originalPath", "path selection in 3way mode (the default) needs originalPath, updatedPath and destPath"},
		{"onConflict dest in apply mode", func(c *Config) { c.Mode, c.OnConflict = vocab.Apply, vocab.DestWins }, "onConflict", "does not apply in apply mode"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := Defaults()
			tt.edit(c)
			err := c.Validate()
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("want Errors, got %v", err)
			}
			if es[0].Field != tt.field || !strings.Contains(es[0].Message, tt.msg) {
				t.Errorf("first problem %q %q, want field %q and %q", es[0].Field, es[0].Message, tt.field, tt.msg)
			}
		})
	}
}
