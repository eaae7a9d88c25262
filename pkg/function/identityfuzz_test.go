package function_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/testsupport"
)

// The identity fuzz target draws packages from a small universe where the identity
// rules meet (the contract's "Resource identity"): kinds namespaced, cluster
// scoped and of unknown scope, two versions of one kind, items without a name, Kptfiles
// under the role directories, the same name in several files and twice in one file,
// `namespace: default` and none, items outside every role directory (one in
// destination/, which is not dest/).

// idKind is a kind of the universe with its apiVersions.
type idKind struct {
	kind     string
	versions []string
}

var idKinds = []idKind{
	{"ConfigMap", []string{"v1"}},
	{"Deployment", []string{"apps/v1"}},
	{"ClusterRole", []string{"rbac.authorization.k8s.io/v1", "rbac.authorization.k8s.io/v1beta1"}},
	{"Kustomization", []string{"kustomize.config.k8s.io/v1beta1"}},
	{"LabelTransformer", []string{"builtin"}},
	{"Kptfile", []string{"kpt.dev/v1"}},
}

var (
	idNames      = []string{"", "a", "b", "a"}
	idNamespaces = []string{"", "default", "x", ""}
	idFiles      = []string{"a.yaml", "b.yaml", "sub/a.yaml", "a.yaml"}
	idRoles      = []string{"original", "updated", "dest", ""} // "": outside every role directory
	idOutside    = []string{"Kptfile", "other.yaml", "destination/a.yaml", "dest.yaml"}
)

// idItem is one drawn item.
type idItem struct {
	n                        int // its position, and its marker's value
	role                     string
	apiVersion, kind         string
	name, namespace          string
	file                     string // relative to the role directory (the whole path without a role)
	index                    int
	localConfig, clusterWide bool
}

// drawPackage turns bytes into items: the first byte the count (1 to 12), then four
// bytes an item (kind and version, name and namespace, file, role and local-config).
func drawPackage(in []byte) []idItem {
	at := func(i int) byte {
		if i < len(in) {
			return in[i]
		}
		return 0
	}
	n := 1
	if len(in) > 0 {
		n = 1 + int(in[0])%12
	}
	var items []idItem
	indexes := map[string]int{}
	for i := 0; i < n; i++ {
		b := [4]byte{at(1 + 4*i), at(2 + 4*i), at(3 + 4*i), at(4 + 4*i)}
		k := idKinds[int(b[0])%len(idKinds)]
		it := idItem{n: i, kind: k.kind, apiVersion: k.versions[int(b[0]>>4)%len(k.versions)],
			name: idNames[int(b[1])%len(idNames)], namespace: idNamespaces[int(b[1]>>2)%len(idNamespaces)],
			role: idRoles[int(b[3])%len(idRoles)], localConfig: b[3]&8 != 0}
		if it.role == "" {
			it.file = idOutside[int(b[2])%len(idOutside)]
		} else {
			it.file = idFiles[int(b[2])%len(idFiles)]
		}
		if it.kind == "Kptfile" { // alone in its file, named k or not (two values: no 3-way conflict)
			it.file = strings.TrimSuffix(strings.TrimSuffix(it.file, "a.yaml"), "b.yaml") + "Kptfile"
			if it.role == "" {
				it.file = "Kptfile"
			}
			it.name = strings.Repeat("k", len(it.name)%2)
		}
		if it.kind == "Deployment" && it.name == "" {
			it.name = "web" // an unnamed Deployment is no real input; keep the names meaningful
		}
		full := path(it)
		it.index = indexes[full]
		indexes[full]++
		items = append(items, it)
	}
	return items
}

func path(it idItem) string {
	if it.role == "" {
		return it.file
	}
	return it.role + "/" + it.file
}

// marker is the annotation that tells which input item an output item holds: each role
// has its own key, so a merge keeps updated's and dest's (original's is deleted upstream).
func marker(role string) string {
	if role == "" {
		role = "none"
	}
	return "fuzz.krm-merge.dev/" + role
}

func (it idItem) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "- apiVersion: %s\n  kind: %s\n  metadata:\n", it.apiVersion, it.kind)
	if it.name != "" {
		fmt.Fprintf(&b, "    name: %s\n", it.name)
	}
	if it.namespace != "" && it.kind != "Kptfile" {
		fmt.Fprintf(&b, "    namespace: %s\n", it.namespace)
	}
	fmt.Fprintf(&b, "    annotations:\n      internal.config.kubernetes.io/path: '%s'\n      internal.config.kubernetes.io/index: '%d'\n      %s: '%d'\n",
		path(it), it.index, marker(it.role), it.n)
	if it.localConfig {
		b.WriteString("      config.kubernetes.io/local-config: \"true\"\n")
	}
	return b.String()
}

// oracleID is an item's identity by the rules of the contract, computed plainly.
type oracleID struct {
	group, kind, namespace, name, file string
	nth                                int
}

// identities returns each role item's identity (by position), or the error the run must
// fail with ("" for none).
func identities(items []idItem) (map[int]oracleID, string) {
	ids := map[int]oracleID{}
	var roleItems []idItem
	for _, it := range items {
		if it.role != "" {
			roleItems = append(roleItems, it)
		}
	}
	group := func(av string) string {
		if i := strings.Index(av, "/"); i >= 0 {
			return av[:i]
		}
		return ""
	}
	nth := map[string]int{}
	for _, it := range roleItems {
		id := oracleID{group: group(it.apiVersion), kind: it.kind, namespace: it.namespace, name: it.name}
		if it.kind == "Kptfile" {
			id.namespace = ""
		}
		if it.name == "" || it.kind == "Kptfile" { // identified by its path
			id.name, id.file = "", it.file
			k := fmt.Sprint(it.role, id)
			id.nth = nth[k]
			nth[k]++
		}
		ids[it.n] = id
	}
	// Several items of one identity in one role, in different files: the file joins
	// the identity of every item with it, in every role.
	type roleID struct {
		role string
		id   oracleID
	}
	files := map[roleID][]string{}
	for _, it := range roleItems {
		if id := ids[it.n]; id.file == "" {
			files[roleID{it.role, id}] = append(files[roleID{it.role, id}], it.file)
		}
	}
	split := map[oracleID]bool{}
	for k, fs := range files {
		distinct := map[string]bool{}
		for _, f := range fs {
			distinct[f] = true
		}
		if len(fs) > 1 && len(distinct) == len(fs) {
			split[k.id] = true
		}
	}
	for _, it := range roleItems {
		if id := ids[it.n]; split[id] {
			id.file = it.file
			ids[it.n] = id
		}
	}
	// Namespaces: a cluster-scoped kind has none; for others "" and "default" are one
	// when no role holds both.
	present := map[oracleID]map[string]bool{}
	both := map[oracleID]bool{}
	held := map[roleID]map[string]bool{}
	for _, it := range roleItems {
		id := ids[it.n]
		k := id
		k.namespace = ""
		if present[k] == nil {
			present[k] = map[string]bool{}
		}
		present[k][id.namespace] = true
		rk := roleID{it.role, k}
		if held[rk] == nil {
			held[rk] = map[string]bool{}
		}
		held[rk][id.namespace] = true
		if held[rk][""] && held[rk]["default"] {
			both[k] = true
		}
	}
	for _, it := range roleItems {
		id := ids[it.n]
		k := id
		k.namespace = ""
		if len(present[k]) < 2 {
			continue
		}
		scoped, known := openapi.IsNamespaceScoped(yaml.TypeMeta{APIVersion: it.apiVersion, Kind: it.kind})
		switch {
		case known && !scoped:
			id.namespace = ""
		case id.namespace == "" && present[k]["default"] && !both[k]:
			id.namespace = "default"
		}
		ids[it.n] = id
	}
	seen := map[roleID]int{}
	for _, it := range roleItems {
		k := roleID{it.role, ids[it.n]}
		if prev, dup := seen[k]; dup {
			return nil, fmt.Sprintf("items %d and %d: one identity %+v in %s", prev, it.n, k.id, it.role)
		}
		seen[k] = it.n
	}
	return ids, ""
}

// FuzzIdentity: for a package drawn from the universe above (drawPackage), with roles by
// path and onConflict updated or dest, the run fails exactly when a role holds two items
// of one identity (then with an error result naming a duplicate, and no items), and
// otherwise every input item is accounted for exactly once: each identity's items by the
// 3-way resource rules (merged: one output item with updated's and dest's markers; added:
// updated's, at its path rebased into dest/; kept: dest's; deleted upstream: gone under
// updated, kept under dest; deleted locally or original only: none), each item outside
// the role directories unchanged, nothing else; and the summary counts each identity
// that has an updated or dest item once, and its conflicts.
func FuzzIdentity(f *testing.F) {
	testsupport.SetupFuzz(f)
	f.Add([]byte{3, 0, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 2}, false)
	f.Add([]byte{6, 4, 0, 0, 0, 4, 0, 0, 1, 4, 0, 0, 2, 4, 0, 1, 0, 4, 0, 1, 1, 4, 0, 1, 2}, true)
	f.Add([]byte{5, 4, 1, 0, 2, 4, 1, 1, 2, 4, 1, 0, 0, 4, 1, 1, 1, 5, 0, 0, 2}, false)
	f.Add([]byte{4, 0, 1, 0, 0, 0, 5, 1, 1, 0, 1, 1, 2, 2, 2, 0, 2}, true)
	f.Add([]byte{6, 3, 0, 0, 0, 3, 0, 0, 2, 3, 1, 2, 2, 19, 2, 0, 1, 2, 2, 0, 3, 0, 1, 1, 3}, false)
	f.Add([]byte{8, 0, 1, 0, 0, 0, 1, 0, 1, 0, 1, 1, 2, 0, 1, 2, 2, 5, 0, 0, 2, 5, 0, 2, 0, 0, 2, 3, 3, 5, 0, 0, 3}, true)
	f.Fuzz(func(t *testing.T, in []byte, keepDest bool) {
		defer testsupport.Guard(t, in, keepDest)()
		items := drawPackage(in)
		policy := "updated"
		if keepDest {
			policy = "dest"
		}
		var list strings.Builder
		list.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
		for _, it := range items {
			list.WriteString(it.text())
		}
		list.WriteString("functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: fc\n  data:\n" +
			"    originalPath: original\n    updatedPath: updated\n    destPath: dest\n    onConflict: " + policy + "\n")
		rl, err := run(t, list.String())
		ids, dupErr := identities(items)
		got := items2(t, rl)
		if dupErr != "" {
			if err == nil || len(got) != 0 || !strings.Contains(resultsOf(rl), "duplicate") {
				t.Fatalf("%s: want a duplicate error and no items; error %v, %d items\ninput:\n%s\noutput:\n%s", dupErr, err, len(got), list.String(), rl.MustString())
			}
			return
		}
		if err != nil {
			t.Fatalf("run failed: %v\ninput:\n%s\noutput:\n%s", err, list.String(), rl.MustString())
		}
		// The expected output items, as "u=<n> d=<n> none=<n>" strings, and the summary.
		type set struct{ o, u, d *idItem }
		sets := map[oracleID]*set{}
		var order []oracleID
		var want []string
		for i := range items {
			it := &items[i]
			if it.role == "" {
				want = append(want, fmt.Sprintf("none=%d at %s", it.n, it.file))
				continue
			}
			id := ids[it.n]
			s := sets[id]
			if s == nil {
				s = &set{}
				sets[id] = s
				order = append(order, id)
			}
			switch it.role {
			case "original":
				s.o = it
			case "updated":
				s.u = it
			case "dest":
				s.d = it
			}
		}
		var merged, added, deleted, kept, stayed, conflicts int
		for _, id := range order {
			s := sets[id]
			switch {
			case s.u != nil && s.d != nil:
				merged++
				conflicts += fieldConflicts(s.o, s.u, s.d)
				want = append(want, fmt.Sprintf("updated=%d dest=%d at dest/%s", s.u.n, s.d.n, s.d.file))
			case s.u != nil && s.o == nil:
				added++
				want = append(want, fmt.Sprintf("updated=%d at dest/%s", s.u.n, s.u.file))
			case s.u != nil:
				stayed++
			case s.o != nil && s.d != nil: // deleted upstream, changed locally (its marker)
				conflicts++
				if keepDest {
					kept++
					want = append(want, fmt.Sprintf("dest=%d at dest/%s", s.d.n, s.d.file))
				} else {
					deleted++
				}
			case s.d != nil:
				kept++
				want = append(want, fmt.Sprintf("dest=%d at dest/%s", s.d.n, s.d.file))
			}
		}
		var have []string
		for _, n := range got {
			annos := n.GetAnnotations()
			var parts []string
			for _, role := range []string{"updated", "dest", ""} {
				if v, ok := annos[marker(role)]; ok {
					r := role
					if r == "" {
						r = "none"
					}
					parts = append(parts, r+"="+v)
				}
			}
			if _, ok := annos[marker("original")]; ok {
				parts = append(parts, "original="+annos[marker("original")])
			}
			have = append(have, strings.Join(parts, " ")+" at "+annos["internal.config.kubernetes.io/path"])
		}
		sort.Strings(want)
		sort.Strings(have)
		if strings.Join(want, "\n") != strings.Join(have, "\n") {
			t.Fatalf("output items:\n%s\nwant:\n%s\ninput:\n%s\noutput:\n%s", strings.Join(have, "\n"), strings.Join(want, "\n"), list.String(), rl.MustString())
		}
		summary := fmt.Sprintf("3way merge: %d merged, %d added, %d deleted, %d kept, %d conflicts", merged, added, deleted, kept, conflicts)
		if stayed > 0 {
			summary += fmt.Sprintf(", %d stayed deleted locally", stayed)
		}
		if !strings.Contains(resultsOf(rl), "message: '"+summary+"'") && !strings.Contains(resultsOf(rl), "message: "+summary+"\n") {
			t.Fatalf("summary: want %q\ninput:\n%s\nresults:\n%s", summary, list.String(), resultsOf(rl))
		}
	})
}

// fieldConflicts counts the fields a merge of o, u and d (o nil: added on both sides)
// finds in conflict: those whose three values (absent counting as one) all differ. Items
// of one identity differ only in apiVersion, namespace (a cluster-scoped kind's three
// namespaces are one identity), a Kptfile's name and local-config.
func fieldConflicts(o, u, d *idItem) int {
	fields := func(it *idItem) [4]string {
		if it == nil {
			return [4]string{}
		}
		ns, local := it.namespace, ""
		if it.kind == "Kptfile" {
			ns = ""
		}
		if it.localConfig {
			local = "true"
		}
		return [4]string{it.apiVersion, ns, it.name, local}
	}
	fo, fu, fd := fields(o), fields(u), fields(d)
	n := 0
	for i := range fo {
		if fo[i] != fu[i] && fo[i] != fd[i] && fu[i] != fd[i] {
			n++
		}
	}
	return n
}

// items2 is items, nil for an output without any.
func items2(t *testing.T, rl *yaml.RNode) []*yaml.RNode {
	if rl == nil {
		return nil
	}
	return items(t, rl)
}
