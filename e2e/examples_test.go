package e2e

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// TestFnConfigExamples runs every file in fn-config-examples/ through `kpt fn eval
// --fn-config` on a package built for it: the roles its keys select (annotations,
// directories or inline sources) hold one resource with an upstream change and a local
// change, and the run must merge both. So every example the README points at works as
// written, not only parses.
func TestFnConfigExamples(t *testing.T) {
	requireKpt(t)
	dir := filepath.Join(repoRoot, "fn-config-examples")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			fc, err := yaml.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := config.Load(fc)
			if err != nil {
				t.Fatalf("%s does not load: %v", name, err)
			}
			pkg := t.TempDir()
			want := examplePackage(t, pkg, cfg)
			before := snapshotFiles(t, pkg)
			run := runKpt(t, pkg, path)
			if cfg.Plan {
				// A plan leaves the package byte for byte and lists the change in results.
				if run.ExitCode != 0 {
					t.Fatalf("exit %d:\n%s", run.ExitCode, run.Output)
				}
				if after := snapshotFiles(t, pkg); !reflect.DeepEqual(before, after) {
					t.Errorf("plan changed the package:\nbefore %v\nafter  %v", before, after)
				}
				if !strings.Contains(run.Output, "plan, nothing written") || !strings.Contains(run.Output, "data.tier: 3way plan: would change this field: bronze -> gold") {
					t.Errorf("plan results lack the summary or the data.tier change:\n%s", run.Output)
				}
				return
			}
			// The package has no conflict, so even the onConflict: error example merges.
			if run.ExitCode != 0 {
				t.Fatalf("exit %d:\n%s", run.ExitCode, run.Output)
			}
			got := readResources(t, filepath.Join(pkg, want.dir))
			r, ok := got[want.id]
			if !ok {
				t.Fatalf("the merged %s is not in the package; it holds %v\n%s", want.id, keys(got), run.Output)
			}
			for path, value := range want.fields {
				wantScalar(t, r, value, strings.Split(path, ".")...)
			}
			for _, path := range want.absent {
				if n := lookup(t, r.Node, strings.Split(path, ".")...); n != nil {
					t.Errorf("%s should be gone, holds %s", path, n.MustString())
				}
			}
		})
	}
}

// exampleWant is what the merged resource must hold.
type exampleWant struct {
	dir    string // where dest lives (kept sources stay in theirs)
	id     resID
	fields map[string]string // path -> scalar
	absent []string
}

func keys(m map[resID]resource) []string {
	var out []string
	for k := range m {
		out = append(out, k.String())
	}
	return out
}

// examplePackage writes, into pkg, items for the roles cfg selects and returns what the
// merge must give. The change: upstream sets data.tier and adds data.added, dest set
// data.local; in apply mode the live object also holds a field the last config set and
// the new one dropped (data.dropped), which must go.
func examplePackage(t *testing.T, pkg string, cfg *config.Config) exampleWant {
	t.Helper()
	if cfg.Inline() {
		return inlineExamplePackage(t, pkg, cfg)
	}
	doc := func(role, data string, annotations ...string) string {
		var ann strings.Builder
		if !cfg.ByPath() && role != "" {
			ann.WriteString("    " + cfg.RoleAnnotation + ": " + role + "\n")
		}
		for _, a := range annotations {
			ann.WriteString("    " + a + "\n")
		}
		s := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"
		if ann.Len() > 0 {
			s += "  annotations:\n" + ann.String()
		}
		return s + "data:\n" + data
	}
	dirFor := func(role string) string {
		if !cfg.ByPath() {
			return "."
		}
		switch role {
		case "original":
			return cfg.OriginalPath
		case "updated":
			return cfg.UpdatedPath
		case "src":
			return cfg.SrcPath
		}
		return cfg.DestPath
	}
	put := func(role, text string) {
		file := role + ".yaml"
		if cfg.ByPath() {
			file = "settings.yaml" // one name in every role's directory, so mergeOnPath pairs them
		}
		writeFile(t, filepath.Join(pkg, dirFor(role), file), []byte(text))
	}
	want := exampleWant{dir: dirFor("dest"), id: resID{Kind: "ConfigMap", Name: "settings"}}
	switch cfg.Mode {
	case vocab.ThreeWay:
		put("original", doc("original", "  tier: bronze\n"))
		put("updated", doc("updated", "  tier: gold\n  added: \"yes\"\n"))
		put("dest", doc("dest", "  tier: bronze\n  local: \"yes\"\n"))
		want.fields = map[string]string{"data.tier": "gold", "data.added": "yes", "data.local": "yes"}
	case vocab.TwoWay:
		put("src", doc("src", "  tier: gold\n  added: \"yes\"\n"))
		put("dest", doc("dest", "  tier: bronze\n  local: \"yes\"\n"))
		want.fields = map[string]string{"data.tier": "gold", "data.added": "yes", "data.local": "yes"}
	case vocab.Apply:
		last, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "settings"}, "data": map[string]any{"tier": "bronze", "dropped": "x"}})
		put("updated", doc("updated", "  tier: gold\n  added: \"yes\"\n"))
		put("dest", doc("dest", "  tier: bronze\n  dropped: x\n  local: \"yes\"\n",
			"kubectl.kubernetes.io/last-applied-configuration: '"+string(last)+"'"))
		want.fields = map[string]string{"data.tier": "gold", "data.added": "yes", "data.local": "yes"}
		want.absent = []string{"data.dropped"}
	default:
		t.Fatalf("mode %s", cfg.Mode)
	}
	return want
}

// inlineExamplePackage writes a dest for the first inline resource of the example: the
// original's (3-way) or the source's (2-way, apply) copy with a local label, which the
// merge must keep while taking the inline change.
func inlineExamplePackage(t *testing.T, pkg string, cfg *config.Config) exampleWant {
	t.Helper()
	var base, change *yaml.RNode
	switch cfg.Mode {
	case vocab.ThreeWay:
		base, change = cfg.Original[0], findSame(t, cfg.Updated, cfg.Original[0])
	case vocab.TwoWay:
		base, change = cfg.Src[0], cfg.Src[0]
	case vocab.Apply:
		base, change = cfg.Updated[0], cfg.Updated[0]
	}
	dest := base.Copy()
	if cfg.Mode == vocab.TwoWay {
		// dest holds only the identity: everything else comes from src.
		dest = yaml.MustParse("apiVersion: " + base.GetApiVersion() + "\nkind: " + base.GetKind() +
			"\nmetadata:\n  name: " + base.GetName() + "\n")
		if ns := base.GetNamespace(); ns != "" {
			if err := dest.PipeE(yaml.SetK8sNamespace(ns)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := dest.PipeE(yaml.SetLabel("local", "yes")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(pkg, "dest.yaml"), []byte(dest.MustString()))
	want := exampleWant{
		dir:    ".",
		id:     idOf(base),
		fields: map[string]string{"metadata.labels.local": "yes"},
	}
	// Every scalar leaf of the change must arrive (apply and 2-way: the whole source;
	// 3-way: the updated copy, whose fields the dest did not change).
	collectLeaves(change, "", want.fields)
	return want
}

// findSame returns the item of list with n's kind and name.
func findSame(t *testing.T, list []*yaml.RNode, n *yaml.RNode) *yaml.RNode {
	t.Helper()
	for _, it := range list {
		if it.GetKind() == n.GetKind() && it.GetName() == n.GetName() {
			return it
		}
	}
	t.Fatalf("no updated copy of %s %s in the example", n.GetKind(), n.GetName())
	return nil
}

// collectLeaves records the scalar fields reachable through maps only (lists are left
// to the engine's own tests), as dotted paths.
func collectLeaves(n *yaml.RNode, prefix string, into map[string]string) {
	if n.YNode().Kind != yaml.MappingNode {
		return
	}
	_ = n.VisitFields(func(f *yaml.MapNode) error {
		key := f.Key.YNode().Value
		if strings.Contains(key, ".") {
			return nil // annotation and label keys: not a dotted path
		}
		path := key
		if prefix != "" {
			path = prefix + "." + key
		}
		switch f.Value.YNode().Kind {
		case yaml.ScalarNode:
			into[path] = f.Value.YNode().Value
		case yaml.MappingNode:
			collectLeaves(f.Value, path, into)
		}
		return nil
	})
}

// snapshotFiles returns every file under dir with its content, by relative path.
func snapshotFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
