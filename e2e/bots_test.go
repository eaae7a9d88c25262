package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// ciJobScript is the run script of the step with id "update" of the GitHub Actions
// workflow in docs/bots.md (its first ```yaml block holding "jobs:").
func ciJobScript(t *testing.T) string {
	t.Helper()
	doc := readFile(t, filepath.Join(repoRoot, "docs", "bots.md"))
	var workflow string
	for _, part := range strings.Split(doc, "```yaml\n")[1:] {
		if body, _, ok := strings.Cut(part, "\n```"); ok && strings.Contains(body, "jobs:") {
			workflow = body + "\n"
			break
		}
	}
	n, err := yaml.Parse(workflow)
	if err != nil {
		t.Fatalf("docs/bots.md's workflow: %v\n%s", err, workflow)
	}
	step, err := n.Pipe(yaml.Lookup("jobs", "update", "steps", "[id=update]"))
	if err != nil || step == nil {
		t.Fatalf("docs/bots.md's workflow has no step id update: %v", err)
	}
	if sh := step.Field("shell"); sh == nil || yaml.GetValue(sh.Value) != "bash" {
		t.Fatal("step update is not shell: bash")
	}
	return yaml.GetValue(step.Field("run").Value)
}

// botsPackage writes a package at dir as kpt pkg get leaves it: the upstream's files
// at a release and a Kptfile recording it (ref, commit).
func botsPackage(t *testing.T, dir, repo, ref, commit string, files map[string]string) {
	t.Helper()
	kf := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: " + filepath.Base(dir) + "\nupstream:\n  type: git\n  git:\n" +
		"    repo: file://" + repo + "\n    directory: /app\n    ref: " + ref + "\n  updateStrategy: resource-merge\n" +
		"upstreamLock:\n  type: git\n  git:\n    repo: file://" + repo + "\n    directory: /app\n    ref: " + ref + "\n    commit: " + commit + "\n"
	writeFile(t, filepath.Join(dir, "Kptfile"), []byte(kf))
	for p, c := range files {
		writeFile(t, filepath.Join(dir, p), []byte(c))
	}
}

// The CI job of docs/bots.md, its step "update" run as GitHub Actions runs a bash step
// (bash --noprofile --norc -eo pipefail), with the built binary on PATH, on a repository
// of three packages of one upstream: one behind without conflict (updated to the newest
// release), one behind with a conflict (markers written, the lock left, the job's
// output conflicts=true and the pull request body, the run's Markdown report, naming
// it with its conflict), one current (left alone). Nothing is written outside the
// packages.
func TestBotsDocCIJob(t *testing.T) {
	for _, tool := range []string{"bash", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			msg := tool + " is not on PATH: the CI job of docs/bots.md needs it"
			if os.Getenv("CI") == "true" {
				t.Fatal(msg + "; CI=true, so this is a failure, not a skip")
			}
			t.Skip(msg)
		}
	}
	script := ciJobScript(t)
	cm := func(a, b string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: \"" + a + "\"\n  b: \"" + b + "\"\n"
	}
	up := filepath.Join(t.TempDir(), "upstream")
	git(t, t.TempDir(), "init", "-q", "-b", "main", up)
	commits := map[string]string{}
	for _, r := range []struct{ tag, a string }{{"v1.0.0", "1"}, {"v1.1.0", "2"}} {
		writeFile(t, filepath.Join(up, "app", "cm.yaml"), []byte(cm(r.a, r.a)))
		git(t, up, "add", "-A")
		git(t, up, "commit", "-q", "-m", r.tag)
		git(t, up, "tag", r.tag)
		commits[r.tag] = strings.TrimSpace(git(t, up, "rev-parse", r.tag))
	}
	work := workRepo(t)
	botsPackage(t, filepath.Join(work, "ok"), up, "v1.0.0", commits["v1.0.0"],
		map[string]string{"cm.yaml": cm("1", "1"), "local.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ours\n"})
	botsPackage(t, filepath.Join(work, "clash"), up, "v1.0.0", commits["v1.0.0"], map[string]string{"cm.yaml": cm("mine", "1")})
	botsPackage(t, filepath.Join(work, "current"), up, "v1.1.0", commits["v1.1.0"], map[string]string{"cm.yaml": cm("2", "2")})
	commitAll(t, work, "packages")
	currentBefore := snapshot(t, filepath.Join(work, "current"))

	runner := t.TempDir()
	output := filepath.Join(runner, "github_output")
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(fnBinary)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"RUNNER_TEMP="+runner, "GITHUB_OUTPUT="+output, "KRM_MERGE_CACHE_DIR="+filepath.Join(t.TempDir(), "cache"),
		"GIT_CONFIG_NOSYSTEM=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("the job's step: %v\n%s", err, out.String())
	}
	if got := readFile(t, output); got != "conflicts=true\n" {
		t.Errorf("GITHUB_OUTPUT %q, want conflicts=true", got)
	}
	body := readFile(t, filepath.Join(runner, "body.md"))
	for _, want := range []string{"| ok | v1.0.0 → v1.1.0 | updated | 2 | 0 |\n", "| clash | v1.0.0 → v1.1.0 | marked | 1 | 1 |\n",
		"### Conflicts to resolve", "| cm.yaml | v1 ConfigMap settings | data.a |", "krm-merge pkg update clash --continue"} {
		if !strings.Contains(body, want) {
			t.Errorf("pull request body lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "current") || strings.Contains(body, "failed") {
		t.Errorf("pull request body names the current package or a failure:\n%s", body)
	}
	okCM, okKf := readFile(t, filepath.Join(work, "ok", "cm.yaml")), readFile(t, filepath.Join(work, "ok", "Kptfile"))
	if !strings.Contains(okCM, "a: \"2\"") || !strings.Contains(okKf, "ref: v1.1.0\n  updateStrategy") || !strings.Contains(okKf, "commit: "+commits["v1.1.0"]) {
		t.Errorf("ok not updated to v1.1.0:\n%s\n%s", okCM, okKf)
	}
	clashCM, clashKf := readFile(t, filepath.Join(work, "clash", "cm.yaml")), readFile(t, filepath.Join(work, "clash", "Kptfile"))
	if !strings.Contains(clashCM, "<<<<<<<") || !strings.Contains(clashKf, "commit: "+commits["v1.0.0"]) {
		t.Errorf("clash not stopped at markers with the old lock:\n%s\n%s", clashCM, clashKf)
	}
	if after := snapshot(t, filepath.Join(work, "current")); !reflect.DeepEqual(after, currentBefore) {
		t.Errorf("current changed: %v", after)
	}
	for _, l := range strings.Split(strings.TrimSpace(gitStatus(t, work)), "\n") {
		if f := strings.Fields(l); len(f) == 2 && !strings.HasPrefix(f[1], "ok/") && !strings.HasPrefix(f[1], "clash/") {
			t.Errorf("the job wrote %s outside the packages it updated", f[1])
		}
	}
}
