package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// testdata/conflict is a one-Deployment package: upstream bumps the image 1.0.0 -> 1.1.0,
// dest runs a hotfix build from its own registry (a conflict on the tag; the registry
// merges: valueMerge) and 2 replicas (a plain customisation). When updated wins, the
// image is dest's registry with upstream's tag (mergedImage).
const (
	appImagePath   = "spec.template.spec.containers[name=app].image"
	mergedImage    = "registry.example.com/shop/app:1.1.0"
	localImage     = "registry.example.com/shop/app:1.0.0-hotfix1"
	conflictFnArgs = "originalPath=original updatedPath=updated destPath=dest"
)

// conflictPackage copies testdata/conflict into a new git repository.
func conflictPackage(t *testing.T) string {
	t.Helper()
	pkg := filepath.Join(t.TempDir(), "pkg")
	copyTree(t, filepath.Join(repoRoot, "e2e", "testdata", "conflict"), pkg)
	gitInitCommit(t, pkg)
	return pkg
}

func appDeployment(t *testing.T, pkg string) resource {
	t.Helper()
	r, ok := readResources(t, filepath.Join(pkg, "dest"))[resID{"apps", "Deployment", "shop", "app"}]
	if !ok {
		t.Fatal("dest/ lost the Deployment")
	}
	return r
}

// Both policies that let a merge through, with the ConfigMap functionConfig that
// `kpt fn eval ... -- key=value` makes.
func TestOnConflictPolicies(t *testing.T) {
	requireKpt(t)
	t.Parallel()
	for policy, wantImage := range map[string]string{"updated": mergedImage, "dest": localImage} {
		t.Run(policy, func(t *testing.T) {
			t.Parallel()
			pkg := conflictPackage(t)
			args := append(strings.Fields(conflictFnArgs), "onConflict="+policy)
			run := mustRunKpt(t, pkg, "", args...)
			wantConflict(t, run, "apps/v1", "Deployment", "shop", "app", appImagePath, policy)
			if sum := summaryOf(t, run); sum != (summary{Merged: 1, Conflicts: 1}) {
				t.Errorf("summary %+v, want 1 merged and 1 conflict", sum)
			}
			dep := appDeployment(t, pkg)
			wantScalar(t, dep, wantImage, "spec", "template", "spec", "containers", "[name=app]", "image")
			wantScalar(t, dep, "2", "spec", "replicas")
			if policy == "dest" {
				// dest won everywhere: the file is as it was, comment included.
				if status := gitStatus(t, pkg, "dest"); status != "" {
					t.Errorf("onConflict=dest changed dest/ although upstream changed only the conflicting field:\n%s",
						git(t, pkg, "diff", "--", "dest"))
				}
			}
		})
	}
}

// onConflict: error fails the run on a conflict: kpt exits non-zero, the package is not
// touched, and the error names the field.
func TestOnConflictErrorFailsAndChangesNothing(t *testing.T) {
	requireKpt(t)
	t.Parallel()
	pkg := conflictPackage(t)
	run := runKpt(t, pkg, fnConfig(t, "error"))
	if run.ExitCode == 0 {
		t.Fatalf("kpt exited 0 with onConflict: error and a conflict:\n%s", run.Output)
	}
	if status := gitStatus(t, pkg); status != "" {
		t.Errorf("the failed run changed the package:\n%s", status)
	}
	if !strings.Contains(run.Output, appImagePath) {
		t.Errorf("kpt's output does not name the conflicting field %s:\n%s", appImagePath, run.Output)
	}
	// One error result for the one conflict, which no side won: nothing was written.
	n := 0
	for _, r := range run.Results {
		if r.FieldPath != appImagePath {
			continue
		}
		n++
		if r.Severity != "error" {
			t.Errorf("the conflict's result has severity %q, want error: %s", r.Severity, r)
		}
		if strings.Contains(r.Message, "wins") {
			t.Errorf("under onConflict: error nothing is merged, yet the result says a side wins: %q", r.Message)
		}
	}
	if n != 1 {
		t.Errorf("%d results name %s, want exactly 1 (one per conflict); results:\n%s", n, appImagePath, resultsText(run.Results))
	}
}

// A bad functionConfig fails the run before anything is merged: kpt exits non-zero,
// the package is not touched, and the error names the key (and the bad value).
func TestBadFunctionConfigFailsAndChangesNothing(t *testing.T) {
	requireKpt(t)
	t.Parallel()
	cases := []struct {
		name     string
		fnConfig func(t *testing.T) string
		fnArgs   []string
		mention  []string
	}{
		{
			name:     "typed, invalid onConflict",
			fnConfig: func(t *testing.T) string { return fnConfig(t, "sometimes") },
			mention:  []string{"onConflict", "sometimes", "updated", "dest", "error"},
		},
		{
			name:    "ConfigMap, invalid onConflict",
			fnArgs:  append(strings.Fields(conflictFnArgs), "onConflict=sometimes"),
			mention: []string{"onConflict", "sometimes"},
		},
		{
			name:     "typed, unknown key",
			fnConfig: func(t *testing.T) string { return fnConfig(t, "", "onConflit: dest") },
			mention:  []string{"onConflit"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			pkg := conflictPackage(t)
			cfg := ""
			if c.fnConfig != nil {
				cfg = c.fnConfig(t)
			}
			run := runKpt(t, pkg, cfg, c.fnArgs...)
			if run.ExitCode == 0 {
				t.Fatalf("kpt exited 0:\n%s", run.Output)
			}
			if status := gitStatus(t, pkg); status != "" {
				t.Errorf("the failed run changed the package:\n%s", status)
			}
			for _, m := range c.mention {
				if !strings.Contains(run.Output, m) {
					t.Errorf("kpt's output does not mention %q:\n%s", m, run.Output)
				}
			}
			errs := 0
			for _, r := range run.Results {
				if r.Severity == "error" {
					errs++
				}
			}
			if errs == 0 {
				t.Errorf("no error result; results:\n%s", resultsText(run.Results))
			}
		})
	}
}

// Packages fetched with `kpt pkg get` carry a Kptfile in each directory, and local-config
// items such as a setters.yaml. Under path roles they are part of the package being
// upgraded: the Kptfiles merge (upstream's new mutator arrives, the local description
// stays), a local-config item upstream adds is added to dest, and the functionConfig
// outside the role directories passes through untouched.
func TestKptfilesAndLocalConfigUnderRoleDirectoriesMerge(t *testing.T) {
	requireKpt(t)
	t.Parallel()
	pkg := filepath.Join(t.TempDir(), "pkg")
	copyTree(t, filepath.Join(repoRoot, "e2e", "testdata", "conflict"), pkg)
	kptfile := func(name, description, mutators string) []byte {
		return []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: " + name + "\n  annotations:\n" +
			"    config.kubernetes.io/local-config: \"true\"\ninfo:\n  description: " + description + "\npipeline:\n  mutators:\n" + mutators)
	}
	setters := "  - image: gcr.io/kpt-fn/apply-setters:v0.2\n    configPath: setters.yaml\n"
	labels := "  - image: gcr.io/kpt-fn/set-labels:v0.2\n    configMap: {app: shop}\n"
	writeFile(t, filepath.Join(pkg, "original", "Kptfile"), kptfile("shop-app", "the shop app", setters))
	writeFile(t, filepath.Join(pkg, "updated", "Kptfile"), kptfile("shop-app", "the shop app", setters+labels))
	writeFile(t, filepath.Join(pkg, "dest", "Kptfile"), kptfile("my-shop", "our copy of the shop app", setters))
	writeFile(t, filepath.Join(pkg, "updated", "setters.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: setters\n"+
		"  annotations:\n    config.kubernetes.io/local-config: \"true\"\ndata:\n  image: example.com/shop/app\n"))
	cfg := filepath.Join(pkg, "fn-config.yaml")
	copyFile(t, fnConfig(t, ""), cfg)
	gitInitCommit(t, pkg)

	run := mustRunKpt(t, pkg, cfg)
	if sum := summaryOf(t, run); sum != (summary{Merged: 2, Added: 1, Conflicts: 1}) {
		t.Errorf("summary %+v, want 2 merged, 1 added and 1 conflict; results:\n%s", sum, resultsText(run.Results))
	}
	want := " M dest/Kptfile\n M dest/app.yaml\n D original/Kptfile\n D original/app.yaml\n D updated/Kptfile\n D updated/app.yaml\n D updated/setters.yaml\n?? dest/setters.yaml\n"
	if status := gitStatus(t, pkg); status != want {
		t.Errorf("git status:\n%s\nwant (fn-config.yaml untouched):\n%s", status, want)
	}
	got := readFile(t, filepath.Join(pkg, "dest", "Kptfile"))
	for _, w := range []string{"name: my-shop", "description: our copy of the shop app", "apply-setters", "set-labels"} {
		if !strings.Contains(got, w) {
			t.Errorf("dest/Kptfile lacks %q:\n%s", w, got)
		}
	}
	wantScalar(t, appDeployment(t, pkg), mergedImage, "spec", "template", "spec", "containers", "[name=app]", "image")
}
