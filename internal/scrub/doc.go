// Package scrub makes results safe to print on a terminal. Values from the input (keys,
// names, file paths, values, a parser's quote of the input) reach results, and an escape
// sequence among them would act on the terminal kpt, kustomize or a standalone run
// prints them on; a bidi override, a line separator or tag characters would change what
// a person reads.
//
// String writes each character that is not graphic but the newline (control characters,
// DEL, C1 controls, bidi and other format characters, U+2028 and U+2029), and each byte
// that is not UTF-8, as a Go escape (`\x1b`, `\u202e`, `\U000e0041`), as `krm-merge pkg
// update` escapes its output; Results does so to every message, file path, field path
// and the strings of each currentValue and proposedValue of a framework.Results, escapes
// such characters in a resourceRef, and drops a resourceRef whose apiVersion, kind, name
// or namespace holds a control character (the message still says which item).
//
// Callers: package function scrubs a run's results before they are written or
// reported; pkg/function/internal/inputcheck scrubs the error result it writes for input refused
// before the run.
package scrub
