package inputcheck

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/bounds"
	"github.com/krm-merge/krm-merge/pkg/function/internal/resourcelist"
)

// Standalone reads the item files of a standalone run
// (`krm-merge fn-config.yaml a.yaml b.yaml ...`; "-" names stdin) and returns them as one
// multi-document YAML stream, in argument order, each file a separate run of documents.
//
// It exists because kyaml's command.Build (v0.21.2) joins the files with io.MultiReader
// and no document separator: when a file does not start with `---`, its first document
// runs into the last document of the previous file, which gives duplicate keys or a
// silently lost resource. Here every file starts a new document.
//
// The items are checked as ResourceList checks a ResourceList on stdin (checkList,
// checkRead, resourcelist.CheckItems): kyaml's reader fails on a malformed head naming
// no place, or drops the field, before the processor runs.
//
// The files together are bounded as stdin is (bounds.MaxInputBytes).
//
// Input: the item paths (the arguments after the functionConfig) and stdin. Output: the
// stream, to be given to kyaml as stdin with the single item argument "-". Errors: a file
// that cannot be read, named by its path; stdin named twice; an item of the wrong shape,
// or whose host annotations kyaml cannot keep in step, named by file, document (from 0)
// and field. Malformed YAML is left to kyaml's reader, which names the line.
func Standalone(paths []string, stdin io.Reader) (io.Reader, error) {
	var buf bytes.Buffer
	var files []standaloneFile
	readStdin := false
	limit, err := bounds.MaxInputBytes()
	if err != nil {
		return nil, fmt.Errorf("standalone items: %w", err)
	}
	for _, p := range paths {
		var data []byte
		var err error
		if p == "-" {
			if readStdin {
				return nil, fmt.Errorf("standalone items: stdin (-) named more than once")
			}
			readStdin = true
			data, err = bounds.ReadInput(stdin, limit-int64(buf.Len()), 0)
		} else {
			data, err = readFile(p, limit-int64(buf.Len()))
		}
		if err != nil {
			return nil, fmt.Errorf("standalone items: cannot read %s: %w", p, err)
		}
		if buf.Len() > 0 {
			buf.WriteString("\n---\n")
		}
		buf.Write(data)
		name := p
		if p == "-" {
			name = "stdin"
		}
		files = append(files, standaloneFile{name, len(readDocs(data))})
	}
	if err := checkStandalone(buf.Bytes(), files); err != nil {
		return nil, fmt.Errorf("standalone items: %w", err)
	}
	return &buf, nil
}

// readFile reads the file at p, at most limit bytes (bounds.ReadInput).
func readFile(p string, limit int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return bounds.ReadInput(f, max(limit, 0), 0)
}

// standaloneFile is one item file of a standalone run and the documents kyaml reads in it.
type standaloneFile struct {
	name string
	docs int
}

// readDocs returns the documents of data as kyaml's ByteReader splits them, nil when
// the YAML does not parse.
func readDocs(data []byte) []*yaml.RNode {
	docs, err := (&kio.ByteReader{Reader: bytes.NewReader(data), OmitReaderAnnotations: true, DisableUnwrapping: true}).Read()
	if err != nil {
		return nil
	}
	return docs
}

// checkStandalone checks the joined item stream data as ResourceList checks stdin; a
// problem with an item is named by its file and document when the files' documents add
// up to the stream's.
func checkStandalone(data []byte, files []standaloneFile) error {
	docs := readDocs(data)
	if docs == nil {
		return nil // kyaml's reader says where the YAML is malformed
	}
	items, err := checkList(docs, data)
	if err != nil {
		return err
	}
	if err := checkRead(items); err != nil {
		return err
	}
	heads := make([]*yaml.Node, len(items))
	for i, n := range items {
		heads[i] = n.YNode()
	}
	p := resourcelist.CheckItems(heads)
	if p == nil {
		return nil
	}
	where := fmt.Sprintf("items[%d]", p.Item)
	total := 0
	for _, f := range files {
		total += f.docs
	}
	if len(items) == len(docs) && total == len(docs) {
		doc := p.Item
		for _, f := range files {
			if doc < f.docs {
				where = fmt.Sprintf("document %d of %s", doc, f.name)
				break
			}
			doc -= f.docs
		}
	}
	return fmt.Errorf("%s: %s", where, p.Msg)
}
