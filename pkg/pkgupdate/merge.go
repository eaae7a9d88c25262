package pkgupdate

import (
	"sort"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/pkgio"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// merger is the merge step of an update for one package (merge): the package's three
// trees into file changes and its report.
type merger struct {
	cfg  *config.Config
	plan bool // Options.Plan: the report lists the field changes
	rel  string
	src  *source
	pr   *PackageReport
	// recording is what the package's Kptfile records of the release (prepare); nil
	// when it records none.
	recording *recording
	// marking collects, under onConflict mark, what the update marks (mark.go).
	marking *marking
	// changes are the package's file changes, for the stage step.
	changes []fileChange
}

// merge merges the three trees of the package at m.rel (whose subpackages with their
// own upstream, subs, are updated apart): first each path that is a file on one side
// and a directory on the other (fileOrDir), then resources with the function's engine
// and text files line by line; it adds the package's file changes to m.changes and fills
// m.pr.
func (m *merger) merge(t trees, subs []string) error {
	decided, err := m.fileOrDir(t, subs)
	if err != nil {
		return err
	}
	krm, txt := splitPaths(t, decided)
	if m.cfg.OnConflict == config.MarkConflicts {
		err = m.markResources(krm, t) // mark.go
	} else {
		err = m.mergeResources(resourceRun{cfg: m.cfg, plan: m.plan, record: m.recording.setter()}, krm, t)
	}
	if err != nil {
		return err
	}
	m.mergeText(txt, t)
	return nil
}

// splitPaths lists the paths of t's files but those decided, in order: those that are
// KRM files in every tree holding them, and the others, merged as text in all.
func splitPaths(t trees, decided map[string]bool) (krm, txt []string) {
	all := map[string]bool{}
	text := map[string]bool{}
	for _, t := range []*pkgio.Tree{t.original, t.updated, t.dest} {
		for p, f := range t.Files {
			if decided[p] {
				continue
			}
			all[p] = true
			if !f.KRM() {
				text[p] = true
			}
		}
	}
	paths := make([]string, 0, len(all))
	for p := range all {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if text[p] { // a text file in any version is merged as text in all
			txt = append(txt, p)
		} else {
			krm = append(krm, p)
		}
	}
	return krm, txt
}

// describe is a resource as results name it: "apiVersion kind [namespace/]name".
func describe(n *yaml.RNode) string {
	r := vocab.ResourceRef(n)
	if r == nil {
		return ""
	}
	return vocab.DescribeResource(r)
}
