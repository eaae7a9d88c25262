package function

import (
	"io"

	"github.com/krm-merge/krm-merge/pkg/function/internal/inputcheck"
	"github.com/krm-merge/krm-merge/pkg/function/internal/resourcelist"
)

// Memory is the process's collector policy around a run of Serve: BeforeRead is
// called before the input is decoded, AfterRead once the items are decoded (the func
// it returns is called when the run ends), AfterDecline when the fast reader declines
// the input. A nil func is not called; the zero value leaves the collector as it is.
// The binary sets it (cmd/fncmd); a Go caller embedding the function need not.
type Memory = resourcelist.Memory

// Serve is what kyaml's command.Build command does with a ResourceList on in (a
// Processor run on every item, the output ResourceList written to out), through the
// function's fast reader and writer: an item the run does not change keeps its input
// bytes, and the output is otherwise byte-identical to kyaml's. Input the fast reader
// declines goes, as the same bytes, to kyamlPath, which reads a ResourceList from its
// argument and does all of this itself (the command's kyaml path, after
// CheckResourceList). Errors: the run's (printed to errw as command.Build prints them,
// "%v"); a panic while processing or writing, as an "internal error" error. mem is
// called around the read.
func Serve(in io.Reader, out, errw io.Writer, kyamlPath func(io.Reader) error, mem Memory) error {
	return resourcelist.Run(Processor{}, in, out, errw, kyamlPath, mem)
}

// CheckResourceList reads all of r and checks what kyaml's ResourceList reader gets:
// the list's own shape and each item's (apiVersion, kind, metadata and the host's
// annotations), as the function's fast reader checks them. It returns a reader over
// the same bytes for kyaml's path. On failure it writes to w a ResourceList with no
// items and one error result naming the place (the parser's position; the resource,
// file, item index and field) and returns the error, so the binary exits 1 and the
// host shows the result.
func CheckResourceList(r io.Reader, w io.Writer) (io.Reader, error) {
	return inputcheck.ResourceList(r, w)
}

// CheckStandalone joins the item files of a standalone run (`krm-merge
// fn-config.yaml resources.yaml...`; "-" is stdin, read once) into one reader, with a
// document separator between files, and checks each item's shape as
// CheckResourceList does. Errors: a file that cannot be read, named by its path; stdin
// named twice; an item of the wrong shape, named by file, document (from 0) and field.
// Malformed YAML is left to kyaml's reader, which names the line.
func CheckStandalone(paths []string, stdin io.Reader) (io.Reader, error) {
	return inputcheck.Standalone(paths, stdin)
}
