package function_test

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// A resource deleted upstream but changed locally is a conflict on the whole resource:
// its result names the resource and file and no field (no empty `field: {}`), under
// every onConflict policy; the summary counts it once, as deleted or (onConflict: dest)
// kept.
func TestResourceConflictResultHasNoField(t *testing.T) {
	item := func(role, data string) string {
		return "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: gone\n    annotations:\n" +
			"      config.kubernetes.io/merge-source: " + role + "\n      internal.config.kubernetes.io/path: " + role + ".yaml\n" +
			"  data:\n    a: " + data + "\n"
	}
	for _, policy := range []string{"updated", "dest", "error"} {
		t.Run(policy, func(t *testing.T) {
			in := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + item("original", "one") + item("dest", "local") +
				"functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cfg\n  data:\n    onConflict: " + policy + "\n"
			rl, _ := run(t, in)
			rs, err := rl.Pipe(yaml.Lookup("results"))
			if err != nil || rs == nil {
				t.Fatalf("no results:\n%s", rl.MustString())
			}
			els, _ := rs.Elements()
			found := false
			for _, r := range els {
				msg := yaml.GetValue(r.Field("message").Value)
				if !strings.Contains(msg, "deleted upstream but changed locally") {
					continue
				}
				found = true
				if f := r.Field("field"); f != nil {
					t.Errorf("resource-level conflict has a field %s:\n%s", f.Value.MustString(), r.MustString())
				}
				if !strings.Contains(r.MustString(), "name: gone") || !strings.Contains(r.MustString(), "dest.yaml") {
					t.Errorf("result does not name the resource and file:\n%s", r.MustString())
				}
			}
			if !found {
				t.Fatalf("no resource-level conflict:\n%s", resultsOf(rl))
			}
			want := map[string]string{"updated": "0 merged, 0 added, 1 deleted, 0 kept, 1 conflicts",
				"dest": "0 merged, 0 added, 0 deleted, 1 kept, 1 conflicts"}[policy]
			if want != "" && !strings.Contains(resultsOf(rl), "3way merge: "+want) {
				t.Errorf("summary: want %q:\n%s", want, resultsOf(rl))
			}
		})
	}
}
