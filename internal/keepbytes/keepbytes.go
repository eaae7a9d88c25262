package keepbytes

import (
	"bytes"
	"errors"

	"github.com/krm-merge/krm-merge/internal/pkgio"
	"github.com/krm-merge/krm-merge/internal/textmerge"
)

// Source says which candidate a Result's Data is.
type Source int

const (
	// Encoded is merged as given: there was nothing to keep (no dest and no updated
	// file), or no other candidate read as merged reads.
	Encoded Source = iota
	// Kept is dest's bytes with the merge's changes in the updated release's formatting
	// (out in the package documentation); for an added file, merged in the updated
	// release's formatting (X).
	Kept
	// KeptDest is dest's bytes with the merge's changed lines as encoded.
	KeptDest
)

// String is the source's name: "encoded", "kept" or "kept-dest".
func (s Source) String() string {
	switch s {
	case Kept:
		return "kept"
	case KeptDest:
		return "kept-dest"
	}
	return "encoded"
}

// Result is the file to write.
type Result struct {
	// Data is the file's bytes; Normalize(Data) equals the merged bytes given.
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
	try := func(src Source, out []byte) bool {
		if crlf {
			out = toCRLF(out)
		}
		if bytes.Equal(out, merged) {
			res.Data, res.Source = out, src
			return true
		}
		if got, err := Normalize(out); err == nil && bytes.Equal(got, merged) {
			res.Data, res.Source = out, src
			return true
		}
		res.Rejected++
		return false
	}
	x, z := merged, denc
	if updated != nil {
		x = merge3(uraw, merged, updated, textmerge.FavorDest)
		if dest != nil {
			z = merge3(uraw, denc, updated, textmerge.FavorDest)
		}
	}
	switch {
	case dest == nil:
		if try(Kept, x) {
			return res
		}
	case try(Kept, merge3(z, dest, x, textmerge.FavorUpdated)):
		return res
	case updated != nil && try(KeptDest, merge3(denc, dest, merged, textmerge.FavorUpdated)):
		return res
	}
	res.Data, res.Source = merged, Encoded
	return res
}

// allCRLF reports whether data has a line end and every "\n" in it follows a "\r".
func allCRLF(data []byte) bool {
	n := bytes.Count(data, []byte("\n"))
	return n > 0 && n == bytes.Count(data, []byte("\r\n"))
}

func toLF(data []byte) []byte { return bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")) }

func toCRLF(data []byte) []byte { return bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")) }
