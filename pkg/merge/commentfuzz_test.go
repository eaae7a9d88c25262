package merge_test

import (
	"fmt"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/bounds"
	"github.com/krm-merge/krm-merge/internal/testsupport"
	"github.com/krm-merge/krm-merge/pkg/merge"
)

// preorder lists every node of n (keys, values, elements), parents first.
func preorder(n *yaml.Node) []*yaml.Node {
	if n == nil {
		return nil
	}
	out := []*yaml.Node{n}
	for _, c := range n.Content {
		out = append(out, preorder(c)...)
	}
	return out
}

// commentSlot is one of a node's three comments.
func commentSlot(n *yaml.Node, s int) *string {
	switch s {
	case 1:
		return &n.HeadComment
	case 2:
		return &n.LineComment
	}
	return &n.FootComment
}

// commentEdits applies edits to the nodes of u and d, copies of one tree: the byte at
// index i edits node i (preorder): bits 0-1 the slot (0 none, 1 head, 2 line, 3 foot),
// bits 2-3 who changes it (0 updated, 1 dest, 2 both alike, 3 both differently), bit 4
// removes the comment instead of writing one.
func commentEdits(u, d []*yaml.Node, edits []byte) {
	for i, e := range edits {
		if i >= len(u) {
			return
		}
		s := int(e & 3)
		if s == 0 {
			continue
		}
		text := func(who string) string {
			if e&16 != 0 {
				return ""
			}
			return fmt.Sprintf("# %s%d", who, i)
		}
		switch (e >> 2) & 3 {
		case 0:
			*commentSlot(u[i], s) = text("u")
		case 1:
			*commentSlot(d[i], s) = text("d")
		case 2:
			*commentSlot(u[i], s), *commentSlot(d[i], s) = text("b"), text("b")
		case 3:
			*commentSlot(u[i], s), *commentSlot(d[i], s) = text("u"), text("d")
		}
	}
}

// reparses reports whether n prints as YAML that parses.
func reparses(n *yaml.RNode) bool {
	s, err := n.String()
	if err != nil {
		return false
	}
	_, err = yaml.Parse(s)
	return err == nil
}

// FuzzThreeWayComments: comments merge 3-way, each comment of each node on its own.
// From any YAML value (the base, which is original) and a list of edits, updated and
// dest are the base with comments added, changed or removed (commentEdits); values are
// the same in all three. Then ThreeWay reports no conflict, returns dest's values, and
// every comment of every node is dest's where dest changed it from original's, else
// updated's (a comment changed only upstream arrives, one changed only in dest stays);
// the field line of `key: scalar # c`, which a parser puts on the key or the value, is
// one comment; the root map's own head and foot comments and the head comment of its
// first field are the file's and stay dest's. With original == updated, dest comes back
// byte for byte. Edits that leave updated or dest unprintable as YAML are skipped: a
// parsed file cannot hold them. Seeds: the repository's YAML documents, with edits of each kind.
func FuzzThreeWayComments(f *testing.F) {
	testsupport.SetupFuzz(f)
	edits := [][]byte{
		{1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15},
		{0, 6, 0, 9, 0, 15, 0, 18, 0, 29, 0, 2, 0, 5},
		{13, 14, 15, 29, 30, 31, 1, 5, 9},
	}
	for i, d := range testsupport.SeedDocs(f) {
		f.Add(d, edits[i%len(edits)], byte(i))
	}
	f.Add("a: 1 # c\nb:\n  - x\n  - y # e\nc: {d: e}\n", []byte{3, 6, 2, 9, 14, 1, 5, 10, 15}, byte(0))
	f.Add("# head\n\n# first\na: b # line\n# foot\n", []byte{1, 7, 6, 9, 1, 2}, byte(1))
	f.Fuzz(func(t *testing.T, base string, edits []byte, opt byte) {
		defer testsupport.Guard(t, base, edits, opt)()
		b, err := yaml.Parse(base)
		if err != nil || repeatsKey(b.YNode()) || bounds.Check(b.YNode()).UnwritableTag != nil || bounds.HasAlias(b.YNode()) || bounds.HasNullElement(b.YNode()) {
			return // aliased nodes keep their comments; null list elements go (rule 5)
		}
		o, u, d := b.Copy(), b.Copy(), b.Copy()
		commentEdits(preorder(u.YNode()), preorder(d.YNode()), edits)
		if !reparses(u) || !reparses(d) {
			// An edit no file can hold: yaml.v3 prints a foot comment on a block map or
			// list that a flow map or list follows as the next field's value between that
			// key and its value, which no parser reads; and its parser never puts a foot
			// comment there (it goes to the last key, element or the next key's head).
			return
		}
		opts := fuzzOptions(opt)
		opts.KeepDestPositions = opt&4 != 0
		snap := []string{str(o), str(u), str(d)}
		res3, err := merge.ThreeWay(o, u, d, opts)
		out, conflicts := res3.Value, res3.Conflicts
		if err != nil || len(conflicts) > 0 {
			t.Fatalf("comments only: error %v, %d conflicts (first %v)", err, len(conflicts), conflicts)
		}
		checkFuzzOutput(t, out, []*yaml.RNode{o, u, d}, snap)
		if !merge.Equal(out, d) {
			t.Fatalf("comments only, but the values changed:\n%s\nto\n%s", str(d), str(out))
		}
		checkNodeComments(t, o.YNode(), u.YNode(), d.YNode(), out.YNode())
		res3, _ = merge.ThreeWay(o, o, d, opts)
		same := res3.Value
		if want := str(yaml.NewRNode(d.YNode())); str(same) != want {
			t.Fatalf("original == updated changed dest:\n%s\nto\n%s", want, str(same))
		}
	})
}

// checkNodeComments walks out and its counterparts o, u and d (the same shape: only
// comments differ) together and checks each comment slot.
func checkNodeComments(t *testing.T, o, u, d, out *yaml.Node) {
	t.Helper()
	pick := func(o, u, d string) string {
		if d != o {
			return d
		}
		return u
	}
	var walk func(o, u, d, out *yaml.Node, path string, root bool)
	check := func(path, what, got, o, u, d string, fileComment bool) {
		want := pick(o, u, d)
		if fileComment {
			want = d
		}
		if got != want {
			t.Fatalf("%s: %s comment %q, want %q (original %q, updated %q, dest %q)", path, what, got, want, o, u, d)
		}
	}
	walk = func(o, u, d, out *yaml.Node, path string, root bool) {
		if len(out.Content) != len(d.Content) || out.Kind != d.Kind {
			t.Fatalf("%s: shape differs from dest's", path)
		}
		check(path, "head", out.HeadComment, o.HeadComment, u.HeadComment, d.HeadComment, root && out.Kind == yaml.MappingNode)
		check(path, "foot", out.FootComment, o.FootComment, u.FootComment, d.FootComment, root && out.Kind == yaml.MappingNode)
		check(path, "line", out.LineComment, o.LineComment, u.LineComment, d.LineComment, false)
		switch out.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(out.Content); i += 2 {
				ok, uk, dk, k := o.Content[i], u.Content[i], d.Content[i], out.Content[i]
				ov, uv, dv, v := o.Content[i+1], u.Content[i+1], d.Content[i+1], out.Content[i+1]
				p := path + "." + k.Value
				check(p, "key head", k.HeadComment, ok.HeadComment, uk.HeadComment, dk.HeadComment, root && i == 0)
				check(p, "key foot", k.FootComment, ok.FootComment, uk.FootComment, dk.FootComment, false)
				if v.Kind == yaml.ScalarNode {
					// `key: value # c`: one comment of the field, on the key or the value
					line := func(k, v *yaml.Node) string { return k.LineComment + v.LineComment }
					check(p, "field line", line(k, v), line(ok, ov), line(uk, uv), line(dk, dv), false)
					check(p, "value head", v.HeadComment, ov.HeadComment, uv.HeadComment, dv.HeadComment, false)
					check(p, "value foot", v.FootComment, ov.FootComment, uv.FootComment, dv.FootComment, false)
					continue
				}
				check(p, "key line", k.LineComment, ok.LineComment, uk.LineComment, dk.LineComment, false)
				walk(ov, uv, dv, v, p, false)
			}
		case yaml.SequenceNode:
			for i := range out.Content {
				walk(o.Content[i], u.Content[i], d.Content[i], out.Content[i], fmt.Sprintf("%s[%d]", path, i), false)
			}
		}
	}
	walk(o, u, d, out, "", true)
}
