package merge_test

import (
	"fmt"
	"math/rand"
	"os/exec"
	"strings"
	"testing"

	"pgregory.net/rapid"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/testsupport"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// Differential tests of the merge inside a value against git merge-file, and the
// property that valueMerge changes nothing where only one side changed a value.

// gitMerge runs `git merge-file -p <flags> -L dest -L base -L updated` on the three
// texts (in dir) and returns its output.
func gitMerge(t *testing.T, dir string, base, dest, updated string, flags ...string) string {
	t.Helper()
	out, _ := testsupport.GitMergeFile(t, dir, []byte(base), []byte(dest), []byte(updated), append(flags, "-L", "dest", "-L", "base", "-L", "updated")...)
	return string(out)
}

// diff3Of renders a value merge's parts as `git merge-file --diff3` prints the merge of
// the items (one per line, each written by line): dest's items with each part replaced,
// each conflicting part as a hunk of dest's, base's and updated's items.
func diff3Of(parts []merge.Part, o, u, d []string) string {
	var b strings.Builder
	line := 0
	for _, p := range parts {
		b.WriteString(strings.Join(d[line:p.DestAt.Start], ""))
		line = p.DestAt.Start + p.DestAt.Len
		run := func(s []string, at merge.Span) string { return strings.Join(s[at.Start:at.Start+at.Len], "") }
		switch p.Change {
		case merge.ChangedUpstream:
			b.WriteString(run(u, p.UpdatedAt))
		case merge.ChangedLocally, merge.ChangedAlike:
			b.WriteString(run(d, p.DestAt))
		default:
			b.WriteString("<<<<<<< dest\n" + run(d, p.DestAt) + "||||||| base\n" + run(o, p.OriginalAt) +
				"=======\n" + run(u, p.UpdatedAt) + ">>>>>>> updated\n")
		}
	}
	b.WriteString(strings.Join(d[line:], ""))
	return b.String()
}

// genItems makes a base and two edited copies: from a small alphabet (so that diffs
// are ambiguous and git's choice among them decides conflicts) or of distinct items.
func genItems(r *rand.Rand, few bool) (o, u, d []string) {
	n := 0
	fresh := func() string {
		n++
		if few {
			return []string{"a", "b", "c", "", "--x", "a"}[r.Intn(6)]
		}
		return fmt.Sprintf("item-%d", n)
	}
	for i := r.Intn(10); i > 0; i-- {
		o = append(o, fresh())
	}
	d = testsupport.Mutate(r, o, r.Intn(4), fresh, false)
	u = testsupport.Mutate(r, o, r.Intn(4), fresh, false)
	if r.Intn(5) == 0 { // the same change on both sides, and maybe more
		u = testsupport.Mutate(r, d, r.Intn(2), fresh, false)
	}
	return o, u, d
}

// strList is a map {args: [...]} of strings, double-quoted.
func strList(items []string) *yaml.RNode {
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: yaml.NodeTagSeq}
	for _, s := range items {
		seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: s, Style: yaml.DoubleQuotedStyle})
	}
	return yaml.NewRNode(&yaml.Node{Kind: yaml.MappingNode, Tag: yaml.NodeTagMap, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: "args"}, seq}})
}

// asLines writes each item as a line.
func asLines(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = s + "\n"
	}
	return out
}

// TestValueMergeListsAgainstGit merges generated atomic lists of strings (valueMerge on)
// and compares with git merge-file on the same items one per line: the merged list
// under onConflict updated and dest with --theirs and --ours, and the parts (regions
// and conflicting runs) with --diff3's hunks.
func TestValueMergeListsAgainstGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	cases := 150
	if testing.Short() {
		cases = 40
	}
	dir := t.TempDir()
	for _, few := range []bool{true, false} {
		r := rand.New(rand.NewSource(int64(len(fmt.Sprint(few)))))
		tried, conflicting, failures := 0, 0, 0
		for tried < cases && failures < 5 {
			o, u, d := genItems(r, few)
			lo, lu, ld := asLines(o), asLines(u), asLines(d)
			so, su, sd := strings.Join(lo, ""), strings.Join(lu, ""), strings.Join(ld, "")
			if so == su || so == sd || su == sd {
				continue // not changed on both sides: the merge inside does not run
			}
			tried++
			var problems []string
			for _, p := range []vocab.Role{vocab.Updated, vocab.Dest} {
				res, err := merge.ThreeWay(strList(o), strList(u), strList(d), merge.Options{Winner: p, ValueMerge: true})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, el := range res.Value.Field("args").Value.Content() {
					got = append(got, el.Value+"\n")
				}
				flag := "--theirs"
				if p == vocab.Dest {
					flag = "--ours"
				}
				if g, w := strings.Join(got, ""), gitMerge(t, dir, so, sd, su, flag); g != w {
					problems = append(problems, fmt.Sprintf("%s: merged %q, git %q", flag, g, w))
				}
				if len(res.ValueMerges) != 1 {
					problems = append(problems, fmt.Sprintf("%d values merged inside", len(res.ValueMerges)))
					continue
				}
				if p == vocab.Updated {
					want := testsupport.SameSides(gitMerge(t, dir, so, sd, su, "--diff3"))
					if strings.Contains(want, "<<<<<<<") {
						conflicting++
					}
					if g := diff3Of(res.ValueMerges[0].Parts, lo, lu, ld); g != want {
						problems = append(problems, fmt.Sprintf("--diff3:\nparts %q\ngit   %q\n%+v", g, want, res.ValueMerges[0].Parts))
					}
					if n := res.ValueMerges[0].Conflicts(); n != len(res.Conflicts) {
						problems = append(problems, fmt.Sprintf("%d conflicting parts, %d conflicts", n, len(res.Conflicts)))
					}
				}
			}
			if len(problems) > 0 {
				failures++
				t.Errorf("original %q\nupdated  %q\ndest     %q\n%s", o, u, d, strings.Join(problems, "\n"))
			}
		}
		if conflicting == 0 || conflicting == tried {
			t.Errorf("few=%v: %d of %d cases conflict; the generator needs both outcomes", few, conflicting, tried)
		}
	}
}

// TestValueMergeTextAgainstGit merges generated multi-line strings (valueMerge on) and
// compares with git merge-file on the texts: the merged string under onConflict updated
// and dest with --theirs and --ours (texts with and without a final newline), and the
// parts with --diff3's hunks (texts ending with a newline: git adds one to a hunk's side
// that lacks it).
func TestValueMergeTextAgainstGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	cases := 150
	if testing.Short() {
		cases = 40
	}
	dir := t.TempDir()
	r := rand.New(rand.NewSource(5))
	tried, conflicting, failures := 0, 0, 0
	text := func(lines []string, nl bool) string {
		s := strings.Join(lines, "\n")
		if nl && len(lines) > 0 {
			s += "\n"
		}
		return s
	}
	for tried < cases && failures < 5 {
		o, u, d := genItems(r, r.Intn(2) == 0)
		allNL := r.Intn(3) != 0
		nl := func() bool { return allNL || r.Intn(4) != 0 }
		so, su, sd := text(o, nl()), text(u, nl()), text(d, nl())
		if so == su || so == sd || su == sd || (!multi(so) && !multi(su) && !multi(sd)) {
			continue
		}
		tried++
		doc := func(s string) *yaml.RNode {
			return yaml.NewRNode(&yaml.Node{Kind: yaml.MappingNode, Tag: yaml.NodeTagMap, Content: []*yaml.Node{
				{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: "s"},
				{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: s, Style: yaml.LiteralStyle}}})
		}
		var problems []string
		for _, p := range []vocab.Role{vocab.Updated, vocab.Dest} {
			res, err := merge.ThreeWay(doc(so), doc(su), doc(sd), merge.Options{Winner: p, ValueMerge: true})
			if err != nil {
				t.Fatal(err)
			}
			flag := "--theirs"
			if p == vocab.Dest {
				flag = "--ours"
			}
			if g, w := res.Value.Field("s").Value.YNode().Value, gitMerge(t, dir, so, sd, su, flag); g != w {
				problems = append(problems, fmt.Sprintf("%s: merged %q, git %q", flag, g, w))
			}
			if p == vocab.Updated && allNL && len(res.ValueMerges) == 1 {
				want := testsupport.SameSides(gitMerge(t, dir, so, sd, su, "--diff3"))
				if strings.Contains(want, "<<<<<<<") {
					conflicting++
				}
				if g := diff3Of(res.ValueMerges[0].Parts, asLines(o), asLines(u), asLines(d)); g != want {
					problems = append(problems, fmt.Sprintf("--diff3:\nparts %q\ngit   %q", g, want))
				}
			}
		}
		if len(problems) > 0 {
			failures++
			t.Errorf("original %q\nupdated  %q\ndest     %q\n%s", so, su, sd, strings.Join(problems, "\n"))
		}
	}
	if conflicting == 0 {
		t.Errorf("no generated text conflicts; the generator needs both outcomes")
	}
}

// multi reports whether s holds two lines or more.
func multi(s string) bool {
	i := strings.IndexByte(s, '\n')
	return i >= 0 && i < len(s)-1
}

// TestValueMergeOneSidedProperty: where each value is changed by one side at most, the
// merge is the same with valueMerge on and off (same output bytes, no conflicts): the
// merge inside a value runs only where both sides changed it.
func TestValueMergeOneSidedProperty(t *testing.T) {
	images := []string{"nginx:1.25", "nginx:1.26", "mirror.local/nginx:1.25", "nginx@sha256:" + strings.Repeat("a", 64),
		"localhost:5000/app:1", "quay.io/x/y:v2", "${IMAGE}"}
	words := []string{"a", "b", "--flag", "--port=80", "", "x y"}
	rapid.Check(t, func(t *rapid.T) {
		value := func(kind int, label string) string {
			switch kind {
			case 0:
				return rapid.SampledFrom(images).Draw(t, label)
			case 1:
				items := rapid.SliceOfN(rapid.SampledFrom(words), 0, 5).Draw(t, label)
				q := make([]string, len(items))
				for i, s := range items {
					q[i] = fmt.Sprintf("%q", s)
				}
				return "[" + strings.Join(q, ", ") + "]"
			default:
				lines := rapid.SliceOfN(rapid.SampledFrom(words), 0, 5).Draw(t, label)
				return fmt.Sprintf("%q", strings.Join(lines, "\n")+rapid.SampledFrom([]string{"", "\n"}).Draw(t, label+"-end"))
			}
		}
		n := rapid.IntRange(1, 6).Draw(t, "fields")
		var o, u, d strings.Builder
		for i := 0; i < n; i++ {
			kind := rapid.IntRange(0, 2).Draw(t, "kind")
			name := fmt.Sprintf("f%d", i)
			if kind == 0 {
				name = fmt.Sprintf("c%d:\n  image", i)
			}
			ov := value(kind, "o")
			uv, dv := ov, ov
			switch rapid.IntRange(0, 2).Draw(t, "who") {
			case 1:
				uv = value(kind, "u")
			case 2:
				dv = value(kind, "d")
			}
			fmt.Fprintf(&o, "%s: %s\n", name, ov)
			fmt.Fprintf(&u, "%s: %s\n", name, uv)
			fmt.Fprintf(&d, "%s: %s\n", name, dv)
		}
		on, un, dn := yaml.MustParse(o.String()), yaml.MustParse(u.String()), yaml.MustParse(d.String())
		for _, p := range []vocab.Role{vocab.Updated, vocab.Dest} {
			off, err := merge.ThreeWay(on, un, dn, merge.Options{Winner: p})
			if err != nil {
				t.Fatal(err)
			}
			with, err := merge.ThreeWay(on, un, dn, merge.Options{Winner: p, ValueMerge: true})
			if err != nil {
				t.Fatal(err)
			}
			if str(off.Value) != str(with.Value) || len(off.Conflicts)+len(with.Conflicts)+len(with.ValueMerges) > 0 {
				t.Fatalf("original\n%s\nupdated\n%s\ndest\n%s\noff:\n%s\non:\n%s\nconflicts %d and %d, %d merged inside",
					o.String(), u.String(), d.String(), str(off.Value), str(with.Value), len(off.Conflicts), len(with.Conflicts), len(with.ValueMerges))
			}
		}
	})
}
