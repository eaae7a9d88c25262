package kptsdk_test

import (
	"bytes"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/GoogleContainerTools/kpt-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/filter"
	"github.com/krm-merge/krm-merge/pkg/kptsdk"
)

const header = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"

// item builds a ResourceList item with a role annotation, a path and a body.
func item(kind, name, role, path, body string) string {
	s := "- apiVersion: v1\n  kind: " + kind + "\n  metadata:\n    name: " + name + "\n    annotations:\n"
	if role != "" {
		s += "      config.kubernetes.io/merge-source: " + role + "\n"
	}
	s += "      internal.config.kubernetes.io/path: " + path + "\n      internal.config.kubernetes.io/index: \"0\"\n"
	return s + body
}

func cmConfig(data string) string {
	return "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: merge-config}\n  data: {" + data + "}\n"
}

// destItem has comments and a field order (data before metadata's end, kind first)
// that must survive the round trip through kyaml.
const destItem = `- kind: ConfigMap # kind first on purpose
  apiVersion: v1
  data:
    # the image we run
    image: IMAGE
    level: debug # local
  metadata:
    name: settings
    annotations:
      config.kubernetes.io/merge-source: dest
      internal.config.kubernetes.io/path: dest/settings.yaml
      internal.config.kubernetes.io/index: "0"
`

func threeWay(destImage, fc string) string {
	return header + fc + "items:\n" +
		item("ConfigMap", "settings", "original", "original/settings.yaml", "  data: {image: app:1, level: info}\n") +
		item("ConfigMap", "settings", "updated", "updated/settings.yaml", "  data: {image: app:2, level: info, timeout: 30s}\n") +
		strings.Replace(destItem, "IMAGE", destImage, 1) +
		item("Service", "new", "updated", "updated/svc.yaml", "  spec: {ports: [{port: 80}]}\n") +
		item("ConfigMap", "bystander", "", "other/cm.yaml", "  data: {c: \"3\"}\n")
}

func TestProcess(t *testing.T) {
	tests := []struct {
		name  string
		input string
		// wantOK is Process's bool.
		wantOK bool
		// wantItems are substrings, one per output item in rl.Items order.
		wantItems []string
		// wantResults are the results Process appended, as "severity|resourceRef name|field path|file path:index|message substring".
		wantResults []string
	}{
		{
			name:   "3-way",
			input:  threeWay("app:1", ""),
			wantOK: true,
			wantItems: []string{
				"kind: ConfigMap # kind first on purpose\napiVersion: v1\ndata:\n  # the image we run\n  image: 'app:2'\n  level: debug # local\n  timeout: 30s\nmetadata:\n  name: settings\n",
				"name: bystander",
				"name: new",
			},
			wantResults: []string{"info||||3way merge: 1 merged, 1 added, 0 deleted, 0 kept, 0 conflicts"},
		},
		{
			name:   "3-way conflict, updated wins",
			input:  threeWay("app:local", ""),
			wantOK: true,
			wantItems: []string{
				"  # the image we run\n  image: app:2\n",
				"name: bystander",
				"name: new",
			},
			wantResults: []string{
				"info||||1 conflicts",
				"warning|settings|data.image|dest/settings.yaml:0|conflict: changed on both sides: the tag (original 1, updated 2, dest local); updated wins",
			},
		},
		{
			name:   "2-way",
			input:  header + cmConfig("mode: 2way") + "items:\n" + item("ConfigMap", "settings", "src", "src.yaml", "  data: {level: info, extra: \"1\"}\n") + strings.Replace(strings.Replace(destItem, "IMAGE", "app:1", 1), "merge-source: dest", "merge-source: dest", 1),
			wantOK: true,
			wantItems: []string{
				"data:\n  # the image we run\n  image: app:1\n  level: info\n  extra: \"1\"\nmetadata:",
			},
			wantResults: []string{"info||||2way merge: 1 merged, 0 added, 0 deleted, 0 kept, 0 conflicts"},
		},
		{
			name:        "bad functionConfig",
			input:       threeWay("app:1", cmConfig("mode: 3-way, keepSources: yes")),
			wantResults: []string{"error|merge-config|data.mode||functionConfig: mode \"3-way\" is invalid", "error|merge-config|data.keepSources||functionConfig: keepSources \"yes\" is invalid"},
		},
		{
			name:  "conflict with onConflict=error",
			input: threeWay("app:local", cmConfig("onConflict: error")),
			wantResults: []string{
				"error||||onConflict is error and the merge found 1 conflicts",
				"error|settings|data.image|dest/settings.yaml:0|onConflict is error, so nothing is written",
			},
		},
		{
			name:        "bad item",
			input:       header + "items:\n" + item("ConfigMap", "x", "upstream", "pkg/x.yaml", ""),
			wantResults: []string{"error|x|metadata.annotations.config.kubernetes.io/merge-source|pkg/x.yaml:0|role \"upstream\" is not a role of mode 3way"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rl, err := fn.ParseResourceList([]byte(tc.input))
			if err != nil {
				t.Fatalf("bad test input: %v", err)
			}
			prior := &fn.Result{Severity: fn.Info, Message: "from an earlier function"}
			rl.Results = fn.Results{prior}
			inItems := append(fn.KubeObjects(nil), rl.Items...)
			inText := rl.Items.String()

			ok, perr := kptsdk.Processor{}.Process(rl)

			if ok != tc.wantOK {
				t.Errorf("Process = %v, %v; want ok=%v", ok, perr, tc.wantOK)
			}
			if len(rl.Results) == 0 || rl.Results[0] != prior {
				t.Fatalf("earlier results were not kept first: %v", rl.Results)
			}
			got := rl.Results[1:]
			if len(got) != len(tc.wantResults) {
				t.Errorf("%d results, want %d:\n%s", len(got), len(tc.wantResults), got.Error())
			}
			for i := 0; i < len(got) && i < len(tc.wantResults); i++ {
				if s := describe(got[i]); !matches(s, tc.wantResults[i]) {
					t.Errorf("result %d = %q, want %q", i, s, tc.wantResults[i])
				}
			}
			if !tc.wantOK {
				var rs fn.Results
				if !errors.As(perr, &rs) || rs.ExitCode() != 1 || !reflect.DeepEqual(rs, got) {
					t.Errorf("error %v (%T) is not the appended error results", perr, perr)
				}
				if !reflect.DeepEqual([]*fn.KubeObject(rl.Items), []*fn.KubeObject(inItems)) || rl.Items.String() != inText {
					t.Errorf("a failed merge changed rl.Items:\n%s", rl.Items.String())
				}
				return
			}
			if perr != nil {
				t.Fatalf("Process error: %v", perr)
			}
			if len(rl.Items) != len(tc.wantItems) {
				t.Fatalf("%d items, want %d:\n%s", len(rl.Items), len(tc.wantItems), rl.Items.String())
			}
			for i, want := range tc.wantItems {
				if s := rl.Items[i].String(); !strings.Contains(s, want) {
					t.Errorf("item %d lacks %q:\n%s", i, want, s)
				}
			}
		})
	}
}

// describe renders a result as "severity|resourceRef name|field path|file path:index|message".
func describe(r *fn.Result) string {
	var name, field, file string
	if r.ResourceRef != nil {
		name = r.ResourceRef.Name
	}
	if r.Field != nil {
		field = r.Field.Path
	}
	if r.File != nil {
		file = r.File.Path + ":" + strconv.Itoa(r.File.Index)
	}
	return strings.Join([]string{string(r.Severity), name, field, file, r.Message}, "|")
}

// matches compares all fields but the message exactly; the message by substring.
func matches(got, want string) bool {
	g, w := strings.SplitN(got, "|", 5), strings.SplitN(want, "|", 5)
	return len(g) == 5 && len(w) == 5 && strings.Join(g[:4], "|") == strings.Join(w[:4], "|") && strings.Contains(g[4], w[4])
}

func TestConflictValuesAreConverted(t *testing.T) {
	rl, err := fn.ParseResourceList([]byte(threeWay("app:local", "")))
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := (kptsdk.Processor{}).Process(rl); !ok || err != nil {
		t.Fatalf("Process: %v %v", ok, err)
	}
	c := rl.Results[1]
	want := &fn.Result{
		Severity:    fn.Warning,
		Message:     c.Message,
		ResourceRef: &fn.ResourceRef{APIVersion: "v1", Kind: "ConfigMap", Name: "settings"},
		File:        &fn.File{Path: "dest/settings.yaml"},
		Field:       &fn.Field{Path: "data.image", CurrentValue: "app:local", ProposedValue: "app:2"},
		Tags:        map[string]string{"original": "app:1", "updated": "app:2", "dest": "app:local"},
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("conflict result\n%#v\nwant\n%#v", c, want)
	}
}

func TestToResults(t *testing.T) {
	in := framework.Results{
		{
			Message:     "m",
			Severity:    framework.Warning,
			ResourceRef: &yaml.ResourceIdentifier{TypeMeta: yaml.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, NameMeta: yaml.NameMeta{Name: "web", Namespace: "prod"}},
			Field:       &framework.Field{Path: "spec.replicas", CurrentValue: "5", ProposedValue: map[string]interface{}{"a": 1}},
			File:        &framework.File{Path: "dest/web.yaml", Index: 2},
			Tags:        map[string]string{"k": "v"},
		},
		{Message: "plain", Severity: framework.Error},
		{Message: "i", Severity: framework.Info},
	}
	want := fn.Results{
		{
			Message:     "m",
			Severity:    fn.Warning,
			ResourceRef: &fn.ResourceRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", Namespace: "prod"},
			Field:       &fn.Field{Path: "spec.replicas", CurrentValue: "5", ProposedValue: map[string]interface{}{"a": 1}},
			File:        &fn.File{Path: "dest/web.yaml", Index: 2},
			Tags:        map[string]string{"k": "v"},
		},
		{Message: "plain", Severity: fn.Error},
		{Message: "i", Severity: fn.Info},
	}
	got := kptsdk.ToResults(in)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ToResults:\n%s\nwant:\n%s", got.Error(), want.Error())
	}
	in[0].Tags["k"] = "changed"
	if got[0].Tags["k"] != "v" {
		t.Error("ToResults shares the tags map")
	}
}

func TestRoundTripKeepsText(t *testing.T) {
	const doc = `# head comment
kind: ConfigMap # kind first
apiVersion: v1
metadata: {name: x, annotations: {internal.config.kubernetes.io/path: a/b.yaml}}
data:
  # about k
  k: "v" # line
  list:
  - b
  - a
`
	obj, err := fn.ParseKubeObject([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := kptsdk.ToRNodes(fn.KubeObjects{obj})
	if err != nil {
		t.Fatal(err)
	}
	if s := nodes[0].MustString(); s != doc {
		t.Errorf("ToRNodes:\n%s\nwant:\n%s", s, doc)
	}
	objs, err := kptsdk.ToKubeObjects(nodes)
	if err != nil {
		t.Fatal(err)
	}
	if s := objs[0].String(); s != doc {
		t.Errorf("ToKubeObjects:\n%s\nwant:\n%s", s, doc)
	}
	if err := nodes[0].PipeE(yaml.SetLabel("changed", "yes")); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(objs[0].String(), "changed") || strings.Contains(obj.String(), "changed") {
		t.Error("converted objects share nodes")
	}
}

func TestConfigOverridesFunctionConfig(t *testing.T) {
	// The functionConfig asks for 2-way, which would reject 3-way roles; Config wins.
	rl, err := fn.ParseResourceList([]byte(threeWay("app:1", cmConfig("mode: 2way"))))
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	if ok, err := (kptsdk.Processor{Config: cfg}).Process(rl); !ok || err != nil {
		t.Fatalf("Process: %v %v\n%s", ok, err, rl.Results.Error())
	}
	if !strings.Contains(rl.Results[0].Message, "3way merge") {
		t.Errorf("results: %s", rl.Results.Error())
	}
}

func TestNoFunctionConfig(t *testing.T) {
	rl, err := fn.ParseResourceList([]byte(threeWay("app:1", "")))
	if err != nil {
		t.Fatal(err)
	}
	rl.FunctionConfig = nil // a ResourceList built in Go
	if ok, err := (kptsdk.Processor{}).Process(rl); !ok || err != nil {
		t.Fatalf("Process: %v %v", ok, err)
	}
	if len(rl.Items) != 3 {
		t.Errorf("%d items, want 3", len(rl.Items))
	}
}

// fn.Execute takes the Processor itself and writes items in rl.Items order, with their
// comments; fn.Run (and fn.AsMain) need a fn.ResourceListProcessorFunc, as the package
// documentation says. (fn.Execute fails on a ResourceList without functionConfig, an
// SDK limitation, hence the empty ConfigMap.)
func TestHosts(t *testing.T) {
	var out bytes.Buffer
	if err := fn.Execute(kptsdk.Processor{}, strings.NewReader(threeWay("app:1", cmConfig(""))), &out); err != nil {
		t.Fatalf("fn.Execute: %v", err)
	}
	s := out.String()
	for _, want := range []string{"kind: ConfigMap # kind first on purpose", "level: debug # local", "image: 'app:2'", "name: new", "3way merge: 1 merged, 1 added"} {
		if !strings.Contains(s, want) {
			t.Errorf("fn.Execute output lacks %q:\n%s", want, s)
		}
	}
	if strings.Index(s, "name: bystander") > strings.Index(s, "name: new") {
		t.Errorf("fn.Execute reordered items:\n%s", s)
	}

	out.Reset()
	err := fn.Execute(kptsdk.Processor{}, strings.NewReader(threeWay("app:local", cmConfig("onConflict: error"))), &out)
	if err == nil || !strings.Contains(out.String(), "severity: error") || !strings.Contains(out.String(), "path: data.image") {
		t.Errorf("fn.Execute with a conflict under onConflict=error: err %v, output:\n%s", err, out.String())
	}

	if _, err := fn.Run(kptsdk.Processor{}, []byte(threeWay("app:1", ""))); err == nil || !strings.Contains(err.Error(), "unknown input type") {
		t.Errorf("fn.Run with a bare Processor: %v; the package documentation says it is rejected", err)
	}
}

// The adapter adds nothing and drops nothing: its items and results are those of
// filter.Filter run on the same ResourceList parsed by kyaml.
func TestSameAsFilter(t *testing.T) {
	// Block style: see TestFlowStyleScalarsMayComeBackQuoted for flow style.
	block := strings.NewReplacer(
		"  data: {image: app:1, level: info}\n", "  data:\n    image: app:1\n    level: info\n",
		"  data: {image: app:2, level: info, timeout: 30s}\n", "  data:\n    image: app:2\n    level: info\n    timeout: 30s\n",
	)
	for name, input := range map[string]string{
		"3-way":          block.Replace(threeWay("app:1", "")),
		"3-way conflict": block.Replace(threeWay("app:local", cmConfig("onConflict: dest"))),
		"keepSources":    block.Replace(threeWay("app:1", cmConfig("keepSources: \"true\""))),
		"2-way":          header + cmConfig("mode: 2way") + "items:\n" + item("ConfigMap", "settings", "src", "src.yaml", "  data: {level: info}\n") + strings.Replace(destItem, "IMAGE", "app:1", 1),
	} {
		if !strings.Contains(input, "image: app:2") && strings.Contains(name, "3-way") {
			t.Fatalf("%s: the block style replacement did not apply", name)
		}
		t.Run(name, func(t *testing.T) {
			doc := yaml.MustParse(input)
			var fc *yaml.RNode
			if f := doc.Field("functionConfig"); f != nil {
				fc = f.Value
			}
			m, err := filter.New(fc)
			if err != nil {
				t.Fatal(err)
			}
			in, err := doc.Field("items").Value.Elements()
			if err != nil {
				t.Fatal(err)
			}
			want, err := m.Filter(in)
			if err != nil {
				t.Fatal(err)
			}

			rl, err := fn.ParseResourceList([]byte(input))
			if err != nil {
				t.Fatal(err)
			}
			if ok, err := (kptsdk.Processor{}).Process(rl); !ok || err != nil {
				t.Fatalf("Process: %v %v", ok, err)
			}
			if len(rl.Items) != len(want) {
				t.Fatalf("%d items, filter gives %d", len(rl.Items), len(want))
			}
			for i := range want {
				if got, w := rl.Items[i].String(), want[i].MustString(); got != w {
					t.Errorf("item %d:\n%s\nfilter gives:\n%s", i, got, w)
				}
			}
			if !reflect.DeepEqual(rl.Results, kptsdk.ToResults(m.Results)) {
				t.Errorf("results:\n%s\nfilter gives:\n%s", rl.Results.Error(), kptsdk.ToResults(m.Results).Error())
			}
		})
	}
}

// Items cross to kyaml as YAML text, written by the SDK's encoder (yaml.v3), which
// quotes a scalar with a flow indicator such as ':' inside a flow-style map or list:
// `{image: app:2}` becomes `{image: 'app:2'}`. The value is the same string; the merge
// may carry the quoted style into a block-style dest. The SDK's own writer (fn.Run,
// fn.AsMain) writes every item through that encoder, so an SDK function's output has
// the quotes anyway, merged or not.
func TestFlowStyleScalarsMayComeBackQuoted(t *testing.T) {
	obj, err := fn.ParseKubeObject([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {image: app:2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s := obj.String(); !strings.Contains(s, "{image: 'app:2'}") {
		t.Fatalf("the SDK's encoder no longer quotes in flow style; drop this caveat from the docs:\n%s", s)
	}
	rl, err := fn.ParseResourceList([]byte(threeWay("app:1", "")))
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := (kptsdk.Processor{}).Process(rl); !ok || err != nil {
		t.Fatalf("Process: %v %v", ok, err)
	}
	if v, _, _ := rl.Items[0].NestedString("data", "image"); v != "app:2" {
		t.Errorf("data.image = %q, want app:2", v)
	}
}
