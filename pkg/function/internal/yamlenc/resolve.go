package yamlenc

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Short tags, as yaml.v3 spells them (resolve.go there).
const (
	nullTag      = "!!null"
	boolTag      = "!!bool"
	strTag       = "!!str"
	intTag       = "!!int"
	floatTag     = "!!float"
	timestampTag = "!!timestamp"
	seqTag       = "!!seq"
	mapTag       = "!!map"
	mergeTag     = "!!merge"
)

// longTagPrefix is the prefix of yaml.org's long tags, which yaml.v3's shortTag turns
// into "!!".
const longTagPrefix = "tag:yaml.org,2002:"

// tagIs reports whether shortTag(tag) == short for a "!!"-prefixed short: tag spelled
// short or long, without building a string.
func tagIs(tag, short string) bool {
	if len(tag) == len(short) {
		return tag == short
	}
	return len(tag) == len(longTagPrefix)+len(short)-2 &&
		tag[:len(longTagPrefix)] == longTagPrefix && tag[len(longTagPrefix):] == short[2:]
}

// resolveTable is yaml.v3's hint table: the first byte of a plain scalar says which
// kinds of value it may be.
var resolveTable = func() (t [256]byte) {
	t['+'] = 'S' // sign
	t['-'] = 'S'
	for c := '0'; c <= '9'; c++ {
		t[c] = 'D' // digit
	}
	for _, c := range "yYnNtTfFoO~" {
		t[c] = 'M' // in the map
	}
	t['.'] = '.' // float (potentially in the map)
	return t
}()

// resolveMap is yaml.v3's resolveMap, as a switch: the values with a fixed tag.
func resolveMap(s string) (string, bool) {
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return boolTag, true
	case "", "~", "null", "Null", "NULL":
		return nullTag, true
	case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return floatTag, true
	case "<<":
		return mergeTag, true
	}
	return "", false
}

// yamlStyleFloat is yaml.v3's float syntax.
var yamlStyleFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// numeric marks the bytes a number can hold in any form yaml.v3 accepts (strconv's
// ParseInt, ParseUint with base 0, the float syntax, the 0b and 0o forms): a plain
// scalar with any other byte, that is not a timestamp, resolves to !!str.
var numeric = func() (t [256]bool) {
	for _, c := range "0123456789abcdefABCDEFxXoObB_+-." {
		t[c] = true
	}
	return t
}()

// resolve returns the tag yaml.v3's resolve("", s) gives the plain scalar s (!!str,
// !!null, !!bool, !!int, !!float, !!timestamp or !!merge). It is that function's
// logic; shortcuts skip parses that cannot succeed (they would allocate errors) and
// do not change the result.
func resolve(s string) string {
	hint := byte('N')
	if s != "" {
		hint = resolveTable[s[0]]
	}
	if hint == 0 {
		return strTag
	}
	if tag, ok := resolveMap(s); ok {
		return tag
	}
	switch hint {
	case 'M':
		// Checked the map above.
	case '.':
		// strconv.ParseFloat accepts a leading '.' only before a digit.
		if len(s) > 1 && s[1] >= '0' && s[1] <= '9' {
			if _, err := strconv.ParseFloat(s, 64); err == nil {
				return floatTag
			}
		}
	case 'D', 'S':
		if isTimestamp(s) {
			return timestampTag
		}
		for i := 0; i < len(s); i++ {
			if !numeric[s[i]] {
				return strTag
			}
		}
		plain := strings.ReplaceAll(s, "_", "")
		// No integer form holds a '.'.
		if strings.IndexByte(plain, '.') < 0 {
			if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
				return intTag
			}
			if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
				return intTag
			}
		}
		if yamlStyleFloat.MatchString(plain) {
			if _, err := strconv.ParseFloat(plain, 64); err == nil {
				return floatTag
			}
		}
		if strings.IndexByte(plain, '.') >= 0 {
			return strTag
		}
		if prefixedInt(plain, "0b", 2) || prefixedInt(plain, "0o", 8) {
			return intTag
		}
	}
	return strTag
}

// prefixedInt reports whether plain is an integer in base after prefix ("0b", "0o"), as
// yaml.v3's resolve reads one: prefix and digits as a signed or unsigned 64-bit value,
// or "-", prefix and digits as a signed one.
func prefixedInt(plain, prefix string, base int) bool {
	if digits, ok := strings.CutPrefix(plain, prefix); ok {
		_, errS := strconv.ParseInt(digits, base, 64)
		_, errU := strconv.ParseUint(digits, base, 64)
		return errS == nil || errU == nil
	}
	if digits, ok := strings.CutPrefix(plain, "-"+prefix); ok {
		_, err := strconv.ParseInt("-"+digits, base, 64)
		return err == nil
	}
	return false
}

// timestampFormats are yaml.v3's allowedTimestampFormats.
var timestampFormats = []string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

// isTimestamp is yaml.v3's parseTimestamp, reporting success only.
func isTimestamp(s string) bool {
	// Quick check: all date formats start with YYYY-.
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			break
		}
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, format := range timestampFormats {
		if _, err := time.Parse(format, s); err == nil {
			return true
		}
	}
	return false
}
