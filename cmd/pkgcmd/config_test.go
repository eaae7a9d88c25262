package pkgcmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate"
)

// writeConfig writes a typed functionConfig with spec and returns its path.
func writeConfig(t *testing.T, spec string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "merge.yaml")
	if err := os.WriteFile(p, []byte("apiVersion: fn.krm-merge.dev/v1alpha1\nkind: ResourceMerge\nmetadata:\n  name: m\nspec:\n"+spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMergeConfigRefused: --config may not set what pkg update decides itself (the
// mode, the roles, keepSources, the sources); each is named, in the report's error too.
func TestMergeConfigRefused(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		spec, want string
	}{
		{"  mode: 2way\n  srcPath: s\n  destPath: d\n  keepSources: true\n",
			"merge config: mode is 2way; pkg update is a 3-way merge; destPath is set; pkg update chooses the roles itself; " +
				"srcPath is set; pkg update chooses the roles itself; keepSources is set; pkg update writes only the package"},
		{"  originalPath: o\n  updatedPath: u\n  destPath: .\n",
			"merge config: originalPath is set; pkg update chooses the roles itself; updatedPath is set; pkg update chooses the roles itself; " +
				"destPath is set; pkg update chooses the roles itself"},
		{"  original: []\n  updated: []\n",
			"merge config: inline sources (spec.original, spec.updated, spec.src) are set; pkg update fetches them"},
	} {
		cfg := writeConfig(t, tc.spec)
		_, _, err := run(t, "update", dir+"@v2", "--config", cfg)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: error %v, want %q", tc.spec, err, tc.want)
		}
		stdout, _, err := run(t, "update", dir+"@v2", "--config", cfg, "--output", "json")
		var doc struct {
			Dir   string `json:"dir"`
			Error string `json:"error"`
		}
		if err == nil || json.Unmarshal([]byte(stdout), &doc) != nil || doc.Error != tc.want || doc.Dir != dir {
			t.Errorf("%q: --output json gave %v and %s", tc.spec, err, stdout)
		}
	}
}

// TestMergeSettingsFromConfig: every other setting of the functionConfig reaches the
// update.
func TestMergeSettingsFromConfig(t *testing.T) {
	cfg := config.Defaults()
	cfg.OnConflict, cfg.RoleAnnotation, cfg.MergeOnPath, cfg.ValueMerge = config.DestWins, "example.com/role", true, false
	cfg.Schema, cfg.AssociativeKeys = config.SchemaNone, []string{"id"}
	got, err := mergeSettings(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := &config.MergeSettings{OnConflict: config.DestWins, RoleAnnotation: "example.com/role", MergeOnPath: true,
		Schema: config.SchemaNone, AssociativeKeys: []string{"id"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mergeSettings = %+v, want %+v", got, want)
	}
	if d, err := mergeSettings(config.Defaults()); err != nil || !reflect.DeepEqual(*d, config.DefaultMergeSettings()) {
		t.Errorf("the defaults give %+v, %v; want DefaultMergeSettings %+v", d, err, config.DefaultMergeSettings())
	}
}

// TestConfigPlanActsAsPlanFlag: plan: true in --config previews as --plan does.
func TestConfigPlanActsAsPlanFlag(t *testing.T) {
	dir, flags := markSetup(t)
	before, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	stdout, _, err := run(t, append([]string{"update", dir, "--config", writeConfig(t, "  plan: true\n"), "--output", "json"}, flags...)...)
	if err != nil {
		t.Fatal(err, stdout)
	}
	var rep pkgupdate.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Plan || len(rep.Files) != 1 || !strings.Contains(rep.Files[0].Diff, "Install it") || string(after) != string(before) {
		t.Errorf("plan %v, files %+v, README changed %v", rep.Plan, rep.Files, string(after) != string(before))
	}
}
