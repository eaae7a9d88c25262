package merge_test

// The driver of the rule cases in testdata/rules: one file per kind of node or concern.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/schema"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// ruleCase is one case of testdata/rules/*.yaml (TestRules says what each field means).
type ruleCase struct {
	Name            string         `yaml:"name"`
	Policy          string         `yaml:"policy"`
	PositionalHost  bool           `yaml:"positionalHost"`
	AssociativeKeys []string       `yaml:"associativeKeys"`
	Original        string         `yaml:"original"`
	Updated         string         `yaml:"updated"`
	Src             string         `yaml:"src"`
	Dest            string         `yaml:"dest"`
	Want            string         `yaml:"want"`
	Compare         string         `yaml:"compare"`
	Conflicts       []ruleConflict `yaml:"conflicts"`
	Error           string         `yaml:"error"`

	// where is "<file>:<line>" of the case's entry.
	where string
}

// ruleConflict is one expected conflict of a rule case.
type ruleConflict struct {
	Path   string `yaml:"path"`
	Kind   string `yaml:"kind"`
	Winner string `yaml:"winner"`
}

func (c ruleCase) twoWay() bool { return c.Src != "" }

func (c ruleCase) mode() string {
	if c.twoWay() {
		return "2-way"
	}
	return "3-way"
}

// check returns what is wrong with the case as written; "" when nothing.
func (c ruleCase) check() string {
	switch {
	case c.Name == "":
		return "no name"
	case c.Dest == "":
		return "no dest"
	case c.twoWay() && (c.Original != "" || c.Updated != "" || c.Policy != "" || len(c.Conflicts) > 0):
		return "a 2-way case (src) with original, updated, policy or conflicts"
	case !c.twoWay() && c.Updated == "":
		return "neither src (2-way) nor updated (3-way)"
	case !c.twoWay() && c.Error != "":
		return "error in a 3-way case"
	case (c.Want == "") == (c.Error == ""):
		return "want one of want and error"
	case c.Compare != "" && c.Compare != "text":
		return fmt.Sprintf("compare %q: text or left out", c.Compare)
	case c.Policy != "" && c.Policy != string(vocab.Updated) && c.Policy != string(vocab.Dest):
		return fmt.Sprintf("policy %q: updated, dest or left out", c.Policy)
	}
	return ""
}

// readRuleCases reads one file of rule cases, failing t on a malformed file or case.
func readRuleCases(t *testing.T, file string) []ruleCase {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var cases []ruleCase
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&cases); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	entries := doc.Content[0].Content
	seen := map[string]bool{}
	for i := range cases {
		c := &cases[i]
		c.where = fmt.Sprintf("%s:%d", file, entries[i].Line)
		if msg := c.check(); msg != "" {
			t.Fatalf("%s: case %q: %s", c.where, c.Name, msg)
		}
		if key := c.mode() + "/" + c.Name; seen[key] {
			t.Fatalf("%s: a second %s case named %q", c.where, c.mode(), c.Name)
		} else {
			seen[key] = true
		}
	}
	return cases
}

// runCase merges c's parsed inputs (nil where absent) as c says: the one call of the
// engine for every rule case. 2-way merges report no conflicts.
func runCase(c ruleCase, original, updated, src, dest *yaml.RNode) (out *yaml.RNode, conflicts []merge.Conflict, err error) {
	opts := merge.Options{
		Winner:            vocab.Role(c.Policy),
		Lists:             schema.New(schema.Options{OpenAPI: true, AssociativeKeys: c.AssociativeKeys}),
		KeepDestPositions: c.PositionalHost,
	}
	if c.twoWay() {
		opts.Winner = vocab.Updated
		out, err = twoWay(src, dest, opts)
		return out, nil, err
	}
	return threeWay(original, updated, dest, opts)
}

// threeWay is merge.ThreeWay for the rule tests: runCase and rules_examples_test.go call
// the 3-way engine only through it. It returns the Result's value and conflicts.
func threeWay(original, updated, dest *yaml.RNode, opts merge.Options) (*yaml.RNode, []merge.Conflict, error) {
	res, err := merge.ThreeWay(original, updated, dest, opts)
	return res.Value, res.Conflicts, err
}

// twoWay is merge.TwoWay for the rule tests, as threeWay is for 3-way: the Result's
// value.
func twoWay(src, dest *yaml.RNode, opts merge.Options) (*yaml.RNode, error) {
	res, err := merge.TwoWay(src, dest, opts)
	return res.Value, err
}

// TestRules runs the rule cases of testdata/rules/*.yaml: one case per rule of
// docs/merge-semantics.md for the field merge, 3-way (node kinds, every row of the 3-way
// table, nulls, conflicts under both policies and their paths, no stubs, deletions and
// revival, element order, comments, ObjectMeta of custom kinds, the list decisions as the
// merge sees them) and 2-way (every row of the 2-way table, the strategic-merge directives
// kustomize patches use, the errors a malformed directive gives), and the rules of
// kustomize's merge2/merge3 documentation. Each file holds one kind of node or one
// concern (scalars, maps, keyed-lists, sets, atomic-lists, nulls, order, comments,
// directives). Each case is built so that it fails if its rule were removed: the
// expected output differs from what the neighbouring rule (or kyaml) would give.
//
// A file is a YAML list of cases; its header repeats this format:
//
//   - name: what the rule says; unique among the file's cases of one mode. The subtest is
//     TestRules/<file>/<3-way|2-way>/<name>, and a failure also logs the case's file and
//     line.
//   - original, updated, dest: a 3-way case's inputs; src, dest: a 2-way case's. A case
//     with src is 2-way, any other 3-way. An input left out is absent (nil).
//   - want: the output. With "compare: text" it must match byte for byte (where
//     formatting, comments or order are the point); else semantically (checkOutput: map
//     fields in any order, list elements in order).
//   - conflicts (3-way): every conflict in order, each a path, a kind and a winner.
//   - error (2-way): the text of the *merge.DirectiveError expected instead of an output.
//   - policy (3-way): the winner, Options.Winner (updated or dest); left out, the zero
//     value (updated wins).
//   - positionalHost: Options.KeepDestPositions.
//   - associativeKeys: schema.Options.AssociativeKeys (else the defaults).
//
// Every case merges with the built-in Kubernetes schema (runCase, the one place that
// calls the engine) and checks that the merge left its inputs unchanged; a 2-way output
// must hold no $ directive. Inputs and outputs are literal block scalars, so comments in
// them are YAML data and kept byte for byte. Unknown fields, a duplicate name, a field of
// the other mode and a case without an expected output are errors of the file.
func TestRules(t *testing.T) {
	files, err := filepath.Glob("testdata/rules/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no rule files: %v", err)
	}
	total := 0
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			cases := readRuleCases(t, file)
			total += len(cases)
			for _, c := range cases {
				t.Run(c.mode()+"/"+c.Name, func(t *testing.T) {
					t.Cleanup(func() {
						if t.Failed() {
							t.Logf("%s: %s case %q", c.where, c.mode(), c.Name)
						}
					})
					c.run(t)
				})
			}
		})
	}
	if total < minRuleCases {
		t.Errorf("%d rule cases read, want at least %d: a file or a case was lost", total, minRuleCases)
	}
}

// minRuleCases is how many rule cases testdata/rules held when its files were written;
// fewer means a file or a case was lost.
const minRuleCases = 149

func (c ruleCase) run(t *testing.T) {
	t.Helper()
	o, u, s, d := parse(t, c.Original), parse(t, c.Updated), parse(t, c.Src), parse(t, c.Dest)
	in := [4]string{str(o), str(u), str(s), str(d)}
	got, conflicts, err := runCase(c, o, u, s, d)
	if after := [4]string{str(o), str(u), str(s), str(d)}; after != in {
		t.Fatalf("the %s merge changed its inputs", c.mode())
	}
	if c.Error != "" {
		var de *merge.DirectiveError
		if err == nil || err.Error() != c.Error || !errors.As(err, &de) {
			t.Fatalf("error %v, want DirectiveError %q", err, c.Error)
		}
		if !got.IsNil() {
			t.Fatalf("an error returns no half-merged output, got:\n%s", str(got))
		}
		return
	}
	if err != nil {
		t.Fatalf("%s merge: %v", c.mode(), err)
	}
	checkOutput(t, got, c.Want, c.Compare == "text")
	want := make([]conflictWant, len(c.Conflicts))
	for i, w := range c.Conflicts {
		want[i] = conflictWant{w.Path, merge.ConflictKind(w.Kind), w.Winner}
	}
	checkConflicts(t, conflicts, want)
	if c.twoWay() && strings.Contains(str(got), "$") {
		t.Fatalf("a directive reached the output:\n%s", str(got))
	}
}
