package e2e

// `krm-merge pkg update` of a package holding subpackages with upstreams of their own:
// the one fetched from the root's repository at the root's ref, under the root's
// directory, moves with the root (kpt pkg update's shouldUpdateSubPkgRef); the others
// stay at their own refs.

import (
	"path/filepath"
	"strings"
	"testing"
)

const (
	// subPath is the blueprint's kcc-namespace package, fetched as a subpackage.
	subPath = blueprintsPath + "/kcc-namespace"
	// pinnedBranch is a branch of the blueprints repository at blueprintsOld's commit.
	pinnedBranch = "pinned"
	// subComment replaces "# Enable KCC for this namespace" in each subpackage's kcc.yaml.
	subComment = "# Enable Config Connector for the %s team\n"
)

// kptfileUpstream returns a Kptfile's upstream.git and upstreamLock.git fields.
func kptfileUpstream(t *testing.T, kptfile string) (repo, dir, ref, lockRepo, lockDir, lockRef, lockCommit string) {
	t.Helper()
	n := mustParse(t, kptfile)
	s := func(path ...string) string { return scalar(t, n, path...) }
	return s("upstream", "git", "repo"), s("upstream", "git", "directory"), s("upstream", "git", "ref"),
		s("upstreamLock", "git", "repo"), s("upstreamLock", "git", "directory"), s("upstreamLock", "git", "ref"), s("upstreamLock", "git", "commit")
}

// wantUpstream checks a Kptfile's upstream and lock: repo, directory, ref and commit.
func wantUpstream(t *testing.T, who, kptfile, repo, dir, ref, commit string) {
	t.Helper()
	r, d, f, lr, ld, lf, lc := kptfileUpstream(t, kptfile)
	if r != "file://"+repo || d != "/"+dir || f != ref || lr != r || ld != d || lf != ref || lc != commit {
		t.Errorf("%s: upstream %s %s %s, upstreamLock %s %s %s %s; want file://%s /%s %s at %s", who, r, d, f, lr, ld, lf, lc, repo, dir, ref, commit)
	}
}

// The project blueprint at v0.4.0 with three subpackages of kcc-namespace fetched into
// it: team-a from the same repository at the same ref (it moves to v0.4.4 with the
// root), team-b at a branch of the same commit and team-c from another repository at
// the same tag (both stay).
func TestPkgUpdateBlueprintsSubpackages(t *testing.T) {
	requireKpt(t)
	data := requireData(t)
	t.Parallel()
	repo := upstreamRepo(t, data, "blueprints-project", blueprintsPath, blueprintsOld, blueprintsNew)
	git(t, repo, "branch", pinnedBranch, blueprintsOld)
	mirror := upstreamRepo(t, data, "blueprints-project", blueprintsPath, blueprintsOld, blueprintsNew)
	oldCommit := strings.TrimSpace(git(t, repo, "rev-parse", blueprintsOld+"^{commit}"))
	newCommit := strings.TrimSpace(git(t, repo, "rev-parse", blueprintsNew+"^{commit}"))
	mirrorOld := strings.TrimSpace(git(t, mirror, "rev-parse", blueprintsOld+"^{commit}"))

	work := workRepo(t)
	pkg := kptGet(t, repo, blueprintsPath, blueprintsOld, work, "acme-project")
	kptGet(t, repo, subPath, blueprintsOld, pkg, "team-a")
	kptGet(t, repo, subPath, pinnedBranch, pkg, "team-b")
	kptGet(t, mirror, subPath, blueprintsOld, pkg, "team-c")
	commitAll(t, work, "kpt pkg get")
	for _, team := range []string{"team-a", "team-b", "team-c"} {
		replaceOnce(t, filepath.Join(pkg, team, "kcc.yaml"), "# Enable KCC for this namespace\n", strings.Replace(subComment, "%s", team, 1))
	}
	commitAll(t, work, "customise")
	before := snapshot(t, pkg)
	wantUpstream(t, "team-a/Kptfile before", before["team-a/Kptfile"], repo, subPath, blueprintsOld, oldCommit)
	wantUpstream(t, "team-b/Kptfile before", before["team-b/Kptfile"], repo, subPath, pinnedBranch, oldCommit)
	wantUpstream(t, "team-c/Kptfile before", before["team-c/Kptfile"], mirror, subPath, blueprintsOld, mirrorOld)

	r := mustUpdate(t, work, t.TempDir(), "acme-project@"+blueprintsNew, "--output", "json", "--on-conflict", "updated") // kpt's policy, for the comparison below
	t.Logf("krm-merge pkg update took %v", r.took)
	rep := parseReport(t, r)
	refs := map[string]string{}
	for _, p := range rep.Packages {
		refs[p.Path] = p.From.Ref + " -> " + p.To.Ref
		if p.Counts.Conflicts != 0 {
			t.Errorf("%s: %d conflicts", p.Path, p.Counts.Conflicts)
		}
	}
	for path, want := range map[string]string{
		".":      blueprintsOld + " -> " + blueprintsNew, // report paths are the root's
		"team-a": blueprintsOld + " -> " + blueprintsNew,
		"team-b": pinnedBranch + " -> " + pinnedBranch,
		"team-c": blueprintsOld + " -> " + blueprintsOld,
	} {
		if refs[path] != want {
			t.Errorf("report: %s went %q, want %q (all: %v)", path, refs[path], want, refs)
		}
	}
	after := snapshot(t, pkg)
	wantUpstream(t, "Kptfile", after["Kptfile"], repo, blueprintsPath, blueprintsNew, newCommit)
	wantUpstream(t, "team-a/Kptfile", after["team-a/Kptfile"], repo, subPath, blueprintsNew, newCommit)
	for _, team := range []string{"team-b", "team-c"} {
		for rel, content := range under(before, team) {
			if after[team+"/"+rel] != content {
				t.Errorf("%s/%s changed; its subpackage stays at its own ref", team, rel)
			}
		}
		if len(under(after, team)) != len(under(before, team)) {
			t.Errorf("%s: files added or deleted", team)
		}
	}
	// team-a took upstream's changes and kept its own.
	teamA := krmDocs(t, filepath.Join(pkg, "team-a"), nil)
	sa := find(t, teamA, "kcc.yaml", "IAMServiceAccount", "kcc-project-id")
	wantScalar(t, sa, "true", "metadata", "annotations", "cnrm.cloud.google.com/ignore-clusterless")
	wantScalar(t, sa, "cnrm/kcc-namespace/v0.4.4,kpt-pkg", "metadata", "annotations", "cnrm.cloud.google.com/blueprint")
	if v := after["team-a/validation.yaml"]; !strings.Contains(v, "kind: StarlarkRun") {
		t.Errorf("team-a/validation.yaml, new upstream:\n%s", v)
	}
	if !strings.Contains(after["team-a/kcc.yaml"], strings.Replace(subComment, "%s", "team-a", 1)) {
		t.Error("team-a/kcc.yaml lost its local comment")
	}
	if !strings.Contains(after["team-a/Kptfile"], "    - image: gcr.io/kpt-fn/starlark:v0.3\n      configPath: validation.yaml\n") {
		t.Errorf("team-a/Kptfile lacks upstream's new validator:\n%s", after["team-a/Kptfile"])
	}

	commitAll(t, work, "update")
	if r := mustUpdate(t, work, t.TempDir(), "acme-project@"+blueprintsNew); !strings.Contains(r.stdout, "Already up to date") {
		t.Errorf("second run:\n%s", r.stdout)
	}
	unchanged(t, "a second run", pkg, after)

	t.Run("compared with kpt pkg update", func(t *testing.T) {
		kptDir := kptUpdate(t, snapshotDir(t, before, "acme-project"), blueprintsNew)
		kpt := snapshot(t, kptDir)
		wantUpstream(t, "kpt's team-a/Kptfile", kpt["team-a/Kptfile"], repo, subPath, blueprintsNew, newCommit)
		for _, f := range []string{"team-a/Kptfile", "team-b/Kptfile", "team-c/Kptfile"} {
			if kpt[f] != after[f] {
				t.Errorf("%s differs from kpt's:\n%s\nkpt:\n%s", f, after[f], kpt[f])
			}
		}
		for _, team := range []string{"team-b", "team-c"} {
			if d := compareSnapshots(under(kpt, team), under(after, team)); d != "" {
				t.Errorf("%s differs from kpt's (kpt -> krm-merge):\n%s", team, d)
			}
		}
		// The moved subpackage, resource by resource.
		compareWithKpt(t, krmDocs(t, snapshotDir(t, under(before, "team-a"), "team-a"), nil),
			krmDocs(t, filepath.Join(kptDir, "team-a"), nil), teamA,
			func(key, field, before, kpt, krm string) string {
				if field == ".metadata.annotations.cnrm.cloud.google.com/blueprint" && krm == strings.TrimSuffix(kpt, `"`)+`,kpt-pkg"` {
					return "the blueprint annotation keeps kpt pkg get's kpt-pkg attribution (kpt pkg update drops it: " +
						"it compares with an upstream that lacks it and takes upstream's value)"
				}
				if field == ".metadata.annotations.config.kubernetes.io/local-config" && before == "true" && kpt == "true" && krm == `"true"` {
					return "upstream's change of local-config from the boolean true to the string \"true\" arrives " +
						"(kpt pkg update compares the two as one value and keeps dest's)"
				}
				return ""
			})
		// Its other files: the same, but for setters.yaml's license header, which kpt
		// writes twice.
		for rel := range mergeKeys(under(kpt, "team-a"), under(after, "team-a")) {
			k, m := kpt["team-a/"+rel], after["team-a/"+rel]
			if k == m || strings.HasSuffix(rel, ".yaml") && rel != "setters.yaml" || rel == "Kptfile" {
				continue
			}
			if rel == "setters.yaml" && strings.Count(k, "Copyright 2021 Google LLC") == 2 && strings.Count(m, "Copyright 2021 Google LLC") == 1 {
				t.Log("deliberate difference from kpt pkg update: team-a/setters.yaml's license header is taken once, as upstream changed it (kpt writes it twice)")
				continue
			}
			t.Errorf("team-a/%s differs from kpt's:\n%s\nkpt:\n%s", rel, m, k)
		}
	})
}
