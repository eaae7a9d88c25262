package resourcelist

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
)

const smallList = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n"

// TestRunReaderPanicGoesToKyaml: a panic in the fast reader is not a crash; the same
// bytes go to kyaml's path, as for input the reader declines.
func TestRunReaderPanicGoesToKyaml(t *testing.T) {
	defer func(r func([]byte) (*List, error)) { read = r }(read)
	read = func([]byte) (*List, error) { panic("reader bug") }
	var got []byte
	var out, errw bytes.Buffer
	declined := false
	err := Run(framework.ResourceListProcessorFunc(func(*framework.ResourceList) error { return nil }),
		strings.NewReader(smallList), &out, &errw, func(in io.Reader) error {
			got, _ = io.ReadAll(in)
			return nil
		}, Memory{AfterRead: func() func() { t.Error("AfterRead called on a declined input"); return nil }, AfterDecline: func() { declined = true }})
	if err != nil || string(got) != smallList {
		t.Fatalf("kyaml path not taken with the input: err %v, got %q", err, got)
	}
	if !declined {
		t.Error("Memory.AfterDecline not called")
	}
}

// TestRunProcessingPanicIsAnError: a panic while processing (here a processor that does
// not recover its own) is an error naming it an internal error, printed to errw, with
// nothing written to w.
func TestRunProcessingPanicIsAnError(t *testing.T) {
	var out, errw bytes.Buffer
	restored := false
	err := Run(framework.ResourceListProcessorFunc(func(*framework.ResourceList) error { panic("processor bug") }),
		strings.NewReader(smallList), &out, &errw, func(io.Reader) error {
			t.Fatal("kyaml path taken")
			return nil
		}, Memory{AfterRead: func() func() { return func() { restored = true } }})
	if !restored {
		t.Error("the restore func of Memory.AfterRead was not called when the run ended")
	}
	if err == nil || !strings.Contains(err.Error(), "internal error") || !strings.Contains(err.Error(), "processor bug") {
		t.Fatalf("err = %v", err)
	}
	if errw.String() != err.Error() || out.Len() != 0 {
		t.Fatalf("stderr %q, stdout %q", errw.String(), out.String())
	}
}
