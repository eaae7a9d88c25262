package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// customiseIngress makes the local changes of the ingress-nginx package: 3 replicas
// with a comment, more CPU, an extra env var, the controller image from a mirror (which
// upstream also changes: a conflict), a team label on the Service with a comment.
func customiseIngress(t *testing.T, pkg string) {
	t.Helper()
	f := loadYAMLFile(t, filepath.Join(pkg, "deploy.yaml"))
	d := f.find(t, "Deployment", "ingress-nginx-controller")
	setField(t, d, "3", "spec", "replicas")
	commentField(t, d, "# production: one replica per zone", true, "spec", "replicas")
	setField(t, d, "500m", controllerPath("resources", "requests", "cpu")...)
	appendElement(t, d, "{name: TZ, value: Europe/Berlin}", controllerPath("env")...)
	setField(t, d, mirroredControllerImage, controllerPath("image")...)
	s := f.find(t, "Service", "ingress-nginx-controller")
	setField(t, s, "platform", "metadata", "labels", "team")
	commentField(t, s, "# cost allocation", true, "metadata", "labels", "team")
	f.save(t)
}

func TestPkgUpdateIngressNginx(t *testing.T) {
	requireKpt(t)
	data := requireData(t)
	t.Parallel()
	repo := upstreamRepo(t, data, "ingress-nginx", "", ingressOld, ingressNew)
	work := workRepo(t)
	pkg := kptGet(t, repo, "", ingressOld, work, "ingress")
	commitAll(t, work, "kpt pkg get")
	customiseIngress(t, pkg)
	commitAll(t, work, "customise")
	before := snapshot(t, pkg)
	beforeDocs := krmDocs(t, pkg, nil)
	cache := t.TempDir()
	target := "ingress@" + ingressNew

	// --plan changes nothing and lists what would (under the policy of the update below).
	plan := mustUpdate(t, work, cache, target, "--plan", "--on-conflict", "dest")
	unchanged(t, "--plan", pkg, before)
	for _, want := range []string{"modified deploy.yaml", "modified Kptfile", "-    ref: " + ingressOld, "+    ref: " + ingressNew,
		"spec.template.spec.containers[name=controller].image: changed on both sides", "nothing written"} {
		if !strings.Contains(plan.stdout, want) {
			t.Errorf("--plan output lacks %q:\n%s", want, plan.stdout)
		}
	}

	// A conflict under --on-conflict error fails and changes nothing.
	r := pkgUpdate(t, work, cache, target, "--on-conflict", "error", "--output", "json")
	if r.code != 1 {
		t.Fatalf("--on-conflict error: exit %d, want 1\n%s", r.code, r.stdout)
	}
	unchanged(t, "--on-conflict error", pkg, before)
	rep := parseReport(t, r)
	if c := rep.Packages[0].Conflicts; len(c) != 1 || c[0].File != "deploy.yaml" ||
		c[0].Resource != "apps/v1 Deployment ingress-nginx/ingress-nginx-controller" ||
		c[0].Field != "spec.template.spec.containers[name=controller].image" || !strings.Contains(rep.Error, "1 conflicts") {
		t.Errorf("conflicts %+v, error %q", c, rep.Error)
	}

	// A failing run (a version upstream does not have) changes nothing.
	if r := pkgUpdate(t, work, cache, "ingress@controller-v9.9.9"); r.code != 1 || !strings.Contains(r.stderr, `"controller-v9.9.9"`) {
		t.Errorf("unknown version: exit %d\n%s", r.code, r.stderr)
	}
	unchanged(t, "an unknown version", pkg, before)

	// The update, keeping the mirror: 19 resources and the Kptfile merge.
	r = mustUpdate(t, work, cache, target, "--on-conflict", "dest", "--output", "json")
	t.Logf("krm-merge pkg update %s took %v", target, r.took)
	rep = parseReport(t, r)
	p := rep.Packages[0]
	if p.Counts.Merged != 20 || p.Counts.Conflicts != 1 || p.To.Ref != ingressNew || !p.From.Cached || !p.To.Cached {
		t.Errorf("report %+v", p)
	}
	after := readResources(t, pkg)
	ctrl := after[resID{"apps", "Deployment", ingressNS, "ingress-nginx-controller"}]
	wantScalar(t, ctrl, "3", "spec", "replicas")
	wantScalar(t, ctrl, "500m", controllerPath("resources", "requests", "cpu")...)
	wantScalar(t, ctrl, mirroredControllerImage, controllerPath("image")...)
	wantScalar(t, ctrl, "1.13.0", "metadata", "labels", "app.kubernetes.io/version")
	if env := keyedNames(t, ctrl.Node, controllerPath("env")...); env[len(env)-1] != "TZ" {
		t.Errorf("env %v, want the local TZ kept", env)
	}
	if lookup(t, ctrl.Node, "spec", "template", "spec", "automountServiceAccountToken") == nil {
		t.Error("upstream's automountServiceAccountToken did not arrive")
	}
	deploy := readFile(t, filepath.Join(pkg, "deploy.yaml"))
	for _, want := range []string{"replicas: 3 # production: one replica per zone", "team: platform # cost allocation",
		"metadata: # kpt-merge: ingress-nginx/ingress-nginx-controller"} {
		if !strings.Contains(deploy, want) {
			t.Errorf("deploy.yaml lost %q", want)
		}
	}
	kf := readFile(t, filepath.Join(pkg, "Kptfile"))
	commit := git(t, repo, "rev-parse", ingressNew)
	if !strings.Contains(kf, "    ref: "+ingressNew+"\n  updateStrategy") || !strings.Contains(kf, "    commit: "+strings.TrimSpace(commit)) {
		t.Errorf("Kptfile does not record %s:\n%s", ingressNew, kf)
	}
	commitAll(t, work, "update")

	// A second run changes nothing and fetches nothing.
	r = mustUpdate(t, work, cache, target)
	t.Logf("second run (git cache hit, nothing to change) took %v", r.took)
	if !strings.Contains(r.stdout, "Already up to date") || !strings.Contains(r.stdout, "from the git cache") {
		t.Errorf("second run:\n%s", r.stdout)
	}
	unchanged(t, "a second run", pkg, snapshot(t, pkg))

	// Side by side with kpt pkg update, from the same customised package.
	t.Run("compared with kpt pkg update", func(t *testing.T) {
		kptDir := kptUpdate(t, pkgFrom(t, before), ingressNew)
		krmDir := filepath.Join(t.TempDir(), "ingress")
		copyTree(t, pkgFrom(t, before), krmDir)
		mustUpdate(t, filepath.Dir(krmDir), cache, "ingress@"+ingressNew, "--on-conflict", "updated") // updated wins, as in kpt
		compareWithKpt(t, beforeDocs, krmDocs(t, kptDir, nil), krmDocs(t, krmDir, nil),
			func(key, field, before, kpt, krm string) string {
				if why := mirrorKept(field, before, kpt, krm); why != "" {
					return why
				}
				return kyamlNulls(before, kpt, krm)
			})
	})
}

// pkgFrom writes a package snapshot into a new directory named like the original.
func pkgFrom(t *testing.T, snap map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ingress")
	for p, c := range snap {
		writeFile(t, filepath.Join(dir, filepath.FromSlash(p)), []byte(c))
	}
	return dir
}

// mirrorKept explains the controller image: krm-merge merges inside the reference
// (valueMerge), so the local mirror's registry stays while upstream's new tag and digest
// arrive (a conflict on the tag and digest, which updated wins); kpt pkg update takes
// upstream's whole reference. Values are JSON strings, as leaves writes them.
func mirrorKept(field, before, kpt, krm string) string {
	const upstreamRepo, mirrorRepo = "registry.k8s.io/ingress-nginx/controller", "registry.example.com/mirror/ingress-nginx/controller"
	var b, p, m string
	if json.Unmarshal([]byte(before), &b) != nil || json.Unmarshal([]byte(kpt), &p) != nil || json.Unmarshal([]byte(krm), &m) != nil {
		return ""
	}
	if strings.HasSuffix(field, ".image") && b == mirroredControllerImage && strings.HasPrefix(p, upstreamRepo+":") &&
		m == mirrorRepo+strings.TrimPrefix(p, upstreamRepo) {
		return "the local image mirror stays while upstream's new tag and digest arrive (valueMerge; kpt takes upstream's whole reference)"
	}
	return ""
}

// kyamlNulls explains an explicit null upstream never changed (ingress-nginx ships
// `data: null`): kpt's kyaml merge3 removes it, krm-merge keeps it (README, "Differences
// from kyaml").
func kyamlNulls(before, kpt, krm string) string {
	if before == "null" && krm == "null" && kpt == "" {
		return "an explicit null upstream did not change stays (kyaml's merge3 removes it)"
	}
	return ""
}
