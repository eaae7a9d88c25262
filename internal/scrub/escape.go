package scrub

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s with every character a terminal could act on written as a Go
// escape: C0 controls and DEL as \xNN (ESC as \x1b; tab, newline and carriage return
// as \t, \n, \r), C1 controls as \u0080 to \u009f, Unicode format characters (bidi
// overrides such as \u202e, zero-width characters), line and paragraph separators,
// unassigned and private-use code points as \uNNNN, and bytes that are not UTF-8 as
// \xNN. Printable text, spaces and backslashes stay as they are, so Escape(Escape(s))
// == Escape(s); it is for showing names and values to a person, not a reversible
// encoding.
func Escape(s string) string { return escape(s, unicode.IsGraphic, quoteHex) }

// EscapeLine is Escape but keeps tabs: for a line of a file shown in a diff.
func EscapeLine(s string) string {
	return escape(s, func(r rune) bool { return r == '\t' || unicode.IsGraphic(r) }, quoteHex)
}

// escape returns s with each rune keep refuses written by quote, and each byte that is
// not UTF-8 as \xNN; s itself when there is none.
func escape(s string, keep func(rune) bool, quote func(*strings.Builder, rune)) string {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || !keep(r) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keep(r):
			b.WriteString(s[i : i+size])
		default:
			quote(&b, r)
		}
		i += size
	}
	return b.String()
}

// quoteHex writes r as Escape does: \t, \n and \r by name, other ASCII as \xNN, the
// rest as \uNNNN or \UNNNNNNNN.
func quoteHex(b *strings.Builder, r rune) {
	switch {
	case r == '\t':
		b.WriteString(`\t`)
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\r':
		b.WriteString(`\r`)
	case r < 0x80:
		fmt.Fprintf(b, `\x%02x`, r)
	case r <= 0xffff:
		fmt.Fprintf(b, `\u%04x`, r)
	default:
		fmt.Fprintf(b, `\U%08x`, r)
	}
}
