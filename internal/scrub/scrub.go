package scrub

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
)

// String returns s with each control character but the newline, and each byte that is
// not UTF-8, written as a Go escape (`\x1b`); other text is kept as it is.
func String(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r != '\n' && unicode.IsControl(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Results makes rs safe to print on a terminal, in place: each message, file path and
// field path through String, and a resourceRef whose apiVersion, kind, name or namespace
// holds a control character dropped. Nil entries are skipped.
func Results(rs framework.Results) {
	for _, r := range rs {
		if r == nil {
			continue
		}
		r.Message = String(r.Message)
		if r.File != nil {
			r.File.Path = String(r.File.Path)
		}
		if r.Field != nil {
			r.Field.Path = String(r.Field.Path)
		}
		if ref := r.ResourceRef; ref != nil && strings.IndexFunc(ref.APIVersion+ref.Kind+ref.Name+ref.Namespace, unicode.IsControl) >= 0 {
			r.ResourceRef = nil
		}
	}
}
