package e2e

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/pkg/config"
)

// The image itself: small, non-root, the binary as entrypoint, documented through
// `kpt fn doc`, and working with a read-only root filesystem and no network.

func TestImageShape(t *testing.T) {
	image, runtime := requireImage(t)
	out, err := exec.Command(runtime, "image", "inspect", image).Output()
	if err != nil {
		t.Fatalf("%s image inspect %s: %v", runtime, image, err)
	}
	var inspect []struct {
		Size   int64
		Config struct {
			User       string
			Entrypoint []string
		}
	}
	if err := json.Unmarshal(out, &inspect); err != nil || len(inspect) != 1 {
		t.Fatalf("image inspect output: %v\n%s", err, out)
	}
	img := inspect[0]
	// Under 16 MB. Apply mode reads kubectl's patch metadata from a generated table
	// (pkg/apply/patchmeta) instead of linking k8s.io/api, which had taken the binary
	// from 11 to 26 MB, and the image is the binary alone on scratch (with /etc/passwd
	// naming nobody and nonroot). What is left is kyaml, apimachinery's strategicpatch
	// (which brings net/http and crypto/tls along), golang.org/x/text's Unicode
	// normalisation tables (gitpath.Key compares names as a normalising file system
	// does) and the Go runtime.
	t.Logf("image size: %.2f MB (%.2f MiB)", float64(img.Size)/1e6, float64(img.Size)/(1<<20))
	if ceiling := int64(16_000_000); img.Size >= ceiling {
		t.Errorf("image is %d bytes; it must stay under 16 MB", img.Size)
	}
	if img.Config.User != "65532" && img.Config.User != "65532:65532" {
		t.Errorf("image user %q, want 65532 (nonroot)", img.Config.User)
	}
	if strings.Join(img.Config.Entrypoint, " ") != "/usr/local/bin/krm-merge" {
		t.Errorf("entrypoint %q, want the binary", img.Config.Entrypoint)
	}
	// No shell, no package manager: the runtime stage is distroless static.
	for _, tool := range []string{"/bin/sh", "/usr/bin/apt-get", "/sbin/apk"} {
		if exec.Command(runtime, "run", "--rm", "--entrypoint", tool, image, "--version").Run() == nil {
			t.Errorf("the image has %s", tool)
		}
	}
}

func TestKptFnDocImage(t *testing.T) {
	requireKpt(t)
	image, runtime := requireImage(t)
	cmd := exec.Command("kpt", "fn", "doc", "--image", image)
	cmd.Env = withEnv("KPT_FN_RUNTIME=" + runtime)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kpt fn doc --image %s: %v\n%s", image, err, out)
	}
	for _, k := range config.Keys() {
		if !strings.Contains(string(out), "  "+k.Name+" (") {
			t.Errorf("kpt fn doc does not document functionConfig key %q:\n%s", k.Name, out)
		}
	}
}

// kpt and kustomize run functions as `--user nobody`; users harden further. The image
// must work as any uid, with a read-only root filesystem and no network.
func TestImageRunsReadOnlyAsNobodyWithoutNetwork(t *testing.T) {
	image, runtime := requireImage(t)
	in := `apiVersion: config.kubernetes.io/v1
kind: ResourceList
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata: {name: cfg}
  data: {mode: 2way}
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app
    annotations: {config.kubernetes.io/merge-source: dest}
  data: {a: "1"}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: app
    annotations: {config.kubernetes.io/merge-source: src}
  data: {b: "2"}
`
	cmd := exec.Command(runtime, "run", "--rm", "-i", "--read-only", "--network", "none",
		"--user", "65534", "--security-opt=no-new-privileges", image)
	cmd.Stdin = strings.NewReader(in)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
	for _, want := range []string{"a: \"1\"", "b: \"2\"", "1 merged"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
