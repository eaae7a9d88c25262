package function

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// StandaloneInput reads the item files of a standalone run
// (`krm-merge fn-config.yaml a.yaml b.yaml ...`; "-" names stdin) and returns them as one
// multi-document YAML stream, in argument order, each file a separate run of documents.
//
// It exists because kyaml's command.Build (v0.21.2) joins the files with io.MultiReader
// and no document separator: when a file does not start with `---`, its first document
// runs into the last document of the previous file, which gives duplicate keys or a
// silently lost resource. Here every file starts a new document.
//
// Input: the item paths (the arguments after the functionConfig) and stdin. Output: the
// stream, to be given to kyaml as stdin with the single item argument "-". Errors: a file
// that cannot be read, named by its path; stdin named twice.
func StandaloneInput(paths []string, stdin io.Reader) (io.Reader, error) {
	var buf bytes.Buffer
	readStdin := false
	for _, p := range paths {
		var data []byte
		var err error
		if p == "-" {
			if readStdin {
				return nil, fmt.Errorf("standalone items: stdin (-) named more than once")
			}
			readStdin = true
			data, err = io.ReadAll(stdin)
		} else {
			data, err = os.ReadFile(p)
		}
		if err != nil {
			return nil, fmt.Errorf("standalone items: cannot read %s: %w", p, err)
		}
		if buf.Len() > 0 {
			buf.WriteString("\n---\n")
		}
		buf.Write(data)
	}
	return &buf, nil
}
