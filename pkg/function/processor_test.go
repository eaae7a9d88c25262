package function_test

import (
	"bytes"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/function"
	"github.com/krm-merge/krm-merge/pkg/function/internal/inputcheck"
)

// run feeds a ResourceList through the processor as the binary does and returns the
// output ResourceList and the error.
func run(t *testing.T, input string) (*yaml.RNode, error) {
	t.Helper()
	var out bytes.Buffer
	rw := &kio.ByteReadWriter{Reader: strings.NewReader(input), Writer: &out, KeepReaderAnnotations: true}
	err := framework.Execute(function.Processor{}, rw)
	rl, perr := yaml.Parse(out.String())
	if perr != nil {
		t.Fatalf("output is not YAML: %v\n%s", perr, out.String())
	}
	return rl, err
}

func items(t *testing.T, rl *yaml.RNode) []*yaml.RNode {
	t.Helper()
	its, err := rl.Pipe(yaml.Lookup("items"))
	if err != nil || its == nil {
		return nil
	}
	els, _ := its.Elements()
	return els
}

func resultsOf(rl *yaml.RNode) string {
	r, _ := rl.Pipe(yaml.Lookup("results"))
	if r == nil {
		return ""
	}
	return r.MustString()
}

const threeWayInput = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    annotations: {config.kubernetes.io/merge-source: original}
  spec:
    replicas: 1
    template:
      spec:
        containers:
        - name: app
          image: app:1
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    annotations: {config.kubernetes.io/merge-source: updated}
  spec:
    replicas: 1
    template:
      spec:
        containers:
        - name: app
          image: app:2
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    annotations: {config.kubernetes.io/merge-source: dest}
  spec:
    replicas: 5 # scaled locally
    template:
      spec:
        containers:
        - name: app
          image: app:1
        - name: sidecar
          image: proxy:1
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: gone
    annotations: {config.kubernetes.io/merge-source: original}
  data: {a: "1"}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: gone
    annotations: {config.kubernetes.io/merge-source: dest}
  data: {a: "1"}
- apiVersion: v1
  kind: Service
  metadata:
    name: new
    annotations: {config.kubernetes.io/merge-source: updated}
  spec: {ports: [{port: 80}]}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: local-only
    annotations: {config.kubernetes.io/merge-source: dest}
  data: {b: "2"}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: untouched
  data: {c: "3"}
`

func TestThreeWayResourceRules(t *testing.T) {
	rl, err := run(t, threeWayInput)
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	var names []string
	for _, it := range items(t, rl) {
		names = append(names, it.GetKind()+"/"+it.GetName())
	}
	want := []string{"Deployment/web", "ConfigMap/local-only", "ConfigMap/untouched", "Service/new"}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("items = %v, want %v", names, want)
	}
	web := items(t, rl)[0].MustString()
	for _, s := range []string{"replicas: 5 # scaled locally", "image: app:2", "name: sidecar"} {
		if !strings.Contains(web, s) {
			t.Errorf("merged Deployment lacks %q:\n%s", s, web)
		}
	}
	added := items(t, rl)[3]
	if _, ok := added.GetAnnotations()["config.kubernetes.io/merge-source"]; ok {
		t.Errorf("added item keeps the role annotation:\n%s", added.MustString())
	}
	if got := resultsOf(rl); !strings.Contains(got, "3way merge: 1 merged, 1 added, 1 deleted, 1 kept, 0 conflicts") {
		t.Errorf("summary missing or wrong:\n%s", got)
	}
}

func TestConflictWarningAndOnConflictError(t *testing.T) {
	input := strings.Replace(threeWayInput, "          image: app:1\n        - name: sidecar", "          image: app:local\n        - name: sidecar", 1)
	rl, err := run(t, input)
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	res := resultsOf(rl)
	for _, s := range []string{"severity: warning", "path: spec.template.spec.containers[name=app].image", "kind: Deployment", "name: web", "updated wins"} {
		if !strings.Contains(res, s) {
			t.Errorf("conflict result lacks %q:\n%s", s, res)
		}
	}
	withConfig := strings.Replace(input, "kind: ResourceList\n", "kind: ResourceList\nfunctionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: cfg}\n  data: {onConflict: error}\n", 1)
	rl, err = run(t, withConfig)
	if err == nil {
		t.Fatal("onConflict=error with a conflict: want an error")
	}
	if n := len(items(t, rl)); n != 0 {
		t.Errorf("onConflict=error emitted %d items, want none", n)
	}
	if res := resultsOf(rl); !strings.Contains(res, "severity: error") || !strings.Contains(res, "containers[name=app].image") {
		t.Errorf("error results do not list the conflict:\n%s", res)
	}
}

func TestOnConflictDestKeepsLocalValue(t *testing.T) {
	input := strings.Replace(threeWayInput, "          image: app:1\n        - name: sidecar", "          image: app:local\n        - name: sidecar", 1)
	input = strings.Replace(input, "kind: ResourceList\n", "kind: ResourceList\nfunctionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: cfg}\n  data: {onConflict: dest}\n", 1)
	rl, err := run(t, input)
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if web := items(t, rl)[0].MustString(); !strings.Contains(web, "image: app:local") {
		t.Errorf("onConflict=dest did not keep dest's image:\n%s", web)
	}
	if !strings.Contains(resultsOf(rl), "dest wins") {
		t.Errorf("conflict result does not say dest wins:\n%s", resultsOf(rl))
	}
}

// Each bad input of docs/function.md: exit with an error, an error result naming what and
// where, and no items.
func TestBadInput(t *testing.T) {
	header := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
	cm := func(data string) string {
		return "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: cfg}\n  data: {" + data + "}\n"
	}
	item := func(role, extra string) string {
		return "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n    annotations:\n      config.kubernetes.io/merge-source: " + role + "\n      internal.config.kubernetes.io/path: pkg/" + role + ".yaml\n" + extra
	}
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{"role not of the mode", header + "items:\n" + item("upstream", ""),
			[]string{`role "upstream" is not a role of mode 3way`, "valid roles: original, updated, dest", "path: metadata.annotations.config.kubernetes.io/merge-source", "path: pkg/upstream.yaml"}},
		{"2-way role in a 3-way run", header + "items:\n" + item("src", ""),
			[]string{`"src" is a role of mode 2way`}},
		{"3-way role in a 2-way run", header + cm("mode: 2way") + "items:\n" + item("original", ""),
			[]string{`"original" is a role of mode 3way`}},
		{"duplicate identity in one role", header + "items:\n" + item("dest", "") + item("dest", ""),
			[]string{"duplicate dest resource ConfigMap x", "pkg/dest.yaml"}},
		{"role item without name", header + "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    annotations: {config.kubernetes.io/merge-source: dest}\n",
			[]string{"neither (an item without a name is identified by group, kind and file path)", "path: metadata.name"}},
		{"role item without kind", header + "items:\n- apiVersion: v1\n  metadata:\n    name: x\n    annotations: {config.kubernetes.io/merge-source: dest}\n",
			[]string{"kind is missing"}},
		{"unknown config key", header + cm("mergeOnpath: \"true\"") + "items: []\n",
			[]string{"mergeOnpath", "valid keys"}},
		{"unknown config value", header + cm("mode: 3-way") + "items: []\n",
			[]string{"3-way", "valid values: 3way, 2way, apply"}},
		{"unknown patch directive in 2-way src", header + cm("mode: 2way") + "items:\n" +
			item("src", "  data:\n    $patch: remove\n") + item("dest", "  data: {a: b}\n"),
			[]string{"unknown patch strategy", "path: data"}},
		{"a map with a repeated key", header + "items:\n" + item("dest", "  data:\n    a: one\n    b: two\n    a: three\n"),
			[]string{`is given twice in one map, at lines 9 and 11 of the resource`, "path: data.a", "path: pkg/dest.yaml", "name: x"}},
		{"a repeated key deep in a pass-through item", header + "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: y\n  data:\n    l: [{k: 1, k: 2}]\n",
			[]string{"is given twice in one map, on line 6 of the resource, columns 8 and 14", "path: data.l[0].k", `name: "y"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rl, err := run(t, tt.input)
			if err == nil {
				t.Fatalf("want an error, got none; output:\n%s", rl.MustString())
			}
			if n := len(items(t, rl)); n != 0 {
				t.Errorf("emitted %d items on error, want none", n)
			}
			res := resultsOf(rl)
			if !strings.Contains(res, "severity: error") {
				t.Errorf("no error result:\n%s", res)
			}
			for _, w := range tt.want {
				if !strings.Contains(res, w) {
					t.Errorf("results lack %q:\n%s", w, res)
				}
			}
		})
	}
}

func TestMalformedYAMLIsAnErrorResult(t *testing.T) {
	var out bytes.Buffer
	_, err := inputcheck.ResourceList(strings.NewReader("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- a: [unclosed\n"), &out)
	if err == nil {
		t.Fatal("malformed YAML: want an error")
	}
	rl, perr := yaml.Parse(out.String())
	if perr != nil {
		t.Fatalf("error output is not a ResourceList: %v\n%s", perr, out.String())
	}
	if n := len(items(t, rl)); n != 0 {
		t.Errorf("emitted %d items", n)
	}
	if res := resultsOf(rl); !strings.Contains(res, "severity: error") || !strings.Contains(res, "yaml: line ") {
		t.Errorf("results do not say where the YAML is malformed:\n%s", res)
	}
}

func TestEmptyInputIsValid(t *testing.T) {
	rl, err := run(t, "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n")
	if err != nil {
		t.Fatalf("empty input: %v", err)
	}
	if n := len(items(t, rl)); n != 0 {
		t.Errorf("empty input gave %d items", n)
	}
	if !strings.Contains(resultsOf(rl), "0 merged, 0 added, 0 deleted, 0 kept, 0 conflicts") {
		t.Errorf("summary missing:\n%s", resultsOf(rl))
	}
}

func TestTwoWayWorkedExampleThroughTheFunction(t *testing.T) {
	input := `apiVersion: config.kubernetes.io/v1
kind: ResourceList
functionConfig:
  apiVersion: fn.krm-merge.dev/v1alpha1
  kind: ResourceMerge
  metadata: {name: m}
  spec: {mode: 2way}
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: nginx
    annotations: {config.kubernetes.io/merge-source: src}
  spec:
    replicas: 3
    template:
      spec:
        containers:
        - name: nginx
          image: nginx:1.7
          command: ['new_run.sh', 'arg1']
        - name: sidecar2
          image: sidecar2:v1
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: nginx
    annotations: {config.kubernetes.io/merge-source: dest}
  spec:
    replicas: 1
    template:
      spec:
        containers:
        - name: nginx
          image: nginx:1.6
          command: ['old_run.sh', 'arg0']
        - name: sidecar1
          image: sidecar1:v1
`
	rl, err := run(t, input)
	if err != nil {
		t.Fatal(err)
	}
	got := items(t, rl)
	if len(got) != 1 {
		t.Fatalf("want 1 item, got %d", len(got))
	}
	s := got[0].MustString()
	want := `  replicas: 3
  template:
    spec:
      containers:
      - name: nginx
        image: nginx:1.7
        command: ['new_run.sh', 'arg1']
      - name: sidecar1
        image: sidecar1:v1
      - name: sidecar2
        image: sidecar2:v1
`
	if !strings.Contains(s, want) {
		t.Errorf("2-way worked example:\n%s\nwant spec:\n%s", s, want)
	}
}

func TestInlineSourcesMakeOtherItemsDest(t *testing.T) {
	input := `apiVersion: config.kubernetes.io/v1
kind: ResourceList
functionConfig:
  apiVersion: fn.krm-merge.dev/v1alpha1
  kind: ResourceMerge
  metadata: {name: m}
  spec:
    original:
    - {apiVersion: v1, kind: ConfigMap, metadata: {name: app}, data: {level: info, port: "80"}}
    updated:
    - {apiVersion: v1, kind: ConfigMap, metadata: {name: app}, data: {level: info, port: "8080"}}
    - {apiVersion: v1, kind: Service, metadata: {name: app}, spec: {ports: [{port: 8080}]}}
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: app}
  data: {level: debug, port: "80"}
- apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata: {name: pkg}
`
	rl, err := run(t, input)
	if err != nil {
		t.Fatal(err)
	}
	got := items(t, rl)
	if len(got) != 3 {
		t.Fatalf("want ConfigMap, Kptfile, Service; got %d items", len(got))
	}
	cm := got[0].MustString()
	if !strings.Contains(cm, "level: debug") || !strings.Contains(cm, `port: "8080"`) {
		t.Errorf("inline merge wrong:\n%s", cm)
	}
	if got[1].GetKind() != "Kptfile" || got[2].GetKind() != "Service" {
		t.Errorf("Kptfile must pass through and the Service be added: %s, %s", got[1].GetKind(), got[2].GetKind())
	}
}

func TestPathRolesRemoveSourcesAndRebaseAdded(t *testing.T) {
	input := `apiVersion: config.kubernetes.io/v1
kind: ResourceList
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata: {name: cfg}
  data: {originalPath: original, updatedPath: ./updated/, destPath: dest}
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app
    annotations: {internal.config.kubernetes.io/path: original/app.yaml, internal.config.kubernetes.io/index: "0"}
  data: {a: "1"}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app
    annotations: {internal.config.kubernetes.io/path: updated/app.yaml, internal.config.kubernetes.io/index: "0"}
  data: {a: "2"}
- apiVersion: v1
  kind: Secret
  metadata:
    name: new
    annotations: {internal.config.kubernetes.io/path: updated/app.yaml, internal.config.kubernetes.io/index: "1"}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app
    annotations: {internal.config.kubernetes.io/path: dest/app.yaml, internal.config.kubernetes.io/index: "0"}
  data: {a: "1", b: local}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: other
    annotations: {internal.config.kubernetes.io/path: destination/x.yaml}
- apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata:
    name: pkg
    annotations: {internal.config.kubernetes.io/path: dest/Kptfile}
`
	rl, err := run(t, input)
	if err != nil {
		t.Fatal(err)
	}
	got := items(t, rl)
	var summary []string
	for _, it := range got {
		summary = append(summary, it.GetKind()+" "+it.GetName()+" "+it.GetAnnotations()["internal.config.kubernetes.io/path"])
	}
	want := []string{"ConfigMap app dest/app.yaml", "ConfigMap other destination/x.yaml", "Kptfile pkg dest/Kptfile", "Secret new dest/app.yaml"}
	if strings.Join(summary, "|") != strings.Join(want, "|") {
		t.Fatalf("items:\n%s\nwant:\n%s", strings.Join(summary, "\n"), strings.Join(want, "\n"))
	}
	if s := got[0].MustString(); !strings.Contains(s, `a: "2"`) || !strings.Contains(s, "b: local") {
		t.Errorf("merge wrong:\n%s", s)
	}
	if idx := got[3].GetAnnotations()["internal.config.kubernetes.io/index"]; idx != "1" {
		t.Errorf("added item index = %q, want 1 (after dest's last item in that file)", idx)
	}
}

// TestProcessorReport: with Report set (standalone runs, where kyaml writes only the
// items), a successful run's results are written there too, as kpt prints them.
func TestProcessorReport(t *testing.T) {
	in := `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: a, annotations: {config.kubernetes.io/merge-source: original}}, data: {x: "1"}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: a, annotations: {config.kubernetes.io/merge-source: updated}}, data: {x: "2"}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: a, annotations: {config.kubernetes.io/merge-source: dest}}, data: {x: "3"}}
`
	var report strings.Builder
	rw := &kio.ByteReadWriter{Reader: strings.NewReader(in), Writer: &strings.Builder{}}
	if err := framework.Execute(function.Processor{Report: &report}, rw); err != nil {
		t.Fatal(err)
	}
	want := "[info]: 3way merge: 1 merged, 0 added, 0 deleted, 0 kept, 1 conflicts\n" +
		"[warning] v1/ConfigMap/a data.x: conflict: changed on both sides (original 1, updated 2, dest 3); updated wins\n"
	if report.String() != want {
		t.Errorf("report:\n%s\nwant:\n%s", report.String(), want)
	}
}
