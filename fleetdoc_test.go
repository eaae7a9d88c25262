package main

import (
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	sigsyaml "sigs.k8s.io/yaml"
)

// shardFlag finds --shard's N in a script: `--shard "<index>/N"` or `--shard <index>/N`.
var shardFlag = regexp.MustCompile(`--shard "?(\$\{JOB_COMPLETION_INDEX\}|\$\{\{ matrix\.shard \}\})/(\d+)"?`)

// shellSyntax fails t when script is not valid sh (sh -n).
func shellSyntax(t *testing.T, shell, script string) {
	t.Helper()
	if out, err := exec.Command(shell, "-n", "-c", script).CombinedOutput(); err != nil {
		t.Errorf("%s -n: %v\n%s\n%s", shell, err, out, script)
	}
}

// The Indexed Job of docs/fleet.md is a batch/v1 Job (strictly: every field known to
// the API), Indexed, with as many completions as its --shard names shards, and a script
// sh reads, which takes the index from the environment (never $(...), which sh would
// run as a command) and puts no token in a URL.
func TestFleetDocIndexedJob(t *testing.T) {
	manifest := fencedBlock(t, "docs/fleet.md", "yaml", "kind: Job")
	var job batchv1.Job
	if err := sigsyaml.UnmarshalStrict([]byte(manifest), &job); err != nil {
		t.Fatalf("docs/fleet.md's Job: %v", err)
	}
	s := job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || s.Completions == nil || s.Parallelism == nil {
		t.Fatalf("not an Indexed Job with completions and parallelism: %+v", s)
	}
	c := s.Template.Spec.Containers
	if len(c) != 1 || len(c[0].Args) != 1 || strings.Join(c[0].Command, " ") != "/bin/sh -ec" {
		t.Fatalf("want one container running one sh script: %+v", c)
	}
	script := c[0].Args[0]
	m := shardFlag.FindStringSubmatch(script)
	if m == nil || m[1] != "${JOB_COMPLETION_INDEX}" {
		t.Fatalf("no --shard \"${JOB_COMPLETION_INDEX}/N\" in:\n%s", script)
	}
	if n, _ := strconv.Atoi(m[2]); int32(n) != *s.Completions {
		t.Errorf("--shard .../%d against completions: %d", n, *s.Completions)
	}
	if strings.Contains(script, "$(JOB_COMPLETION_INDEX)") || strings.Contains(script, "@${REPO") || strings.Contains(script, "GIT_TOKEN}@") {
		t.Errorf("the index as a command, or the token in a URL:\n%s", script)
	}
	shellSyntax(t, "sh", script)
}

// The CI matrix of docs/fleet.md runs shards 0 to N-1 of the N its --shard names, and
// its bash steps parse.
func TestFleetDocCIMatrix(t *testing.T) {
	workflow := fencedBlock(t, "docs/fleet.md", "yaml", "matrix:")
	var wf struct {
		Jobs map[string]struct {
			Strategy struct {
				Matrix struct {
					Shard []int `json:"shard"`
				} `json:"matrix"`
			} `json:"strategy"`
			Steps []struct {
				Run string `json:"run"`
			} `json:"steps"`
		} `json:"jobs"`
	}
	if err := sigsyaml.Unmarshal([]byte(workflow), &wf); err != nil {
		t.Fatalf("docs/fleet.md's workflow: %v", err)
	}
	shard, ok := wf.Jobs["shard"]
	if !ok || len(wf.Jobs) != 2 {
		t.Fatalf("want the jobs shard and pull-request: %v", wf.Jobs)
	}
	var scripts []string
	for _, j := range wf.Jobs {
		for _, st := range j.Steps {
			if st.Run != "" {
				scripts = append(scripts, st.Run)
			}
		}
	}
	n := -1
	for _, sc := range scripts {
		if m := shardFlag.FindStringSubmatch(sc); m != nil {
			n, _ = strconv.Atoi(m[2])
		}
		shellSyntax(t, "bash", strings.ReplaceAll(sc, "${{ matrix.shard }}", "0"))
	}
	for i, k := range shard.Strategy.Matrix.Shard {
		if k != i {
			t.Errorf("matrix shard %d is %d, want 0 to N-1", i, k)
		}
	}
	if n != len(shard.Strategy.Matrix.Shard) {
		t.Errorf("--shard .../%d against %d matrix shards", n, len(shard.Strategy.Matrix.Shard))
	}
}
