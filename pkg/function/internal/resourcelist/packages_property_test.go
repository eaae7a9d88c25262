package resourcelist_test

// Properties on generated packages as real trees hold them, with roles chosen by path
// (original/, updated/, dest/): Kptfiles at the root and in a subpackage (dest's root
// Kptfile renamed, as kpt pkg get does), local-config setters in two directories,
// kustomizations without a name, a LabelTransformer named labels in every base, a
// resource with and without `namespace: default`; and comments changed on each side.

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

const pathConfig = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fc\ndata:\n  originalPath: original\n  updatedPath: updated\n  destPath: dest\n"

// pkgDoc is one generated package item: its file relative to the role directory, a key
// naming it for the property (kind and file), the name it shares with the same kind's
// items in other directories ("" when it is identified by its path alone), and its text
// per role.
type pkgDoc struct {
	file, key, shared string
	text              func(role string) string
}

// genPackage draws the items of a package; each is present in any subset of the roles.
func genPackage(t *rapid.T) []pkgDoc {
	var docs []pkgDoc
	ver := func(role string) string { // upstream's version moves; dest keeps original's
		if role == "updated" {
			return "v2"
		}
		return "v1"
	}
	docs = append(docs, pkgDoc{"Kptfile", "Kptfile Kptfile", "", func(role string) string {
		name := "blueprint"
		if role == "dest" {
			name = "my-copy"
		}
		return "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: " + name + "\npipeline:\n  mutators:\n  - image: gcr.io/kpt-fn/apply-setters:" + ver(role) + "\n    configPath: setters.yaml\n"
	}})
	bases := rapid.IntRange(1, 3).Draw(t, "bases")
	for b := 0; b < bases; b++ {
		dir := fmt.Sprintf("base%d", b)
		docs = append(docs,
			pkgDoc{dir + "/kustomization.yaml", "Kustomization " + dir + "/kustomization.yaml", "", func(role string) string {
				return "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- https://example.com/" + ver(role) + "/crds.yaml\n- app.yaml\ntransformers:\n- labels.yaml\n"
			}},
			pkgDoc{dir + "/labels.yaml", "LabelTransformer " + dir + "/labels.yaml", "LabelTransformer labels", func(role string) string {
				return "apiVersion: builtin\nkind: LabelTransformer\nmetadata:\n  name: labels\nlabels:\n  app: " + dir + "\n  version: " + ver(role) + "\n"
			}},
			pkgDoc{dir + "/setters.yaml", "ConfigMap " + dir + "/setters.yaml", "ConfigMap setters", func(role string) string {
				return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: setters\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\ndata:\n  version: " + ver(role) + "\n"
			}})
	}
	sub := rapid.Bool().Draw(t, "subpackage")
	if sub {
		docs = append(docs, pkgDoc{"sub/Kptfile", "Kptfile sub/Kptfile", "", func(role string) string {
			return "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: sub\ninfo:\n  description: " + ver(role) + "\n"
		}})
	}
	// One namespaced resource whose `namespace: default` comes and goes by role.
	nsIn := map[string]bool{}
	for _, role := range []string{"original", "updated", "dest"} {
		nsIn[role] = rapid.Bool().Draw(t, "default-ns-"+role)
	}
	docs = append(docs, pkgDoc{"web.yaml", "Deployment web", "", func(role string) string {
		ns := ""
		if nsIn[role] {
			ns = "  namespace: default\n"
		}
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n" + ns + "spec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:" + ver(role) + "\n"
	}})
	return docs
}

// TestPropertyPackagesAccountedFor: in a generated package with roles by path, every
// input item is accounted for exactly once by the 3-way resource rules (merged or kept:
// out at its dest file; added: out at its file rebased into dest/; deleted upstream,
// deleted locally, original only: not out), no original/ or updated/ item stays, and the
// summary adds up to the identities that have an updated or dest item. Identities follow
// the roles-and-identity rules: same-named items in different directories are one
// identity, unless some role holds several of them, which then pair by relative path.
func TestPropertyPackagesAccountedFor(t *testing.T) {
	checks(t, 500)
	var c counted
	rapid.Check(t, func(t *rapid.T) {
		docs := genPackage(t)
		var items []*yaml.RNode
		type presence struct{ o, u, d bool }
		in := map[string]presence{}
		perRole := map[string]map[string]int{} // shared name -> role -> items
		for _, d := range docs {
			mask := rapid.IntRange(1, 7).Draw(t, "presence "+d.key)
			p := presence{mask&1 != 0, mask&2 != 0, mask&4 != 0}
			in[d.key] = p
			for role, here := range map[string]bool{"original": p.o, "updated": p.u, "dest": p.d} {
				if !here {
					continue
				}
				n := yaml.MustParse(d.text(role))
				if err := n.PipeE(yaml.SetAnnotation("internal.config.kubernetes.io/path", role+"/"+d.file)); err != nil {
					t.Fatal(err)
				}
				items = append(items, n)
				if d.shared != "" {
					if perRole[d.shared] == nil {
						perRole[d.shared] = map[string]int{}
					}
					perRole[d.shared][role]++
				}
			}
		}
		// The identities: each doc, except same-named docs that no role holds twice,
		// which are one identity present wherever any of them is.
		want := map[string]int{} // key of the output item -> count
		identities := 0
		groups := map[string]presence{}
		groupFile := map[string][2]string{} // dest's file, updated's file
		for _, d := range docs {
			p := in[d.key]
			split := d.shared == "" || perRole[d.shared]["original"] > 1 || perRole[d.shared]["updated"] > 1 || perRole[d.shared]["dest"] > 1
			if split {
				if p.u || p.d {
					identities++
				}
				if (p.d && (p.u || !p.o)) || (p.u && !p.o) {
					want[d.key]++
				}
				continue
			}
			g := groups[d.shared]
			g.o, g.u, g.d = g.o || p.o, g.u || p.u, g.d || p.d
			groups[d.shared] = g
			f := groupFile[d.shared]
			kind := strings.Fields(d.key)[0]
			if p.d {
				f[0] = kind + " " + d.file
			}
			if p.u {
				f[1] = kind + " " + d.file
			}
			groupFile[d.shared] = f
		}
		for name, g := range groups {
			if g.u || g.d {
				identities++
			}
			switch {
			case g.d && (g.u || !g.o):
				want[groupFile[name][0]]++
			case g.u && !g.o:
				want[groupFile[name][1]]++
			}
		}
		outBytes, out := runList(t, list(t, pathConfig, items))
		got := map[string]int{}
		for _, it := range out {
			p := it.GetAnnotations()["internal.config.kubernetes.io/path"]
			if !strings.HasPrefix(p, "dest/") {
				t.Fatalf("%s %s stayed in the output at %s\n%s", it.GetKind(), it.GetName(), p, outBytes)
			}
			key := it.GetKind() + " " + strings.TrimPrefix(p, "dest/")
			if it.GetKind() == "Deployment" {
				key = "Deployment web"
			}
			got[key]++
		}
		for key, n := range want {
			if got[key] != n {
				t.Fatalf("%s: %d in the output, want %d\n%s", key, got[key], n, outBytes)
			}
		}
		for key, n := range got {
			if want[key] != n {
				t.Fatalf("%s: %d in the output, want %d\n%s", key, n, want[key], outBytes)
			}
		}
		merged, added, deleted, kept, stayed := summaryCounts(t, outBytes)
		if sum := merged + added + deleted + kept + stayed; sum != identities {
			t.Fatalf("summary counts %d resources, want %d\n%s", sum, identities, outBytes)
		}
		c.cases++
		c.resources += len(items)
	})
	c.log(t, "packages accounted for")
}

// summaryCounts reads the 3-way summary result of an output ResourceList.
func summaryCounts(t *rapid.T, out []byte) (merged, added, deleted, kept, stayed int) {
	rl := yaml.MustParse(string(out))
	rs, _ := rl.Pipe(yaml.Lookup("results"))
	if rs == nil {
		t.Fatalf("no results:\n%s", out)
	}
	els, _ := rs.Elements()
	for _, r := range els {
		m, _ := r.Pipe(yaml.Lookup("message"))
		if m == nil || !strings.HasPrefix(m.YNode().Value, "3way merge:") {
			continue
		}
		s := m.YNode().Value
		var conflicts int
		fmt.Sscanf(s, "3way merge: %d merged, %d added, %d deleted, %d kept, %d conflicts", &merged, &added, &deleted, &kept, &conflicts)
		if i := strings.Index(s, "stayed deleted"); i > 0 {
			fmt.Sscanf(s[strings.LastIndex(s[:i-1], " ")+1:], "%d", &stayed)
		}
	}
	return
}

// TestPropertyCommentsMerge3Way: each comment (a key's head comment, a scalar value's
// line comment) merges on its own: the output has dest's where dest changed it from
// original's, else updated's, whatever happened to the values. Updated changes only
// comments here; dest changes values (mutate) and comments.
func TestPropertyCommentsMerge3Way(t *testing.T) {
	checks(t, 1000)
	var c counted
	rapid.Check(t, func(t *rapid.T) {
		o, _, _ := genVersions(t, 1, 4)
		var u, d []*yaml.RNode
		for i := range o { // as parsed from their text, where a parser puts the comments
			o[i] = yaml.MustParse(o[i].MustString())
			u = append(u, yaml.MustParse(recomment(t, o[i], "u").MustString()))
			d = append(d, yaml.MustParse(recomment(t, mutate(t, o[i], "d"), "d").MustString()))
		}
		_, out := runList(t, list(t, "", concat(roles("original", o), roles("updated", u), roles("dest", d))))
		got := byName(out)
		for i := range o {
			name := o[i].GetName()
			if got[name] == nil {
				t.Fatalf("%s is not in the output", name)
			}
			checkComments(t, o[i].YNode(), u[i].YNode(), d[i].YNode(), got[name].YNode(), name, true)
		}
		c.cases++
		c.resources += 3 * len(o)
	})
	c.log(t, "comments 3-way")
}

// recomment changes, adds or removes a few comments of r (keys' head comments and
// scalar values' line comments, below the identity fields), and nothing else.
func recomment(t *rapid.T, r *yaml.RNode, label string) *yaml.RNode {
	r = r.Copy()
	var keys, values []*yaml.Node
	var walk func(n *yaml.Node, top bool)
	walk = func(n *yaml.Node, top bool) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if top && n.Content[i].Value != "spec" && n.Content[i].Value != "data" {
					continue
				}
				keys = append(keys, n.Content[i])
				if v := n.Content[i+1]; v.Kind == yaml.ScalarNode {
					values = append(values, v)
				}
				walk(n.Content[i+1], false)
			}
		case yaml.SequenceNode:
			for _, el := range n.Content {
				walk(el, false)
			}
		}
	}
	walk(r.YNode(), true)
	for e := 0; e < rapid.IntRange(0, 4).Draw(t, label+"-comments"); e++ {
		text := rapid.SampledFrom([]string{"", "# " + label + " note", "# kpt-set: ${" + label + "}"}).Draw(t, label+"-text")
		if rapid.Bool().Draw(t, label+"-on-key") && len(keys) > 0 {
			keys[rapid.IntRange(0, len(keys)-1).Draw(t, label+"-key")].HeadComment = text
		} else if len(values) > 0 {
			values[rapid.IntRange(0, len(values)-1).Draw(t, label+"-value")].LineComment = text
		}
	}
	return r
}

// checkComments walks out with its counterparts in o, u and d (map fields by name, list
// elements by name or, for scalars, by value) and checks the comments of every key and
// scalar value present in all four. The root's first key's head comment is the file's
// (dest's), and is checked as such.
func checkComments(t *rapid.T, o, u, d, out *yaml.Node, path string, root bool) {
	if o == nil || u == nil || d == nil || out == nil || o.Kind != out.Kind || u.Kind != out.Kind || d.Kind != out.Kind {
		return
	}
	pick := func(o, u, d string) string {
		if d != o {
			return d
		}
		return u
	}
	switch out.Kind {
	case yaml.ScalarNode:
		if want := pick(o.LineComment, u.LineComment, d.LineComment); out.LineComment != want {
			t.Fatalf("%s: line comment %q, want %q (original %q, updated %q, dest %q)", path, out.LineComment, want, o.LineComment, u.LineComment, d.LineComment)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(out.Content); i += 2 {
			name := out.Content[i].Value
			ok, ov := fieldOf(o, name)
			uk, uv := fieldOf(u, name)
			dk, dv := fieldOf(d, name)
			if ok == nil || uk == nil || dk == nil {
				continue
			}
			want := pick(ok.HeadComment, uk.HeadComment, dk.HeadComment)
			if root && i == 0 {
				want = dk.HeadComment
			}
			if out.Content[i].HeadComment != want {
				t.Fatalf("%s.%s: head comment %q, want %q (original %q, updated %q, dest %q)", path, name, out.Content[i].HeadComment, want, ok.HeadComment, uk.HeadComment, dk.HeadComment)
			}
			ov2 := out.Content[i+1]
			if ov != nil && uv != nil && dv != nil && ov.Kind == yaml.ScalarNode && uv.Kind == yaml.ScalarNode && dv.Kind == yaml.ScalarNode && ov2.Kind == yaml.ScalarNode {
				// `key: value # c`: a parser puts the comment on the key or the value
				// depending on the value's shape; it is the field's line comment either way.
				line := func(k, v *yaml.Node) string { return k.LineComment + v.LineComment }
				if got, want := line(out.Content[i], ov2), pick(line(ok, ov), line(uk, uv), line(dk, dv)); got != want {
					t.Fatalf("%s.%s: line comment %q, want %q (original %q, updated %q, dest %q)", path, name, got, want, line(ok, ov), line(uk, uv), line(dk, dv))
				}
				continue
			}
			checkComments(t, ov, uv, dv, ov2, path+"."+name, false)
		}
	case yaml.SequenceNode:
		for _, el := range out.Content {
			n := elementName(el)
			if n == "" {
				continue
			}
			checkComments(t, elementNamed(o, n), elementNamed(u, n), elementNamed(d, n), el, path+"["+n+"]", false)
		}
	}
}

func fieldOf(m *yaml.Node, name string) (k, v *yaml.Node) {
	for i := 0; m != nil && i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == name {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// elementName names a list element: a map's name field, a scalar's value.
func elementName(el *yaml.Node) string {
	if el.Kind == yaml.ScalarNode {
		return "=" + el.Value
	}
	if _, v := fieldOf(el, "name"); v != nil {
		return v.Value
	}
	return ""
}

func elementNamed(list *yaml.Node, name string) *yaml.Node {
	for _, el := range list.Content {
		if elementName(el) == name {
			return el
		}
	}
	return nil
}
