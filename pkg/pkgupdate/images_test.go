package pkgupdate

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/config"
)

// knativeFiles is a Knative-like package at upstream release ver (1 or 2): every image
// pinned by digest, in a container's image, in env values (APISERVER_RA_IMAGE,
// DISPATCHER_IMAGE), in an args list, in ConfigMap data (queue-sidecar-image) and in an
// image line of an embedded YAML config. Release 2 bumps every digest and the version
// label, and adds an env var.
func knativeFiles(ver int) map[string]string {
	digest := map[int]string{1: strings.Repeat("a", 64), 2: strings.Repeat("b", 64)}[ver]
	version := map[int]string{1: "v1.14.0", 2: "v1.15.0"}[ver]
	img := func(cmd string) string {
		return "gcr.io/knative-releases/knative.dev/eventing/cmd/" + cmd + "@sha256:" + digest
	}
	extraEnv := ""
	if ver == 2 {
		extraEnv = "        - name: METRICS_DOMAIN\n          value: knative.dev/eventing\n"
	}
	files := map[string]string{
		"Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: eventing\ninfo:\n  description: knative eventing\n",
		"controller.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: eventing-controller
  namespace: knative-eventing
  labels:
    app.kubernetes.io/version: "` + version + `"
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: eventing-controller
        image: ` + img("controller") + `
        args:
        - -dispatcher-image
        - ` + img("dispatcher") + `
        env:
        - name: SYSTEM_NAMESPACE
          value: knative-eventing
        - name: APISERVER_RA_IMAGE
          value: ` + img("apiserver_receive_adapter") + `
        - name: DISPATCHER_IMAGE
          value: ` + img("in_memory/channel_dispatcher") + `
` + extraEnv,
		"config.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: config-deployment
  namespace: knative-eventing
data:
  queue-sidecar-image: ` + img("queue") + `
  progress-deadline: 600s
  config.yaml: |
    sidecar:
      image: ` + img("sidecar") + `
      port: 8012
    logLevel: info
`,
	}
	return files
}

// mirrorLocally is the platform engineer's edit: every image from the private mirror,
// three replicas and debug logging.
func mirrorLocally(s string) string {
	s = strings.ReplaceAll(s, "gcr.io/knative-releases/", "registry.example.com/mirror/")
	s = strings.Replace(s, "replicas: 1", "replicas: 3", 1)
	return strings.Replace(s, "logLevel: info", "logLevel: debug", 1)
}

// leaves flattens a resource into its fields, "path = value" with the path in YAML
// keys and list indexes, so two resources compare field by field.
func leaves(n *yaml.Node, path string, out map[string]string) {
	switch n.Kind {
	case yaml.DocumentNode:
		leaves(n.Content[0], path, out)
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			leaves(n.Content[i+1], path+"."+n.Content[i].Value, out)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			leaves(c, path+"["+string(rune('0'+i))+"]", out)
		}
	default:
		out[path] = n.Value
	}
}

// An upstream release that bumps every digest of a package whose images the local copy
// mirrors: no conflict; every local change (mirror prefix, replicas, log level) and every
// upstream change (digests, version label, new env var) is in the result, field by
// field; each image found by its value is reported as merged inside.
func TestMirroredImagesFoundByValue(t *testing.T) {
	repo := upstreamRepo(t, "catalog/eventing", release{tag: "v1", files: knativeFiles(1)}, release{tag: "v2", files: knativeFiles(2)})
	url := "file://" + repo
	work := filepath.Join(t.TempDir(), "work")
	git(t, t.TempDir(), "init", "-q", work)
	dir := filepath.Join(work, "eventing")
	kptGet(t, url, "/catalog/eventing", "v1", dir)
	git(t, work, "add", "-A")
	git(t, work, "commit", "-qm", "get")
	local := map[string]string{}
	for _, f := range []string{"controller.yaml", "config.yaml"} {
		local[f] = mirrorLocally(read(t, filepath.Join(dir, f)))
	}
	writeFiles(t, dir, local)
	git(t, work, "add", "-A")
	git(t, work, "commit", "-qm", "mirror")

	opts := options(dir, t)
	opts.Merge = defaultMerge()
	opts.Merge.OnConflict = config.UpdatedWins
	rep, err := Update(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if n := rep.Conflicts(); n != 0 {
		t.Errorf("%d conflicts: %+v", n, rep.Packages[0].Conflicts)
	}
	want2 := knativeFiles(2)
	for _, f := range []struct{ file, kind, name string }{
		{"controller.yaml", "Deployment", "eventing-controller"},
		{"config.yaml", "ConfigMap", "config-deployment"},
	} {
		want, err := yaml.Parse(mirrorLocally(want2[f.file]))
		if err != nil {
			t.Fatal(err)
		}
		got, err := yaml.Parse(read(t, filepath.Join(dir, f.file)))
		if err != nil {
			t.Fatal(err)
		}
		if got.GetKind() != f.kind || got.GetName() != f.name {
			t.Fatalf("%s holds %s %s", f.file, got.GetKind(), got.GetName())
		}
		wl, gl := map[string]string{}, map[string]string{}
		leaves(want.YNode(), "", wl)
		leaves(got.YNode(), "", gl)
		delete(gl, ".metadata.annotations.internal.kpt.dev/upstream-identifier")
		var paths []string
		for p := range wl {
			paths = append(paths, p)
		}
		for p := range gl {
			if _, ok := wl[p]; !ok {
				paths = append(paths, p)
			}
		}
		sort.Strings(paths)
		for _, p := range paths {
			if gl[p] != wl[p] {
				t.Errorf("%s %s: %q, want %q", f.file, p, gl[p], wl[p])
			}
		}
	}
	var merged []string
	for _, m := range rep.Packages[0].MergedInside {
		merged = append(merged, m.File+" "+m.Field+": "+m.Message)
	}
	// the container's image field, and the four references found by their value
	for _, want := range []string{
		"controller.yaml spec.template.spec.containers[name=eventing-controller].image: merged inside the image reference: from updated the digest",
		"controller.yaml spec.template.spec.containers[name=eventing-controller].args: merged inside the list: from updated the digest in element [1]",
		"controller.yaml spec.template.spec.containers[name=eventing-controller].env[name=APISERVER_RA_IMAGE].value: merged inside the image reference: from updated the digest",
		"controller.yaml spec.template.spec.containers[name=eventing-controller].env[name=DISPATCHER_IMAGE].value: merged inside the image reference: from updated the digest",
		"config.yaml data.queue-sidecar-image: merged inside the image reference: from updated the digest",
		"config.yaml data.config.yaml: merged inside the multi-line string: from updated the digest in line 2",
	} {
		found := false
		for _, m := range merged {
			found = found || strings.HasPrefix(m, want)
		}
		if !found {
			t.Errorf("no merged-inside note %q in\n%s", want, strings.Join(merged, "\n"))
		}
	}
	if len(merged) != 6 {
		t.Errorf("%d merged-inside notes, want 6:\n%s", len(merged), strings.Join(merged, "\n"))
	}
}
