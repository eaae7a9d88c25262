// Package pkgcmd is the `krm-merge pkg` command group: `krm-merge pkg update
// DIR[@VERSION]`, a cobra front end to pkg/pkgupdate that prints the report for a
// person or as JSON, and `krm-merge pkg outdated [DIR...]`, which lists the packages
// behind their upstream (pkgupdate.Outdated) and exits 0, ExitBehind (1) or
// ExitOutdatedError (2). Every name, value and diff line in either comes from the package
// or the upstream, and is escaped where a terminal would act on it (the text report
// with scrub.Escape, the JSON document with \u escapes).
//
// It needs the git CLI; in the function's container image, which has none, it fails with
// gitfetch.ErrNoGit's message and changes nothing.
//
// Its conflict policy defaults to mark (config.PkgUpdateDefaults: a conflict stops the
// update with markers in the files), where pkgupdate's and the function's default is
// updated; --on-conflict, then a --config file's onConflict, override it. The flags
// that set a functionConfig key take their valid values and defaults from config.Keys;
// --continue and --abort refuse every flag but the few they read (flags.go). An update stopped at
// markers is no error for a person (no "Error:" line) and exits ExitMarked (2); every
// error exits 1 (ExitCode).
//
// Only the krm-merge command (package main) calls it, through New and ExitCode; Go
// programs call pkgupdate.Update directly.
package pkgcmd
