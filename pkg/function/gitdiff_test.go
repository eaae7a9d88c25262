package function_test

import (
	"fmt"
	"math/rand"
	"os/exec"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/testsupport"
)

// Differential test of the function (the binary's ResourceList path) against
// `git merge-file`: a ConfigMap's multi-line string and a container's args list,
// changed in the three roles, merged with valueMerge on; the value written must be
// git's --theirs (onConflict updated) or --ours (onConflict dest) merge of the same
// lines, and a conflict must be reported exactly where git finds one. Lines include a
// leading tab and trailing spaces, which the writer must write as text it reads back.

// gitLines makes a base and two edited copies of it (internal/testsupport.Mutate): from a
// small alphabet (ambiguous diffs: git's choice decides conflicts), or distinct lines.
func gitLines(r *rand.Rand, few bool) (o, u, d []string) {
	n := 0
	fresh := func() string {
		n++
		if few {
			return []string{"a", "b", "\tt", "", "x ", "a"}[r.Intn(6)]
		}
		return fmt.Sprintf("line-%d", n)
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

// gitCase is one generated case: a text (a ConfigMap's data.f) or a list (a
// container's args) in each role, and the policy.
type gitCase struct {
	list    bool
	o, u, d []string
	nl      [3]bool // the text ends in a line end (original, updated, dest)
	dest    bool    // onConflict dest (else updated)
}

// texts are the case's three values as text, one line per element.
func (c gitCase) texts() (o, u, d string) {
	join := func(lines []string, nl bool) string {
		s := strings.Join(lines, "\n")
		if (nl || c.list) && len(lines) > 0 {
			s += "\n"
		}
		return s
	}
	return join(c.o, c.nl[0]), join(c.u, c.nl[1]), join(c.d, c.nl[2])
}

// input is the case's ResourceList.
func (c gitCase) input() string {
	var b strings.Builder
	b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	so, su, sd := c.texts()
	for _, it := range []struct {
		role  string
		lines []string
		text  string
	}{{"original", c.o, so}, {"updated", c.u, su}, {"dest", c.d, sd}} {
		ann := "    annotations: {config.kubernetes.io/merge-source: " + it.role + "}\n"
		if !c.list {
			b.WriteString("- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n" + ann + "  data:\n    f: " + goQuote(it.text) + "\n")
			continue
		}
		b.WriteString("- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: d\n" + ann +
			"  spec:\n    template:\n      spec:\n        containers:\n        - name: c\n          args:")
		if len(it.lines) == 0 {
			b.WriteString(" []\n")
		}
		b.WriteString("\n")
		for _, l := range it.lines {
			b.WriteString("          - " + goQuote(l) + "\n")
		}
	}
	if c.dest {
		b.WriteString("functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: merge}\n  data: {onConflict: dest}\n")
	}
	return b.String()
}

// gitOutcome is what one case gave: its kind (clean, conflict, or one side changed)
// and a problem, "" when the function agrees with git.
func runGitCase(t *testing.T, dir string, c gitCase) (kind, problem string) {
	so, su, sd := c.texts()
	flag := "--theirs"
	if c.dest {
		flag = "--ours"
	}
	want, _ := testsupport.GitMergeFile(t, dir, []byte(so), []byte(sd), []byte(su), flag)
	_, conflicts := testsupport.GitMergeFile(t, dir, []byte(so), []byte(sd), []byte(su))
	kind = "clean"
	switch {
	case so == su || so == sd || su == sd:
		kind = "one side"
	case conflicts > 0:
		kind = "conflict"
	}
	out, errw, err := binaryPath(t, c.input())
	if err != nil {
		return kind, fmt.Sprintf("error %v (stderr %q)", err, errw)
	}
	rl, err := yaml.Parse(out)
	if err != nil {
		return kind, fmt.Sprintf("output does not read back: %v", err)
	}
	its := items(t, rl)
	if len(its) != 1 {
		return kind, fmt.Sprintf("%d items out", len(its))
	}
	var got string
	if c.list {
		args, err := its[0].Pipe(yaml.Lookup("spec", "template", "spec", "containers", "[name=c]", "args"))
		if err != nil {
			return kind, err.Error()
		}
		if args != nil {
			for _, el := range args.YNode().Content {
				got += el.Value + "\n"
			}
		}
	} else if f, err := its[0].Pipe(yaml.Lookup("data", "f")); err == nil && f != nil {
		got = f.YNode().Value
	}
	if got != string(want) {
		return kind, fmt.Sprintf("merged %q, git %s %q", got, flag, want)
	}
	reported := strings.Count(resultsOf(rl), "conflict: ")
	if (conflicts > 0) != (reported > 0) {
		return kind, fmt.Sprintf("git finds %d conflicts, the function reports %d", conflicts, reported)
	}
	return kind, ""
}

// genGitCase draws a case from r.
func genGitCase(r *rand.Rand) gitCase {
	c := gitCase{list: r.Intn(2) == 0, dest: r.Intn(3) == 0}
	c.o, c.u, c.d = gitLines(r, r.Intn(2) == 0)
	all := r.Intn(3) != 0
	for i := range c.nl {
		c.nl[i] = all || r.Intn(4) != 0
	}
	return c
}

// TestFunctionAgainstGitMergeFile runs a sample of generated cases (FuzzFunctionAgainstGit
// runs them at scale) and logs the counts docs/reliability.md reports.
func TestFunctionAgainstGitMergeFile(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	n := 120
	if testing.Short() {
		n = 30
	}
	dir := t.TempDir()
	r := rand.New(rand.NewSource(3))
	counts := map[string]int{}
	for i := 0; i < n; i++ {
		c := genGitCase(r)
		kind, problem := runGitCase(t, dir, c)
		if problem != "" {
			t.Fatalf("case %d (%s, list %v, onConflict dest %v): %s\ninput:\n%s", i, kind, c.list, c.dest, problem, c.input())
		}
		what := "text"
		if c.list {
			what = "list"
		}
		counts[what+" "+kind]++
	}
	for _, k := range []string{"text clean", "text conflict", "text one side", "list clean", "list conflict", "list one side"} {
		t.Logf("%s: %d agree", k, counts[k])
	}
	if counts["text conflict"]+counts["list conflict"] == 0 || counts["text clean"]+counts["list clean"] == 0 {
		t.Errorf("the generator needs clean and conflicting cases: %v", counts)
	}
}

// FuzzFunctionAgainstGit is TestFunctionAgainstGitMergeFile's comparison on the case
// drawn from each seed. Each execution runs git three times (hack/fuzz.sh gives it its
// own execution count).
func FuzzFunctionAgainstGit(f *testing.F) {
	if _, err := exec.LookPath("git"); err != nil {
		f.Skip("git is not on PATH")
	}
	testsupport.SetupFuzz(f)
	for _, s := range []int64{1, 2, 3, 42, 1 << 40} {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, seed int64) {
		// git runs three times: gitfetch's FuzzExport budget
		defer testsupport.GuardFor(t, 6*time.Second, seed)()
		c := genGitCase(rand.New(rand.NewSource(seed)))
		if kind, problem := runGitCase(t, dir, c); problem != "" {
			t.Fatalf("seed %d (%s, list %v, onConflict dest %v): %s\ninput:\n%s", seed, kind, c.list, c.dest, problem, c.input())
		}
	})
}
