// Package gittest runs `git merge-file` for the differential tests that hold
// krm-merge's line and element merges to git's (internal/textmerge, pkg/merge's value
// merge, pkg update's conflict markers), and generates their edited texts. Only tests
// import it.
package gittest
