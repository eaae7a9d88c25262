package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Host cases, in the kpt-functions-catalog style: each directory under e2e/cases is a
// package (the input), with
//
//	.expected/config.yaml   how to run it (hostCase below)
//	.expected/diff.patch    the expected change of the package (`git diff` after the run), or
//	.expected/output.yaml   the expected stdout, for hosts that print instead of writing
//	                        (kustomize build, standalone krm-merge), or
//	.expected/results.yaml  the expected results, for failures (exitCode != 0)
//
// Each case runs once per runtime it lists (exec: the binary; image: E2E_IMAGE through
// the container runtime), in a copy of the package under git, and then a second time on
// the result, which must change nothing (the function is idempotent) or, for failures,
// fail again the same way with the package untouched.
//
// E2E_UPDATE=1 rewrites the .expected files from what the hosts produce (review the diff
// before committing it).

// hostCase is .expected/config.yaml.
type hostCase struct {
	// Host is eval (`kpt fn eval`), render (`kpt fn render` of the package's Kptfile
	// pipeline), kustomize (`kustomize build`, or `kubectl kustomize` for the image),
	// standalone (`krm-merge FN_CONFIG ITEMS...`) or pipe (`kpt fn source | krm-merge |
	// kpt fn sink`).
	Host string `yaml:"host"`
	// Runtimes are the ways the function runs: exec and/or image.
	Runtimes []string `yaml:"runtimes"`
	// FnConfig is a file in the package: eval's and pipe's --fn-config, standalone's
	// first argument.
	FnConfig string `yaml:"fnConfig,omitempty"`
	// Args are eval's ConfigMap key=value arguments after `--`.
	Args []string `yaml:"args,omitempty"`
	// Items are standalone's item arguments (files or directories in the package).
	Items []string `yaml:"items,omitempty"`
	// ExitCode is the host's expected exit code.
	ExitCode int `yaml:"exitCode,omitempty"`
	// CheckResults also compares a successful run's results with .expected/results.yaml
	// (plan cases, whose results are the point and whose diff is empty).
	CheckResults bool `yaml:"checkResults,omitempty"`
}

// functionImageRE finds the function in Kptfiles and kustomize transformer configs of the
// cases; the harness points it at the binary or the image under test.
var functionImageRE = regexp.MustCompile(`ghcr\.io/krm-merge/krm-merge(:[A-Za-z0-9._-]+)?`)

func TestHostCases(t *testing.T) {
	root := filepath.Join(repoRoot, "e2e", "cases")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		var c hostCase
		if err := yaml.Unmarshal([]byte(readFile(t, filepath.Join(dir, ".expected", "config.yaml"))), &c); err != nil {
			t.Fatalf("%s/.expected/config.yaml: %v", e.Name(), err)
		}
		if len(c.Runtimes) == 0 {
			t.Fatalf("%s/.expected/config.yaml: runtimes is empty", e.Name())
		}
		for _, rt := range c.Runtimes {
			c, rt := c, rt
			t.Run(e.Name()+"/"+rt, func(t *testing.T) { runHostCase(t, dir, c, rt) })
		}
	}
}

// hostRun is what one run of a host left: its exit code, its output and the results.
type hostRun struct {
	cmd      string
	exitCode int
	stdout   string
	stderr   string
	results  string // normalized results YAML; "" when the host gives none
}

func runHostCase(t *testing.T, caseDir string, c hostCase, rt string) {
	switch c.Host {
	case "eval", "render", "pipe":
		requireKpt(t)
	case "kustomize":
		if rt == "exec" {
			requireKustomize(t)
		} else if _, err := exec.LookPath("kubectl"); err != nil {
			t.Skip("kubectl is not on PATH")
		}
	case "standalone":
	default:
		t.Fatalf("unknown host %q", c.Host)
	}
	var image, runtime string
	switch rt {
	case "exec":
	case "image":
		image, runtime = requireImage(t)
	default:
		t.Fatalf("unknown runtime %q", rt)
	}

	pkg := filepath.Join(t.TempDir(), filepath.Base(caseDir))
	copyTree(t, caseDir, pkg)
	if err := os.RemoveAll(filepath.Join(pkg, ".expected")); err != nil {
		t.Fatal(err)
	}
	pointAtFunction(t, pkg, rt, image)
	gitInitCommit(t, pkg)

	first := runHost(t, pkg, c, rt, image, runtime)
	if first.exitCode != c.ExitCode {
		t.Fatalf("%s exited %d, want %d\nstdout:\n%s\nstderr:\n%s", first.cmd, first.exitCode, c.ExitCode, first.stdout, first.stderr)
	}
	git(t, pkg, "add", "-A")
	diff := git(t, pkg, "diff", "--cached", "--no-color", "--no-ext-diff")
	expected := filepath.Join(caseDir, ".expected")
	switch {
	case c.ExitCode != 0:
		if diff != "" {
			t.Errorf("a failed run changed the package:\n%s", diff)
		}
		compareGolden(t, filepath.Join(expected, "results.yaml"), first.results)
	case c.Host == "kustomize" || c.Host == "standalone":
		compareGolden(t, filepath.Join(expected, "output.yaml"), first.stdout)
		if c.Host == "standalone" && !strings.Contains(first.stderr, " merge: ") {
			t.Errorf("a standalone run must print its results on stderr (kyaml writes only the items); stderr:\n%s", first.stderr)
		}
	default:
		compareGolden(t, filepath.Join(expected, "diff.patch"), diff)
	}
	if c.CheckResults && c.ExitCode == 0 {
		compareGolden(t, filepath.Join(expected, "results.yaml"), first.results)
	}
	git(t, pkg, "commit", "-q", "--allow-empty", "-m", "first run")

	second := runHost(t, pkg, c, rt, image, runtime)
	if second.exitCode != c.ExitCode {
		t.Fatalf("second run: %s exited %d, want %d\n%s", second.cmd, second.exitCode, c.ExitCode, second.stderr)
	}
	if st := gitStatus(t, pkg); st != "" {
		git(t, pkg, "add", "-A")
		t.Errorf("second run changed the package (not idempotent):\n%s", git(t, pkg, "diff", "--cached"))
	}
	if c.ExitCode != 0 && second.results != first.results {
		t.Errorf("second failing run gave other results:\n%s\nfirst:\n%s", second.results, first.results)
	}
	if (c.Host == "kustomize" || c.Host == "standalone") && second.stdout != first.stdout {
		t.Errorf("second run printed other output (not deterministic)")
	}
}

// pointAtFunction makes the package's Kptfile pipeline and kustomize transformer configs
// run the function under test: `image: ghcr.io/krm-merge/krm-merge` becomes
// `exec: <binary>` (Kptfile), `exec: {path: <binary>}` (kustomize) or the image under
// test.
func pointAtFunction(t *testing.T, pkg, rt, image string) {
	t.Helper()
	err := filepath.WalkDir(pkg, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") && d.Name() != "Kptfile" {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil || !functionImageRE.Match(b) {
			return err
		}
		s := string(b)
		switch {
		case rt == "image":
			s = functionImageRE.ReplaceAllLiteralString(s, image)
		case d.Name() == "Kptfile":
			s = regexp.MustCompile(`image: `+functionImageRE.String()).ReplaceAllLiteralString(s, "exec: "+fnBinary)
		default: // kustomize: container: {image: X} -> exec: {path: binary}
			s = regexp.MustCompile(`container:(\s+)image: `+functionImageRE.String()).ReplaceAllString(s, "exec:${1}path: "+fnBinary)
		}
		if rt == "exec" && functionImageRE.MatchString(s) {
			return fmt.Errorf("%s: could not point every function reference at the %s runtime", p, rt)
		}
		return os.WriteFile(p, []byte(s), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// runHost runs the case's host once on pkg.
func runHost(t *testing.T, pkg string, c hostCase, rt, image, runtime string) hostRun {
	t.Helper()
	resultsDir := t.TempDir()
	env := os.Environ()
	if rt == "image" {
		env = withEnv("KPT_FN_RUNTIME=" + runtime)
	}
	var cmd *exec.Cmd
	switch c.Host {
	case "eval":
		args := []string{"fn", "eval", pkg, "--results-dir", resultsDir, "--truncate-output=false"}
		if rt == "image" {
			args = append(args, "--image", image, "--image-pull-policy", "never")
		} else {
			args = append(args, "--exec", fnBinary)
		}
		if c.FnConfig != "" {
			args = append(args, "--fn-config", filepath.Join(pkg, c.FnConfig))
		}
		if len(c.Args) > 0 {
			args = append(append(args, "--"), c.Args...)
		}
		cmd = exec.Command("kpt", args...)
	case "render":
		args := []string{"fn", "render", pkg, "--results-dir", resultsDir, "--truncate-output=false"}
		if rt == "image" {
			args = append(args, "--image-pull-policy", "never")
		} else {
			args = append(args, "--allow-exec")
		}
		cmd = exec.Command("kpt", args...)
	case "kustomize":
		if rt == "image" {
			if shim := dockerShim(t, runtime); shim != "" {
				env = withEnv("PATH=" + shim + string(os.PathListSeparator) + os.Getenv("PATH"))
			}
			cmd = exec.Command("kubectl", "kustomize", "--enable-alpha-plugins", pkg)
		} else {
			cmd = exec.Command(requireKustomize(t), "build", "--enable-alpha-plugins", "--enable-exec", pkg)
		}
	case "standalone":
		args := []string{filepath.Join(pkg, c.FnConfig)}
		for _, it := range c.Items {
			args = append(args, filepath.Join(pkg, it))
		}
		cmd = exec.Command(fnBinary, args...)
	case "pipe":
		return runPipe(t, pkg, c, rt, image, runtime)
	}
	cmd.Env = env
	run := execute(t, cmd)
	if b, err := os.ReadFile(filepath.Join(resultsDir, "results.yaml")); err == nil {
		run.results = normalizeResults(t, b)
	}
	return run
}

// runPipe runs `kpt fn source PKG [--fn-config F] | FUNCTION | kpt fn sink OUT` and then
// replaces the package's resource files with OUT's, so the change shows in git.
func runPipe(t *testing.T, pkg string, c hostCase, rt, image, runtime string) hostRun {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	source := "kpt fn source " + shellQuote(pkg)
	if c.FnConfig != "" {
		source += " --fn-config " + shellQuote(filepath.Join(pkg, c.FnConfig))
	}
	fn := shellQuote(fnBinary)
	if rt == "image" {
		fn = runtime + " run --rm -i --network none --user nobody " + shellQuote(image)
	}
	script := "set -o pipefail; " + source + " | " + fn + " | kpt fn sink " + shellQuote(out)
	run := execute(t, exec.Command("bash", "-c", script))
	if run.exitCode != 0 {
		return run
	}
	// kpt fn sink writes a new directory; make the package what it wrote.
	for _, f := range yamlFilesUnder(t, pkg) {
		if err := os.Remove(filepath.Join(pkg, f)); err != nil {
			t.Fatal(err)
		}
	}
	copyTree(t, out, pkg)
	return run
}

// execute runs cmd and records its exit code and output.
func execute(t *testing.T, cmd *exec.Cmd) hostRun {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	run := hostRun{cmd: strings.Join(cmd.Args, " "), stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		run.exitCode = exit.ExitCode()
	default:
		t.Fatalf("%s: %v", run.cmd, err)
	}
	return run
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// normalizeResults keeps what the function said from kpt's results.yaml: per result its
// severity, message, resourceRef, field and file, in order, as YAML. kpt's own fields
// (image or exec path, exit code, stderr) differ between runtimes and are dropped.
func normalizeResults(t *testing.T, b []byte) string {
	t.Helper()
	list, err := yaml.Parse(string(b))
	if err != nil {
		t.Fatalf("results.yaml: %v", err)
	}
	out := yaml.NewListRNode()
	items, _ := list.Pipe(yaml.Lookup("items"))
	if items == nil {
		return ""
	}
	fnResults, _ := items.Elements()
	for _, fr := range fnResults {
		rs := lookup(t, fr, "results")
		if rs == nil {
			continue
		}
		els, _ := rs.Elements()
		for _, r := range els {
			m := yaml.NewMapRNode(nil)
			for _, k := range []string{"severity", "message", "resourceRef", "field", "file"} {
				if v := lookup(t, r, k); v != nil {
					if err := m.PipeE(yaml.SetField(k, v)); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := out.PipeE(yaml.Append(m.YNode())); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out.MustString()
}

// compareGolden compares got with the file, or rewrites the file under E2E_UPDATE=1.
// Lines of the form `index 1a2b3c4..5d6e7f8` (blob hashes) take part: they are content
// hashes, so they are stable.
func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if os.Getenv("E2E_UPDATE") == "1" {
		writeFile(t, path, []byte(got))
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (E2E_UPDATE=1 writes it from this run; review it before committing)\ngot:\n%s", err, got)
	}
	if string(want) != got {
		t.Errorf("%s differs from this run (E2E_UPDATE=1 rewrites it):\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff shows the lines only in want (-) and only in got (+), in order.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	inW, inG := map[string]int{}, map[string]int{}
	for _, l := range w {
		inW[l]++
	}
	for _, l := range g {
		inG[l]++
	}
	var b strings.Builder
	for _, l := range w {
		if inG[l] == 0 {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range g {
		if inW[l] == 0 {
			b.WriteString("+ " + l + "\n")
		}
	}
	if b.Len() == 0 {
		return "(same lines, other order or count)\n--- got:\n" + got
	}
	return b.String()
}

// caseNames lists the cases, for the README-coverage test.
func caseNames(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(repoRoot, "e2e", "cases"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}
