package stage

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// journal is the committed plan.
type journal struct {
	// Dir is the directory the journal changes (absolute), to refuse a journal found
	// for another directory.
	Dir     string   `json:"dir"`
	Entries []entry  `json:"entries"`
	Mkdirs  []string `json:"mkdirs"` // shallowest first
	Rmdirs  []string `json:"rmdirs"` // deepest first
	// RmdirModes are the unix permission bits (with setgid and sticky) of each of
	// Rmdirs, restored by a roll back; absent in journals that do not record them (the
	// directories are then made 0o755 less the umask).
	RmdirModes []uint32 `json:"rmdirModes,omitempty"`
}

// paths gives entry n's file in the package (target), its new content in staging
// directory s (staged) and the backup of its old content there (backup).
func (j *journal) paths(s string, n int) (target, staged, backup string) {
	return j.path(j.Entries[n].Path), stagedPath(s, n), filepath.Join(s, oldDir, strconv.Itoa(n))
}

// path is the absolute name of rel (slash-separated) in the directory.
func (j *journal) path(rel string) string { return filepath.Join(j.Dir, filepath.FromSlash(rel)) }

// stagedPath is where entry n's new content is staged in staging directory s.
func stagedPath(s string, n int) string { return filepath.Join(s, newDir, strconv.Itoa(n)) }

type entry struct {
	Path    string `json:"path"`
	Delete  bool   `json:"delete,omitempty"`
	Existed bool   `json:"existed"`
}

// Names inside the staging directory.
const (
	newDir      = "new"
	oldDir      = "old"
	journalFile = "journal.json"
	journalTmp  = "journal.tmp"
	doneFile    = "journal.done"
	rollbackTag = "rollback"
	// insideName is the staging directory's name when it is inside the directory.
	insideName = ".krm-merge-update"
)

// plan makes the journal of changes to dir abs: which files exist, the directories to
// remove and to create. It refuses a symbolic link in the way and a change that does
// not fit the directory's file types.
func plan(fsys fileSystem, abs string, changes []Change) (*journal, error) {
	j := &journal{Dir: abs}
	infos := make([]fs.FileInfo, len(changes))
	deleted := map[string]bool{}
	for i, c := range changes {
		fi, err := fsys.Lstat(j.path(c.Path))
		switch {
		case err == nil && fi.Mode()&fs.ModeSymlink != 0:
			return nil, fmt.Errorf("%s: %w; nor replaces one (a package holding symbolic links is refused when read)", c.Path, errSymlink)
		case err == nil:
			infos[i] = fi
		case !gone(err): // a symbolic link on the way among them
			return nil, fmt.Errorf("%s: %w", c.Path, err)
		}
		if c.Delete && infos[i] != nil {
			deleted[c.Path] = true
		}
	}
	var err error
	if j.Rmdirs, j.RmdirModes, err = dirsToRemove(fsys, j, changes); err != nil {
		return nil, err
	}
	removed := map[string]bool{}
	for _, d := range j.Rmdirs {
		removed[d] = true
	}
	for i, c := range changes {
		fi, existed := infos[i], false
		switch {
		case fi == nil:
		case fi.IsDir() && c.Delete:
			return nil, fmt.Errorf("%s: a directory, not a file: an update deletes the files in it", c.Path)
		case fi.IsDir() && !removed[c.Path]:
			return nil, fmt.Errorf("%s: cannot write the file: a directory is there that the update does not empty", c.Path)
		case fi.IsDir(): // emptied and removed before the file is moved in
		case !fi.Mode().IsRegular():
			return nil, fmt.Errorf("%s: not a regular file (%v)", c.Path, fi.Mode().Type())
		default:
			existed = true
		}
		j.Entries = append(j.Entries, entry{Path: c.Path, Delete: c.Delete, Existed: existed})
	}
	if j.Mkdirs, err = dirsToCreate(fsys, j, changes, deleted); err != nil {
		return nil, err
	}
	return j, nil
}

// ancestors lists the directories above slash-separated path p, shallowest first.
func ancestors(p string) []string {
	var out []string
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			out = append(out, p[:i])
		}
	}
	return out
}

// dirsToCreate lists the missing parent directories of written files, shallowest
// first. A file the change set deletes may be in the way: it is removed first.
func dirsToCreate(fsys fileSystem, j *journal, changes []Change, deleted map[string]bool) ([]string, error) {
	set := map[string]bool{}
	for _, c := range changes {
		if c.Delete {
			continue
		}
		missing := false
		for _, d := range ancestors(c.Path) {
			if missing || set[d] {
				missing, set[d] = true, true
				continue
			}
			fi, err := fsys.Lstat(j.path(d))
			switch {
			case err != nil && gone(err):
				missing, set[d] = true, true
			case err != nil:
				return nil, fmt.Errorf("%s: %w", c.Path, err)
			case fi.IsDir():
			case fi.Mode()&fs.ModeSymlink != 0:
				return nil, fmt.Errorf("%s: %s is %w", c.Path, d, errSymlink)
			case deleted[d]:
				missing, set[d] = true, true
			default:
				return nil, fmt.Errorf("%s: cannot write %s, %s is not a directory", c.Path, c.Path, d)
			}
		}
	}
	out := make([]string, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		if a, b := strings.Count(out[i], "/"), strings.Count(out[j], "/"); a != b {
			return a < b
		}
		return out[i] < out[j]
	})
	return out, nil
}

// dirsToRemove lists the directories the deletions leave empty (never dir itself, never
// one a change writes into), deepest first, with their permission bits.
func dirsToRemove(fsys fileSystem, j *journal, changes []Change) ([]string, []uint32, error) {
	deleted := map[string]bool{}
	written := map[string]bool{}
	for _, c := range changes {
		if c.Delete {
			deleted[c.Path] = true
			continue
		}
		for _, d := range ancestors(c.Path) {
			written[d] = true
		}
	}
	candidates := map[string]bool{}
	for p := range deleted {
		for _, d := range ancestors(p) {
			candidates[d] = true
		}
	}
	list := make([]string, 0, len(candidates))
	for d := range candidates {
		list = append(list, d)
	}
	sort.Slice(list, func(i, j int) bool { // deepest first
		if a, b := strings.Count(list[i], "/"), strings.Count(list[j], "/"); a != b {
			return a > b
		}
		return list[i] < list[j]
	})
	removed := map[string]bool{}
	var out []string
	var modes []uint32
	for _, d := range list {
		if written[d] {
			continue
		}
		ents, err := fsys.ReadDir(j.path(d))
		if err != nil {
			if gone(err) {
				continue
			}
			return nil, nil, err
		}
		empty := true
		for _, e := range ents {
			p := path.Join(d, e.Name())
			if !deleted[p] && !removed[p] {
				empty = false
				break
			}
		}
		if !empty {
			continue
		}
		fi, err := fsys.Lstat(j.path(d))
		if err != nil {
			return nil, nil, err
		}
		_, mode, ok := owner(fi)
		if !ok {
			mode = uint32(fi.Mode().Perm())
		}
		removed[d] = true
		out = append(out, d)
		modes = append(modes, mode)
	}
	return out, modes, nil
}

// touchedDirs lists the directories whose entries the journal changes.
func touchedDirs(j *journal) []string {
	set := map[string]bool{j.Dir: true}
	add := func(rel string) { set[j.path(path.Dir(rel))] = true }
	for _, e := range j.Entries {
		add(e.Path)
	}
	for _, d := range append(append([]string{}, j.Mkdirs...), j.Rmdirs...) {
		add(d)
	}
	out := make([]string, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}
