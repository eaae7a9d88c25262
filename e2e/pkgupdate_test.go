package e2e

// `krm-merge pkg update` on real upstream releases (testdata/upstream), each committed and
// tagged in a git repository built by the test, fetched with the real `kpt pkg get`,
// customised and committed; then updated by krm-merge, and side by side by
// `kpt pkg update`, and compared.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// upstreamRepo commits each release directory of data/<pkg> (named by tag) into
// pkgPath of a new git repository, tagging each; it returns the repository's path.
func upstreamRepo(t *testing.T, data, pkg, pkgPath string, tags ...string) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), pkg)
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "init", "-q", "-b", "main")
	for _, tag := range tags {
		target := filepath.Join(repo, filepath.FromSlash(pkgPath))
		entries, _ := os.ReadDir(target)
		for _, e := range entries {
			if e.Name() != ".git" {
				if err := os.RemoveAll(filepath.Join(target, e.Name())); err != nil {
					t.Fatal(err)
				}
			}
		}
		copyTree(t, filepath.Join(data, pkg, tag), target)
		git(t, repo, "add", "-A")
		git(t, repo, "commit", "-q", "-m", tag)
		git(t, repo, "tag", tag)
	}
	return repo
}

// kptGet runs `kpt pkg get` of pkgPath at tag of repo into work/name and returns the
// package directory.
func kptGet(t *testing.T, repo, pkgPath, tag, work, name string) string {
	t.Helper()
	src := "file://" + repo + ".git"
	if pkgPath != "" {
		src += "/" + pkgPath
	}
	cmd := exec.Command("kpt", "pkg", "get", src+"@"+tag, name)
	cmd.Dir = work
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kpt pkg get %s@%s: %v\n%s", src, tag, err, out)
	}
	return filepath.Join(work, name)
}

// workRepo makes an empty git repository to hold local packages.
func workRepo(t *testing.T) string {
	t.Helper()
	work := filepath.Join(t.TempDir(), "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, work, "init", "-q")
	return work
}

func commitAll(t *testing.T, dir, msg string) {
	t.Helper()
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
}

// updateRun is one run of `krm-merge pkg update`.
type updateRun struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

// pkgUpdate runs `krm-merge pkg update args...` in dir with its own git cache.
func pkgUpdate(t *testing.T, dir, cache string, args ...string) updateRun {
	t.Helper()
	cmd := exec.Command(fnBinary, append([]string{"pkg", "update"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KRM_MERGE_CACHE_DIR="+cache, "GIT_CONFIG_NOSYSTEM=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	r := updateRun{stdout: out.String(), stderr: errOut.String(), took: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	default:
		t.Fatalf("krm-merge pkg update: %v", err)
	}
	return r
}

func mustUpdate(t *testing.T, dir, cache string, args ...string) updateRun {
	t.Helper()
	r := pkgUpdate(t, dir, cache, args...)
	if r.code != 0 {
		t.Fatalf("krm-merge pkg update %v: exit %d\n%s\n%s", args, r.code, r.stdout, r.stderr)
	}
	return r
}

// jsonReport is the part of `--output json` the tests read.
type jsonReport struct {
	Packages []struct {
		Path string
		From struct {
			Ref, Commit string
			Cached      bool
		}
		To struct {
			Ref, Commit string
			Cached      bool
		}
		Counts    struct{ Merged, Added, Deleted, Kept, Conflicts int }
		Conflicts []struct {
			File, Resource, Field, Lines, Message string
		}
		Resources []struct{ Action, Resource, File string }
	}
	Files []struct{ Path, Action string }
	Error string
}

func parseReport(t *testing.T, r updateRun) jsonReport {
	t.Helper()
	var rep jsonReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("--output json: %v\n%s", err, r.stdout)
	}
	return rep
}

// unchanged fails the test when dir differs from before or git sees a change in it.
func unchanged(t *testing.T, what, dir string, before map[string]string) {
	t.Helper()
	if got := snapshot(t, dir); !reflect.DeepEqual(got, before) {
		var diff []string
		for p := range mergeKeys(got, before) {
			if got[p] != before[p] {
				diff = append(diff, p)
			}
		}
		sort.Strings(diff)
		t.Errorf("%s changed the package: %v", what, diff)
	}
	if s := gitStatus(t, dir, "."); s != "" {
		t.Errorf("%s: git status:\n%s", what, s)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".krm-merge-*")); len(left) > 0 {
		t.Errorf("%s left staging behind: %v", what, left)
	}
}

func mergeKeys(a, b map[string]string) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// pkgUpdateApplySetters does what kpt's apply-setters function does to a package, for the
// setters given: every value whose line comment is "# kpt-set: <pattern>" becomes the
// pattern with ${name} replaced by the setter's value (patterns using setters not given
// are left alone), and the setters.yaml ConfigMaps' data get the new values.
func pkgUpdateApplySetters(t *testing.T, dir string, setters map[string]string) {
	t.Helper()
	line := regexp.MustCompile(`^(\s*(?:- )?[^\s#][^#]*?:\s+)(\S[^#]*?)(\s+# kpt-set: (\S+))\s*$`)
	ref := regexp.MustCompile(`\$\{([^}]+)\}`)
	for _, rel := range yamlFilesUnder(t, dir) {
		p := filepath.Join(dir, rel)
		lines := strings.Split(readFile(t, p), "\n")
		for i, l := range lines {
			if filepath.Base(rel) == "setters.yaml" {
				for k, v := range setters {
					if strings.HasPrefix(l, "  "+k+": ") {
						lines[i] = "  " + k + ": " + v
					}
				}
				continue
			}
			m := line.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			known := true
			value := ref.ReplaceAllStringFunc(m[4], func(s string) string {
				v, ok := setters[ref.FindStringSubmatch(s)[1]]
				known = known && ok
				return v
			})
			if known {
				lines[i] = m[1] + value + m[3]
			}
		}
		writeFile(t, p, []byte(strings.Join(lines, "\n")))
	}
}

// krmDocs reads the resources of a package's KRM files, keyed by file and identity
// (kpt's upstream identifier when present, which survives a local rename).
func krmDocs(t *testing.T, dir string, keep func(n *yaml.RNode) bool) map[string]*yaml.RNode {
	t.Helper()
	out := map[string]*yaml.RNode{}
	for rel, content := range snapshot(t, dir) {
		if !strings.HasSuffix(rel, ".yaml") && !strings.HasSuffix(rel, ".yml") && filepath.Base(rel) != "Kptfile" {
			continue
		}
		nodes, err := (&kio.ByteReader{Reader: strings.NewReader(content), OmitReaderAnnotations: true}).Read()
		if err != nil {
			continue // not KRM (a JSON patch list)
		}
		for _, n := range nodes {
			if n.YNode().Kind != yaml.MappingNode || n.GetKind() == "" || (keep != nil && !keep(n)) {
				continue
			}
			id := n.GetAnnotations()["internal.kpt.dev/upstream-identifier"]
			if id == "" {
				id = idOf(n).String()
			}
			out[rel+"#"+id] = n
		}
	}
	return out
}

// leaves flattens a resource into field path -> JSON value of each scalar (and empty
// map or list), lists by index.
func leaves(t *testing.T, n *yaml.RNode) map[string]string {
	t.Helper()
	out := map[string]string{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if len(x) == 0 {
				out[path] = "{}"
			}
			for k, c := range x {
				walk(path+"."+k, c)
			}
		case []any:
			if len(x) == 0 {
				out[path] = "[]"
			}
			for i, c := range x {
				walk(fmt.Sprintf("%s[%d]", path, i), c)
			}
		default:
			b, _ := json.Marshal(x)
			out[path] = string(b)
		}
	}
	if n != nil {
		walk("", jsonValue(t, n))
	}
	return out
}

// difference is a named, deliberate difference from kpt pkg update: it explains a
// field where krm-merge's result differs from kpt's, or returns "".
type difference func(key, field, before, kpt, krm string) string

// compareWithKpt checks krm-merge's update against kpt's, resource by resource and
// field by field: every change kpt brings (a field that differs from the package before
// the update), krm-merge brings too; every field kpt leaves as it was (a local change
// kept, or nothing to change), krm-merge leaves too; resources kpt adds or deletes,
// krm-merge adds or deletes. A field where they differ fails the test unless a named
// difference explains it; the explanations are logged.
func compareWithKpt(t *testing.T, before, kpt, krm map[string]*yaml.RNode, named difference) {
	t.Helper()
	explained := map[string]int{}
	var keys []string
	for k := range before {
		keys = append(keys, k)
	}
	for k := range kpt {
		if before[k] == nil {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		b, p, m := before[k], kpt[k], krm[k]
		switch {
		case p == nil && m != nil:
			if why := named(k, "", "present", "deleted", "present"); why != "" {
				explained[why]++
			} else {
				t.Errorf("%s: kpt deleted it, krm-merge kept it", k)
			}
			continue
		case p != nil && m == nil:
			if why := named(k, "", "", "present", "absent"); why != "" {
				explained[why]++
			} else {
				t.Errorf("%s: kpt has it, krm-merge does not", k)
			}
			continue
		case p == nil:
			continue
		}
		lb, lp, lm := leaves(t, b), leaves(t, p), leaves(t, m)
		fields := map[string]bool{}
		for f := range lb {
			fields[f] = true
		}
		for f := range lp {
			fields[f] = true
		}
		for f := range lm {
			fields[f] = true
		}
		var sorted []string
		for f := range fields {
			sorted = append(sorted, f)
		}
		sort.Strings(sorted)
		for _, f := range sorted {
			if lm[f] == lp[f] {
				continue
			}
			if why := named(k, f, lb[f], lp[f], lm[f]); why != "" {
				explained[why]++
				continue
			}
			if lp[f] != lb[f] {
				t.Errorf("%s %s: kpt brings %s (was %s), krm-merge has %s", k, f, orAbsent(lp[f]), orAbsent(lb[f]), orAbsent(lm[f]))
			} else {
				t.Errorf("%s %s: kpt keeps %s, krm-merge has %s", k, f, orAbsent(lb[f]), orAbsent(lm[f]))
			}
		}
	}
	var whys []string
	for why, n := range explained {
		whys = append(whys, fmt.Sprintf("%s (%d fields)", why, n))
	}
	sort.Strings(whys)
	for _, w := range whys {
		t.Logf("deliberate difference from kpt pkg update: %s", w)
	}
}

func orAbsent(s string) string {
	if s == "" {
		return "<absent>"
	}
	return s
}

// kptUpdate runs `kpt pkg update dir@version` in a copy of the package and returns the
// copy.
func kptUpdate(t *testing.T, pkg, version string) string {
	t.Helper()
	work := workRepo(t)
	dir := filepath.Join(work, filepath.Base(pkg))
	copyTree(t, pkg, dir)
	commitAll(t, work, "before kpt pkg update")
	cmd := exec.Command("kpt", "pkg", "update", filepath.Base(pkg)+"@"+version)
	cmd.Dir = work
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kpt pkg update: %v\n%s", err, out)
	}
	t.Logf("kpt pkg update %s@%s took %v", filepath.Base(pkg), version, time.Since(start).Round(time.Millisecond))
	return dir
}

// isKptOrLocalConfig says whether a resource is a Kptfile or local config. The
// comparisons with kpt pkg update leave them out (kpt rewrites the Kptfile's upstream and
// lock its own way); the tests check them on their own.
func isKptOrLocalConfig(n *yaml.RNode) bool {
	return n.GetKind() == "Kptfile" || n.GetAnnotations()["config.kubernetes.io/local-config"] == "true"
}

// The container image is a function image without git: `pkg update` there fails,
// saying why and what to run instead, and changes nothing.
func TestPkgUpdateInTheImage(t *testing.T) {
	image, runtime := requireImage(t)
	pkg := t.TempDir()
	writeFile(t, filepath.Join(pkg, "Kptfile"), []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n"))
	before := snapshot(t, pkg)
	cmd := exec.Command(runtime, "run", "--rm", "--network", "none", "-v", pkg+":/pkg", image, "pkg", "update", "/pkg@v2")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("pkg update in the image: %v, want exit 1\n%s", err, out)
	}
	if !strings.Contains(string(out), "git is not installed") || !strings.Contains(string(out), "run the krm-merge binary") {
		t.Errorf("the image's message:\n%s", out)
	}
	if !reflect.DeepEqual(snapshot(t, pkg), before) {
		t.Error("the package changed")
	}
}
