package filter_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/filter"
	"github.com/krm-merge/krm-merge/pkg/results"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// parse reads a multi-document string into items without reader annotations.
func parse(t *testing.T, s string) []*yaml.RNode {
	t.Helper()
	nodes, err := (&kio.ByteReader{Reader: strings.NewReader(s), OmitReaderAnnotations: true}).Read()
	if err != nil {
		t.Fatalf("bad test input: %v", err)
	}
	return nodes
}

func render(nodes []*yaml.RNode) string {
	var b strings.Builder
	for _, n := range nodes {
		b.WriteString("---\n")
		b.WriteString(n.MustString())
	}
	return b.String()
}

const threeWay = `apiVersion: apps/v1
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
---
apiVersion: apps/v1
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
      - name: proxy
        image: proxy:1
---
# dest's head comment
apiVersion: apps/v1
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
        image: DEST_IMAGE
---
apiVersion: v1
kind: Service
metadata:
  name: new
  annotations: {config.kubernetes.io/merge-source: updated}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: bystander
data: {c: "3"}
`

const twoWay = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  annotations: {config.kubernetes.io/merge-source: src}
data:
  level: debug
  extra: "1"
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  annotations: {config.kubernetes.io/merge-source: dest}
data:
  level: info
  keep: "yes" # mine
---
apiVersion: v1
kind: Secret
metadata:
  name: added
  annotations: {config.kubernetes.io/merge-source: src}
`

func configMap(data string) *yaml.RNode {
	return yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {" + data + "}\n")
}

func TestFilter(t *testing.T) {
	tests := []struct {
		name  string
		fc    *yaml.RNode
		input string
		// wantItems are kind/name of the output items, in order; nil when an error is wanted.
		wantItems []string
		// wantOut are substrings of the rendered output items.
		wantOut []string
		// wantResults are substrings of the rendered results, success or not.
		wantResults []string
		// wantErr are substrings of the error; empty when none is wanted.
		wantErr []string
	}{
		{
			name:      "3-way, no functionConfig",
			input:     strings.Replace(threeWay, "DEST_IMAGE", "app:1", 1),
			wantItems: []string{"Deployment/web", "ConfigMap/bystander", "Service/new"},
			wantOut: []string{"# dest's head comment", "replicas: 5 # scaled locally", "image: app:2",
				"name: proxy", "config.kubernetes.io/merge-source: dest"},
			wantResults: []string{"3way merge: 1 merged, 1 added, 0 deleted, 0 kept, 0 conflicts"},
		},
		{
			name:        "3-way conflict, updated wins by default",
			input:       strings.Replace(threeWay, "DEST_IMAGE", "app:local", 1),
			wantItems:   []string{"Deployment/web", "ConfigMap/bystander", "Service/new"},
			wantOut:     []string{"image: app:2", "replicas: 5 # scaled locally"},
			wantResults: []string{"1 conflicts", "[warning] apps/v1/Deployment/web spec.template.spec.containers[name=app].image", "updated wins"},
		},
		{
			name:        "3-way conflict, onConflict=dest",
			fc:          configMap("onConflict: dest"),
			input:       strings.Replace(threeWay, "DEST_IMAGE", "app:local", 1),
			wantItems:   []string{"Deployment/web", "ConfigMap/bystander", "Service/new"},
			wantOut:     []string{"image: app:local", "name: proxy"},
			wantResults: []string{"1 conflicts", "dest wins"},
		},
		{
			name:        "3-way conflict, onConflict=error",
			fc:          configMap("onConflict: error"),
			input:       strings.Replace(threeWay, "DEST_IMAGE", "app:local", 1),
			wantErr:     []string{"onConflict is error and the merge found 1 conflicts", "spec.template.spec.containers[name=app].image"},
			wantResults: []string{"[error]: onConflict is error", "[error] apps/v1/Deployment/web spec.template.spec.containers[name=app].image"},
		},
		{
			name:  "3-way plan: the input items, unchanged, and the plan",
			fc:    configMap("plan: 'true'"),
			input: strings.Replace(threeWay, "DEST_IMAGE", "app:1", 1),
			wantItems: []string{"Deployment/web", "Deployment/web", "Deployment/web", "Service/new",
				"ConfigMap/bystander"},
			wantOut:     []string{"image: app:1", "config.kubernetes.io/merge-source: original"},
			wantResults: []string{"3way plan, nothing written", "would change this field: app:1 -> app:2"},
		},
		{
			name:        "2-way",
			fc:          configMap("mode: 2way"),
			input:       twoWay,
			wantItems:   []string{"ConfigMap/settings", "Secret/added"},
			wantOut:     []string{"level: debug", `keep: "yes" # mine`, `extra: "1"`},
			wantResults: []string{"2way merge: 1 merged, 1 added, 0 deleted, 0 kept, 0 conflicts"},
		},
		{
			name:        "2-way roles in a 3-way run",
			input:       twoWay,
			wantErr:     []string{"ConfigMap settings", "src"},
			wantResults: []string{"[error] v1/ConfigMap/settings"},
		},
		{
			name:        "two items with one identity in a role",
			input:       threeWay + "---\n" + strings.SplitN(threeWay, "---\n", 2)[0],
			wantErr:     []string{"Deployment web"},
			wantResults: []string{"[error]"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := filter.New(tc.fc)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			in := parse(t, tc.input)
			before := render(in)
			out, err := m.Filter(in)
			if got := render(in); got != before {
				t.Errorf("Filter changed its input:\n%s\nwas:\n%s", got, before)
			}
			res := resultStrings(m.Results)
			for _, s := range tc.wantResults {
				if !strings.Contains(res, s) {
					t.Errorf("results lack %q:\n%s", s, res)
				}
			}
			if len(tc.wantErr) > 0 {
				if err == nil {
					t.Fatalf("want an error, got items:\n%s", render(out))
				}
				if out != nil {
					t.Errorf("error with %d items, want none", len(out))
				}
				for _, s := range tc.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error lacks %q:\n%v", s, err)
					}
				}
				if m.Results.ExitCode() != 1 {
					t.Errorf("results after an error hold no error result:\n%s", res)
				}
				return
			}
			if err != nil {
				t.Fatalf("Filter: %v", err)
			}
			var kinds []string
			for _, n := range out {
				kinds = append(kinds, n.GetKind()+"/"+n.GetName())
			}
			if strings.Join(kinds, " ") != strings.Join(tc.wantItems, " ") {
				t.Errorf("items %v, want %v", kinds, tc.wantItems)
			}
			text := render(out)
			for _, s := range tc.wantOut {
				if !strings.Contains(text, s) {
					t.Errorf("output lacks %q:\n%s", s, text)
				}
			}
		})
	}
}

func resultStrings(rs framework.Results) string {
	var lines []string
	for _, r := range rs {
		lines = append(lines, r.String())
	}
	return strings.Join(lines, "\n")
}

func TestErrorTypes(t *testing.T) {
	t.Run("bad item is an ItemError", func(t *testing.T) {
		in := parse(t, `apiVersion: v1
kind: ConfigMap
metadata:
  name: x
  annotations:
    config.kubernetes.io/merge-source: upstream
    internal.config.kubernetes.io/path: pkg/x.yaml
`)
		_, err := (&filter.Filter{}).Filter(in)
		var ie *vocab.ItemError
		if !errors.As(err, &ie) {
			t.Fatalf("error %v (%T) is not a *vocab.ItemError", err, err)
		}
		if ie.Resource == nil || ie.Resource.Name != "x" || ie.File != "pkg/x.yaml" || !strings.Contains(ie.Msg, "upstream") {
			t.Errorf("ItemError does not name resource, file and role: %+v", ie)
		}
	})
	t.Run("conflicts under onConflict=error are framework.Results", func(t *testing.T) {
		cfg := config.Defaults()
		cfg.OnConflict = config.FailOnConflict
		m := &filter.Filter{Config: cfg}
		_, err := m.Filter(parse(t, strings.Replace(threeWay, "DEST_IMAGE", "app:local", 1)))
		var rs framework.Results
		if !errors.As(err, &rs) {
			t.Fatalf("error %v (%T) is not framework.Results", err, err)
		}
		if len(rs) != 2 || rs[1].Field == nil || rs[1].Field.Path != "spec.template.spec.containers[name=app].image" ||
			rs[1].ResourceRef == nil || rs[1].ResourceRef.Name != "web" || rs[1].Severity != framework.Error {
			t.Errorf("conflict results wrong:\n%s", resultStrings(rs))
		}
	})
	t.Run("bad functionConfig names the field", func(t *testing.T) {
		_, err := filter.New(configMap("onConflict: mine, mode: 2way"))
		if err == nil {
			t.Fatal("want an error")
		}
		rs := results.FromError(err)
		if len(rs) != 1 || rs[0].Field == nil || rs[0].Field.Path != "data.onConflict" ||
			rs[0].ResourceRef == nil || rs[0].ResourceRef.Name != "cfg" || !strings.HasPrefix(rs[0].Message, "functionConfig:") {
			t.Errorf("results of the functionConfig error wrong:\n%s", resultStrings(rs))
		}
		var ie *vocab.ItemError
		if !errors.As(err, &ie) {
			t.Errorf("error %v is not a *vocab.ItemError", err)
		}
	})
	t.Run("hand-built Config is checked", func(t *testing.T) {
		for name, cfg := range map[string]*config.Config{
			"empty":         {},
			"unknown mode":  func() *config.Config { c := config.Defaults(); c.Mode = "3-way"; return c }(),
			"no role annot": func() *config.Config { c := config.Defaults(); c.RoleAnnotation = ""; return c }(),
			"no assoc keys": func() *config.Config { c := config.Defaults(); c.AssociativeKeys = nil; return c }(),
			"bad policy":    func() *config.Config { c := config.Defaults(); c.OnConflict = "mine"; return c }(),
			"bad schema":    func() *config.Config { c := config.Defaults(); c.Schema = "crd"; return c }(),
		} {
			m := &filter.Filter{Config: cfg}
			out, err := m.Filter(parse(t, threeWay))
			if err == nil || out != nil || m.Results.ExitCode() != 1 {
				t.Errorf("%s: want an error, no items and an error result; got %v, %d items, %s", name, err, len(out), resultStrings(m.Results))
			}
		}
	})
}

func TestResultsAreResetPerRun(t *testing.T) {
	m := &filter.Filter{}
	if _, err := m.Filter(parse(t, twoWay)); err == nil {
		t.Fatal("2-way roles in a 3-way run: want an error")
	}
	if _, err := m.Filter(parse(t, strings.Replace(threeWay, "DEST_IMAGE", "app:1", 1))); err != nil {
		t.Fatal(err)
	}
	if len(m.Results) != 1 || m.Results.ExitCode() != 0 || !strings.Contains(m.Results[0].Message, "3way merge") {
		t.Errorf("results of the second run:\n%s", resultStrings(m.Results))
	}
}

// writePkg writes files into a new package directory.
func writePkg(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// readPkg returns every file of a package directory by relative path.
func readPkg(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func runPipeline(dir string, m *filter.Filter) error {
	rw := &kio.LocalPackageReadWriter{PackagePath: dir}
	return kio.Pipeline{Inputs: []kio.Reader{rw}, Filters: []kio.Filter{m}, Outputs: []kio.Writer{rw}, ContinueOnEmptyResult: true}.Execute()
}

func pathConfig() *config.Config {
	cfg := config.Defaults()
	cfg.OriginalPath, cfg.UpdatedPath, cfg.DestPath = "original", "updated", "dest"
	return cfg
}

const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n"

func TestPipelineErrorWritesNothing(t *testing.T) {
	files := map[string]string{
		"original/cm.yaml": cm + "  a: \"1\"\n",
		"updated/cm.yaml":  cm + "  a: \"2\"\n",
		"dest/cm.yaml":     cm + "  a: \"3\" # local\n",
	}
	dir := writePkg(t, files)
	cfg := pathConfig()
	cfg.OnConflict = config.FailOnConflict
	err := runPipeline(dir, &filter.Filter{Config: cfg})
	var rs framework.Results
	if !errors.As(err, &rs) || rs.ExitCode() != 1 {
		t.Fatalf("pipeline error %v (%T) does not unwrap to the error results", err, err)
	}
	got := readPkg(t, dir)
	if len(got) != len(files) {
		t.Errorf("files after a failed merge: %v", got)
	}
	for name, content := range files {
		if got[name] != content {
			t.Errorf("%s changed after a failed merge:\n%s", name, got[name])
		}
	}
}

func TestPipelineMergesAndConsumesSources(t *testing.T) {
	dir := writePkg(t, map[string]string{
		"original/cm.yaml": cm + "  a: \"1\"\n",
		"updated/cm.yaml":  cm + "  a: \"2\"\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: new\n",
		"dest/cm.yaml":     "# local copy\n" + cm + "  a: \"1\"\n  b: local # mine\n",
		"other/keep.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep\n",
	})
	m := &filter.Filter{Config: pathConfig()}
	if err := runPipeline(dir, m); err != nil {
		t.Fatal(err)
	}
	got := readPkg(t, dir)
	want := "# local copy\n" + cm + "  a: \"2\"\n  b: local # mine\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: new\n"
	if got["dest/cm.yaml"] != want {
		t.Errorf("dest/cm.yaml:\n%s\nwant:\n%s", got["dest/cm.yaml"], want)
	}
	if _, ok := got["other/keep.yaml"]; !ok {
		t.Error("a file outside the role directories was deleted")
	}
	if len(got) != 2 {
		t.Errorf("files left: %v; want dest/cm.yaml and other/keep.yaml (sources consumed)", got)
	}
	for name, content := range got {
		if strings.Contains(content, "config.kubernetes.io/") {
			t.Errorf("%s keeps host annotations:\n%s", name, content)
		}
	}
}

// Upstream deleted the only resource: the merge's output is empty, and with
// ContinueOnEmptyResult the writer deletes every file it read.
func TestPipelineEmptyResultDeletes(t *testing.T) {
	dir := writePkg(t, map[string]string{
		"original/cm.yaml":    cm + "  a: \"1\"\n",
		"updated/Kptfile.txt": "not yaml, not read\n",
		"dest/cm.yaml":        cm + "  a: \"1\"\n",
	})
	m := &filter.Filter{Config: pathConfig()}
	if err := runPipeline(dir, m); err != nil {
		t.Fatal(err)
	}
	if got := readPkg(t, dir); len(got) != 1 || got["updated/Kptfile.txt"] == "" {
		t.Errorf("files left: %v; want only the file the reader skipped", got)
	}
	if !strings.Contains(resultStrings(m.Results), "1 deleted") {
		t.Errorf("results:\n%s", resultStrings(m.Results))
	}
}

// Mode apply goes through the same entry point as the binary: the local config is
// applied onto the live object as kubectl apply would.
func TestApplyMode(t *testing.T) {
	cfg := config.Defaults()
	cfg.Mode = vocab.Apply
	m := &filter.Filter{Config: cfg}
	out, err := m.Filter(parse(t, `apiVersion: v1
kind: ConfigMap
metadata:
  name: app
  annotations:
    config.kubernetes.io/merge-source: dest
    kubectl.kubernetes.io/last-applied-configuration: '{"apiVersion":"v1","data":{"a":"1","b":"1"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"app"}}'
data:
  a: "1" # live comment
  b: "1"
  c: set-by-a-controller
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: app
  annotations:
    config.kubernetes.io/merge-source: updated
data:
  a: "2"
`))
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, resultStrings(m.Results))
	}
	if len(out) != 1 {
		t.Fatalf("want the live object only, got %d items", len(out))
	}
	got := out[0].MustString()
	for _, want := range []string{`a: "2" # live comment`, "c: set-by-a-controller"} {
		if !strings.Contains(got, want) {
			t.Errorf("applied object lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, `b: "1"`) {
		t.Errorf("b was in the last-applied config and is gone from the new one; it must be deleted:\n%s", got)
	}
}
