// Package yamlenc writes ResourceList items as kyaml writes them, byte for byte, about
// 34 times faster.
//
// # Why
//
// Writing the output ResourceList was krm-merge's biggest cost: yaml.v3's encoder
// (which kyaml's yaml.NewEncoder configures) spends about 170-220 ns per output byte
// on events, allocations and per-character analysis. AppendItem writes the same
// bytes straight from the node tree into a byte slice, with no allocation beyond the
// slice's growth (yaml.v3's tag resolution, reproduced here, still allocates an
// error for rare number-like values that are not numbers, such as "1e3x" or
// "2024-13-01"). BenchmarkAppendItem, on the items of a generated 3-way list
// (bench/gen, 200 resources, 584 items, 1.9 MB of output): 9.4 ms and 0 allocations
// per list against 324 ms and 209,655 allocations for yaml.v3, a ratio of 34 (it
// moves between 30 and 40 on a shared machine).
//
// # Oracle and fallback
//
// yaml.v3 (go.yaml.in/yaml/v3, through kyaml's yaml.NewEncoder: indent 2, compact
// sequence indentation, no line wrapping) is the definition of the right bytes: the
// tests compare AppendItem with it on every item it accepts (real manifests, the
// repository's YAML, generated lists, perturbed and tricky scalars, fuzzing). For
// anything outside the subset below AppendItem declines, and the caller encodes the
// item with yaml.v3 as before: a decline costs speed, never a byte.
//
// The code follows yaml.v3's encode.go ((*encoder).node) and emitterc.go (the
// emitter's state machine, yaml_emitter_analyze_scalar,
// yaml_emitter_select_scalar_style and the scalar writers) for the subset, keeping
// the part of the emitter's state that decides the output (column, whitespace,
// indention); the comments name the functions each piece reproduces.
//
// # The subset
//
// Accepted:
//   - block mappings and block sequences at any depth (up to 1000 levels): mappings
//     in sequences ("- a: b"), sequences in sequences ("- - a"), sequences as mapping
//     values with compact indentation ("key:\n- a"); empty mappings and sequences of
//     any style ("{}" and "[]");
//   - mapping keys that are scalars yaml.v3 writes as simple keys: one line, at most
//     128 bytes;
//   - scalars with any value that is valid UTF-8, in plain, single-quoted,
//     double-quoted or literal style as the emitter chooses it from the node's style
//     (DoubleQuotedStyle, SingleQuotedStyle, LiteralStyle; a value holding "\n"
//     becomes literal), its tag (an explicit tag is dropped when the value resolves
//     to it; a !!str that would resolve to another tag, like "80", "true", "null",
//     "" or "0x1F", is double-quoted) and the value's characters (indicators,
//     leading and trailing spaces, breaks, special characters: plain falls back to
//     single quotes, single quotes to double quotes, literal to double quotes);
//   - tags on mappings and sequences that are !!map and !!seq.
//
// Declined (AppendItem returns false and leaves dst as it was):
//   - any comment (HeadComment, LineComment, FootComment) on any node;
//   - anchors and aliases, DocumentNode and Kind 0 inside the item, nil nodes;
//   - non-empty flow mappings and sequences;
//   - folded scalars, invalid UTF-8 (yaml.v3 writes !!binary), any tag yaml.v3 would
//     write, TaggedStyle;
//   - keys yaml.v3 writes as complex keys ("? "): collections, multi-line scalars,
//     scalars longer than 128 bytes; mappings with an odd number of Content nodes.
//
// # Output that reads back
//
// yaml.v3 writes some values as text its own parser refuses or reads otherwise: a
// block scalar (literal, as it writes every value holding "\n", or folded) whose value
// starts with a tab ("found a tab character where an indentation space is expected"),
// and folded values whose lines do not fold back. AppendItem writes what yaml.v3
// writes; Unreadable finds such scalars and MakeReadable sets them double-quoted,
// which escapes every character and always reads back (readable_test.go reads back
// generated values in every style and context). The writers (pkg/function/internal/resourcelist,
// package function for every host) call it before encoding.
//
// Only pkg/function/internal/resourcelist calls AppendItem, for each output item, and
// ItemOnAllCores, for the functionConfig; it falls back to yaml.v3 where they
// decline.
package yamlenc
