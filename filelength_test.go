package main

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxGoLines is the most lines a Go file of this module may have (docs/architecture.md,
// "Packages and layers"): a longer file holds more than one concern, and is split by
// concern (its tests too). Generated files ("// Code generated ... DO NOT EDIT.") are
// exempt.
const maxGoLines = 600

// TestGoFileLength fails on a non-generated Go file, tests included, over maxGoLines.
func TestGoFileLength(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		lines, generated, err := goFileLines(path)
		if err != nil {
			return err
		}
		if !generated && lines > maxGoLines {
			t.Errorf("%s has %d lines, over %d: split it by concern", path, lines, maxGoLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// goFileLines counts the lines of the Go file at path and reports whether it carries
// Go's generated-code marker before its package clause.
func goFileLines(path string) (lines int, generated bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	header := true
	for sc.Scan() {
		lines++
		line := sc.Text()
		if header {
			if strings.HasPrefix(line, "// Code generated ") && strings.HasSuffix(line, " DO NOT EDIT.") {
				generated = true
			}
			header = !strings.HasPrefix(line, "package ")
		}
	}
	return lines, generated, sc.Err()
}
