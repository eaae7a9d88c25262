package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// upgradeRelease is the real release the inline-sources case upgrades (bench/gen.Upgrade),
// from the module root.
const upgradeRelease = "testdata/upstream/kube-prometheus"

// inlineVsPaths measures the cost of giving the sources inline: the same 3-way upgrade
// of kube-prometheus v0.16.0 to v0.17.0 (the dest an unchanged copy of v0.16.0), once
// with path roles (the three releases as items under old/, new/ and dest/, a ConfigMap
// functionConfig naming the directories) and once with inline sources (the dest as
// items, both releases in a typed ResourceMerge's spec.original and spec.updated, as a
// kustomize transformer is called), written by the gen binary (`-upgrade`). krm-merge
// runs on each alternately, reps rounds, and the best of each is kept. It prints a
// markdown table with the ratio, and fails when the two runs' items differ (their output
// differs only in the functionConfig it echoes).
func inlineVsPaths(out io.Writer, krmMerge, genBin, dir, root string, reps int) error {
	releases := filepath.Join(root, upgradeRelease)
	arg := filepath.Join(releases, "v0.16.0") + "," + filepath.Join(releases, "v0.17.0")
	type form struct {
		name, flag, in, out string
		items               int
		bytes               int64
		best                result
	}
	forms := []*form{{name: "path roles"}, {name: "inline sources", flag: "-inline"}}
	for _, f := range forms {
		f.in = filepath.Join(dir, "upgrade-"+strings.ReplaceAll(f.name, " ", "-")+".yaml")
		f.out = f.in + ".out"
		args := []string{"-upgrade", arg}
		if f.flag != "" {
			args = append(args, f.flag)
		}
		file, err := os.Create(f.in)
		if err != nil {
			return err
		}
		var stderr strings.Builder
		g := exec.Command(genBin, args...)
		g.Stdout, g.Stderr = file, &stderr
		err = g.Run()
		file.Close()
		if err != nil {
			return fmt.Errorf("generating the %s upgrade: %v: %s", f.name, err, stderr.String())
		}
		if _, err := fmt.Sscanf(stderr.String(), "%d items, %d bytes", &f.items, &f.bytes); err != nil {
			return fmt.Errorf("generating the %s upgrade: %q", f.name, stderr.String())
		}
	}
	for i := 0; i < reps; i++ {
		for _, f := range forms {
			r, err := runCommand([]string{krmMerge}, f.in, f.out, 5*time.Minute)
			if err != nil {
				return err
			}
			if r.skipped != "" {
				return fmt.Errorf("the %s upgrade: %s", f.name, r.skipped)
			}
			if f.best.wall == 0 || r.wall < f.best.wall {
				f.best.wall = r.wall
			}
			f.best.peakKB = max(f.best.peakKB, r.peakKB)
		}
	}
	var items [][]byte
	for _, f := range forms {
		b, err := os.ReadFile(f.out)
		if err != nil {
			return err
		}
		i := bytes.Index(b, []byte("\nfunctionConfig:\n"))
		if i < 0 {
			return fmt.Errorf("the %s upgrade: no functionConfig in the output (%s)", f.name, f.out)
		}
		items = append(items, b[:i])
	}
	if !bytes.Equal(items[0], items[1]) {
		return fmt.Errorf("the upgrade's items differ between path roles (%s) and inline sources (%s)", forms[0].out, forms[1].out)
	}
	fmt.Fprintln(out, "\n| kube-prometheus v0.16.0 → v0.17.0, 3-way | input | krm-merge | peak | / path roles |")
	fmt.Fprintln(out, "| --- | --- | ---: | ---: | --- |")
	for _, f := range forms {
		fmt.Fprintf(out, "| %s | %d items, %.1f MB | %s | %s | time %.2fx, peak %.2fx |\n", f.name, f.items, float64(f.bytes)/1e6,
			f.best.time(), f.best.mem(), f.best.wall.Seconds()/forms[0].best.wall.Seconds(), float64(f.best.peakKB)/float64(forms[0].best.peakKB))
	}
	return nil
}
