// Command krm-merge-textmerge merges three text files line by line with
// internal/textmerge, as `git merge-file -p --theirs DEST BASE UPDATED` does (with
// -ours, as --ours), for the benchmark that sets the two side by side
// (krm-merge-bench) and for trying inputs by hand:
//
//	krm-merge-textmerge [-ours] DEST BASE UPDATED > merged
//
// The merged text goes to stdout, each conflict resolved towards updated (or dest with
// -ours), and the number of conflicts, when there are any, to stderr. The exit code
// is 0, or 1 when a file cannot be read or written.
//
// With -gen N it instead writes the benchmark's generated input of about N lines
// (bench/gen.TextMerge; -moved is the percentage of sections upstream moves, all by
// default) as the files base, dest and updated into the directory -dir.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/krm-merge/krm-merge/bench/gen"
	"github.com/krm-merge/krm-merge/internal/textmerge"
)

func main() {
	ours := flag.Bool("ours", false, "resolve conflicts towards DEST")
	lines := flag.Int("gen", 0, "write a generated input of about this many lines instead of merging")
	dir := flag.String("dir", ".", "where -gen writes base, dest and updated")
	moved := flag.Int("moved", 100, "with -gen: the percentage of sections upstream moves")
	seed := flag.Uint64("seed", 1, "with -gen: the seed")
	flag.Parse()
	if *lines > 0 {
		base, dest, updated := gen.TextMerge(gen.TextOptions{Lines: *lines, Moved: *moved, Seed: *seed})
		for name, b := range map[string][]byte{"base": base, "dest": dest, "updated": updated} {
			if err := os.WriteFile(filepath.Join(*dir, name), b, 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "krm-merge-textmerge:", err)
				os.Exit(1)
			}
		}
		return
	}
	if flag.NArg() != 3 {
		fmt.Fprintln(os.Stderr, "usage: krm-merge-textmerge [-ours] DEST BASE UPDATED")
		os.Exit(1)
	}
	var files [3][]byte
	for i := range files {
		b, err := os.ReadFile(flag.Arg(i))
		if err != nil {
			fmt.Fprintln(os.Stderr, "krm-merge-textmerge:", err)
			os.Exit(1)
		}
		files[i] = b
	}
	favor := textmerge.FavorUpdated
	if *ours {
		favor = textmerge.FavorDest
	}
	res := textmerge.Merge(files[1], files[0], files[2], favor)
	if _, err := os.Stdout.Write(res.Merged); err != nil {
		fmt.Fprintln(os.Stderr, "krm-merge-textmerge:", err)
		os.Exit(1)
	}
	if n := len(res.Conflicts); n > 0 {
		fmt.Fprintf(os.Stderr, "%d conflicts\n", n)
	}
}
