package roles

import (
	"fmt"
	"path"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/parallel"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// Options say how Assign gives items their roles. Package function builds them from the
// functionConfig.
type Options struct {
	// Mode is the run's mode; its roles (vocab.Mode.Roles) are the valid ones.
	Mode vocab.Mode
	// Annotation is the annotation naming an item's role.
	Annotation string
	// OriginalDir, UpdatedDir, DestDir and SrcDir select roles by the directory an item's
	// path annotation lies under, cleaned (Clean); "" leaves a role unselected by path.
	OriginalDir, UpdatedDir, DestDir, SrcDir string
	// Original, Updated and Src are sources given inline (the typed functionConfig's
	// spec.original, spec.updated, spec.src); with any of them non-nil, every input
	// item without a role (Kptfile and local-config items aside) is dest.
	Original, Updated, Src []*yaml.RNode
}

// ByPath reports whether roles are chosen by directory (any of OriginalDir, UpdatedDir,
// DestDir, SrcDir set).
func (o Options) ByPath() bool {
	return o.OriginalDir != "" || o.UpdatedDir != "" || o.DestDir != "" || o.SrcDir != ""
}

// AddDir returns the directory an item added to dest goes to: with path roles (ByPath)
// DestDir cleaned, "." (the package root) when DestDir is unset; "" otherwise, where an
// added item keeps its own path.
func (o Options) AddDir() string {
	if !o.ByPath() {
		return ""
	}
	return Clean(o.DestDir)
}

// inline reports whether sources are given inline.
func (o Options) inline() bool { return o.Original != nil || o.Updated != nil || o.Src != nil }

// Item is one input item with its role.
type Item struct {
	// Node is the item as read; never modified by this package.
	Node *yaml.RNode
	// Role is the item's role; vocab.None passes through.
	Role vocab.Role
	// Position is the item's position in the input (inline items follow the input).
	Position int
	// File is the item's path annotation, cleaned ("" for inline items).
	File string
	// Index is the item's index annotation within File.
	Index int
	// RelFile is File relative to the item's role directory (path roles), else File; for
	// an inline item, its own path annotation as written ("" when it has none).
	RelFile string
	// RoleDir is the cleaned role directory the item lies under ("" when its role does not
	// come from a directory, or none is configured for it).
	RoleDir string
	// Inline is true for items that came from the functionConfig.
	Inline bool
}

// Ref returns the item's resourceRef for results.
func (it *Item) Ref() *yaml.ResourceIdentifier { return vocab.ResourceRef(it.Node) }

// Location returns where the item is, for results and errors: its resourceRef, File and
// Index.
func (it *Item) Location() vocab.Location {
	return vocab.Location{Resource: it.Ref(), File: it.File, Index: it.Index}
}

// NewItem returns the input item n at position (0-based, in input order) with no role:
// File (cleaned) and Index from its path and index annotations, RelFile equal to File.
func NewItem(n *yaml.RNode, position int) Item {
	it := Item{Node: n, Position: position}
	it.File, it.Index = location(n)
	it.RelFile = it.File
	return it
}

// Errorf returns a *vocab.ItemError about this item: its resourceRef, file and index, field
// (a field path such as "metadata.name"; "" for the whole item) and the message
// fmt.Sprintf(format, args...).
func (it *Item) Errorf(field, format string, args ...interface{}) *vocab.ItemError {
	return &vocab.ItemError{Location: it.Location(), Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Assign gives every item its role by opts and appends opts' inline sources as items.
// items are the ResourceList items in input order; they are not modified.
// Errors (*vocab.ItemError): a path annotation (internal.config.kubernetes.io/path or
// legacy config.kubernetes.io/path) holding a control character, on any item; on an item
// with a role (inline sources included), a path annotation that is absolute or leaves
// the package root (CheckPath: its path reaches the output); a role value that is not
// one of the mode's roles (naming the valid ones, and the mode a 2-way/3-way role belongs
// to); an item with a role but no apiVersion or kind, or neither metadata.name nor a file
// path. Each names the item (an inline one as "functionConfig spec.<role>[i]") and the
// field.
func Assign(items []*yaml.RNode, opts Options) ([]Item, error) {
	dirs := roleDirs(opts)
	out := make([]Item, len(items), len(items)+len(opts.Original)+len(opts.Updated)+len(opts.Src))
	errs := make([]error, len(items))
	// Each item's role depends on that item alone: decide them on all cores, then
	// report the first bad item in input order, as a serial loop would.
	parallel.ForEach(len(items), 64, func(i int) {
		n := items[i]
		it := NewItem(n, i)
		annos := n.GetAnnotations()
		if errs[i] = checkPaths(&it, annos, false); errs[i] != nil {
			return
		}
		annotated := annos[opts.Annotation]
		special := vocab.IsKptfile(n) || vocab.IsLocalConfig(n)
		switch {
		case annotated != "":
			role, ok := opts.Mode.ParseRole(annotated)
			if !ok {
				errs[i] = invalidRole(&it, opts, annotated)
				return
			}
			it.Role = role
			if dir := dirFor(dirs, it.Role); dir != "" && under(it.File, dir) {
				it.RelFile, it.RoleDir = relTo(it.File, dir), dir
			}
		case len(dirs) > 0:
			// Every item under a role directory, Kptfiles and local-config included.
			if role, dir, ok := byPath(dirs, it.File); ok {
				it.Role, it.RelFile, it.RoleDir = role, relTo(it.File, dir), dir
			}
		case special:
			// Kptfile and local-config pass through unless their own annotation selects them.
		case opts.inline():
			it.Role = vocab.Dest
		}
		if it.Role != vocab.None {
			errs[i] = checkPaths(&it, annos, true)
		}
		out[i] = it
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	for _, inline := range []struct {
		role  vocab.Role
		nodes []*yaml.RNode
	}{{vocab.Original, opts.Original}, {vocab.Updated, opts.Updated}, {vocab.Src, opts.Src}} {
		for j, n := range inline.nodes {
			it := Item{Node: n, Role: inline.role, Position: len(items) + j, Inline: true}
			it.RelFile, it.Index = location(n)
			it.File = fmt.Sprintf("functionConfig spec.%s[%d]", inline.role, j)
			if err := checkPaths(&it, n.GetAnnotations(), true); err != nil {
				return nil, err
			}
			out = append(out, it)
		}
	}
	errs = make([]error, len(out))
	parallel.ForEach(len(out), 64, func(i int) {
		if out[i].Role != vocab.None {
			errs[i] = requireIdentity(&out[i])
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// invalidRole is the error of an item whose role annotation holds value, no role of
// opts.Mode: it lists the mode's roles and names another mode that has the role.
func invalidRole(it *Item, opts Options, value string) error {
	msg := fmt.Sprintf("role %q is not a role of mode %s; valid roles: %s", value, opts.Mode, opts.Mode.RoleNames())
	for _, m := range []vocab.Mode{vocab.ThreeWay, vocab.TwoWay, vocab.Apply} {
		if _, ok := m.ParseRole(value); ok && m != opts.Mode {
			msg += fmt.Sprintf(" (%q is a role of mode %s: set mode: %s, or change the annotation)", value, m, m)
			break
		}
	}
	return it.Errorf("metadata.annotations."+opts.Annotation, "%s", msg)
}

// requireIdentity checks that an item with a role has apiVersion, kind, and a
// metadata.name or a file path (an item without a name is identified by its path).
func requireIdentity(it *Item) error {
	m, err := it.Node.GetMeta()
	if err != nil {
		return it.Errorf("metadata", "cannot read metadata: %v", err)
	}
	const need = "a %s item needs apiVersion, kind, and metadata.name or a file path; %s"
	switch {
	case m.APIVersion == "":
		return it.Errorf("apiVersion", need, it.Role, "apiVersion is missing")
	case m.Kind == "":
		return it.Errorf("kind", need, it.Role, "kind is missing")
	case m.Name == "" && it.RelFile == "":
		return it.Errorf("metadata.name", need, it.Role, "it has neither (an item without a name is identified by group, kind and file path)")
	}
	return nil
}

// location returns an item's path annotation, cleaned ("" when it has none), and its
// index annotation (vocab.LocationOf).
func location(n *yaml.RNode) (string, int) {
	l := vocab.LocationOf(n)
	if l.File == "" {
		return "", l.Index
	}
	return Clean(l.File), l.Index
}

// Clean normalises a package-relative path: "./dest/", "dest" and "dest/." are "dest";
// "" and "." are ".".
func Clean(p string) string {
	return path.Clean(strings.TrimPrefix(strings.ReplaceAll(p, "\\", "/"), "./"))
}

type roleDir struct {
	role vocab.Role
	dir  string
}

// roleDirs lists the configured role directories.
func roleDirs(opts Options) []roleDir {
	var out []roleDir
	for _, rd := range []roleDir{{vocab.Original, opts.OriginalDir}, {vocab.Updated, opts.UpdatedDir}, {vocab.Dest, opts.DestDir}, {vocab.Src, opts.SrcDir}} {
		if rd.dir != "" {
			out = append(out, roleDir{rd.role, Clean(rd.dir)})
		}
	}
	return out
}

func dirFor(dirs []roleDir, role vocab.Role) string {
	for _, d := range dirs {
		if d.role == role {
			return d.dir
		}
	}
	return ""
}

// byPath returns the role whose directory holds file, the most specific one winning;
// whole directory names only ("dest" does not hold "destination/x.yaml").
func byPath(dirs []roleDir, file string) (vocab.Role, string, bool) {
	if file == "" {
		return vocab.None, "", false
	}
	best, bestDir, found := vocab.None, "", false
	for _, d := range dirs {
		if !under(file, d.dir) {
			continue
		}
		if !found || len(d.dir) > len(bestDir) || bestDir == "." {
			best, bestDir, found = d.role, d.dir, true
		}
	}
	return best, bestDir, found
}

func under(file, dir string) bool {
	return dir == "." || file == dir || strings.HasPrefix(file, dir+"/")
}

// relTo returns file relative to dir.
func relTo(file, dir string) string {
	if dir == "." || file == "" {
		return file
	}
	return strings.TrimPrefix(strings.TrimPrefix(file, dir), "/")
}

// Rebase moves a file path from one role directory to another: "updated/app/x.yaml"
// from "updated" to "dest" is "dest/app/x.yaml".
func Rebase(rel, toDir string) string {
	if toDir == "" || toDir == "." {
		return rel
	}
	return path.Join(toDir, rel)
}

// pathAnnotations are the annotations an item's file path comes from, in the order
// kioutil.GetFileAnnotations reads them.
var pathAnnotations = vocab.PathAnnotations[:]

// checkPaths returns an error about the first path annotation (of annos, it's) that
// CheckPath refuses: for an item with a role (withRole) any fault, else only a control
// character. The value is quoted in the message, and an error about a control character
// names no file: the raw path would reach the user's terminal.
func checkPaths(it *Item, annos map[string]string, withRole bool) error {
	for _, key := range pathAnnotations {
		v, ok := annos[key]
		if !ok {
			continue
		}
		f := CheckPath(v)
		if f == "" || (f != PathControl && !withRole) {
			continue
		}
		var why string
		switch {
		case f == PathControl:
			why = "a path annotation names a file of the package, and no file worth merging has such a name"
		case it.Inline:
			why = "an inline resource keeps its path in the output when it is added: give it a path inside the package " +
				"(e.g. \"app/x.yaml\") or none"
		default:
			why = "an item with a role keeps its path in the output (an added item takes its source's path when no " +
				"directory rebases it): paths are relative to the package root and stay inside it"
		}
		e := it.Errorf("metadata.annotations."+key, "path annotation %s %q %s; %s", key, v, f, why)
		if f == PathControl && !it.Inline {
			e.File = ""
		}
		return e
	}
	return nil
}
