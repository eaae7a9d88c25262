// Package resourcelist reads and writes a KRM ResourceList fast: items are decoded and
// encoded independently on all cores and the output is streamed, behind the same
// framework.ResourceListProcessor as kyaml's framework.Execute.
//
// The output reads exactly as that of framework.Execute with kyaml's
// kio.ByteReadWriter{KeepReaderAnnotations: true} (what command.Build runs for a
// ResourceList on stdin), and has the same bytes but for two differences. What the
// processor did not change keeps its input bytes: an output item that reads as the
// input item it came from is written with that item's input lines, and a changed one
// with its input lines around its changes (keep.go; kyaml's writer re-encodes every
// item, turning a block with a trailing space into a double-quoted string, escaping a
// character past U+FFFF, adding indentation indicators); kyaml reads the output back
// as its own (identity_test.go, FuzzRead). And a scalar yaml.v3 would write as text it
// cannot read back (yamlenc.Unreadable) is written double-quoted, where kyaml writes
// output no parser reads. kyaml decodes the whole list as one YAML document and encodes
// it as one, on one core, holding a copy of every item. Here the input is cut into runs
// of whole items at the item boundaries of the top-level `items:` list, each run is
// decoded as `items:` followed by its own lines (the same text in the same context, so
// the same nodes), and each run of output items is encoded as `items:` with those items
// and spliced between the list's head and tail. A functionConfig's inline sources (a
// ResourceMerge's spec.original, spec.updated and spec.src, which can be most of the
// input) are cut at their elements and decoded the same way, on the same rules, and put
// in place in the list's other fields, decoded without them (inline.go): the same nodes,
// line numbers included. Where they cannot be cut so, those fields are decoded whole.
//
// Input the cut could read differently from a whole-document decode is not read fast:
// Read returns ErrUnsupported and the caller uses kyaml's path. That is: anything but a
// block-style mapping with `items:` on a line of its own, CR line endings, document
// markers (`---`, `...`) or directives, comment lines at or left of an item's dash or
// after an item's last line, lines left of an item's content, and runs whose decode
// does not give exactly the items counted (anchors used across items, for one), and an
// item that repeats `metadata`, or `annotations` in it (bounds.HeadRepeated: kyaml's
// annotation edits drop the empty copy, so the caller checks such input as read), and a
// list or item with a malformed head or host annotations kyaml's edits fail on
// (CheckItems: the caller reports them as read, naming the item). On the
// way out, items with foot comments are kept in one run with their successor, and a
// last item with foot comments sends the whole write through kyaml's writer.
//
// Only the krm-merge command (package main) calls it, around package function's
// Processor, on a ResourceList read from stdin; input it declines goes to kyaml's
// framework.Execute unchanged.
package resourcelist
