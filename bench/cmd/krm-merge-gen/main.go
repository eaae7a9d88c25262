// Command krm-merge-gen writes a generated ResourceList to stdout (package gen), for
// looking at the benchmark inputs or feeding them to other tools.
//
//	go run ./bench/cmd/krm-merge-gen -n 1000 -mode 3way > rl.yaml
//	go run ./bench/cmd/krm-merge-gen -keyed env -n 20000 > env.yaml
//	go run ./bench/cmd/krm-merge-gen -upgrade testdata/upstream/kube-prometheus/v0.16.0,testdata/upstream/kube-prometheus/v0.17.0 -inline > kp.yaml
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/krm-merge/krm-merge/bench/gen"
)

func main() {
	n := flag.Int("n", 1000, "resources (or keyed list elements with -keyed)")
	mode := flag.String("mode", "3way", "3way or 2way")
	keyed := flag.String("keyed", "", "one resource with one big keyed list: env or cr")
	seed := flag.Uint64("seed", 1, "seed")
	upgrade := flag.String("upgrade", "", "a 3-way upgrade of real releases: ORIGINAL_DIR,UPDATED_DIR (gen.Upgrade)")
	inline := flag.Bool("inline", false, "with -upgrade: inline sources in the functionConfig instead of path roles")
	flag.Parse()
	var st gen.Stats
	var err error
	switch {
	case *upgrade != "":
		original, updated, _ := strings.Cut(*upgrade, ",")
		st, err = gen.Upgrade(os.Stdout, original, updated, *inline)
	case *keyed != "":
		st, err = gen.KeyedList(os.Stdout, *keyed, *n, *seed)
	default:
		st, err = gen.ResourceList(os.Stdout, gen.Options{Resources: *n, Mode: gen.Mode(*mode), Seed: *seed})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "%d items, %d bytes\n", st.Items, st.Bytes)
}
