package pkgupdate

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/krm-merge/krm-merge/internal/textmerge"
	"github.com/krm-merge/krm-merge/pkg/config"
)

// A generated kustomize tree: a nameless kustomization in each of some directories
// (with a namespace, which kpt records with an empty-named upstream identifier, or
// without), each with its own comments, and in some of them a ConfigMap named labels
// (one name in several files), and a Kptfile (each named pkg). Every comment names its
// file in brackets.
type genKust struct {
	dir        string
	namespace  bool
	head, foot string // comment texts; "" for none
	line       string // a line comment on the first resource
	resources  []string
	cm         string // the ConfigMap's value; "" for no ConfigMap
	kptfile    string // a Kptfile's foot comment; "" for no Kptfile
}

func (k *genKust) file() string { return k.dir + "/kustomization.yaml" }

func (k *genKust) render() string {
	var b strings.Builder
	if k.head != "" {
		b.WriteString("# " + k.head + " [" + k.file() + "]\n")
	}
	b.WriteString("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n")
	if k.namespace {
		b.WriteString("metadata:\n  namespace: system\n")
	}
	b.WriteString("resources:\n")
	for i, r := range k.resources {
		b.WriteString("- " + r)
		if i == 0 && k.line != "" {
			b.WriteString(" # " + k.line + " [" + k.file() + "]")
		}
		b.WriteString("\n")
	}
	if k.foot != "" { // a blank line, then the block: the document's foot comment
		b.WriteString("\n# " + k.foot + " [" + k.file() + "]\n# - path: patch.yaml\n")
	}
	return b.String()
}

func (k *genKust) renderCM() string {
	f := k.dir + "/cm.yaml"
	return "# the labels [" + f + "]\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: labels\ndata:\n  value: " + k.cm + " # set here [" + f + "]\n"
}

func (k *genKust) files(into map[string]string) {
	into[k.file()] = k.render()
	if k.cm != "" {
		into[k.dir+"/cm.yaml"] = k.renderCM()
	}
	if k.kptfile != "" { // every one named pkg
		f := k.dir + "/Kptfile"
		into[f] = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\ninfo:\n  description: " + k.dir + "\n\n# " + k.kptfile + " [" + f + "]\n"
	}
}

var genWord = rapid.StringMatching(`[a-z]{2,8}`)

// genTree draws 2 to 4 kustomizations in distinct directories.
func genTree(t *rapid.T) []*genKust {
	dirs := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"base", "overlay", "prod", "components/a", "components/b"}), 2, 4, rapid.ID[string]).Draw(t, "dirs")
	var out []*genKust
	for _, d := range dirs {
		k := &genKust{dir: d, namespace: rapid.Bool().Draw(t, d+" namespace"), resources: []string{"r.yaml"}}
		for _, c := range []*string{&k.head, &k.foot, &k.line} {
			if rapid.Bool().Draw(t, d+" comment") {
				*c = genWord.Draw(t, d+" text")
			}
		}
		if rapid.Bool().Draw(t, d+" configmap") {
			k.cm = genWord.Draw(t, d+" value")
		}
		if rapid.Bool().Draw(t, d+" Kptfile") {
			k.kptfile = genWord.Draw(t, d+" Kptfile comment")
		}
		out = append(out, k)
	}
	return out
}

// change draws one side's changes of the tree: resources added, comments rewritten or
// added or removed, the ConfigMap's value (each file's comments still naming it).
func change(t *rapid.T, tree []*genKust, side string) []*genKust {
	out := make([]*genKust, len(tree))
	for i, k := range tree {
		c := *k
		c.resources = append([]string(nil), k.resources...)
		label := side + " " + k.dir
		if rapid.Bool().Draw(t, label+" adds a resource") {
			c.resources = append(c.resources, side+".yaml")
		}
		// local rewrites the head and the line comment, upstream the foot: both sides
		// change comments without a conflict
		slots := []*string{&c.foot}
		if side == "local" {
			slots = []*string{&c.head, &c.line}
		}
		for _, s := range slots {
			switch rapid.IntRange(0, 2).Draw(t, label+" comment") {
			case 1:
				*s = side + genWord.Draw(t, label+" text")
			case 2:
				*s = ""
			}
		}
		if c.cm != "" && rapid.Bool().Draw(t, label+" changes the value") {
			c.cm = side + k.cm
		}
		if c.kptfile != "" && side == "upstream" && rapid.Bool().Draw(t, label+" changes the Kptfile's comment") {
			c.kptfile = side + k.kptfile
		}
		out[i] = &c
	}
	return out
}

var commentTag = regexp.MustCompile(`\[([a-z/]+\.yaml|[a-z/]+/Kptfile)\]`)

// For any kustomize tree with several nameless kustomizations, each with its own
// comments, and any upstream and local changes: the update writes the same bytes in
// every run, every comment stays in its own file, a comment every version of a file
// has is still there, and only a ConfigMap gets markers.
func TestPropertyNamelessDocumentsStayInTheirFiles(t *testing.T) {
	setChecks(t, 20)
	rapid.Check(t, func(rt *rapid.T) {
		tree := genTree(rt)
		upstream, local := change(rt, tree, "upstream"), change(rt, tree, "local")
		sets := [3]map[string]string{{}, {}, {}}
		for i, kk := range [][]*genKust{tree, upstream, local} {
			for _, k := range kk {
				k.files(sets[i])
			}
		}
		dirs := writeTrees(t, sets[0], sets[1], sets[2])
		policy := rapid.SampledFrom([]config.ConflictPolicy{config.UpdatedWins, config.DestWins, config.MarkConflicts}).Draw(rt, "policy")
		var first map[string]string
		var conflicts int
		for run := 0; run < 3; run++ {
			got, pr, err := mergeFiles(dirs, policy)
			if err != nil {
				rt.Fatalf("run %d: %v", run, err)
			}
			if run == 0 {
				first, conflicts = got, len(pr.Conflicts)
				continue
			}
			if len(pr.Conflicts) != conflicts {
				rt.Errorf("run %d: %d conflicts, run 0 had %d", run, len(pr.Conflicts), conflicts)
			}
			if !reflect.DeepEqual(got, first) {
				for p := range first {
					if got[p] != first[p] {
						rt.Errorf("run %d: %s differs from run 0 (-run 0 +run %d):\n%s", run, p, run, textmerge.Unified([]byte(first[p]), []byte(got[p]), 1))
					}
				}
				rt.Fatalf("run %d: files %v, run 0's %v", run, keysOf(got), keysOf(first))
			}
		}
		for p, c := range first {
			for _, m := range commentTag.FindAllStringSubmatch(c, -1) {
				if m[1] != p {
					rt.Errorf("%s holds a comment of %s:\n%s", p, m[1], c)
				}
			}
			for _, line := range strings.Split(sets[0][p], "\n") {
				if !strings.Contains(line, "#") || line == "# - path: patch.yaml" {
					continue
				}
				comment := line[strings.Index(line, "#"):]
				if strings.Contains(sets[1][p], comment) && strings.Contains(sets[2][p], comment) && !strings.Contains(c, comment) {
					rt.Errorf("%s lost %q, a comment of all three versions:\n%s", p, comment, c)
				}
			}
			if strings.Contains(c, "<<<<<<< ") && !strings.HasSuffix(p, "/cm.yaml") {
				rt.Errorf("%s has markers:\n%s", p, c)
			}
		}
	})
}
