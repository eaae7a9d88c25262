// Package host is what a KRM host (kpt, kustomize, kyaml's fn framework) puts on the
// items it gives a function and does to the items the function returns: where an item
// lives (path and index annotations, legacy copies included), its input id, the role
// annotation, and the restoration of comments and field order by id (Finish). The merge
// never takes these annotations from a source (vocab.IsHostAnnotation); dest's stay.
//
// Finish decides what a merged item must look like so that the host running the
// function leaves it as the merge wrote it, and still restores the file's own comments.
//
// kpt (fn eval, fn render) and kustomize run a function through kyaml's
// runtimeutil.FunctionFilter: each input item gets an id annotation
// (internal.config.kubernetes.io/id and the legacy config.k8s.io/id), and each output item
// that carries an input's id gets, from that input, kyaml's comments.CopyComments (every
// comment slot the output leaves empty is filled from the node the host pairs it with)
// and order.SyncOrder (map fields re-sorted into the input's order, fields the input lacks
// last). That is also how the comments that belong to the file rather than to an item (a
// license header before the first document, comments between documents) come back: the
// host withholds them from the function and restores them onto the output item with the
// input's id. An item without the id loses them.
//
// The host pairs list elements by position (in every list, keyed or not, before it pairs
// keyed elements by key), so on a list where upstream inserted or deleted elements it
// would copy dest's comments onto other elements. The merge places new elements so that
// positions still pair where updated's order allows (merge.Options.KeepDestPositions);
// Finish keeps the id in every case (the file's comments are never lost) and names each
// comment the host still copies onto another node, for a warning (docs/hosts.md).
//
// Callers: package resources (HasID, to set merge.Options.KeepDestPositions; and
// resources (Finish on every merged item, vocab.IsHostAnnotation to keep host annotations out of
// merges and plans, the annotation edits on added items).
package host
