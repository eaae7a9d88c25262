package merge_test

// Differential test of the merge engine against kyaml's own merge3 and merge2 visitors.
//
// A generator with a fixed seed produces realistic related inputs: an original resource
// (Deployments, StatefulSets, Services, ConfigMaps, a custom kind with lists keyed by
// name, by other associative keys and by nothing), an updated and a dest copy each derived from
// it by random edit operations (field edits, additions, deletions, explicit nulls,
// element additions, deletions and reorders, and rarely a changed kind, a duplicated or
// dropped merge key, an emptied list), and for 2-way a sparse src patch with nulls and
// strategic-merge directives.
//
// Every case is checked three ways:
//   - against the spec: spec3 / spec2 (differential_spec_test.go) restate
//     docs/merge-semantics.md independently of the engine (literal rules, no ordering
//     or comments); our result must equal theirs everywhere, and in 3-way also under onConflict: dest, with the same conflicts as
//     under onConflict: updated;
//   - against kyaml v0.21.2 (walk.Walker with merge3.Visitor / merge2.Merger, inferring
//     associative lists from the associative keys): outputs are compared semantically (map field
//     order ignored; in 3-way keyed list and set element order ignored too, since kyaml
//     appends new elements at the end and we place them after their upstream predecessor;
//     2-way order exactly). Each difference must be one of the deliberate differences:
//     the explainer checks that the (O,U,D) situation at the differing path is that of a
//     documented difference, and our value there is the spec's; each class is counted and
//     logged. Where kyaml errors, ours must not (and was checked against the spec);
//   - inputs unchanged (structurally, and by String on a sample), and
//     ThreeWay(o, o, d) == d byte for byte (on a sample).
// A failure is shrunk (fields and elements deleted while it still fails) and printed as
// a minimal reproduction: the inputs, the path, ours and kyaml's.
//
// The files: this one, the drivers (TestDifferentialThreeWay, TestDifferentialTwoWay,
// check3, check2, the tally of classes, shrinking); differential_gen_test.go and
// differential_edit_test.go, the generator and its edits; differential_kyaml_test.go,
// kyaml's merges and list decisions; differential_compare_test.go, the semantic
// comparison; differential_spec_test.go, the spec restated;
// differential_explain_test.go, the classifier of known differences.
//
// Every accepted class names a difference docs/merge-semantics.md documents (its
// "(kyaml: ...)" notes) and docs/differences.md lists; an output that differs from kyaml's
// and fits no class fails the test.

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

const (
	diffSeed  = 20260721
	diffCases = 1500
)

// identical reports whether a and b are the same tree in every respect the encoder
// prints (kind, tag, value, style, comments, anchors), i.e. a merge left an input as it was.
func identical(a, b *yaml.Node) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind || a.Tag != b.Tag || a.Value != b.Value || a.Style != b.Style || a.Anchor != b.Anchor ||
		a.HeadComment != b.HeadComment || a.LineComment != b.LineComment || a.FootComment != b.FootComment ||
		len(a.Content) != len(b.Content) {
		return false
	}
	for i := range a.Content {
		if !identical(a.Content[i], b.Content[i]) {
			return false
		}
	}
	return true
}

// kyamlErrorKind names the kind of a kyaml error, for the tally.
func kyamlErrorKind(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "conflicting merge keys"):
		return "conflicting merge keys"
	case strings.Contains(msg, "wrong node kind"):
		return "a field's kind differs between sources"
	case strings.Contains(msg, "no merge key found"):
		return "no merge key found"
	case strings.Contains(msg, "panic"):
		return "panic"
	}
	return msg
}

// conflictPaths renders conflicts' paths and kinds, in order.
func conflictPaths(cs []merge.Conflict) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Path.String()+" ("+string(c.Kind)+")")
	}
	return strings.Join(out, "; ")
}

type tally struct {
	n         int // cases run
	keepDest  int // 3-way cases whose vocab.Dest result is the spec's
	conflicts int // conflicts found (the same under both policies)
	agree     int
	classes   map[string]int
	cases     map[string]int
}

// count applies f to the tally, if there is one.
func (t *tally) count(f func(*tally)) {
	if t != nil {
		f(t)
	}
}

// class counts one difference of a class, and its case once (seen tracks the case's
// classes; nil counts the case every time).
func (t *tally) class(name string, seen map[string]bool) {
	if t == nil {
		return
	}
	t.classes[name]++
	if seen == nil || !seen[name] {
		t.cases[name]++
	}
	if seen != nil {
		seen[name] = true
	}
}

func (t *tally) log(tb testing.TB, mode string) {
	n := t.n
	tb.Logf("%s: %d cases, %d agree with kyaml exactly", mode, n, t.agree)
	if t.keepDest > 0 {
		tb.Logf("  onConflict dest: %d cases match the spec, %d conflicts identical under both policies", t.keepDest, t.conflicts)
	}
	var names []string
	for k := range t.classes {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		tb.Logf("  %-85s %4d differences in %4d cases", k, t.classes[k], t.cases[k])
	}
}

func TestDifferentialThreeWay(t *testing.T) {
	g := &gen{r: rand.New(rand.NewPCG(diffSeed, 3))}
	tl := &tally{classes: map[string]int{}, cases: map[string]int{}}
	failures := 0
	for i := 0; i < diffCases && failures < 3; i++ {
		tl.n++
		o, u, d := g.case3()
		c := case3{o: yaml.NewRNode(o), u: yaml.NewRNode(u), d: yaml.NewRNode(d)}
		if i%10 == 0 { // the identity checks, on a sample (they cost a merge and encodings)
			if msg := identity3(c); msg != "" {
				t.Fatalf("case %d: %s", i, msg)
			}
		}
		if fail := check3(c, tl); fail != "" {
			failures++
			small := shrink(t, []*yaml.Node{o, u, d}, func(n []*yaml.Node) bool {
				return check3(case3{o: yaml.NewRNode(n[0]), u: yaml.NewRNode(n[1]), d: yaml.NewRNode(n[2])}, nil) != ""
			})
			sc := case3{o: yaml.NewRNode(small[0]), u: yaml.NewRNode(small[1]), d: yaml.NewRNode(small[2])}
			t.Errorf("case %d (seed %d): %s\nshrunk: %s", i, diffSeed, firstLine(fail), check3(sc, nil))
		}
	}
	tl.log(t, "3-way")
}

// identity3 checks that ThreeWay leaves its inputs as they were (by String) and returns
// dest byte for byte when updated equals original.
func identity3(c case3) string {
	before := [3]string{c.o.MustString(), c.u.MustString(), c.d.MustString()}
	if _, err := merge.ThreeWay(c.o, c.u, c.d, merge.Options{Lists: resolver}); err != nil {
		return err.Error()
	}
	if after := [3]string{c.o.MustString(), c.u.MustString(), c.d.MustString()}; after != before {
		return "ThreeWay changed its inputs"
	}
	res3, err := merge.ThreeWay(c.o, c.o.Copy(), c.d, merge.Options{Lists: resolver})
	same := res3.Value
	if err != nil || same.MustString() != before[2] {
		return fmt.Sprintf("ThreeWay(o, o, d) is not d:\n%s---\n%s", before[2], str(same))
	}
	return ""
}

// check3 runs one 3-way case: ours against the spec under both policies, then against
// kyaml, every difference explained. It returns a failure with a reproduction, or "".
// tl, when not nil, counts the outcome.
func check3(c case3, tl *tally) string {
	opts := merge.Options{Lists: resolver}
	o, u, d := yn(c.o), yn(c.u), yn(c.d)
	before := [3]*yaml.Node{yaml.CopyYNode(o), yaml.CopyYNode(u), yaml.CopyYNode(d)}
	res3, err := merge.ThreeWay(c.o, c.u, c.d, opts)
	ours, conflicts := res3.Value, res3.Conflicts
	if err != nil {
		return fmt.Sprintf("ThreeWay: %v\n%s", err, c.repro(nil, nil, nil))
	}
	if !identical(before[0], o) || !identical(before[1], u) || !identical(before[2], d) {
		return "ThreeWay changed its inputs\n" + c.repro(nil, ours, nil)
	}
	sch := resolver.ForResource(c.d, c.u, c.o)
	cmp := comparer{srcs: []*yaml.Node{o, u, d}}
	// Everywhere, not only where kyaml differs: ours is the spec's value.
	spec := spec3(o, u, d, sch)
	var sd []difference
	cmp.compare(yn(ours), spec, sch, nil, &sd)
	if len(sd) > 0 {
		return fmt.Sprintf("our result is not the spec's at %s: ours %s, spec %s\n%s", sd[0].path, strN(sd[0].ours), strN(sd[0].other), c.repro(sd[0].path, ours, nil))
	}
	// onConflict: dest gives the spec's dest-wins value, and the same conflicts.
	res3, err = merge.ThreeWay(c.o, c.u, c.d, merge.Options{Lists: resolver, Winner: vocab.Dest})
	kept, keptConflicts := res3.Value, res3.Conflicts
	if err != nil {
		return fmt.Sprintf("ThreeWay vocab.Dest: %v\n%s", err, c.repro(nil, nil, nil))
	}
	sd = nil
	cmp.compare(yn(kept), spec3p(o, u, d, sch, true), sch, nil, &sd)
	if len(sd) > 0 {
		return fmt.Sprintf("vocab.Dest result is not the spec's at %s: ours %s, spec %s\n%s", sd[0].path, strN(sd[0].ours), strN(sd[0].other), c.repro(sd[0].path, kept, nil))
	}
	if a, b := conflictPaths(conflicts), conflictPaths(keptConflicts); a != b {
		return fmt.Sprintf("conflicts depend on the policy:\nupdated: %s\ndest:    %s\n%s", a, b, c.repro(nil, ours, kept))
	}
	tl.count(func(t *tally) { t.keepDest++; t.conflicts += len(conflicts) })

	ref, kerr := kyaml3(c.o, c.u, c.d)
	if kerr != nil { // kyaml fails; we do not, and ours was checked against the spec above
		tl.class("kyaml errors (we do not; result checked against the spec): "+kyamlErrorKind(kerr), nil)
		return ""
	}
	var diffs []difference
	cmp.compare(yn(ours), yn(ref), sch, nil, &diffs)
	if len(diffs) == 0 {
		tl.count(func(t *tally) { t.agree++ })
		return ""
	}
	seen := map[string]bool{}
	for _, df := range diffs {
		class, why := explain3(c, df, yn(ours), yn(ref), spec, conflicts)
		if class == "" {
			return fmt.Sprintf("unexplained difference at %s: ours %s, kyaml %s (%s)\n%s",
				df.path, strN(df.ours), strN(df.other), why, c.repro(df.path, ours, ref))
		}
		tl.class(class, seen)
		if dbg := os.Getenv("DIFF_DEBUG"); tl != nil && dbg != "" && strings.Contains(class, dbg) && tl.cases[class] <= 2 {
			fmt.Printf("%s at %s\n%s\n", class, df.path, c.repro(df.path, ours, ref))
		}
	}
	return ""
}

func TestDifferentialTwoWay(t *testing.T) {
	g := &gen{r: rand.New(rand.NewPCG(diffSeed, 2))}
	tl := &tally{classes: map[string]int{}, cases: map[string]int{}}
	failures := 0
	for i := 0; i < diffCases && failures < 3; i++ {
		tl.n++
		s, d := g.case2()
		c := case2{s: yaml.NewRNode(s), d: yaml.NewRNode(d)}
		if i%10 == 0 { // the String identity check, on a sample
			before := [2]string{c.s.MustString(), c.d.MustString()}
			if _, err := merge.TwoWay(c.s, c.d, merge.Options{Lists: resolver}); err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			if after := [2]string{c.s.MustString(), c.d.MustString()}; after != before {
				t.Fatalf("case %d: TwoWay changed its inputs", i)
			}
		}
		if fail := check2(c, tl); fail != "" {
			failures++
			small := shrink(t, []*yaml.Node{s, d}, func(n []*yaml.Node) bool {
				return check2(case2{s: yaml.NewRNode(n[0]), d: yaml.NewRNode(n[1])}, nil) != ""
			})
			t.Errorf("case %d (seed %d): %s\nshrunk: %s", i, diffSeed, firstLine(fail), check2(case2{s: yaml.NewRNode(small[0]), d: yaml.NewRNode(small[1])}, nil))
		}
	}
	tl.log(t, "2-way")
}

// check2 is check3 for a 2-way case.
func check2(c case2, tl *tally) string {
	s, d := yn(c.s), yn(c.d)
	before := [2]*yaml.Node{yaml.CopyYNode(s), yaml.CopyYNode(d)}
	res2, err := merge.TwoWay(c.s, c.d, merge.Options{Lists: resolver})
	ours := res2.Value
	if err != nil {
		return fmt.Sprintf("TwoWay: %v\n%s", err, c.repro(nil, nil, nil))
	}
	if !identical(before[0], s) || !identical(before[1], d) {
		return "TwoWay changed its inputs\n" + c.repro(nil, ours, nil)
	}
	sch := resolver.ForResource(c.d, c.s)
	cmp := comparer{ordered: true, srcs: []*yaml.Node{s, d}}
	spec := spec2(s, d, sch)
	var sd []difference
	cmp.compare(yn(ours), spec, sch, nil, &sd)
	if len(sd) > 0 {
		return fmt.Sprintf("our result is not the spec's at %s: ours %s, spec %s\n%s", sd[0].path, strN(sd[0].ours), strN(sd[0].other), c.repro(sd[0].path, ours, nil))
	}
	ref, kerr := kyaml2(c.s, c.d)
	if kerr != nil {
		tl.class("kyaml errors (we do not; result checked against the spec): "+kyamlErrorKind(kerr), nil)
		return ""
	}
	var diffs []difference
	cmp.compare(yn(ours), yn(ref), sch, nil, &diffs)
	if len(diffs) == 0 {
		tl.count(func(t *tally) { t.agree++ })
		return ""
	}
	seen := map[string]bool{}
	for _, df := range diffs {
		class, why := explain2(c, df, yn(ours), yn(ref), spec)
		if class == "" {
			return fmt.Sprintf("unexplained difference at %s: ours %s, kyaml %s (%s)\n%s",
				df.path, strN(df.ours), strN(df.other), why, c.repro(df.path, ours, ref))
		}
		tl.class(class, seen)
	}
	return ""
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// shrink makes a failing case smaller: it deletes fields and elements from each input,
// one at a time, keeping every deletion after which the case still fails, until none
// can go (or a budget of attempts is spent). The inputs are not changed.
func shrink(t *testing.T, nodes []*yaml.Node, fails func([]*yaml.Node) bool) []*yaml.Node {
	t.Helper()
	cur := make([]*yaml.Node, len(nodes))
	for i, n := range nodes {
		cur[i] = yaml.CopyYNode(n)
	}
	budget := 600
	for progress := true; progress && budget > 0; {
		progress = false
		for w := range cur {
			for k := len(collect(cur[w], func(slot) bool { return true })) - 1; k >= 0 && budget > 0; k-- {
				try := make([]*yaml.Node, len(cur))
				copy(try, cur)
				try[w] = yaml.CopyYNode(cur[w])
				sl := collect(try[w], func(slot) bool { return true })
				if k >= len(sl) {
					continue
				}
				sl[k].remove()
				budget--
				if fails(try) {
					cur, progress = try, true
				}
			}
		}
	}
	return cur
}
