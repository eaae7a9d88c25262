package keepfile

import (
	"bytes"
	"errors"
	"io"
	"slices"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/keepbytes"
	"github.com/krm-merge/krm-merge/internal/textmerge"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/pkgio"
)

// Source says which candidate a Result's Data is.
type Source int

const (
	// Encoded is merged as given: there was nothing to keep (no dest and no updated
	// file), or no other candidate read as merged reads.
	Encoded Source = iota
	// Kept is dest's bytes with the merge's changes in the updated release's formatting
	// (C1 in the package documentation); for an added file, merged in the updated
	// release's formatting (X).
	Kept
	// KeptDest is dest's bytes with the merge's changed lines as encoded (C2).
	KeptDest
	// Upstream is the updated release's file as fetched, when the merged resources read
	// exactly as it reads (the local copy changed nothing in it that the merge kept):
	// the fallback of C1, whose line merges can misplace a change where upstream
	// formats a whole block otherwise than the encoding.
	Upstream
)

// String is the source's name: "encoded", "kept", "kept-dest" or "upstream".
func (s Source) String() string {
	switch s {
	case Kept:
		return "kept"
	case KeptDest:
		return "kept-dest"
	case Upstream:
		return "upstream"
	}
	return "encoded"
}

// Result is the file to write.
type Result struct {
	// Data is the file's bytes: the merged bytes given, or bytes whose Normalize
	// equals them.
	Data []byte
	// Source says which candidate Data is.
	Source Source
	// Rejected counts the candidates tried before Data that did not read as merged
	// reads (0 when the first one did).
	Rejected int
}

// ErrNotKRM is Normalize's error for data that holds no document, or a document that
// is not a map with apiVersion and kind (pkgio.Parse's rule for a KRM file).
var ErrNotKRM = errors.New("not a KRM file")

// Normalize returns the KRM file data as pkg update encodes it: its documents read with
// pkgio.Parse, its header with pkgio.TakeHeader, written back with pkgio.Encode (kpt's
// writer: yaml.v3, maps indented by 2, each resource's sequence indentation as read,
// "\n" line ends, reader annotations removed).
// Errors: data is not well-formed YAML (the decoder's message); ErrNotKRM.
func Normalize(data []byte) ([]byte, error) {
	docs, err := pkgio.Parse(data, "keepbytes.yaml")
	if err != nil {
		return nil, err
	}
	if docs == nil {
		return nil, ErrNotKRM
	}
	return pkgio.Encode(pkgio.TakeHeader(data, docs), docs)
}

// Input is one KRM file of a merge.
type Input struct {
	// Merged is the merged resources as pkgio.Encode writes them: what pkg update
	// writes without this package.
	Merged []byte
	// Dest is the file's local bytes; nil for a file the merge adds.
	Dest []byte
	// DestEncoded is Normalize(Dest) when the caller has it (pkgio.Encode of Dest's
	// documents and header as read); nil to compute it.
	DestEncoded []byte
	// Updated is the updated release's file at the same path as fetched, before kpt's
	// bookkeeping is added; nil when the updated release has no such KRM file.
	Updated []byte
}

// File returns the bytes to write for the file in (see the package documentation for
// the candidates): the first candidate that equals in.Merged or whose Normalize equals
// in.Merged, else in.Merged. It never fails and does not change in.
func File(in Input) Result {
	merged, dest, denc, updated := in.Merged, in.Dest, in.DestEncoded, in.Updated
	crlf := allCRLF(dest)
	if dest == nil {
		crlf = allCRLF(updated)
	}
	if crlf {
		dest = toLF(dest)
	}
	if allCRLF(updated) {
		updated = toLF(updated)
	}
	if dest != nil && denc == nil {
		var err error
		if denc, err = Normalize(dest); err != nil {
			dest = nil // unreadable: nothing of it can be kept
		}
	}
	var uraw []byte
	if updated != nil {
		var err error
		if uraw, err = Normalize(updated); err != nil {
			updated = nil
		}
	}
	res := Result{Data: merged, Source: Encoded}
	if dest == nil && updated == nil {
		return res
	}
	var mergedKeys []string
	try := func(src Source, out []byte) bool {
		if crlf {
			out = toCRLF(out)
		}
		if bytes.Equal(out, merged) {
			res.Data, res.Source = out, src
			return true
		}
		if got, err := Normalize(out); err == nil && bytes.Equal(got, merged) {
			// Normalize drops the reader annotations (kyaml's path, index, id,
			// seqindent) and the reader sets its own: out must hold the same
			// annotation keys as merged, none of them.
			if mergedKeys == nil {
				mergedKeys, err = annotationKeys(merged)
			}
			if keys, kerr := annotationKeys(out); err == nil && kerr == nil && slices.Equal(keys, mergedKeys) {
				res.Data, res.Source = out, src
				return true
			}
		}
		res.Rejected++
		return false
	}
	x, z := merged, denc
	formatted := updated != nil && !bytes.Equal(uraw, updated) // upstream's formatting is not the encoding's
	if formatted {
		x = keepbytes.Lines(uraw, merged, updated, textmerge.FavorDest)
		if dest != nil {
			z = keepbytes.Lines(uraw, denc, updated, textmerge.FavorDest)
		}
	}
	if dest == nil {
		if try(Kept, x) {
			return res
		}
	} else {
		// Both candidates are dest's bytes with the merge's changes: the first in
		// upstream's formatting, the second as encoded. The first goes first unless it
		// moves more of dest's lines (where upstream's formatting of a whole block
		// differs from dest's, as a 4-space upstream does from a kpt copy).
		first, second := keepbytes.Lines(z, dest, x, textmerge.FavorUpdated), []byte(nil)
		// Without upstream's formatting the two are one; when the first is the
		// encoding itself, it needs no second.
		if formatted && !bytes.Equal(first, merged) {
			second = keepbytes.Lines(denc, dest, merged, textmerge.FavorUpdated)
		}
		order := []Source{Kept, Upstream, KeptDest}
		if second != nil && !bytes.Equal(first, second) && keepbytes.Moved(dest, second) < keepbytes.Moved(dest, first) {
			order = []Source{KeptDest, Kept, Upstream}
		}
		for _, src := range order {
			var out []byte
			switch src {
			case Kept:
				out = first
			case KeptDest:
				out = second
			case Upstream:
				if !formatted || bytes.Equal(updated, first) {
					continue // tried as the first candidate, or read as merged by the encoding
				}
				out = updated
			}
			if out != nil && try(src, out) {
				return res
			}
		}
	}
	res.Data, res.Source = merged, Encoded
	return res
}

// annotationKeys lists the keys of every metadata.annotations map in data, document
// by document (each document's list ends with ""; empty documents are none), as
// yaml.v3 reads them (escapes and aliases resolved), without kyaml's reader, which
// sets annotations of its own.
// Errors: the decoder's.
func annotationKeys(data []byte) ([]string, error) {
	keys := []string{}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err == io.EOF {
			return keys, nil
		} else if err != nil {
			return nil, err
		}
		if yaml.IsYNodeEmptyDoc(&doc) {
			continue
		}
		for _, root := range doc.Content {
			for _, meta := range values(root, "metadata") {
				for _, ann := range values(meta, "annotations") {
					for i := 0; i+1 < len(ann.Content); i += 2 {
						keys = append(keys, resolve(ann.Content[i]).Value)
					}
				}
			}
		}
		keys = append(keys, "")
	}
}

// values returns the values of the map m's keys named key, aliases resolved; none
// when m is not a map.
func values(m *yaml.Node, key string) []*yaml.Node {
	m = resolve(m)
	var out []*yaml.Node
	for i := 0; m.Kind == yaml.MappingNode && i+1 < len(m.Content); i += 2 {
		if resolve(m.Content[i]).Value == key {
			out = append(out, resolve(m.Content[i+1]))
		}
	}
	return out
}

func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// allCRLF reports whether data has a line end and every "\n" in it follows a "\r".
func allCRLF(data []byte) bool {
	n := bytes.Count(data, []byte("\n"))
	return n > 0 && n == bytes.Count(data, []byte("\r\n"))
}

func toLF(data []byte) []byte { return bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")) }

func toCRLF(data []byte) []byte { return bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")) }
