package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// The two releases of the project blueprint (testdata/upstream/blueprints-project) and
// where the upstream repository holds them, as GoogleCloudPlatform/blueprints does.
const (
	tagOld         = "project-blueprint-v0.4.0"
	tagNew         = "project-blueprint-v0.4.4"
	upstreamSubdir = "catalog/project"
)

// gitEnv is the environment of the bench's own git commands: no user configuration,
// a fixed identity.
var gitEnv = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
	"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com",
	"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com")

// git runs git with args in dir and returns its trimmed output.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, gitEnv
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// makeUpstream makes a git repository at repo laid out like GoogleCloudPlatform/blueprints
// (catalog/project), one commit and tag per release, from the releases under data.
func makeUpstream(data, repo string) error {
	for i, tag := range []string{tagOld, tagNew} {
		dir := filepath.Join(repo, filepath.FromSlash(upstreamSubdir))
		if i == 0 {
			if err := os.MkdirAll(repo, 0o755); err != nil {
				return err
			}
			if _, err := git(repo, "init", "-q", "-b", "main"); err != nil {
				return err
			}
		} else if _, err := git(repo, "rm", "-r", "-q", upstreamSubdir); err != nil {
			return err
		}
		if err := copyTree(filepath.Join(data, tag), dir); err != nil {
			return err
		}
		for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", tag}, {"tag", tag}} {
			if _, err := git(repo, args...); err != nil {
				return err
			}
		}
	}
	return nil
}

// copyTree copies the regular files under src to dst, keeping their modes.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
}

// fleet is a work git repository holding n copies of the blueprint under sites/.
type fleet struct {
	dir       string // the work repository
	n         int
	conflicts map[string]bool // the packages (relative to dir) given a genuine conflict
}

// sitePkg is the package directory of site i, relative to the work repository.
func sitePkg(i int) string { return fmt.Sprintf("sites/s%03d/project", i) }

// buildFleet makes the work repository dir: `kpt pkg get` of the old release from the
// upstream repository once (into site 0), copied to sites 1..n-1, each site customised
// (customise; every conflictEvery-th with a genuine conflict), committed in one commit.
// kptHome is kpt's HOME (its cache).
func buildFleet(dir, upstream, kptHome string, n, conflictEvery int) (*fleet, error) {
	if err := os.MkdirAll(filepath.Join(dir, "sites", "s000"), 0o755); err != nil {
		return nil, err
	}
	if _, err := git(dir, "init", "-q", "-b", "main"); err != nil {
		return nil, err
	}
	src := "file://" + filepath.ToSlash(upstream) + ".git/" + upstreamSubdir + "@" + tagOld
	get := exec.Command("kpt", "pkg", "get", src, sitePkg(0))
	get.Dir, get.Env = dir, append(gitEnv, "HOME="+kptHome)
	if out, err := get.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("kpt pkg get %s: %v\n%s", src, err, out)
	}
	f := &fleet{dir: dir, n: n, conflicts: map[string]bool{}}
	for i := 1; i < n; i++ {
		if err := copyTree(filepath.Join(dir, sitePkg(0)), filepath.Join(dir, sitePkg(i))); err != nil {
			return nil, err
		}
	}
	for i := 0; i < n; i++ {
		conflict := conflictEvery > 0 && i%conflictEvery == conflictEvery-1
		if err := customise(filepath.Join(dir, sitePkg(i)), i, conflict); err != nil {
			return nil, fmt.Errorf("%s: %w", sitePkg(i), err)
		}
		if conflict {
			f.conflicts[sitePkg(i)] = true
		}
	}
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", fmt.Sprintf("%d sites on %s", n, tagOld)}} {
		if _, err := git(dir, args...); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// kptSetLine is a YAML line whose value carries a kpt setter comment: the key part, the
// value and the setter pattern.
var kptSetLine = regexp.MustCompile(`^(\s*(?:- )?[\w./-]+: )(.*?) # kpt-set: (.*)$`)

// setterRef is one ${name} in a setter pattern.
var setterRef = regexp.MustCompile(`\$\{[^}]+\}`)

// customise makes the package at pkg site i's copy, as a team makes it: the setters'
// values (project-id, folder-name and billing-account-id in setters.yaml, project-id in
// kcc-namespace/setters.yaml), applied to every `# kpt-set:` field as kpt's
// apply-setters does (management-project-id keeps its default: v0.4.4 removes an
// annotation it sets, which would be a conflict in every package); a local set-labels mutator in the Kptfile, with a
// comment, and a line comment on apply-setters; on every other site a comment rewritten
// in setters.yaml and one between two documents of kcc-namespace/kcc.yaml; on every
// third the KCC owner binding's role made roles/editor. With conflict, the Project's
// blueprint annotation, which the new release changes too, is changed differently.
func customise(pkg string, i int, conflict bool) error {
	site := fmt.Sprintf("s%03d", i)
	values := map[string]string{
		"project-id":         "acme-" + site,
		"folder-name":        fmt.Sprintf("team-%02d", i%40),
		"billing-account-id": fmt.Sprintf("01%04X-ACME%02d-%06X", i, i%100, 0xC0FFEE+i),
	}
	edits := []struct{ file, old, new string }{
		{"setters.yaml", "  folder-name: name.of.folder\n", "  folder-name: " + values["folder-name"] + "\n"},
		{"setters.yaml", "  project-id: project-id\n", "  project-id: " + values["project-id"] + "\n"},
		{"kcc-namespace/setters.yaml", "  project-id: project-id\n", "  project-id: " + values["project-id"] + "\n"},
		{"setters.yaml", "  project-id: ", "  billing-account-id: " + values["billing-account-id"] + "\n  project-id: "},
		{"Kptfile", "    - image: gcr.io/kpt-fn/apply-setters:v0.1\n", "    - image: gcr.io/kpt-fn/apply-setters:v0.1 # acme: values in setters.yaml\n"},
	}
	if i%2 == 0 {
		edits = append(edits,
			struct{ file, old, new string }{"setters.yaml", "# These defaults can be kept", "# acme: reviewed for " + site + ", these defaults are right"},
			struct{ file, old, new string }{"kcc-namespace/kcc.yaml", "# Create GCP ServiceAccount for use by KCC to manage resources in this project",
				"# acme: KCC's GCP service account; no keys are ever exported (security review)"})
	}
	if i%3 == 0 {
		edits = append(edits, struct{ file, old, new string }{"kcc-namespace/kcc-project-owner.yaml",
			"    - role: roles/owner\n", "    - role: roles/editor # acme: editor is enough, owner is break-glass only\n"})
	}
	if conflict {
		edits = append(edits, struct{ file, old, new string }{"project.yaml",
			"cnrm/landing-zone:project/v0.4.0,kpt-pkg", "cnrm/landing-zone:project/v0.4.0-acme." + site + ",kpt-pkg"})
	}
	for _, e := range edits {
		if err := replaceOnce(filepath.Join(pkg, filepath.FromSlash(e.file)), e.old, e.new); err != nil {
			return err
		}
	}
	kptfile := filepath.Join(pkg, "Kptfile")
	b, err := os.ReadFile(kptfile)
	if err != nil {
		return err
	}
	labels := fmt.Sprintf("    # acme: cost-allocation labels on every resource\n    - image: gcr.io/kpt-fn/set-labels:v0.2.0\n"+
		"      configMap:\n        team: %s\n        cost-center: cc-%04d\n", values["folder-name"], 1000+i)
	if err := os.WriteFile(kptfile, append(b, labels...), 0o644); err != nil {
		return err
	}
	return filepath.WalkDir(pkg, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") || d.Name() == "setters.yaml" {
			return err
		}
		return applySetters(p, values)
	})
}

// replaceOnce replaces old by new in the file, an error unless old occurs exactly once.
func replaceOnce(path, old, new string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if n := strings.Count(string(b), old); n != 1 {
		return fmt.Errorf("%s: %q occurs %d times, want once", path, old, n)
	}
	return os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644)
}

// applySetters sets every `# kpt-set:` field of the YAML file at path whose pattern's
// setters all have values to the pattern with the values put in, keeping the comment
// and the value's double quotes (kpt's apply-setters, line by line).
func applySetters(path string, values map[string]string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.Split(string(b), "\n")
	for k, line := range lines {
		m := kptSetLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		ok := true
		v := setterRef.ReplaceAllStringFunc(m[3], func(ref string) string {
			val, has := values[ref[2:len(ref)-1]]
			ok = ok && has
			return val
		})
		if !ok {
			continue
		}
		if strings.HasPrefix(m[2], `"`) {
			v = `"` + v + `"`
		}
		lines[k] = m[1] + v + " # kpt-set: " + m[3]
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)
}

// reset puts the work tree back at its commit: git reset --hard, git clean -fdx.
func (f *fleet) reset() error {
	if _, err := git(f.dir, "reset", "-q", "--hard"); err != nil {
		return err
	}
	_, err := git(f.dir, "clean", "-q", "-f", "-d", "-x")
	return err
}

// treeHash is the git tree of the work tree as it is (git add -A, git write-tree, then
// the index put back), to compare two runs' results.
func (f *fleet) treeHash() (string, error) {
	if _, err := git(f.dir, "add", "-A"); err != nil {
		return "", err
	}
	h, err := git(f.dir, "write-tree")
	if err != nil {
		return "", err
	}
	_, err = git(f.dir, "reset", "-q")
	return h, err
}
