package resourcelist

import (
	"bytes"
	"io"
	"strconv"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/keepbytes"
	"github.com/krm-merge/krm-merge/internal/parallel"
	"github.com/krm-merge/krm-merge/internal/textmerge"
	"github.com/krm-merge/krm-merge/pkg/function/internal/yamlenc"
)

// This file writes an output item with the bytes it had in the input where it reads
// as it did: what the function did not change keeps its input bytes (a block scalar
// with trailing spaces, a character past U+FFFF, a block with an indentation
// indicator, a comment's spacing), which the encoder would otherwise write in its own
// style. The rule:
//
//   - the item as read is encoded as the writer encodes items (enc), before the
//     processor runs; the output item is matched to the input item whose kyaml
//     migration id it carries (set on every item before the processor runs and
//     removed after it: a merged item carries its dest's, an added item its updated
//     item's, a pass-through item its own);
//   - an output item whose encoding equals its input item's enc reads as the input
//     item does: its input bytes are written;
//   - otherwise the change from enc to the output's encoding is merged into the input
//     bytes by YAML lines (keepbytes.Lines), and the result is written when it reads
//     back as one item whose encoding is the output's, else the output's encoding.
//
// So the bytes written always read as the encoding would (the same nodes, values,
// styles and comments, as yaml.v3 reads them); at worst they are the encoding. Items
// with foot comments, and input whose items are not at column 0, are encoded as
// before.

// inputs is what the reader keeps of the input items.
type inputs struct {
	// text is item i's input lines (its dash line to the next item's), nil when not
	// kept (no final line end, or the lines are the item's encoding).
	text [][]byte
	// enc is item i as read, encoded by encodeOne; nil when its text is not kept or it
	// has foot comments.
	enc [][]byte
	// src is, for each output item, the input item it came from, or -1.
	src []int
}

// encode sets in.enc from items as read, before anything changes them. An item whose
// input text is its encoding (a list a kyaml host wrote) has nothing to keep: its text
// is dropped, and the writer encodes it as before, at no further cost. The texts kept
// are copied, so the input itself is not held.
func (in *inputs) encode(items []*yaml.RNode) {
	in.enc = make([][]byte, len(items))
	parallel.ForEach(len(items), 16, func(i int) {
		if i >= len(in.text) || in.text[i] == nil || hasFootComment(items[i].YNode()) {
			if i < len(in.text) {
				in.text[i] = nil
			}
			return
		}
		buf := scratch.Get().(*[]byte)
		defer scratch.Put(buf)
		b, err := encodeInto((*buf)[:0], items[i].YNode())
		*buf = b[:0]
		if err != nil || bytes.Equal(b, in.text[i]) {
			in.text[i] = nil
			return
		}
		in.enc[i], in.text[i] = bytes.Clone(b), bytes.Clone(in.text[i])
	})
}

// scratch holds encoding buffers for encode, which keeps only the encodings that
// differ from their text.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

// match sets in.src from the output items' migration ids (before they are removed).
func (in *inputs) match(items []*yaml.RNode) {
	in.src = make([]int, len(items))
	parallel.ForEach(len(items), 64, func(i int) {
		in.src[i] = -1
		ann := fieldOf(fieldOf(items[i].YNode(), yaml.MetadataField), yaml.AnnotationsField)
		if ann == nil {
			return
		}
		for k := 0; k+1 < len(ann.Content); k += 2 {
			if ann.Content[k].Value == kioutil.InternalAnnotationsMigrationResourceIDAnnotation {
				if id, err := strconv.Atoi(ann.Content[k+1].Value); err == nil && id >= 0 && id < len(in.enc) {
					in.src[i] = id
				}
				return
			}
		}
	})
}

// kept returns the bytes to write for output item i whose encoding is enc: its input
// item's bytes, or them with the item's changes (see the file comment); nil when
// neither reads as enc.
func (in *inputs) kept(i int, enc []byte) []byte {
	if in == nil || i >= len(in.src) || in.src[i] < 0 {
		return nil
	}
	was, text := in.enc[in.src[i]], in.text[in.src[i]]
	if was == nil {
		return nil
	}
	if bytes.Equal(was, enc) {
		return text
	}
	cand := keepbytes.Lines(was, text, enc, textmerge.FavorUpdated)
	if len(cand) == 0 || cand[len(cand)-1] != '\n' || bytes.Equal(cand, enc) || !readsAs(cand, enc) {
		return nil
	}
	return cand
}

// readsAs reports whether text, the lines of one item of `items:`, decodes to one item
// that encodeOne writes as enc.
func readsAs(text, enc []byte) bool {
	var doc yaml.Node
	dec := yaml.NewDecoder(io.MultiReader(bytes.NewReader([]byte("items:\n")), bytes.NewReader(text)))
	if err := dec.Decode(&doc); err != nil {
		return false
	}
	var rest yaml.Node
	if err := dec.Decode(&rest); err != io.EOF {
		return false
	}
	m := doc.Content
	if len(m) != 1 || m[0].Kind != yaml.MappingNode || len(m[0].Content) != 2 || m[0].Content[1].Kind != yaml.SequenceNode ||
		len(m[0].Content[1].Content) != 1 {
		return false
	}
	got, err := encodeOne(m[0].Content[1].Content[0])
	return err == nil && bytes.Equal(got, enc)
}

// encodeOne is the writer's encoding of one item without foot comments (encodeRun's):
// yamlenc.AppendItem, else yaml.v3.
func encodeOne(n *yaml.Node) ([]byte, error) { return encodeInto(nil, n) }

// encodeInto is encodeOne appending to dst.
func encodeInto(dst []byte, n *yaml.Node) ([]byte, error) {
	if b, ok := yamlenc.AppendItem(dst, n); ok {
		return b, nil
	}
	var buf bytes.Buffer
	if err := encodeV3(&buf, []*yaml.RNode{yaml.NewRNode(n)}); err != nil {
		return dst, err
	}
	return append(dst, buf.Bytes()...), nil
}
