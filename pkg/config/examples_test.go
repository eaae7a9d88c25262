package config

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

const examplesDir = "../../fn-config-examples"

// TestExamples loads every file in fn-config-examples, so that the examples never rot.
// File names say what each shows: MODE[-WAY][-rest].yaml, MODE one of 3way, 2way, apply;
// WAY annotations (the default when absent), paths or inline.
func TestExamples(t *testing.T) {
	entries, err := os.ReadDir(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	// The examples the README points at must exist.
	for _, want := range []string{"3way-annotations.yaml", "3way-paths.yaml", "3way-inline.yaml",
		"3way-onconflict-error.yaml", "2way-annotations.yaml", "2way-paths.yaml", "apply.yaml"} {
		if _, err := os.Stat(filepath.Join(examplesDir, want)); err != nil {
			t.Errorf("missing example %s", want)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			if !strings.HasSuffix(name, ".yaml") {
				t.Fatalf("%s: examples are .yaml files", name)
			}
			text, err := os.ReadFile(filepath.Join(examplesDir, name))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(text), "#") ||
				!strings.Contains(string(text), "--fn-config fn-config-examples/"+name) {
				t.Errorf("the leading comment must say how to run it: kpt fn eval DIR --exec ./bin/krm-merge --fn-config fn-config-examples/%s", name)
			}
			fc, err := yaml.ReadFile(filepath.Join(examplesDir, name))
			if err != nil {
				t.Fatal(err)
			}
			c, err := Load(fc)
			if err != nil {
				t.Fatalf("does not load: %v", err)
			}
			base := strings.TrimSuffix(name, ".yaml")
			mode, rest, _ := strings.Cut(base, "-")
			if string(c.Mode) != mode {
				t.Errorf("mode %s, want %s (from the file name)", c.Mode, mode)
			}
			way, _, _ := strings.Cut(rest, "-")
			switch way {
			case "paths":
				if !c.ByPath() || c.Inline() {
					t.Errorf("a paths example must select roles by path only: %+v", c)
				}
			case "inline":
				if !c.Inline() || c.ByPath() {
					t.Errorf("an inline example must give inline sources only: %+v", c)
				}
				if len(c.Original)+len(c.Updated)+len(c.Src) == 0 {
					t.Error("an inline example should hold resources")
				}
			case "annotations", "":
				if c.ByPath() || c.Inline() {
					t.Errorf("an annotations example must not select by path or inline: %+v", c)
				}
			}
			if strings.Contains(base, "onconflict-error") && c.OnConflict != FailOnConflict {
				t.Errorf("onConflict %s, want error", c.OnConflict)
			}
		})
	}
}
