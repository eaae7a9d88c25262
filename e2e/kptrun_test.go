package e2e

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// kptRun is the outcome of one `kpt fn eval`.
type kptRun struct {
	Args     []string
	ExitCode int
	Output   string // stdout and stderr
	Results  []result
}

// result is one entry of the function's results, as kpt records them.
type result struct {
	Message, Severity string
	Ref               resID
	APIVersion        string
	FieldPath         string
	FilePath          string
}

func (r result) String() string {
	s := "[" + r.Severity + "] " + r.Message
	if r.Ref.Kind != "" {
		s += " (" + r.APIVersion + " " + r.Ref.Kind + " " + r.Ref.Namespace + "/" + r.Ref.Name + ")"
	}
	if r.FieldPath != "" {
		s += " field=" + r.FieldPath
	}
	return s
}

// evalFunction is how `kpt fn eval` runs the function: `--exec <binary>`, or, with
// E2E_EVAL_RUNTIME=image (`make image-test`), `--image $E2E_IMAGE` so that the whole
// suite runs against the image.
func evalFunction(t *testing.T) []string {
	t.Helper()
	if os.Getenv("E2E_EVAL_RUNTIME") == "image" {
		image, _ := requireImage(t)
		return []string{"--image", image, "--image-pull-policy", "never"}
	}
	return []string{"--exec", fnBinary}
}

// kptEnv is the environment for kpt: KPT_FN_RUNTIME set to the container runtime when
// the image is under test.
func kptEnv(t *testing.T) []string {
	t.Helper()
	if os.Getenv("E2E_EVAL_RUNTIME") == "image" {
		return withEnv("KPT_FN_RUNTIME=" + containerRuntime(t))
	}
	return os.Environ()
}

// runKpt runs `kpt fn eval pkg` with the function (see evalFunction), with the functionConfig file fnConfig
// (none when empty) and fnArgs after `--`, collecting the results kpt writes to a
// results directory.
func runKpt(t *testing.T, pkg, fnConfig string, fnArgs ...string) kptRun {
	t.Helper()
	resultsDir := t.TempDir()
	args := append([]string{"fn", "eval", pkg}, evalFunction(t)...)
	args = append(args, "--results-dir", resultsDir)
	if fnConfig != "" {
		args = append(args, "--fn-config", fnConfig)
	}
	if len(fnArgs) > 0 {
		args = append(append(args, "--"), fnArgs...)
	}
	cmd := exec.Command("kpt", args...)
	cmd.Env = kptEnv(t)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	run := kptRun{Args: append([]string{"kpt"}, args...), Output: out.String()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		run.ExitCode = exit.ExitCode()
	default:
		t.Fatalf("%s: %v", strings.Join(run.Args, " "), err)
	}
	run.Results = readResults(t, filepath.Join(resultsDir, "results.yaml"))
	return run
}

// mustRunKpt is runKpt that fails the test unless kpt succeeds.
func mustRunKpt(t *testing.T, pkg, fnConfig string, fnArgs ...string) kptRun {
	t.Helper()
	run := runKpt(t, pkg, fnConfig, fnArgs...)
	if run.ExitCode != 0 {
		t.Fatalf("%s exited %d:\n%s", strings.Join(run.Args, " "), run.ExitCode, run.Output)
	}
	return run
}

// readResults parses kpt's FunctionResultList (results.yaml); nil when absent.
func readResults(t *testing.T, path string) []result {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	list, err := yaml.Parse(string(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	items, err := list.Pipe(yaml.Lookup("items"))
	if err != nil || items == nil {
		return nil
	}
	fnResults, _ := items.Elements()
	var out []result
	for _, fr := range fnResults {
		rs := lookup(t, fr, "results")
		if rs == nil {
			continue
		}
		els, _ := rs.Elements()
		for _, r := range els {
			res := result{
				Message:    scalar(t, r, "message"),
				Severity:   scalar(t, r, "severity"),
				APIVersion: scalar(t, r, "resourceRef", "apiVersion"),
				FieldPath:  scalar(t, r, "field", "path"),
				FilePath:   scalar(t, r, "file", "path"),
			}
			group := ""
			if i := strings.Index(res.APIVersion, "/"); i >= 0 {
				group = res.APIVersion[:i]
			}
			res.Ref = resID{Group: group, Kind: scalar(t, r, "resourceRef", "kind"),
				Namespace: scalar(t, r, "resourceRef", "namespace"), Name: scalar(t, r, "resourceRef", "name")}
			out = append(out, res)
		}
	}
	return out
}

// summary is the counts of the function's info result.
type summary struct{ Merged, Added, Deleted, Kept, Conflicts int }

var summaryRE = regexp.MustCompile(`(\d+) merged, (\d+) added, (\d+) deleted, (\d+) kept, (\d+) conflicts?`)

// summaryOf finds the one summary result and parses its counts.
func summaryOf(t *testing.T, run kptRun) summary {
	t.Helper()
	var found []summary
	for _, r := range run.Results {
		m := summaryRE.FindStringSubmatch(r.Message)
		if m == nil {
			continue
		}
		if r.Severity != "info" {
			t.Errorf("summary result has severity %q, want info: %s", r.Severity, r)
		}
		n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
		found = append(found, summary{n(1), n(2), n(3), n(4), n(5)})
	}
	if len(found) != 1 {
		t.Fatalf("want exactly one summary result (\"3way merge: N merged, N added, N deleted, N kept, N conflicts\"), found %d; results:\n%s",
			len(found), resultsText(run.Results))
	}
	return found[0]
}

func resultsText(rs []result) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString("  " + r.String() + "\n")
	}
	return b.String()
}

// conflictResults are the warnings that carry a field path (one per conflict).
func conflictResults(run kptRun) []result {
	var out []result
	for _, r := range run.Results {
		if r.Severity == "warning" && r.FieldPath != "" {
			out = append(out, r)
		}
	}
	return out
}

// wantConflict checks that a warning names the conflict at fieldPath in the resource
// apiVersion/kind ns/name, that its message starts with the field path and says which
// side won.
func wantConflict(t *testing.T, run kptRun, apiVersion, kind, ns, name, fieldPath, winner string) {
	t.Helper()
	for _, r := range conflictResults(run) {
		if r.FieldPath != fieldPath || r.Ref.Kind != kind || r.Ref.Name != name || r.Ref.Namespace != ns {
			continue
		}
		if r.APIVersion != apiVersion {
			t.Errorf("conflict %s: resourceRef.apiVersion %q, want %q", fieldPath, r.APIVersion, apiVersion)
		}
		// The path is in field.path (kpt prints it before the message); the message says
		// it is a conflict and what the three sides hold.
		if !strings.HasPrefix(r.Message, "conflict: ") || !strings.Contains(r.Message, "original ") {
			t.Errorf("conflict message should start with \"conflict: \" and show the three values: %q", r.Message)
		}
		if !strings.Contains(r.Message, winner) {
			t.Errorf("conflict message should say that %q won: %q", winner, r.Message)
		}
		return
	}
	t.Errorf("no conflict warning for %s %s/%s field %s; results:\n%s", kind, ns, name, fieldPath, resultsText(run.Results))
}

// fnConfig writes a typed functionConfig for a 3-way merge of the package's original/,
// updated/ and dest/ directories, outside the package, and returns its path. It is
// local-config, so even inside a package no function would treat it as a resource.
func fnConfig(t *testing.T, onConflict string, extra ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`apiVersion: fn.krm-merge.dev/v1alpha1
kind: ResourceMerge
metadata:
  name: upgrade
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  mode: 3way
  originalPath: original
  updatedPath: updated
  destPath: dest
`)
	if onConflict != "" {
		b.WriteString("  onConflict: " + onConflict + "\n")
	}
	for _, e := range extra {
		b.WriteString("  " + e + "\n")
	}
	path := filepath.Join(t.TempDir(), "fn-config.yaml")
	writeFile(t, path, []byte(b.String()))
	return path
}
