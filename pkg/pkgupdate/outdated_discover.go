package pkgupdate

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/krm-merge/krm-merge/internal/scrub"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/gitfetch"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/kptfile"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/pkgio"
)

// DefaultMaxOutdatedDirs is the most directories Outdated walks when
// OutdatedOptions.MaxDirs is 0 (100,000): a repository of a few thousand packages
// holds far fewer, and the walk of a tree by mistake (a home directory) stops early.
const DefaultMaxOutdatedDirs = 100_000

// ErrTooManyDirs is wrapped by Outdated's error when the directories under the DIRs
// given are more than OutdatedOptions.MaxDirs; the error names the limit.
var ErrTooManyDirs = errors.New("too many directories")

// found is one directory with a Kptfile naming a git upstream, as the walk finds it.
type found struct {
	dir  string            // as reported: the DIR given joined with the path under it
	rel  string            // the path under the DIR given ("." for the DIR itself)
	real string            // absolute, for the walk's dedup and nesting
	kf   *kptfile.Upstream // nil with err
	pkg  *OutdatedPackage  // its row, or the row it goes with
	err  error             // the Kptfile could not be read
}

// discover walks each of dirs (resolved once when it is a symbolic link, as Update
// resolves DIR) in tree order, names sorted (filepath.WalkDir), never following a
// symbolic link inside, leaving out .git in every spelling and the directories of
// an update in progress or being staged (reservedName), and returns every directory
// whose Kptfile names a git upstream, or could not be read (a link, a FIFO, over
// limit bytes, not YAML, not a kpt.dev/v1 Kptfile). A directory reached from two of
// dirs is returned once. Errors: a DIR missing or no directory; more than maxDirs
// directories (ErrTooManyDirs); the walk's I/O errors.
func discover(dirs []string, limit int64, maxDirs int) ([]*found, error) {
	var out []*found
	seen := map[string]bool{}
	walked := 0
	for _, given := range dirs {
		root, err := resolveDir(given)
		if err != nil {
			return nil, err
		}
		if root, err = filepath.Abs(root); err != nil {
			return nil, err
		}
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				return nil // a file, or a link (to a directory too): never followed
			}
			if p != root && (pkgio.GitPath(d.Name()) || reservedName(d.Name())) {
				return filepath.SkipDir
			}
			if walked++; walked > maxDirs {
				return fmt.Errorf("more than %d directories under %s (OutdatedOptions.MaxDirs): %w", maxDirs, scrub.Escape(given), ErrTooManyDirs)
			}
			if seen[p] {
				return filepath.SkipDir
			}
			seen[p] = true
			rel, _ := filepath.Rel(root, p)
			f := &found{dir: path.Join(filepath.ToSlash(given), filepath.ToSlash(rel)), rel: filepath.ToSlash(rel), real: p}
			if f.kf, f.err = readUpstream(p, path.Join(f.dir, kptfile.Name), limit); f.kf != nil || f.err != nil {
				out = append(out, f)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readUpstream reads dir's Kptfile as pkgio.ReadFile reads (a regular file only, not
// followed when a link, at most limit bytes) and returns its upstream: nil, nil
// without a Kptfile or without a git upstream. name is the Kptfile's path in errors
// (*pkgio.Error, *kptfile.Error, a parse error).
func readUpstream(dir, name string, limit int64) (*kptfile.Upstream, error) {
	data, _, err := pkgio.ReadFile(filepath.Join(dir, kptfile.Name), limit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &pkgio.Error{Path: name, Err: err}
	}
	docs, err := pkgio.Parse(data, kptfile.Name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(docs) != 1 {
		return nil, &kptfile.Error{File: name, Msg: "must hold exactly one Kptfile resource"}
	}
	kf, err := kptfile.Read(docs[0].Node, name)
	if err != nil || kf.Git == nil {
		return nil, err
	}
	switch {
	case kf.Lock == nil || kf.Lock.Commit == "":
		return nil, &kptfile.Error{File: name, Field: "upstreamLock.git.commit", Msg: "missing: the Kptfile records no fetched commit (kpt pkg get records it)"}
	case !gitfetch.IsCommitID(kf.Lock.Commit):
		return nil, &kptfile.Error{File: name, Field: "upstreamLock.git.commit", Msg: fmt.Sprintf("%q is not a full commit id (40 or 64 hex digits)", kf.Lock.Commit)}
	case kf.Git.Ref == "":
		return nil, &kptfile.Error{File: name, Field: "upstream.git.ref", Msg: "missing"}
	}
	return kf, nil
}

// group makes the rows of found, in its order: a package goes with the nearest
// package above it that has its own row (and so is not a row itself) when pkg update
// would move it with that one, by movesWithRoot's rule (kpt's shouldUpdateSubPkgRef):
// the same upstream.git.repo and ref, in that one's upstream directory or under it.
// Any other package (its own repository, directory or ref; a Kptfile that could not
// be read) has its own row.
func group(all []*found) []*OutdatedPackage {
	var rows []*OutdatedPackage
	var stack []*found // the rows above the current directory, outermost first
	for _, f := range all {
		for len(stack) > 0 && !under(f.real, stack[len(stack)-1].real) {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && f.err == nil {
			if top := stack[len(stack)-1]; top.err == nil && goesWith(top.kf.Git, f.kf.Git) {
				top.pkg.Subpackages = append(top.pkg.Subpackages, f.dir)
				f.pkg = top.pkg
				continue
			}
		}
		f.pkg = &OutdatedPackage{Dir: f.dir}
		if f.err != nil {
			f.pkg.Error = f.err.Error()
		} else {
			g := f.kf.Git
			f.pkg.Repo, f.pkg.Directory, f.pkg.Ref, f.pkg.Commit = g.Repo, g.Directory, g.Ref, f.kf.Lock.Commit
			f.pkg.lockRef = f.kf.Lock.Ref
		}
		rows = append(rows, f.pkg)
		stack = append(stack, f)
	}
	return rows
}

// under reports whether the directory p is inside the directory dir (not dir itself).
func under(p, dir string) bool {
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}

// goesWith reports whether a package with upstream sub moves with a package with
// upstream parent when that one is updated to a version (movesWithRoot's rule, the
// directories compared as paths).
func goesWith(parent, sub *kptfile.Git) bool {
	if sub.Repo != parent.Repo || sub.Ref != parent.Ref {
		return false
	}
	pd, sd := path.Clean("/"+parent.Directory), path.Clean("/"+sub.Directory)
	return pd == "/" || sd == pd || strings.HasPrefix(sd, pd+"/")
}
