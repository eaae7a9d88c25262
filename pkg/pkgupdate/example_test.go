package pkgupdate_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/krm-merge/krm-merge/pkg/pkgupdate"
)

// Update takes release v2 of an upstream package into a local copy made from v1 (as
// `kpt pkg get` leaves it: a Kptfile with upstream and upstreamLock) whose replicas
// were changed locally: upstream's new image arrives, the local replicas stay, and
// the Kptfile records v2.
func Example() {
	tmp, err := os.MkdirTemp("", "pkgupdate-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	run := func(dir string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com",
			"GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			log.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(path, content string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	deployment := func(replicas, image string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: " + replicas +
			"\n  template:\n    spec:\n      containers:\n      - name: app\n        image: " + image + "\n"
	}

	// The upstream repository: the package in app/, released as v1 and v2.
	upstream := filepath.Join(tmp, "upstream")
	run(tmp, "init", "-q", upstream)
	write(filepath.Join(upstream, "app/deploy.yaml"), deployment("1", "web:1"))
	run(upstream, "add", "-A")
	run(upstream, "commit", "-qm", "v1")
	run(upstream, "tag", "v1")
	v1 := run(upstream, "rev-parse", "HEAD")
	write(filepath.Join(upstream, "app/deploy.yaml"), deployment("1", "web:2"))
	run(upstream, "commit", "-qam", "v2")
	run(upstream, "tag", "v2")

	// The local copy of v1, with 3 replicas.
	local := filepath.Join(tmp, "my-app")
	write(filepath.Join(local, "Kptfile"), `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: my-app
upstream:
  type: git
  git:
    repo: file://`+upstream+`
    directory: /app
    ref: v1
  updateStrategy: resource-merge
upstreamLock:
  type: git
  git:
    repo: file://`+upstream+`
    directory: /app
    ref: v1
    commit: `+v1+"\n")
	write(filepath.Join(local, "deploy.yaml"), deployment("3", "web:1"))

	rep, err := pkgupdate.Update(context.Background(), pkgupdate.Options{
		Dir: local, Version: "v2", CacheDir: filepath.Join(tmp, "cache")})
	if err != nil {
		log.Fatal(err)
	}
	p := rep.Packages[0]
	fmt.Printf("%s -> %s: %d merged, %d conflicts\n", p.From.Ref, p.To.Ref, p.Counts.Merged, len(p.Conflicts))
	for _, f := range rep.Files {
		fmt.Println(f.Action, f.Path)
	}
	b, _ := os.ReadFile(filepath.Join(local, "deploy.yaml"))
	fmt.Print(string(b))
	// Output:
	// v1 -> v2: 2 merged, 0 conflicts
	// modified Kptfile
	// modified deploy.yaml
	// apiVersion: apps/v1
	// kind: Deployment
	// metadata:
	//   name: web
	// spec:
	//   replicas: 3
	//   template:
	//     spec:
	//       containers:
	//       - name: app
	//         image: web:2
}
