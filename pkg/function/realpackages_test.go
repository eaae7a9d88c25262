package function_test

import (
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Each case below is one way a real package (a kpt blueprint, a kustomize tree, a vendor
// release) lost a change or refused to run, reduced to a ResourceList as kpt sends it:
// path roles original/, updated/ and dest/, kpt's path, index and id annotations. They
// use only the function's ResourceList interface.

// pkgItem is one file's document in a package under a role directory.
type pkgItem struct {
	path, index, body string
}

// pkgInput renders items as kpt feeds them to a function (with its path, index and id
// annotations) with a ConfigMap functionConfig selecting roles by path.
func pkgInput(items []pkgItem, extra string) string {
	var b strings.Builder
	b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	for i, it := range items {
		n := yaml.MustParse(it.body)
		for k, v := range map[string]string{
			"internal.config.kubernetes.io/path": it.path, "internal.config.kubernetes.io/index": it.index,
			"config.kubernetes.io/path": it.path, "config.kubernetes.io/index": it.index,
			"internal.config.kubernetes.io/id": fmt.Sprint(i + 1), "config.k8s.io/id": fmt.Sprint(i + 1),
		} {
			if err := n.PipeE(yaml.SetAnnotation(k, v)); err != nil {
				panic(err)
			}
		}
		doc := n.MustString()
		b.WriteString("- " + strings.ReplaceAll(strings.TrimSuffix(doc, "\n"), "\n", "\n  ") + "\n")
	}
	b.WriteString("functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: merge}\n  data:\n")
	b.WriteString("    originalPath: original\n    updatedPath: updated\n    destPath: dest\n" + extra)
	return b.String()
}

// outputAt returns the output item at path (index 0), or nil.
func outputAt(t *testing.T, rl *yaml.RNode, path string) *yaml.RNode {
	t.Helper()
	for _, it := range items(t, rl) {
		if it.GetAnnotations()["internal.config.kubernetes.io/path"] == path {
			return it
		}
	}
	return nil
}

// field returns the string form of the value at a dotted path ("" when absent).
func field(t *testing.T, n *yaml.RNode, path string) string {
	t.Helper()
	if n == nil {
		return ""
	}
	v, err := n.Pipe(yaml.Lookup(strings.Split(path, ".")...))
	if err != nil || v == nil {
		return ""
	}
	return strings.TrimSpace(v.MustString())
}

func mustRun(t *testing.T, input string) *yaml.RNode {
	t.Helper()
	rl, err := run(t, input)
	if err != nil {
		t.Fatalf("the run failed: %v\n%s", err, resultsOf(rl))
	}
	return rl
}

const setters = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: setters\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\ndata:\n"

func TestRealPackageLocalConfigAndKptfilesMerge(t *testing.T) {
	kptfile := func(name, validators string) string {
		return "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: " + name + "\npipeline:\n  mutators:\n  - image: gcr.io/kpt-fn/apply-setters:v0.1\n    configPath: setters.yaml\n" + validators
	}
	val := "  validators:\n  - image: gcr.io/kpt-fn/starlark:v0.3\n    configPath: validation.yaml\n"
	rl := mustRun(t, pkgInput([]pkgItem{
		{"original/setters.yaml", "0", setters + "  project-id: project-id\n"},
		{"updated/setters.yaml", "0", setters + "  project-id: project-id\n  folder: name.of.folder\n"},
		{"dest/setters.yaml", "0", setters + "  project-id: acme-prod\n"},
		{"original/sub/Kptfile", "0", kptfile("sub", "")},
		{"updated/sub/Kptfile", "0", kptfile("sub", val)},
		{"dest/sub/Kptfile", "0", kptfile("sub", "")},
		{"updated/sub/validation.yaml", "0", "apiVersion: fn.kpt.dev/v1alpha1\nkind: StarlarkRun\nmetadata:\n  name: validate\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\nsource: pass\n"},
	}, ""))
	s := outputAt(t, rl, "dest/setters.yaml")
	if got := field(t, s, "data.project-id") + "," + field(t, s, "data.folder"); got != "acme-prod,name.of.folder" {
		t.Errorf("setters.yaml: project-id,folder = %s; want the local value and upstream's new setter", got)
	}
	if got := field(t, outputAt(t, rl, "dest/sub/Kptfile"), "pipeline.validators"); !strings.Contains(got, "starlark") {
		t.Errorf("dest/sub/Kptfile: upstream's new validator did not arrive: %q", got)
	}
	if outputAt(t, rl, "dest/sub/validation.yaml") == nil {
		t.Errorf("the local-config item upstream added is not in dest/sub/")
	}
	for _, it := range items(t, rl) {
		if p := it.GetAnnotations()["internal.config.kubernetes.io/path"]; strings.HasPrefix(p, "updated/") || strings.HasPrefix(p, "original/") {
			t.Errorf("%s stayed behind", p)
		}
	}
}

func TestRealPackageKustomizeTreeMerges(t *testing.T) {
	k := func(version string, extra string) string {
		return "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- https://example.com/" + version + "/deployment.yaml\n- account.yaml\n" + extra + "transformers:\n- labels.yaml\n"
	}
	labels := func(component, extra string) string {
		return "apiVersion: builtin\nkind: LabelTransformer\nmetadata:\n  name: labels\nlabels:\n  app.kubernetes.io/component: " + component + "\n" + extra + "fieldSpecs:\n- path: metadata/labels\n  create: true\n"
	}
	var in []pkgItem
	for _, c := range []string{"helm-controller", "source-controller"} {
		in = append(in,
			pkgItem{"original/" + c + "/kustomization.yaml", "0", k("v1.4.0", "")},
			pkgItem{"updated/" + c + "/kustomization.yaml", "0", k("v1.6.3", "")},
			pkgItem{"dest/" + c + "/kustomization.yaml", "0", k("v1.4.0", "- netpol.yaml\n")},
			pkgItem{"original/" + c + "/labels.yaml", "0", labels(c, "")},
			pkgItem{"updated/" + c + "/labels.yaml", "0", labels(c, "  app.kubernetes.io/part-of: flux\n")},
			pkgItem{"dest/" + c + "/labels.yaml", "0", labels(c, "  team: platform\n")},
		)
	}
	rl := mustRun(t, pkgInput(in, ""))
	for _, c := range []string{"helm-controller", "source-controller"} {
		res := field(t, outputAt(t, rl, "dest/"+c+"/kustomization.yaml"), "resources")
		if !strings.Contains(res, "v1.6.3/deployment.yaml") || strings.Contains(res, "v1.4.0") || !strings.Contains(res, "netpol.yaml") {
			t.Errorf("%s kustomization resources:\n%s\nwant upstream's new URL, not the old, and the local netpol.yaml", c, res)
		}
		l := outputAt(t, rl, "dest/"+c+"/labels.yaml")
		comp, _ := l.Pipe(yaml.Lookup("labels", "app.kubernetes.io/component"))
		if got := strings.TrimSpace(comp.MustString()) + "," + field(t, l, "labels.team"); got != c+",platform" {
			t.Errorf("%s labels: component,team = %s", c, got)
		}
		if !strings.Contains(field(t, l, "labels"), "part-of: flux") {
			t.Errorf("%s labels: upstream's new label did not arrive:\n%s", c, field(t, l, "labels"))
		}
	}
}

func TestRealPackageKeepsKptIDForTheFileHeader(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: \"1\"\n"
	for _, tt := range []struct{ name, updated string }{
		{"original equals updated", cm},
		{"upstream changed a value", strings.Replace(cm, `a: "1"`, `a: "2"`, 1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rl := mustRun(t, pkgInput([]pkgItem{{"original/c.yaml", "0", cm}, {"updated/c.yaml", "0", tt.updated}, {"dest/c.yaml", "0", cm}}, ""))
			d := outputAt(t, rl, "dest/c.yaml")
			if id := d.GetAnnotations()["config.k8s.io/id"]; id != "3" {
				t.Errorf("dest's item went out with id %q, want dest's input id 3 (kpt restores the file's header by it):\n%s", id, d.MustString())
			}
		})
	}
}

func TestRealPackageSetterCommentUpstreamAddedArrives(t *testing.T) {
	dep := func(image string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: web\n        image: " + image + "\n"
	}
	rl := mustRun(t, pkgInput([]pkgItem{
		{"original/web.yaml", "0", dep("nginx:1.7")},
		{"updated/web.yaml", "0", dep("nginx:1.7 # kpt-set: ${image}")},
		{"dest/web.yaml", "0", dep("mirror.example.com/nginx:1.7")},
	}, ""))
	if got := outputAt(t, rl, "dest/web.yaml").MustString(); !strings.Contains(got, "image: mirror.example.com/nginx:1.7 # kpt-set: ${image}") {
		t.Errorf("the setter comment upstream added did not arrive on the local value:\n%s", got)
	}
}

func TestRealPackageNullInOriginalAndDestTakesUpstream(t *testing.T) {
	cm := func(data string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:" + data
	}
	rl := mustRun(t, pkgInput([]pkgItem{
		{"original/c.yaml", "0", cm(" null\n")},
		{"updated/c.yaml", "0", cm("\n  use-forwarded-headers: \"true\"\n")},
		{"dest/c.yaml", "0", cm(" null\n")},
	}, ""))
	if got := field(t, outputAt(t, rl, "dest/c.yaml"), "data.use-forwarded-headers"); got != `"true"` {
		t.Errorf("data filled in upstream did not arrive: %q", got)
	}
}

func TestRealPackageDeletedLocallyChangedUpstreamComesBackWhole(t *testing.T) {
	kf := func(upstream string) string {
		return "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n" + upstream + "info:\n  description: app\n"
	}
	up := func(ref string) string {
		return "upstream:\n  type: git\n  git:\n    repo: https://github.com/example/blueprints\n    directory: /app\n    ref: " + ref + "\n"
	}
	rl := mustRun(t, pkgInput([]pkgItem{
		{"original/Kptfile", "0", kf(up("v1"))},
		{"updated/Kptfile", "0", kf(up("v2"))},
		{"dest/Kptfile", "0", kf("")},
	}, ""))
	got := field(t, outputAt(t, rl, "dest/Kptfile"), "upstream")
	if !strings.Contains(got, "repo: https://github.com/example/blueprints") || !strings.Contains(got, "ref: v2") || !strings.Contains(got, "type: git") {
		t.Errorf("upstream came back as:\n%s\nwant updated's whole map, never the delta alone", got)
	}
}

func TestRealPackageNamespaceDefaultDroppedUpstreamStillMerges(t *testing.T) {
	dep := func(ns, replicas, image string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n" + ns + "spec:\n  replicas: " + replicas + "\n  template:\n    spec:\n      containers:\n      - name: web\n        image: " + image + "\n"
	}
	rl := mustRun(t, pkgInput([]pkgItem{
		{"original/web.yaml", "0", dep("  namespace: default\n", "1", "nginx:1.7")},
		{"updated/web.yaml", "0", dep("", "1", "nginx:1.8")},
		{"dest/web.yaml", "0", dep("  namespace: default\n", "5", "nginx:1.7")},
	}, ""))
	var webs []*yaml.RNode
	for _, it := range items(t, rl) {
		if it.GetName() == "web" {
			webs = append(webs, it)
		}
	}
	if len(webs) != 1 {
		t.Fatalf("%d Deployments named web in the output, want one (merged, not deleted and added)", len(webs))
	}
	if got := field(t, webs[0], "spec.replicas") + "," + field(t, webs[0], "spec.template.spec.containers"); !strings.HasPrefix(got, "5,") || !strings.Contains(got, "nginx:1.8") {
		t.Errorf("replicas,containers = %s; want the local 5 and upstream's nginx:1.8", got)
	}
}

func TestRealPackageRepeatedKeyIsAnError(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: \"1\"\n"
	in := pkgInput([]pkgItem{{"original/c.yaml", "0", cm}, {"updated/c.yaml", "0", cm}, {"dest/c.yaml", "0", cm}}, "")
	in = strings.Replace(in, "    a: \"1\"\n- apiVersion", "    a: \"1\"\n    a: \"2\"\n- apiVersion", 1) // in original/c.yaml
	rl, err := run(t, in)
	if err == nil {
		t.Fatalf("a map with a repeated key was merged:\n%s", rl.MustString())
	}
	if n := len(items(t, rl)); n != 0 {
		t.Errorf("%d items written on error, want none", n)
	}
	if res := resultsOf(rl); !strings.Contains(res, "data.a") || !strings.Contains(res, "original/c.yaml") {
		t.Errorf("the error does not name the key path and file:\n%s", res)
	}
}

func TestRealPackageSameNamedItemsInEveryDirectoryPairByPath(t *testing.T) {
	labels := func(component, extra string) string {
		return "apiVersion: builtin\nkind: LabelTransformer\nmetadata:\n  name: labels\nlabels:\n  component: " + component + "\n" + extra
	}
	var in []pkgItem
	for _, c := range []string{"a", "b", "c"} {
		in = append(in,
			pkgItem{"original/" + c + "/labels.yaml", "0", labels(c, "")},
			pkgItem{"updated/" + c + "/labels.yaml", "0", labels(c, "  part-of: flux\n")},
			pkgItem{"dest/" + c + "/labels.yaml", "0", labels(c, "  team: "+c+"-team\n")})
	}
	rl := mustRun(t, pkgInput(in, ""))
	for _, c := range []string{"a", "b", "c"} {
		l := outputAt(t, rl, "dest/"+c+"/labels.yaml")
		if got := field(t, l, "labels.component") + "," + field(t, l, "labels.team") + "," + field(t, l, "labels.part-of"); got != c+","+c+"-team,flux" {
			t.Errorf("dest/%s/labels.yaml: component,team,part-of = %s", c, got)
		}
	}
}

// kpt fn render with selectors, and kpt fn eval --match-kind, number the items they give
// a function in internal.config.k8s.io/kpt-resource-id to put the output back in place.
// That is the host's bookkeeping, not a field of the resource: it never conflicts, and
// dest's value goes out.
func TestRealPackageKptSelectorAnnotationIsTheHosts(t *testing.T) {
	cm := func(id, v string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    internal.config.k8s.io/kpt-resource-id: \"" + id + "\"\ndata:\n  a: \"" + v + "\"\n"
	}
	rl := mustRun(t, pkgInput([]pkgItem{
		{"original/c.yaml", "0", cm("3", "1")}, {"updated/c.yaml", "0", cm("1", "2")}, {"dest/c.yaml", "0", cm("5", "1")},
	}, ""))
	res := resultsOf(rl)
	if strings.Contains(res, "kpt-resource-id") || !strings.Contains(res, "0 conflicts") {
		t.Errorf("kpt's selector bookkeeping was merged as a field:\n%s", res)
	}
	d := outputAt(t, rl, "dest/c.yaml")
	if got := d.GetAnnotations()["internal.config.k8s.io/kpt-resource-id"]; got != "5" {
		t.Errorf("kpt-resource-id went out as %q, want dest's 5 (kpt puts the item back by it)", got)
	}
	if got := field(t, d, "data.a"); got != `"2"` {
		t.Errorf("data.a = %s, want upstream's \"2\"", got)
	}
}
