package gitfetch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"syscall"
)

// Export writes the files of directory (slash-separated, "/" or "" for the root) at
// commit (a full commit id, as Resolve returns) of the repository at url into dst,
// which must not exist or be an empty directory: regular files with their content byte
// for byte and mode 0644 or 0755 (less the umask), and their directories; submodules
// are left out.
//
// The trees are read from the cache (never trusting that a fetch checked them: objects
// of a failed fetch stay in the object store) and every entry is checked before
// anything is written: a name checkName refuses (`.git` in any case or alias, `..`,
// control characters, '\'), a name twice in one tree (a file and a directory, or a
// symbolic link and a file, of one name), a symbolic link, an unknown mode, more than
// MaxFiles entries. Then directories are made with mkdir and files created with
// O_CREAT|O_EXCL|O_NOFOLLOW, under an os.Root at dst: nothing is followed, nothing
// written outside dst. Each file is copied from `git cat-file --batch` straight into
// its file; its size, from the batch's header, is checked against MaxFileSize (and the
// running total against MaxTotalSize) before it is read.
//
// Errors (url, commit and path named): commit is no full commit id; directory does not
// exist at commit (naming url, directory and commit), or is refused by checkName; an
// entry refused as above ("symbolic links are not supported; ..." for a link); a file
// over a limit (naming its size and the limit); dst not empty; git (a *GitError,
// wrapping ErrTimeout at the timeout) or filesystem failures. On error, what Export
// wrote is removed (dst too, when Export made it).
func (f *Fetcher) Export(ctx context.Context, url, commit, directory, dst string) (err error) {
	if !fullSHA.MatchString(commit) {
		return fmt.Errorf("%s: %q is not a full commit id (Export takes the commit Resolve returned)", url, commit)
	}
	d, err := cleanDirectory(directory)
	if err != nil {
		return fmt.Errorf("%s: %w", url, err)
	}
	r, err := f.open(ctx, url)
	if err != nil {
		return err
	}
	defer r.unlock()
	made, err := emptyDir(dst)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			cleanDst(dst, made)
		}
	}()
	root, err := os.OpenRoot(dst)
	if err != nil {
		return err
	}
	defer root.Close()
	b, err := r.startBatch(ctx)
	if err != nil {
		return err
	}
	defer func() { err = b.finish(err) }()
	e := &exporter{f: f, r: r, b: b, root: root, commit: commit}
	top := commit + "^{tree}"
	if d != "" {
		top = commit + ":" + d
	}
	if err := e.list(top, "/"+d); err != nil {
		return err
	}
	for _, p := range e.dirs {
		if err := root.Mkdir(p, 0o755); err != nil {
			return e.errorf(p, "%v", err)
		}
	}
	return e.write()
}

// exporter is one Export: what it lists, then writes.
type exporter struct {
	f      *Fetcher
	r      *repo
	b      *batch
	root   *os.Root
	commit string
	dirs   []string // slash-separated, parents first
	files  []file
	n      int // entries listed
}

// file is a blob to write.
type file struct {
	path, id string
	mode     os.FileMode
}

// errorf is an error naming the repository, the commit and a path in the export.
func (e *exporter) errorf(p, format string, args ...any) error {
	return fmt.Errorf("%s at %s: %s: %w", e.r.url, e.commit, p, fmt.Errorf(format, args...))
}

// list reads the tree top (a revision: <commit>^{tree} or <commit>:<dir>, shown as
// name) and every tree under it, breadth first, into e.dirs and e.files, checking every
// entry.
func (e *exporter) list(top, name string) error {
	id, typ, size, err := e.b.ask(top)
	if err != nil {
		return err
	}
	if typ != "tree" {
		if typ != "" {
			if err := e.b.skip(size); err != nil {
				return err
			}
		}
		return fmt.Errorf("%s: directory %q does not exist at commit %s", e.r.url, name, e.commit)
	}
	hashLen := len(id) / 2
	type dir struct{ path, id string }
	queue := []dir{{"", id}}
	for first := true; len(queue) > 0; first = false {
		t := queue[0]
		queue = queue[1:]
		if !first {
			if _, typ, size, err = e.b.ask(t.id); err != nil {
				return err
			}
			if typ != "tree" {
				return e.errorf(t.path, "a directory whose object is a %s", orMissing(typ))
			}
		}
		data, err := e.b.read(size, e.f.maxFileSize(), t.path)
		if err != nil {
			return err
		}
		entries, err := parseTree(data, hashLen)
		if err != nil {
			return e.errorf(t.path+"/", "%v", err)
		}
		seen := make(map[string]bool, len(entries))
		for _, en := range entries {
			p := path.Join(t.path, en.name)
			if err := checkName(en.name); err != nil {
				return e.errorf(t.path+"/", "%v", err)
			}
			if seen[en.name] {
				return e.errorf(p, "named twice in its directory (duplicate tree entries: a file and a directory, or a link and a file, of one name)")
			}
			seen[en.name] = true
			if err := checkPath(p); err != nil {
				return e.errorf(p, "%v", err)
			}
			if e.n++; e.n > e.f.maxFiles() {
				return fmt.Errorf("%s at %s: more than %d files and directories", e.r.url, e.commit, e.f.maxFiles())
			}
			switch kind := en.mode & 0o170000; {
			case kind == 0o040000:
				e.dirs = append(e.dirs, p)
				queue = append(queue, dir{p, en.id})
			case kind == 0o100000:
				perm := os.FileMode(0o644)
				if en.mode&0o100 != 0 {
					perm = 0o755
				}
				e.files = append(e.files, file{path: p, id: en.id, mode: perm})
			case kind == 0o120000:
				return e.errorf(p, "a symbolic link: symbolic links are not supported; the upstream must hold the file itself")
			case kind == 0o160000: // a submodule: left out
			default:
				return e.errorf(p, "unknown mode %o", en.mode)
			}
		}
	}
	return nil
}

// orMissing is typ, or "missing object" for "".
func orMissing(typ string) string {
	if typ == "" {
		return "missing object"
	}
	return typ
}

// write copies every listed file from the batch into its new file, the requests sent
// ahead by a goroutine so that git streams them.
func (e *exporter) write() error {
	go func() {
		for _, fl := range e.files {
			if _, err := io.WriteString(e.b.in, fl.id+"\n"); err != nil {
				return
			}
		}
	}()
	var total int64
	for _, fl := range e.files {
		_, typ, size, err := e.b.header()
		if err != nil {
			return err
		}
		if typ != "blob" {
			return e.errorf(fl.path, "a file whose object is a %s", orMissing(typ))
		}
		if size > e.f.maxFileSize() {
			return e.errorf(fl.path, "%w: %d bytes, over the limit of %d bytes a file", ErrTooLarge, size, e.f.maxFileSize())
		}
		if total += size; total > e.f.maxTotalSize() {
			return fmt.Errorf("%s at %s: %w: more than %d bytes in all (at %s)", e.r.url, e.commit, ErrTooLarge, e.f.maxTotalSize(), fl.path)
		}
		out, err := e.root.OpenFile(fl.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, fl.mode)
		if err != nil {
			return e.errorf(fl.path, "%v", err)
		}
		_, err = io.CopyN(out, e.b.out, size)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = e.b.endOfObject()
		}
		if err != nil {
			return e.errorf(fl.path, "%v", err)
		}
	}
	return nil
}

// treeEntry is one entry of a tree object.
type treeEntry struct {
	mode     uint32
	name, id string
}

// parseTree reads a tree object: entries "<octal mode> <name>\0<hash>", the hash
// hashLen bytes. Zero-padded modes (040000) are read as git reads them.
func parseTree(data []byte, hashLen int) ([]treeEntry, error) {
	var out []treeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp <= 0 || sp > 7 {
			return nil, errors.New("a malformed tree object (mode)")
		}
		mode, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return nil, errors.New("a malformed tree object (mode)")
		}
		data = data[sp+1:]
		nul := bytes.IndexByte(data, 0)
		if nul < 0 || len(data) < nul+1+hashLen {
			return nil, errors.New("a malformed tree object (name or hash)")
		}
		out = append(out, treeEntry{mode: uint32(mode), name: string(data[:nul]), id: hex.EncodeToString(data[nul+1 : nul+1+hashLen])})
		data = data[nul+1+hashLen:]
	}
	return out, nil
}

func (f *Fetcher) maxFileSize() int64 {
	if f.MaxFileSize > 0 {
		return f.MaxFileSize
	}
	return DefaultMaxFileSize
}

func (f *Fetcher) maxTotalSize() int64 {
	if f.MaxTotalSize > 0 {
		return f.MaxTotalSize
	}
	return DefaultMaxTotalSize
}

func (f *Fetcher) maxFiles() int {
	if f.MaxFiles > 0 {
		return f.MaxFiles
	}
	return DefaultMaxFiles
}

// emptyDir makes dst (made true) or checks that it is an empty directory, not a link.
func emptyDir(dst string) (made bool, err error) {
	fi, err := os.Lstat(dst)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return false, err
		}
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if !fi.IsDir() {
		return false, fmt.Errorf("export to %s: not a directory", dst)
	}
	entries, err := os.ReadDir(dst)
	if err != nil {
		return false, err
	}
	if len(entries) > 0 {
		return false, fmt.Errorf("export to %s: the directory is not empty", dst)
	}
	return false, nil
}

// cleanDst removes what a failed Export wrote: dst when it made it, else dst's entries.
// os.RemoveAll follows no link, and Export made none.
func cleanDst(dst string, made bool) {
	if made {
		_ = os.RemoveAll(dst)
		return
	}
	entries, _ := os.ReadDir(dst)
	for _, en := range entries {
		_ = os.RemoveAll(dst + string(os.PathSeparator) + en.Name())
	}
}

// batch is a running `git cat-file --batch` of the cache repository.
type batch struct {
	f      *Fetcher
	args   []string
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
	ctx    context.Context // the caller's
	tctx   context.Context // with the timeout
	done   func()
}

// startBatch starts `git cat-file --batch` in the cache repository.
func (r *repo) startBatch(ctx context.Context) (*batch, error) {
	b := &batch{f: r.f, args: []string{"cat-file", "--batch"}, ctx: ctx}
	b.cmd, b.tctx, b.done = r.f.command(ctx, runOpts{gitDir: r.dir}, b.args...)
	b.cmd.Stderr = &b.stderr
	in, err := b.cmd.StdinPipe()
	if err != nil {
		b.done()
		return nil, err
	}
	out, err := b.cmd.StdoutPipe()
	if err != nil {
		b.done()
		return nil, err
	}
	if err := b.cmd.Start(); err != nil {
		b.done()
		return nil, b.f.gitError(ctx, b.tctx, b.args, "", err)
	}
	b.in, b.out = in, bufio.NewReaderSize(out, 64<<10)
	return b, nil
}

// ask requests name and reads its header: its id, type and size; typ "" when name
// names no object.
func (b *batch) ask(name string) (id, typ string, size int64, err error) {
	if _, err := io.WriteString(b.in, name+"\n"); err != nil {
		return "", "", 0, err
	}
	return b.header()
}

// header reads the header of the next object: "<id> <type> <size>", or "<name>
// missing" (typ "").
func (b *batch) header() (id, typ string, size int64, err error) {
	line, err := b.out.ReadString('\n')
	if err != nil {
		return "", "", 0, fmt.Errorf("git cat-file --batch: %w", err)
	}
	fields := strings.Fields(line)
	if len(fields) == 2 && (fields[1] == "missing" || fields[1] == "ambiguous") {
		return "", "", 0, nil
	}
	if len(fields) != 3 {
		return "", "", 0, fmt.Errorf("git cat-file --batch: unexpected header %q", line)
	}
	size, err = strconv.ParseInt(fields[2], 10, 64)
	if err != nil || size < 0 {
		return "", "", 0, fmt.Errorf("git cat-file --batch: unexpected header %q", line)
	}
	return fields[0], fields[1], size, nil
}

// read reads the content of the object whose header was just read, of size bytes, at
// most limit (a tree: what is named p in the errors).
func (b *batch) read(size, limit int64, p string) ([]byte, error) {
	if size > limit {
		return nil, fmt.Errorf("directory %q: %w: a tree object of %d bytes, over the limit of %d bytes", "/"+p, ErrTooLarge, size, limit)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(b.out, data); err != nil {
		return nil, fmt.Errorf("git cat-file --batch: %w", err)
	}
	return data, b.endOfObject()
}

// skip reads past the content of the object whose header was just read.
func (b *batch) skip(size int64) error {
	if _, err := io.CopyN(io.Discard, b.out, size); err != nil {
		return fmt.Errorf("git cat-file --batch: %w", err)
	}
	return b.endOfObject()
}

// endOfObject reads the newline after an object's content.
func (b *batch) endOfObject() error {
	c, err := b.out.ReadByte()
	if err == nil && c != '\n' {
		err = errors.New("no newline after an object")
	}
	if err != nil {
		return fmt.Errorf("git cat-file --batch: %w", err)
	}
	return nil
}

// finish ends the batch: on success its input is closed and git waited for; on error
// git's process group is killed. It returns err, or the batch's own error (a timeout
// said as such).
func (b *batch) finish(err error) error {
	defer b.done()
	if err != nil {
		_ = b.cmd.Cancel()
		_ = b.cmd.Wait()
		if b.ctx.Err() != nil || b.tctx.Err() != nil {
			return b.f.gitError(b.ctx, b.tctx, b.args, "", err)
		}
		return err
	}
	b.in.Close()
	_, _ = io.Copy(io.Discard, b.out)
	return b.f.gitError(b.ctx, b.tctx, b.args, b.stderr.String(), b.cmd.Wait())
}
