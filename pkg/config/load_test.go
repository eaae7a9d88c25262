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
		Mode: vocab.ThreeWay,
		MergeSettings: MergeSettings{
			RoleAnnotation:  "config.kubernetes.io/merge-source",
			OnConflict:      UpdatedWins,
			Schema:          SchemaKubernetes,
			AssociativeKeys: []string{"mountPath", "devicePath", "ip", "type", "topologyKey", "name", "containerPort"},
			ValueMerge:      true,
		},
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
		{"showSecretValues true", []string{"showSecretValues", "true"}, "showSecretValues: true",
			func(c *Config) bool { return c.ShowSecretValues }},
		{"showSecretValues false", []string{"showSecretValues", "false"}, "showSecretValues: false",
			func(c *Config) bool { return !c.ShowSecretValues }},
		{"onConflict dest", []string{"onConflict", "dest"}, "onConflict: dest",
			func(c *Config) bool { return c.OnConflict == DestWins }},
		{"onConflict error", []string{"onConflict", "error"}, "onConflict: error",
			func(c *Config) bool { return c.OnConflict == FailOnConflict }},
		{"onConflict in apply mode", []string{"mode", "apply", "onConflict", "error"}, "mode: apply\nonConflict: error",
			func(c *Config) bool { return c.OnConflict == FailOnConflict && c.Mode == vocab.Apply }},
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
		{"onConflict dest in apply mode", func(c *Config) { c.Mode, c.OnConflict = vocab.Apply, DestWins }, "onConflict", "does not apply in apply mode"},
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
