package yamlenc

import (
	"strings"
	"unicode/utf8"
)

// Scalar styles, as the emitter selects them.
const (
	plainStyle = iota
	singleStyle
	doubleStyle
	literalStyle
)

// scalarInfo is what yaml_emitter_analyze_scalar finds out about a value, for block
// context (the flow flags are not needed: the subset writes no flow scalars), and
// what encode.go checks of it.
type scalarInfo struct {
	invalid     bool // not valid UTF-8 (the other fields are then unset)
	newline     bool // holds "\n"
	multiline   bool // line_breaks
	blockPlain  bool // block_plain_allowed
	singleQuote bool // single_quoted_allowed
	block       bool // block_allowed (literal, folded)
}

// boring marks the bytes that, after the first byte of a value, change none of the
// analysis's flags: printable ASCII that is not a space, ':' or '#'.
var boring = func() (t [256]bool) {
	for c := 0x21; c <= 0x7E; c++ {
		t[c] = c != ':' && c != '#'
	}
	return t
}()

// quiet marks the bytes that, as the first byte of a value, change none of the
// analysis's flags: boring, not an indicator, and not '-' or '.', which may start
// "---" or "...".
var quiet = func() (t [256]bool) {
	t = boring
	for _, c := range ",[]{}&*!|>'\"%@`?-." {
		t[c] = false
	}
	return t
}()

// analyze is yaml_emitter_analyze_scalar (emitterc.go) with unicode enabled; it also
// checks that v is valid UTF-8.
func analyze(v string) scalarInfo {
	if len(v) == 0 {
		return scalarInfo{blockPlain: true, singleQuote: true}
	}
	if quiet[v[0]] {
		// The common case: nothing to record on the way, as the general loop below
		// would find.
		i := 1
		for i < len(v) && boring[v[i]] {
			i++
		}
		if i == len(v) {
			return scalarInfo{blockPlain: true, singleQuote: true, block: true}
		}
	}
	var (
		blockIndicators bool
		lineBreaks      bool
		newline         bool
		special         bool
		tabs            bool
		leadingSpace    bool
		trailingSpace   bool
		breakSpace      bool
		spaceBreak      bool
		checkedUTF8     bool

		precededByWhitespace = true
		previousSpace        bool
		previousBreak        bool
	)
	if len(v) >= 3 && (v[:3] == "---" || v[:3] == "...") {
		blockIndicators = true
	}
	for i := 0; i < len(v); {
		c := v[i]
		if i > 0 && boring[c] {
			// A run of characters for which the general case below records nothing.
			i++
			for i < len(v) && boring[v[i]] {
				i++
			}
			previousSpace, previousBreak, precededByWhitespace = false, false, false
			continue
		}
		if c >= 0x80 && !checkedUTF8 {
			// v[:i] is ASCII; the indexing below relies on valid UTF-8.
			if !utf8.ValidString(v[i:]) {
				return scalarInfo{invalid: true}
			}
			checkedUTF8 = true
		}
		w := width(c)
		followedByWhitespace := i+w >= len(v) || v[i+w] == ' ' || v[i+w] == '\t'
		if i == 0 {
			switch c {
			case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
				blockIndicators = true
			case '?', ':', '-':
				if followedByWhitespace {
					blockIndicators = true
				}
			}
		} else {
			switch c {
			case ':':
				if followedByWhitespace {
					blockIndicators = true
				}
			case '#':
				if precededByWhitespace {
					blockIndicators = true
				}
			}
		}
		if c == '\t' {
			tabs = true
		} else if !isPrintable(v, i) {
			special = true
		}
		if c == ' ' {
			if i == 0 {
				leadingSpace = true
			}
			if i+w == len(v) {
				trailingSpace = true
			}
			if previousBreak {
				breakSpace = true
			}
			previousSpace, previousBreak = true, false
		} else if isBreak(v, i) {
			lineBreaks = true
			newline = newline || c == '\n'
			if previousSpace {
				spaceBreak = true
			}
			previousSpace, previousBreak = false, true
		} else {
			previousSpace, previousBreak = false, false
		}
		precededByWhitespace = isBlankz(v, i)
		i += w
	}
	// leading_break and trailing_break imply line_breaks, which has the same effect
	// on every flag they set.
	info := scalarInfo{newline: newline, multiline: lineBreaks, blockPlain: true, singleQuote: true, block: true}
	if leadingSpace || trailingSpace || lineBreaks || tabs || special || blockIndicators {
		info.blockPlain = false
	}
	if trailingSpace || spaceBreak || special {
		info.block = false
	}
	if breakSpace || spaceBreak || tabs || special {
		info.singleQuote = false
	}
	return info
}

// width is yaml.v3's width: the length of the UTF-8 sequence c starts.
func width(c byte) int {
	switch {
	case c&0x80 == 0x00:
		return 1
	case c&0xE0 == 0xC0:
		return 2
	case c&0xF0 == 0xE0:
		return 3
	case c&0xF8 == 0xF0:
		return 4
	}
	return 0
}

// isPrintable is yaml.v3's is_printable for the character at v[i].
func isPrintable(v string, i int) bool {
	c := v[i]
	switch {
	case c == 0x0A, c >= 0x20 && c <= 0x7E:
		return true
	case c == 0xC2:
		return v[i+1] >= 0xA0
	case c > 0xC2 && c < 0xED:
		return true
	case c == 0xED:
		return v[i+1] < 0xA0
	case c == 0xEE:
		return true
	case c == 0xEF:
		return !(v[i+1] == 0xBB && v[i+2] == 0xBF) && !(v[i+1] == 0xBF && (v[i+2] == 0xBE || v[i+2] == 0xBF))
	}
	return false
}

// isBreak is yaml.v3's is_break: CR, LF, NEL, LS or PS at v[i].
func isBreak(v string, i int) bool {
	switch v[i] {
	case '\r', '\n':
		return true
	case 0xC2:
		return v[i+1] == 0x85
	case 0xE2:
		return v[i+1] == 0x80 && (v[i+2] == 0xA8 || v[i+2] == 0xA9)
	}
	return false
}

// isBlankz is yaml.v3's is_blankz: space, tab, break or NUL at v[i].
func isBlankz(v string, i int) bool {
	c := v[i]
	return c == ' ' || c == '\t' || c == 0 || isBreak(v, i)
}

// selectStyle is yaml_emitter_select_scalar_style for an implicit (untagged) scalar
// in block context; simpleKey is the simple-key context (a mapping key).
func selectStyle(style int, info scalarInfo, empty, simpleKey bool) int {
	if simpleKey && info.multiline {
		style = doubleStyle
	}
	if style == plainStyle {
		if !info.blockPlain || empty && simpleKey {
			style = singleStyle
		}
	}
	if style == singleStyle && !info.singleQuote {
		style = doubleStyle
	}
	if style == literalStyle && (!info.block || simpleKey) {
		style = doubleStyle
	}
	return style
}

// writePlain is yaml_emitter_write_plain_scalar for a value the analysis allows plain
// in block context (no breaks) and no line wrapping (best_width is unlimited).
func (e *encoder) writePlain(v string) {
	if len(v) > 0 && !e.ws {
		e.buf = append(e.buf, ' ')
	}
	e.buf = append(e.buf, v...)
	if len(v) > 0 {
		e.ws = false
	}
	e.ind = false
}

// writeSingle is yaml_emitter_write_single_quoted_scalar without line wrapping;
// multiline tells whether v holds a break, indent is the scalar's indentation, for
// the lines after a break.
func (e *encoder) writeSingle(v string, multiline bool, indent int) {
	e.indicator("'", true, false, false)
	if !multiline {
		// One line: the value with its quotes doubled.
		for {
			q := strings.IndexByte(v, '\'')
			if q < 0 {
				break
			}
			e.buf = append(e.buf, v[:q+1]...)
			e.buf = append(e.buf, '\'')
			v = v[q+1:]
		}
		e.buf = append(e.buf, v...)
		if len(v) > 0 {
			e.ind = false
		}
	} else {
		breaks := false
		for i := 0; i < len(v); {
			c := v[i]
			switch {
			case c == ' ':
				// Not after a break: break_space rules out single quotes.
				e.buf = append(e.buf, ' ')
				i++
			case isBreak(v, i):
				if !breaks && c == '\n' {
					e.putBreak()
				}
				i = e.writeBreak(v, i)
				breaks = true
			default:
				if breaks {
					e.writeIndent(indent)
				}
				if c == '\'' {
					e.buf = append(e.buf, '\'')
				}
				w := width(c)
				e.buf = append(e.buf, v[i:i+w]...)
				i += w
				e.ind = false
				breaks = false
			}
		}
	}
	e.indicator("'", false, false, false)
	e.ws = false
	e.ind = false
}

// writeBreak is yaml.v3's write_break for the break at v[i]; it returns the index
// after it.
func (e *encoder) writeBreak(v string, i int) int {
	if v[i] == '\n' {
		e.putBreak()
		return i + 1
	}
	w := width(v[i])
	e.buf = append(e.buf, v[i:i+w]...)
	e.col = 0
	e.ind = true
	return i + w
}

// putBreak is yaml.v3's put_break with LF breaks.
func (e *encoder) putBreak() {
	e.buf = append(e.buf, '\n')
	e.col = 0
	e.ind = true
}

// needsEscape marks the ASCII bytes the double-quoted writer escapes: the
// non-printable ones (including tab and line breaks), '"' and '\\'.
var needsEscape = func() (t [128]bool) {
	for c := 0; c < 128; c++ {
		t[c] = !(c == 0x0A || c >= 0x20 && c <= 0x7E) || c == '\n' || c == '\r' || c == '"' || c == '\\'
	}
	return t
}()

const hexDigits = "0123456789ABCDEF"

// writeDouble is yaml_emitter_write_double_quoted_scalar with unicode enabled and no
// line wrapping.
func (e *encoder) writeDouble(v string) {
	e.indicator(`"`, true, false, false)
	// is_bom looks at the start of the value, not at the character: a value that
	// starts with a BOM has every character escaped.
	bom := len(v) >= 3 && v[0] == 0xEF && v[1] == 0xBB && v[2] == 0xBF
	for i := 0; i < len(v); {
		c := v[i]
		if c < 0x80 && !bom {
			// Runs of ASCII that need no escape.
			j := i
			for j < len(v) && v[j] < 0x80 && !needsEscape[v[j]] {
				j++
			}
			if j > i {
				e.buf = append(e.buf, v[i:j]...)
				i = j
				continue
			}
		}
		if !bom && c >= 0x80 && isPrintable(v, i) && !isBreak(v, i) {
			w := width(c)
			e.buf = append(e.buf, v[i:i+w]...)
			i += w
			continue
		}
		// Escape the character at i.
		w := width(c)
		var r rune
		switch w {
		case 1:
			r = rune(c & 0x7F)
		case 2:
			r = rune(c & 0x1F)
		case 3:
			r = rune(c & 0x0F)
		case 4:
			r = rune(c & 0x07)
		}
		for k := 1; k < w; k++ {
			r = r<<6 + rune(v[i+k])&0x3F
		}
		i += w
		e.buf = append(e.buf, '\\')
		switch r {
		case 0x00:
			e.buf = append(e.buf, '0')
		case 0x07:
			e.buf = append(e.buf, 'a')
		case 0x08:
			e.buf = append(e.buf, 'b')
		case 0x09:
			e.buf = append(e.buf, 't')
		case 0x0A:
			e.buf = append(e.buf, 'n')
		case 0x0B:
			e.buf = append(e.buf, 'v')
		case 0x0C:
			e.buf = append(e.buf, 'f')
		case 0x0D:
			e.buf = append(e.buf, 'r')
		case 0x1B:
			e.buf = append(e.buf, 'e')
		case 0x22:
			e.buf = append(e.buf, '"')
		case 0x5C:
			e.buf = append(e.buf, '\\')
		case 0x85:
			e.buf = append(e.buf, 'N')
		case 0xA0:
			e.buf = append(e.buf, '_')
		case 0x2028:
			e.buf = append(e.buf, 'L')
		case 0x2029:
			e.buf = append(e.buf, 'P')
		default:
			var digits int
			switch {
			case r <= 0xFF:
				e.buf = append(e.buf, 'x')
				digits = 2
			case r <= 0xFFFF:
				e.buf = append(e.buf, 'u')
				digits = 4
			default:
				e.buf = append(e.buf, 'U')
				digits = 8
			}
			for k := (digits - 1) * 4; k >= 0; k -= 4 {
				e.buf = append(e.buf, hexDigits[(r>>uint(k))&0x0F])
			}
		}
	}
	e.indicator(`"`, false, false, false)
	e.ws = false
	e.ind = false
}

// writeLiteral is yaml_emitter_write_literal_scalar (with its block scalar hints) for
// a value without comments; indent is the scalar's indentation.
func (e *encoder) writeLiteral(v string, indent int) {
	e.indicator("|", true, false, false)
	// yaml_emitter_write_block_scalar_hints; the value is not empty (block_allowed
	// is false for an empty value).
	if v[0] == ' ' || isBreak(v, 0) {
		e.indicator("2", false, false, false) // best_indent
	}
	i := len(v) - 1
	for v[i]&0xC0 == 0x80 {
		i--
	}
	switch {
	case !isBreak(v, i):
		e.indicator("-", false, false, false)
	case i == 0:
		e.indicator("+", false, false, false)
	default:
		i--
		for v[i]&0xC0 == 0x80 {
			i--
		}
		if isBreak(v, i) {
			e.indicator("+", false, false, false)
		}
	}
	// yaml_emitter_process_line_comment_linebreak with no comment.
	e.putBreak()
	e.ws = true
	breaks := true
	for i := 0; i < len(v); {
		if isBreak(v, i) {
			i = e.writeBreak(v, i)
			breaks = true
			continue
		}
		if breaks {
			e.writeIndent(indent)
		}
		// The rest of the line.
		j := i
		for j < len(v) && v[j] != '\n' && v[j] != '\r' && v[j] != 0xC2 && v[j] != 0xE2 {
			j++
		}
		if j == i {
			j += width(v[i])
		}
		e.buf = append(e.buf, v[i:j]...)
		i = j
		e.ind = false
		breaks = false
	}
}
