package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The image under test and the container runtime that runs it.
//
// E2E_IMAGE names a krm-merge image already built (`make image-test` builds it and sets
// this). Without it the image cases skip, saying so, except under CI=true, where a
// missing image fails the run: CI builds the image first (see .ci/run and the Makefile).
// The runtime is KPT_FN_RUNTIME when set, else docker when a Docker engine answers, else
// podman.

// requireImage returns the image under test and its runtime ("docker" or "podman"), or
// skips the test (fails it under CI=true) when no image was given.
func requireImage(t *testing.T) (image, runtime string) {
	t.Helper()
	image = os.Getenv("E2E_IMAGE")
	if image == "" {
		msg := "no image under test: set E2E_IMAGE to a built krm-merge image (`make image-test` does both)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + "; CI=true, so this is a failure, not a skip")
		}
		t.Skip(msg)
	}
	if !strings.Contains(image, "/") {
		t.Fatalf("E2E_IMAGE=%q: kpt prefixes names without a / with gcr.io/kpt-fn/; give a full name such as ghcr.io/krm-merge/krm-merge:dev", image)
	}
	return image, containerRuntime(t)
}

var (
	runtimeOnce sync.Once
	runtimeName string
)

// containerRuntime is the runtime kpt should use: KPT_FN_RUNTIME, else docker when its
// engine answers, else podman.
func containerRuntime(t *testing.T) string {
	t.Helper()
	runtimeOnce.Do(func() {
		if r := os.Getenv("KPT_FN_RUNTIME"); r != "" {
			runtimeName = r
			return
		}
		if exec.Command("docker", "info").Run() == nil {
			runtimeName = "docker"
			return
		}
		runtimeName = "podman"
	})
	if _, err := exec.LookPath(runtimeName); err != nil {
		t.Fatalf("container runtime %s is not on PATH: install podman (Debian package podman) or a Docker engine", runtimeName)
	}
	return runtimeName
}

// dockerShim returns a directory holding a `docker` that runs the container runtime, to
// put first on PATH for programs that always exec `docker` (kustomize's container
// functions, kpt fn doc). With a Docker engine it is not needed and "" is returned.
func dockerShim(t *testing.T, runtime string) string {
	t.Helper()
	if runtime == "docker" {
		return ""
	}
	path, err := exec.LookPath(runtime)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "docker"), []byte("#!/bin/sh\nexec "+path+" \"$@\"\n"))
	if err := os.Chmod(filepath.Join(dir, "docker"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// withEnv returns os.Environ() with the given KEY=VALUE entries replacing or adding.
func withEnv(kv ...string) []string {
	env := os.Environ()
	for _, e := range kv {
		key := e[:strings.IndexByte(e, '=')+1]
		out := env[:0:0]
		for _, old := range env {
			if !strings.HasPrefix(old, key) {
				out = append(out, old)
			}
		}
		env = append(out, e)
	}
	return env
}
