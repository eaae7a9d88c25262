package e2e

import (
	"bytes"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
)

// markPackage is the bundled ingress-nginx release (examples/ingress-nginx) fetched with
// kpt pkg get at controller-v1.12.0 and customised as make demo customises it, plus a
// line in the Namespace's labels that upstream changes too: every image from a mirror
// (merged inside the value), ttlSecondsAfterFinished: 300 on the admission-create job
// (upstream adds 0: a conflict), app.kubernetes.io/version "1.12.0-acme" on the
// Namespace (upstream moves it to 1.13.0: a conflict). It returns the work repository
// and the package.
func markPackage(t *testing.T) (work, pkg string) {
	t.Helper()
	repo := upstreamRepo(t, filepath.Join(repoRoot, "examples"), "ingress-nginx/upstream", "", ingressOld, ingressNew)
	work = workRepo(t)
	pkg = kptGet(t, repo, "", ingressOld, work, "ingress")
	commitAll(t, work, "kpt pkg get")
	p := filepath.Join(pkg, "deploy.yaml")
	s := strings.ReplaceAll(readFile(t, p), "image: registry.k8s.io/", "image: registry.example.com/mirror/")
	s = strings.Replace(s, "      serviceAccountName: ingress-nginx-admission\n---",
		"      serviceAccountName: ingress-nginx-admission\n  ttlSecondsAfterFinished: 300 # keep the pods for debugging\n---", 1)
	s = strings.Replace(s, "    app.kubernetes.io/version: 1.12.0\n  name: ingress-nginx\n", "    app.kubernetes.io/version: 1.12.0-acme\n  name: ingress-nginx\n", 1)
	if !strings.Contains(s, "ttlSecondsAfterFinished: 300") || !strings.Contains(s, "1.12.0-acme") {
		t.Fatal("the customisation did not apply")
	}
	writeFile(t, p, []byte(s))
	commitAll(t, work, "customise")
	return work, pkg
}

// sides returns the file with every conflict block resolved to one side: "local" (the
// lines after <<<<<<<) or "upstream" (after =======).
func sides(text, side string) string {
	var out strings.Builder
	state := ""
	for _, l := range strings.SplitAfter(text, "\n") {
		switch {
		case strings.HasPrefix(l, "<<<<<<< "):
			state = "local"
			continue
		case strings.HasPrefix(l, "||||||| "):
			state = "base"
			continue
		case l == "=======\n" && state == "base":
			state = "upstream"
			continue
		case strings.HasPrefix(l, ">>>>>>> "):
			state = ""
			continue
		}
		if state == "" || state == side {
			out.WriteString(l)
		}
	}
	return out.String()
}

// The whole cycle of resolving conflicts by hand, through the binary, on real
// releases (docs/pkg-update.md, "Resolving conflicts by hand"): --on-conflict mark
// writes markers around the conflicting lines only, each side alone parses, every local
// side is the --on-conflict dest result and every upstream side is the new release's
// own line; the Kptfile keeps the old release;
// another update, --plan included, is refused; --continue is refused while a marker is
// left; --abort puts the package back exactly; marked again, resolved by an edit and
// concluded with --continue, the Kptfile records the new release and no state is left
// for git to show.
func TestPkgUpdateMarkContinueAbort(t *testing.T) {
	requireKpt(t)
	t.Parallel()
	work, pkg := markPackage(t)
	cache := t.TempDir()
	before := snapshot(t, pkg)
	target := "ingress@" + ingressNew
	deploy := filepath.Join(pkg, "deploy.yaml")

	// what --on-conflict dest writes, on a copy
	policy := map[string]string{}
	for _, p := range []string{"dest"} {
		w2 := workRepo(t)
		copyTree(t, pkg, filepath.Join(w2, "ingress"))
		commitAll(t, w2, "copy")
		mustUpdate(t, w2, cache, target, "--on-conflict", p)
		policy[p] = readFile(t, filepath.Join(w2, "ingress", "deploy.yaml"))
	}

	// a marked update is no error: exit 2, the files named and how to go on on
	// stdout, no "Error:" line
	mark := func(args ...string) updateRun {
		t.Helper()
		r := pkgUpdate(t, work, cache, append([]string{target}, args...)...)
		if r.code != 2 || !strings.Contains(r.stdout, "marked in deploy.yaml;") || !strings.Contains(r.stdout, "krm-merge pkg update ingress --continue\n") ||
			!strings.Contains(r.stdout, "krm-merge pkg update ingress --abort\n") || r.stderr != "" {
			t.Fatalf("pkg update %v: exit %d, want 2 and how to go on, nothing on stderr\n%s\n%s", args, r.code, r.stdout, r.stderr)
		}
		return r
	}
	mark("--on-conflict", "mark")
	marked := readFile(t, deploy)
	if n := strings.Count(marked, "<<<<<<< local\n"); n != 2 {
		t.Errorf("%d conflict blocks, want 2 (ttlSecondsAfterFinished, the version label):\n%s", n, marked)
	}
	for _, want := range []string{"||||||| " + ingressOld + "\n", ">>>>>>> " + ingressNew + "\n",
		"image: registry.example.com/mirror/ingress-nginx/controller:v1.13.0@sha256:"} {
		if !strings.Contains(marked, want) {
			t.Errorf("the marked file lacks %q", want)
		}
	}
	if sides(marked, "local") != policy["dest"] {
		t.Errorf("every local side is not the --on-conflict dest file")
	}
	for _, side := range []string{"local", "upstream"} {
		if _, err := (&kio.ByteReader{Reader: bytes.NewBufferString(sides(marked, side))}).Read(); err != nil {
			t.Errorf("every %s side does not parse: %v", side, err)
		}
	}
	// upstream's sides are controller-v1.13.0's own lines: no local comment
	for _, want := range []string{"=======\n    app.kubernetes.io/version: 1.13.0\n>>>>>>> ", "=======\n  ttlSecondsAfterFinished: 0\n>>>>>>> "} {
		if !strings.Contains(marked, want) {
			t.Errorf("the marked file lacks the upstream side %q", want)
		}
	}
	if kf := readFile(t, filepath.Join(pkg, "Kptfile")); strings.Contains(kf, ingressNew) {
		t.Errorf("the Kptfile records the new release before --continue:\n%s", kf)
	}
	inProgress := snapshot(t, pkg)

	// another update, or a plan, is refused and changes nothing
	for _, args := range [][]string{{target}, {target, "--plan"}, {target, "--on-conflict", "mark"}} {
		r := pkgUpdate(t, work, cache, args...)
		if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "--continue") || !strings.Contains(r.stdout+r.stderr, "--abort") {
			t.Errorf("%v while in progress: exit %d, want 1 pointing at --continue and --abort\n%s%s", args, r.code, r.stdout, r.stderr)
		}
		if got := snapshot(t, pkg); !maps.Equal(got, inProgress) {
			t.Errorf("%v while in progress changed the package", args)
		}
	}

	// --continue refused while a marker is left, naming file and line
	r := pkgUpdate(t, work, cache, "ingress", "--continue")
	if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "deploy.yaml:") {
		t.Errorf("--continue with markers left: exit %d, want 1 naming deploy.yaml and a line\n%s%s", r.code, r.stdout, r.stderr)
	}

	// --abort: exactly as before, and git sees nothing
	mustUpdate(t, work, cache, "ingress", "--abort")
	unchanged(t, "--abort", pkg, before)

	// marked again (mark is the default), resolved (ours for both), concluded
	mark()
	writeFile(t, deploy, []byte(sides(readFile(t, deploy), "local")))
	mustUpdate(t, work, cache, "ingress", "--continue")
	kf := readFile(t, filepath.Join(pkg, "Kptfile"))
	if strings.Count(kf, "ref: "+ingressNew) != 2 {
		t.Errorf("the Kptfile does not record %s in upstream and upstreamLock:\n%s", ingressNew, kf)
	}
	if got := readFile(t, deploy); got != policy["dest"] {
		t.Errorf("the resolved file is not the one resolved (ours):\n%s", got)
	}
	status := gitStatus(t, work)
	for _, l := range strings.Split(status, "\n") {
		if l != "" && !strings.HasSuffix(l, "ingress/deploy.yaml") && !strings.HasSuffix(l, "ingress/Kptfile") {
			t.Errorf("git status shows %q after --continue (state left behind?)", l)
		}
	}
}
