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
	"strings"

	gitignore "github.com/monochromegane/go-gitignore"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
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
}

// Error is a file that cannot be read as kpt reads it.
type Error struct {
	// Path is the file, relative to the package root.
	Path string
	// Err is the cause.
	Err error
}

// Error is "<path>: <cause>".
func (e *Error) Error() string { return e.Path + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Read reads the package at root.
// Errors (*Error naming the file): a symbolic link (not supported); a file kpt would
// read as KRM that is not well-formed YAML; I/O errors.
func Read(root string, opts Options) (*Tree, error) {
	t := &Tree{Files: map[string]*File{}}
	type ignore struct {
		dir     string // absolute
		matcher gitignore.IgnoreMatcher
	}
	var ignores []ignore     // innermost package last
	var ignoredDirs []string // directories a .krmignore matches: nothing under them is KRM
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	err = filepath.WalkDir(absRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(absRoot, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (d.Name() == ".git" || (opts.Skip != nil && opts.Skip(rel, true))) {
				return filepath.SkipDir
			}
			for len(ignores) > 0 && !within(p, ignores[len(ignores)-1].dir) {
				ignores = ignores[:len(ignores)-1]
			}
			if rel != "." && len(ignores) > 0 && ignores[len(ignores)-1].matcher.Match(p, true) {
				ignoredDirs = append(ignoredDirs, p)
			}
			if _, err := os.Stat(filepath.Join(p, KptfileName)); err == nil || rel == "." {
				var m gitignore.IgnoreMatcher = gitignore.DummyIgnoreMatcher(false)
				if f, err := os.Open(filepath.Join(p, IgnoreFile)); err == nil {
					m = gitignore.NewGitIgnoreFromReader(p, f)
					f.Close()
				}
				ignores = append(ignores, ignore{dir: p, matcher: m})
			}
			return nil
		}
		if opts.Skip != nil && opts.Skip(rel, false) {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return &Error{Path: rel, Err: errors.New("symbolic links are not supported; replace it with the file, or list it in .krmignore and keep it out of the upstream")}
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return &Error{Path: rel, Err: err}
		}
		f := &File{Path: rel, Data: data, Mode: info.Mode().Perm()}
		for len(ignores) > 0 && !within(filepath.Dir(p), ignores[len(ignores)-1].dir) {
			ignores = ignores[:len(ignores)-1]
		}
		ignored := len(ignores) > 0 && ignores[len(ignores)-1].matcher.Match(p, false)
		for _, d := range ignoredDirs {
			ignored = ignored || within(p, d)
		}
		if KRMCandidate(rel) && !ignored {
			if f.Docs, err = Parse(data, opts.PathPrefix+rel); err != nil {
				return &Error{Path: rel, Err: err}
			}
			if f.Docs != nil {
				f.Header = TakeHeader(data, f.Docs)
			}
		}
		t.Files[rel] = f
		return nil
	})
	if err != nil {
		var pe *Error
		if errors.As(err, &pe) {
			return nil, err
		}
		return nil, fmt.Errorf("reading %s: %w", root, err)
	}
	return t, nil
}

func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
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
			kioutil.PathAnnotation:       annotationPath,
			kioutil.LegacyPathAnnotation: annotationPath,
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
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	end := 0
	for end < len(text) {
		nl := strings.IndexByte(text[end:], '\n')
		line := text[end:]
		if nl >= 0 {
			line = text[end : end+nl]
		}
		t := strings.TrimSpace(line)
		separator := t == "---" || strings.HasPrefix(t, "--- #")
		if t != "" && !strings.HasPrefix(t, "#") && !separator {
			break
		}
		if nl < 0 {
			end = len(text)
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
	return text[:end]
}

// readerAnnotations are the annotations kyaml's reader and kpt put on resources, which
// never go into a file.
var readerAnnotations = []string{
	kioutil.PathAnnotation, kioutil.LegacyPathAnnotation,
	kioutil.IndexAnnotation, kioutil.LegacyIndexAnnotation,
	kioutil.IdAnnotation, kioutil.LegacyIdAnnotation,
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
