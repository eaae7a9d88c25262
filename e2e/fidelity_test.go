package e2e

import (
	"testing"
)

// When upstream did not change (original/ and updated/ are the same tag), the merge must
// leave the customised dest/ byte for byte as it was: git sees no change in dest/.
//
// (On the real upgrades, TestIngressNginxUpgrade and TestKubePrometheusUpgrade check
// with checkDiffFollowsUpstream that dest/ changed only where upstream did.)
func TestNoUpstreamChangeLeavesDestUntouched(t *testing.T) {
	requireKpt(t)
	data := requireData(t)
	t.Parallel()

	t.Run("ingress-nginx", func(t *testing.T) {
		t.Parallel()
		s := ingressScenario(t, data, true)
		run := mustRunKpt(t, s.pkg, fnConfig(t, ""))
		if status := gitStatus(t, s.pkg, "dest"); status != "" {
			t.Errorf("git status of dest/ after a merge with no upstream change:\n%s\ngit diff:\n%s",
				status, git(t, s.pkg, "diff", "--", "dest"))
		}
		sum := summaryOf(t, run)
		if want := (summary{Merged: 18, Kept: 1}); sum != want {
			t.Errorf("summary %+v, want %+v; results:\n%s", sum, want, resultsText(run.Results))
		}
		if n := len(conflictResults(run)); n != 0 {
			t.Errorf("%d conflicts reported with no upstream change:\n%s", n, resultsText(run.Results))
		}
		s.checkSourcesRemoved(t)
	})

	// keepSources: true also emits original/ and updated/ as they are, so the whole
	// package must come out unchanged: 3 x 130 resources, the large CRDs among them.
	t.Run("kube-prometheus keepSources", func(t *testing.T) {
		t.Parallel()
		s := kubePrometheusScenario(t, data, true)
		run := mustRunKpt(t, s.pkg, fnConfig(t, "", "keepSources: true"))
		if status := gitStatus(t, s.pkg); status != "" {
			t.Errorf("git status after a merge with no upstream change and keepSources: true:\n%s", status)
		}
		if n := len(conflictResults(run)); n != 0 {
			t.Errorf("%d conflicts reported with no upstream change:\n%s", n, resultsText(run.Results))
		}
	})
}
