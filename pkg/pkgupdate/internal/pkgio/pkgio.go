package pkgio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	gitignore "github.com/monochromegane/go-gitignore"
	"golang.org/x/sys/unix"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/scrub"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/gitpath"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// IgnoreFile is kpt's ignore file (kyaml's ext.IgnoreFileName), in gitignore syntax.
const IgnoreFile = ".krmignore"

// KptfileName is the name of a kpt package's Kptfile.
const KptfileName = "Kptfile"

// File is one file of a package.
type File struct {
	// Path is the slash-separated path relative to the package root.
	Path string
	// Data is the file's content.
	Data []byte
	// Mode is the file's permission bits.
	Mode fs.FileMode
	// Docs are the file's resources in order when it is a KRM file; nil for a text file.
	Docs []*Doc
	// Header is a KRM file's leading comment and blank lines (and a leading "---"),
	// byte for byte; the first resource carries none of it.
	Header string
}

// KRM reports whether f is a KRM file.
func (f *File) KRM() bool { return f.Docs != nil }

// Doc is one resource of a KRM file.
type Doc struct {
	// Node is the resource (a map), carrying kyaml's reader annotations: path (the
	// reader's prefix plus File.Path), index and seqindent.
	Node *yaml.RNode
	// Head, Line and Foot are the comments of the YAML document around the resource.
	Head, Line, Foot string
}

// Tree is a package read into memory.
type Tree struct {
	// Files maps each file's Path to it.
	Files map[string]*File
}

// Options controls Read.
type Options struct {
	// PathPrefix is put before each file's path in the path annotations of its
	// resources ("dest/" for a role directory of the merge); "" for none.
	PathPrefix string
	// Skip, when set, leaves out the files (and directories) it returns true for; rel
	// is slash-separated and relative to the root.
	Skip func(rel string, dir bool) bool
	// MaxFileSize is the size limit of one file in bytes; 0 is DefaultMaxFileSize.
	// Negative is an error.
	MaxFileSize int64
	// RefuseGitPaths makes a file or directory whose name git takes for .git (GitPath)
	// an error (ErrGitPath), for a tree that comes from an upstream; without it such
	// directories and files are left out, as the package's own repository is.
	RefuseGitPaths bool
}

// Error is a file that cannot be read as kpt reads it.
type Error struct {
	// Path is the file, relative to the package root.
	Path string
	// Err is the cause.
	Err error
}

// Error is "<path>: <cause>", the path escaped (scrub.Escape) when it holds a character a
// terminal would act on.
func (e *Error) Error() string { return scrub.Escape(e.Path) + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Read reads the package at root (a directory; a symbolic link as root is followed,
// none below it). Every file is read as ReadFile reads it: a regular file, opened
// without following a link, its type and size checked on the open file; directories
// are opened the same way and their entries read relative to them, so that nothing
// swapped for a link while Read runs leads out of root.
// Errors (*Error naming the file): a symbolic link (ErrSymlink); a FIFO, device or
// socket (ErrNotRegular); a file over the size limit (ErrTooLarge); with
// RefuseGitPaths, a .git path (ErrGitPath); a directory deeper than MaxDepth; a file
// kpt would read as KRM that is not well-formed YAML; I/O errors. A negative
// MaxFileSize and a root that cannot be opened as a directory are errors naming root.
func Read(root string, opts Options) (*Tree, error) {
	if opts.MaxFileSize < 0 {
		return nil, fmt.Errorf("reading %s: negative size limit %d", root, opts.MaxFileSize)
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	var fd int
	err = retry(func() (err error) {
		fd, err = unix.Open(absRoot, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", root, err)
	}
	w := &walker{opts: opts, t: &Tree{Files: map[string]*File{}}}
	if err := w.dir(fd, ".", absRoot, nil, false); err != nil {
		return nil, err
	}
	return w.t, nil
}

// MaxDepth is how deeply Read descends: a directory nested deeper than 128 directories
// below the root is an error. Read holds one open directory per level, and no real
// package comes near it.
const MaxDepth = 128

// walker is one Read.
type walker struct {
	opts Options
	t    *Tree
}

// dir reads the directory open as fd (which it closes), at rel (slash-separated, "."
// for the root) and abs (the path its .krmignore patterns match against). pkg is the
// ignore matcher of the nearest package at or above it (nil above the root); ignored
// is true when a .krmignore matched the directory or one above it.
func (w *walker) dir(fd int, rel, abs string, pkg gitignore.IgnoreMatcher, ignored bool) error {
	f := os.NewFile(uintptr(fd), abs)
	defer f.Close()
	join := func(name string) string {
		if rel == "." {
			return name
		}
		return rel + "/" + name
	}
	var st unix.Stat_t
	if rel == "." || unix.Fstatat(fd, KptfileName, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		pkg = gitignore.DummyIgnoreMatcher(false)
		data, _, err := readAt(fd, IgnoreFile, w.opts.MaxFileSize)
		switch {
		case err == nil:
			pkg = gitignore.NewGitIgnoreFromReader(abs, bytes.NewReader(data))
		case !errors.Is(err, fs.ErrNotExist):
			return &Error{Path: join(IgnoreFile), Err: err}
		}
	}
	names, err := f.Readdirnames(-1)
	if err != nil {
		return &Error{Path: rel, Err: err}
	}
	sort.Strings(names)
	for _, name := range names {
		p, full := join(name), filepath.Join(abs, name)
		if err := retry(func() error { return unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
			if err == unix.ENOENT {
				continue // removed since listed
			}
			return &Error{Path: p, Err: err}
		}
		isDir := uint32(st.Mode)&unix.S_IFMT == unix.S_IFDIR
		if gitpath.IsDotGit(name) {
			if w.opts.RefuseGitPaths {
				return &Error{Path: p, Err: ErrGitPath}
			}
			continue
		}
		if w.opts.Skip != nil && w.opts.Skip(p, isDir) {
			continue
		}
		if isDir {
			if strings.Count(p, "/")+1 > MaxDepth {
				return &Error{Path: p, Err: fmt.Errorf("nested deeper than %d directories", MaxDepth)}
			}
			var sub int
			err := retry(func() (err error) {
				sub, err = unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
				return err
			})
			switch {
			case err == unix.ELOOP: // a link now
				return &Error{Path: p, Err: ErrSymlink}
			case err == unix.ENOTDIR:
				return &Error{Path: p, Err: fmt.Errorf("replaced while read: %w", ErrNotRegular)}
			case err != nil:
				return &Error{Path: p, Err: err}
			}
			if err := w.dir(sub, p, full, pkg, ignored || pkg.Match(full, true)); err != nil {
				return err
			}
			continue
		}
		data, mode, err := readAt(fd, name, w.opts.MaxFileSize)
		if err != nil {
			return &Error{Path: p, Err: err}
		}
		file := &File{Path: p, Data: data, Mode: mode}
		if KRMCandidate(p) && !ignored && !pkg.Match(full, false) {
			if file.Docs, err = Parse(data, w.opts.PathPrefix+p); err != nil {
				return &Error{Path: p, Err: err}
			}
			if file.Docs != nil {
				file.Header = TakeHeader(data, file.Docs)
			}
		}
		w.t.Files[p] = file
	}
	return nil
}

// KRMCandidate reports whether kpt's reader reads the file at rel: *.yaml, *.yml
// (kyaml's kio.DefaultMatch) or a Kptfile.
func KRMCandidate(rel string) bool {
	base := path.Base(rel)
	if base == KptfileName {
		return true
	}
	for _, g := range kio.DefaultMatch {
		if ok, _ := path.Match(g, base); ok {
			return true
		}
	}
	return false
}

// Parse reads data as the documents of a KRM file whose resources get the path
// annotation annotationPath. It returns nil (a text file) when data holds no document,
// or a document that is not a map with apiVersion and kind.
// Errors: data is not well-formed YAML (the decoder's message).
func Parse(data []byte, annotationPath string) ([]*Doc, error) {
	// Well-formed YAML at all?
	dec := yaml.NewDecoder(bytes.NewReader(data))
	count := 0
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if !yaml.IsYNodeEmptyDoc(&n) {
			count++
		}
	}
	if count == 0 {
		return nil, nil
	}
	nodes, err := (&kio.ByteReader{
		Reader:            bytes.NewReader(data),
		PreserveSeqIndent: true,
		DisableUnwrapping: true,
		WrapBareSeqNode:   true,
		SetAnnotations: map[string]string{
			vocab.PathAnnotations[0]: annotationPath,
			vocab.PathAnnotations[1]: annotationPath,
		},
	}).Read()
	if err != nil {
		return nil, nil // well-formed YAML that is no resource (e.g. a scalar document)
	}
	if len(nodes) == 0 {
		return nil, nil
	}
	docs := make([]*Doc, 0, len(nodes))
	for _, n := range nodes {
		y := n.YNode()
		if y.Kind != yaml.MappingNode || n.Field(yaml.BareSeqNodeWrappingKey) != nil ||
			n.GetApiVersion() == "" || n.GetKind() == "" {
			return nil, nil
		}
		doc := &Doc{Node: yaml.NewRNode(y)}
		if d := n.Document(); d != nil && d.Kind == yaml.DocumentNode {
			doc.Head, doc.Line, doc.Foot = d.HeadComment, d.LineComment, d.FootComment
		}
		docs = append(docs, doc)
	}
	return docs, nil
}

// TakeHeader returns the header of the KRM file data (its leading comment and blank
// lines, and "---" separators among them, byte for byte; "\r\n" read as "\n" as kyaml reads it)
// and removes those comments from its parsed docs: the first document's head comment
// and the head comment of the first resource's first field.
func TakeHeader(data []byte, docs []*Doc) string {
	// Only the header's lines are looked at and copied, not the whole file.
	end := 0
	for end < len(data) {
		nl := bytes.IndexByte(data[end:], '\n')
		line := data[end:]
		if nl >= 0 {
			line = data[end : end+nl]
		}
		t := bytes.TrimSpace(line)
		separator := string(t) == "---" || bytes.HasPrefix(t, []byte("--- #"))
		if len(t) > 0 && t[0] != '#' && !separator {
			break
		}
		if nl < 0 {
			end = len(data)
			break
		}
		end += nl + 1
	}
	if len(docs) > 0 {
		docs[0].Head = ""
		if y := docs[0].Node.YNode(); y.Kind == yaml.MappingNode && len(y.Content) > 0 {
			y.Content[0].HeadComment = ""
		}
	}
	return strings.ReplaceAll(string(data[:end]), "\r\n", "\n")
}

// readerAnnotations are the annotations kyaml's reader and kpt put on resources, which
// never go into a file.
var readerAnnotations = []string{
	vocab.PathAnnotations[0], vocab.PathAnnotations[1],
	vocab.IndexAnnotations[0], vocab.IndexAnnotations[1],
	vocab.IDAnnotations[0], vocab.IDAnnotations[1],
	kioutil.SeqIndentAnnotation,
}

// Encode writes header (verbatim) and docs as one YAML file as kyaml's kio.ByteWriter
// (kpt's writer) does: documents separated by "---", each sequence indented as its
// seqindent annotation says, reader annotations removed; each document's own comments
// (Head, Line, Foot) around it. docs are not changed.
// Errors: the encoder's.
func Encode(header string, docs []*Doc) ([]byte, error) {
	nodes := make([]*yaml.RNode, len(docs))
	for i, d := range docs {
		nodes[i] = yaml.NewRNode(&yaml.Node{Kind: yaml.DocumentNode, HeadComment: d.Head, LineComment: d.Line,
			FootComment: d.Foot, Content: []*yaml.Node{d.Node.YNode()}})
	}
	var b bytes.Buffer
	b.WriteString(header)
	if err := (kio.ByteWriter{Writer: &b, ClearAnnotations: readerAnnotations}).Write(nodes); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
