package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/krm-merge/krm-merge/pkg/apply/patchmeta/internal/kubescheme"
)

func main() {
	out := flag.String("o", "table.json.gz", "file to write")
	flag.Parse()
	t, err := kubescheme.Table()
	if err == nil {
		var data []byte
		if data, err = kubescheme.Encode(t); err == nil {
			err = os.WriteFile(*out, data, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
