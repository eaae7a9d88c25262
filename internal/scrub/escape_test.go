package scrub

import "testing"

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain/path.yaml":          "plain/path.yaml",
		"naïve ü 日本":               "naïve ü 日本",
		"a\x1b[2Jb":                `a\x1b[2Jb`,
		"tab\there":                `tab\there`,
		"new\nline\r":              `new\nline\r`,
		"del\x7f":                  `del\x7f`,
		"c1\u009b31m":              `c1\u009b31m`,
		"bidi\u202eevil":           `bidi\u202eevil`,
		"bad\xffutf8":              `bad\xffutf8`,
		`back\slash`:               `back\slash`,
		"zero\x00":                 `zero\x00`,
		"line\u2028sep":            `line\u2028sep`,
		"isolate\u2066x\u2069":     `isolate\u2066x\u2069`,
		"bom\ufeff":                `bom\ufeff`,
		"nbsp\u00a0ok":             "nbsp\u00a0ok",
		"emoji 🙂":                  "emoji 🙂",
		"\x1b]8;;http://x\x1b\\ok": `\x1b]8;;http://x\x1b\ok`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
		if got := Escape(Escape(in)); got != Escape(in) {
			t.Errorf("Escape is not idempotent on %q: %q", in, got)
		}
	}
	if got, want := EscapeLine("\tindented\x1b[31m"), "\tindented\\x1b[31m"; got != want {
		t.Errorf("EscapeLine keeps tabs: %q, want %q", got, want)
	}
}
