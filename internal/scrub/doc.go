// Package scrub makes results safe to print on a terminal. Values from the input (keys,
// names, file paths, a parser's quote of the input) reach result messages, and an escape
// sequence among them would act on the terminal kpt, kustomize or a standalone run
// prints them on.
//
// String writes each control character but the newline, and each byte that is not
// UTF-8, as a Go escape (`\x1b`); Results does so to every message, file path and field
// path of a framework.Results, and drops a resourceRef whose apiVersion, kind, name or
// namespace holds a control character (the message still says which item).
//
// Callers: package function scrubs a run's results before they are written or
// reported; internal/inputcheck scrubs the error result it writes for input refused
// before the run.
package scrub
