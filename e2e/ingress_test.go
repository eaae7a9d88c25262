package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

const (
	ingressOld = "controller-v1.12.0"
	ingressNew = "controller-v1.13.0"
	ingressNS  = "ingress-nginx"

	mirroredControllerImage = "registry.example.com/mirror/ingress-nginx/controller:v1.12.0"
	sidecarImage            = "fluent/fluent-bit:3.1.4"
)

// controller is the path of the controller container in the controller Deployment.
var controller = []string{"spec", "template", "spec", "containers", "[name=controller]"}

func controllerPath(fields ...string) []string {
	return append(append([]string{}, controller...), fields...)
}

// ingressScenario builds the ingress-nginx package: original/ and updated/ hold the
// single deploy.yaml of the two tags, dest/ a customised copy of the older one.
//
// The two tags add and remove no resource, so to exercise those rules on this file
// updated/deploy.yaml also gets a synthetic upstream change: a PodDisruptionBudget for
// the controller (inserted after the Deployment) and the admission-create Job removed.
//
// With noUpstreamChange, updated/ is the older tag too (and gets no synthetic change).
func ingressScenario(t *testing.T, data string, noUpstreamChange bool) *scenario {
	t.Helper()
	s := newScenario(t)
	src := filepath.Join(data, "ingress-nginx")
	newTag := ingressNew
	if noUpstreamChange {
		newTag = ingressOld
	}
	copyFile(t, filepath.Join(src, ingressOld, "deploy.yaml"), filepath.Join(s.dir("original"), "deploy.yaml"))
	copyFile(t, filepath.Join(src, newTag, "deploy.yaml"), filepath.Join(s.dir("updated"), "deploy.yaml"))
	copyFile(t, filepath.Join(src, ingressOld, "deploy.yaml"), filepath.Join(s.dir("dest"), "deploy.yaml"))

	if !noUpstreamChange {
		upd := loadYAMLFile(t, filepath.Join(s.dir("updated"), "deploy.yaml"))
		pdb, err := yaml.Parse(readFile(t, filepath.Join(repoRoot, "e2e", "testdata", "ingress-nginx", "poddisruptionbudget.yaml")))
		if err != nil {
			t.Fatal(err)
		}
		upd.insertAfter(t, "Deployment", "ingress-nginx-controller", pdb)
		upd.remove(t, "Job", "ingress-nginx-admission-create")
		upd.save(t)
	}

	const deploy, svc = "Deployment", "Service"
	name := "ingress-nginx-controller"
	s.edit("3 replicas, with a comment", deploy, ingressNS, name, false, func(t *testing.T, n *yaml.RNode) {
		setField(t, n, "3", "spec", "replicas")
		commentField(t, n, "# production: one replica per zone", true, "spec", "replicas")
	})
	s.edit("more CPU requested, with a comment", deploy, ingressNS, name, false, func(t *testing.T, n *yaml.RNode) {
		setField(t, n, "500m", controllerPath("resources", "requests", "cpu")...)
		commentField(t, n, "# sized from our load tests", false, controllerPath("resources")...)
	})
	s.edit("extra controller arg", deploy, ingressNS, name, false, func(t *testing.T, n *yaml.RNode) {
		appendElement(t, n, "--enable-ssl-passthrough", controllerPath("args")...)
	})
	s.edit("extra env var", deploy, ingressNS, name, false, func(t *testing.T, n *yaml.RNode) {
		appendElement(t, n, "{name: TZ, value: Europe/Berlin}", controllerPath("env")...)
	})
	s.edit("log shipper sidecar", deploy, ingressNS, name, false, func(t *testing.T, n *yaml.RNode) {
		appendElement(t, n, `name: log-shipper
image: `+sidecarImage+`
args: [--config=/fluent-bit/etc/fluent-bit.yaml]
resources:
  requests:
    cpu: 10m
    memory: 32Mi`, "spec", "template", "spec", "containers")
	})
	// Conflicts: upstream changes both fields too.
	s.edit("controller image from a mirror", deploy, ingressNS, name, true, func(t *testing.T, n *yaml.RNode) {
		setField(t, n, mirroredControllerImage, controllerPath("image")...)
	})
	s.edit("no service account token", deploy, ingressNS, name, true, func(t *testing.T, n *yaml.RNode) {
		setField(t, n, "false", "spec", "template", "spec", "automountServiceAccountToken")
	})
	s.edit("team label and NLB annotation on the Service", svc, ingressNS, name, false, func(t *testing.T, n *yaml.RNode) {
		setField(t, n, "platform", "metadata", "labels", "team")
		commentField(t, n, "# cost allocation", true, "metadata", "labels", "team")
		setField(t, n, "nlb", "metadata", "annotations", "service.beta.kubernetes.io/aws-load-balancer-type")
	})
	// Upstream ships `data: null` in both tags: the local settings must survive (kyaml
	// merge3 would clear them).
	s.edit("controller settings", "ConfigMap", ingressNS, name, false, func(t *testing.T, n *yaml.RNode) {
		setField(t, n, `{allow-snippet-annotations: "false", use-forwarded-headers: "true"}`, "data")
	})
	// The admission-patch Job is deleted locally (certificates come from cert-manager);
	// upstream changes it in v1.13.0 (image, ttlSecondsAfterFinished).
	s.deleteLocally("Job", ingressNS, "ingress-nginx-admission-patch")
	s.localOnly["networkpolicy.yaml"] = readFile(t, filepath.Join(repoRoot, "e2e", "testdata", "ingress-nginx", "networkpolicy.yaml"))
	s.customise(t)
	return s
}

func TestIngressNginxUpgrade(t *testing.T) {
	requireKpt(t)
	data := requireData(t)
	t.Parallel()
	s := ingressScenario(t, data, false)
	// valueMerge false: this scenario's model (s.expected) and checkDiffFollowsUpstream
	// take a value changed on both sides whole from updated; with valueMerge the mirrored
	// image would keep its registry (a conflict on the tag and digest alone).
	cfg := fnConfig(t, "", "valueMerge: false")
	run := mustRunKpt(t, s.pkg, cfg)

	// Results: the summary, and one warning per conflict naming resource and field.
	sum := summaryOf(t, run)
	want := summary{Merged: 17, Added: 1, Deleted: 1, Kept: 1, Conflicts: 2}
	if sum != want {
		t.Errorf("summary %+v, want %+v (18 dest resources from upstream less 1 deleted upstream; the PDB added; "+
			"the admission-create Job deleted; the NetworkPolicy kept; image and automountServiceAccountToken in conflict); results:\n%s",
			sum, want, resultsText(run.Results))
	}
	wantConflict(t, run, "apps/v1", "Deployment", ingressNS, "ingress-nginx-controller",
		"spec.template.spec.containers[name=controller].image", "updated")
	wantConflict(t, run, "apps/v1", "Deployment", ingressNS, "ingress-nginx-controller",
		"spec.template.spec.automountServiceAccountToken", "updated")
	if n := len(conflictResults(run)); n != 2 {
		t.Errorf("%d conflict warnings, want 2:\n%s", n, resultsText(run.Results))
	}
	wantWarningAbout(t, run, "Job", ingressNS, "ingress-nginx-admission-patch")

	// Every resource, field by field.
	got := s.checkResources(t, s.expected(t, false))

	// The facts the merge is about, spelled out.
	dep := got[resID{"apps", "Deployment", ingressNS, "ingress-nginx-controller"}]
	if dep.Node == nil {
		t.Fatal("the controller Deployment is missing from dest/")
	}
	updatedImage := "registry.k8s.io/ingress-nginx/controller:v1.13.0@sha256:dc75a7baec7a3b827a5d7ab0acd10ab507904c7dad692365b3e3b596eca1afd2"
	wantScalar(t, dep, updatedImage, controllerPath("image")...)                           // conflict: upstream won
	wantScalar(t, dep, "true", "spec", "template", "spec", "automountServiceAccountToken") // conflict: upstream won
	wantScalar(t, dep, "1.13.0", "metadata", "labels", "app.kubernetes.io/version")
	wantScalar(t, dep, "1.13.0", "spec", "template", "metadata", "labels", "app.kubernetes.io/version")
	wantScalar(t, dep, "3", "spec", "replicas")
	wantScalar(t, dep, "500m", controllerPath("resources", "requests", "cpu")...)
	wantScalar(t, dep, "90Mi", controllerPath("resources", "requests", "memory")...)
	if args := stringList(t, dep.Node, controllerPath("args")...); len(args) == 0 || args[len(args)-1] != "--enable-ssl-passthrough" {
		t.Errorf("controller args lost the local --enable-ssl-passthrough: %v", args)
	}
	if env := keyedNames(t, dep.Node, controllerPath("env")...); strings.Join(env, ",") != "POD_NAME,POD_NAMESPACE,LD_PRELOAD,TZ" {
		t.Errorf("controller env = %v, want upstream's three then the local TZ", env)
	}
	if cs := keyedNames(t, dep.Node, "spec", "template", "spec", "containers"); strings.Join(cs, ",") != "controller,log-shipper" {
		t.Errorf("containers = %v, want controller and the local log-shipper sidecar", cs)
	}
	wantScalar(t, dep, sidecarImage, "spec", "template", "spec", "containers", "[name=log-shipper]", "image")

	svc := got[resID{"", "Service", ingressNS, "ingress-nginx-controller"}]
	wantScalar(t, svc, "platform", "metadata", "labels", "team")
	wantScalar(t, svc, "1.13.0", "metadata", "labels", "app.kubernetes.io/version")
	wantScalar(t, svc, "nlb", "metadata", "annotations", "service.beta.kubernetes.io/aws-load-balancer-type")

	cm := got[resID{"", "ConfigMap", ingressNS, "ingress-nginx-controller"}]
	wantScalar(t, cm, "true", "data", "use-forwarded-headers")
	wantScalar(t, cm, "1.13.0", "metadata", "labels", "app.kubernetes.io/version")

	job := got[resID{"batch", "Job", ingressNS, "ingress-nginx-admission-patch"}]
	if job.Node != nil {
		t.Errorf("the Job deleted locally is back in dest/%s", job.File)
	}
	if r, ok := got[resID{"batch", "Job", ingressNS, "ingress-nginx-admission-create"}]; ok {
		t.Errorf("the Job deleted upstream is still in dest/%s", r.File)
	}
	if r := got[resID{"policy", "PodDisruptionBudget", ingressNS, "ingress-nginx-controller"}]; r.File != "deploy.yaml" {
		t.Errorf("the PodDisruptionBudget added upstream should be in dest/deploy.yaml, is in %q", r.File)
	}
	for id, r := range got {
		if v := scalar(t, r.Node, "metadata", "labels", "app.kubernetes.io/version"); v != "" && v != "1.13.0" {
			t.Errorf("%s: app.kubernetes.io/version is %s, want 1.13.0", id, v)
		}
	}

	// Comments and untouched files survive byte for byte.
	text := readFile(t, filepath.Join(s.dir("dest"), "deploy.yaml"))
	for _, c := range []string{
		"\n  replicas: 3 # production: one replica per zone\n",
		"\n        # sized from our load tests\n        resources:\n",
		"\n    team: platform # cost allocation\n",
	} {
		if !strings.Contains(text, c) {
			t.Errorf("dest/deploy.yaml lost the local comment %q", strings.TrimSpace(c))
		}
	}
	if got := readFile(t, filepath.Join(s.dir("dest"), "networkpolicy.yaml")); got != s.dest["networkpolicy.yaml"] {
		t.Error("dest/networkpolicy.yaml (local-only) changed")
	}
	for _, leaked := range []string{"config.kubernetes.io/merge-source", "internal.config.kubernetes.io", "config.kubernetes.io/path"} {
		if strings.Contains(text, leaked) {
			t.Errorf("dest/deploy.yaml contains the annotation %q", leaked)
		}
	}

	s.checkSourcesRemoved(t)
	s.checkDiffFollowsUpstream(t)
	s.rerunIsIdempotent(t, cfg)
}

// With onConflict: dest the local values win the two conflicts; everything else is as
// with the default.
func TestIngressNginxUpgradeDestWins(t *testing.T) {
	requireKpt(t)
	data := requireData(t)
	t.Parallel()
	s := ingressScenario(t, data, false)
	run := mustRunKpt(t, s.pkg, fnConfig(t, "dest"))
	wantConflict(t, run, "apps/v1", "Deployment", ingressNS, "ingress-nginx-controller",
		"spec.template.spec.containers[name=controller].image", "dest")
	wantConflict(t, run, "apps/v1", "Deployment", ingressNS, "ingress-nginx-controller",
		"spec.template.spec.automountServiceAccountToken", "dest")
	got := s.checkResources(t, s.expected(t, true))
	dep := got[resID{"apps", "Deployment", ingressNS, "ingress-nginx-controller"}]
	wantScalar(t, dep, mirroredControllerImage, controllerPath("image")...)
	wantScalar(t, dep, "false", "spec", "template", "spec", "automountServiceAccountToken")
	s.checkSourcesRemoved(t)
}

// wantWarningAbout checks that some warning names the resource (e.g. a resource deleted
// locally that upstream changed meanwhile).
func wantWarningAbout(t *testing.T, run kptRun, kind, ns, name string) {
	t.Helper()
	for _, r := range run.Results {
		if r.Severity == "warning" && r.Ref.Kind == kind && r.Ref.Namespace == ns && r.Ref.Name == name {
			return
		}
	}
	t.Errorf("no warning about %s %s/%s (deleted locally, changed upstream); results:\n%s", kind, ns, name, resultsText(run.Results))
}
