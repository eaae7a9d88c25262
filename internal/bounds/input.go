package bounds

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Memory grows with an input's YAML nodes, not its bytes: a node costs a few hundred
// bytes decoded and merged, and up to about 1.7 KB at the peak for the smallest nodes
// (a list of 260,000 empty lists, 3 bytes of text each, peaked at 453 MB of resident
// memory, 580 bytes per input byte; bench/memory_test.go measures it). So the whole
// input is bounded twice: its bytes (MaxInputBytes, read before anything is decoded)
// and its nodes with aliases expanded (MaxNodes, counted before any merge).

// MaxInputEnv and MaxNodesEnv are the environment variables that set the bounds; kpt
// passes them to a function with `kpt fn eval --env` or a Kptfile's env list.
const (
	MaxInputEnv = "KRM_MERGE_MAX_INPUT"
	MaxNodesEnv = "KRM_MERGE_MAX_NODES"
)

// DefaultMaxInputBytes is the default bound on a ResourceList's bytes read from stdin
// (or the item files of a standalone run): 64 MiB, as `krm-merge pkg update`'s
// --max-file-size.
const DefaultMaxInputBytes = 64 << 20

// DefaultMaxNodes is the default bound on the YAML nodes of a whole input, aliases
// expanded: 4,000,000. At the worst cost measured (about 1.7 KB of resident memory a
// node, for a list of empty lists), an input at the bound peaks near 7 GiB; typical
// Kubernetes YAML (about 14 bytes of text and 350 bytes of memory a node) holds 55 MB
// and peaks near 1.4 GB. Past it an input is refused before any merge, having cost only
// its decoding (about 200 bytes a node).
const DefaultMaxNodes = 4_000_000

// MaxInputBytes is the bound on an input's bytes: MaxInputEnv's value (bytes, or with
// KiB, MiB or GiB), else DefaultMaxInputBytes. Errors: a value that is not a positive
// size, naming the variable.
func MaxInputBytes() (int64, error) {
	v, ok := os.LookupEnv(MaxInputEnv)
	if !ok || v == "" {
		return DefaultMaxInputBytes, nil
	}
	n, err := parseSize(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s %q is not a size: give bytes, or a number with KiB, MiB or GiB (default 64MiB)", MaxInputEnv, v)
	}
	return n, nil
}

// MaxNodes is the bound on an input's YAML nodes, aliases expanded: MaxNodesEnv's value,
// else DefaultMaxNodes. Errors: a value that is not a positive integer, naming the
// variable.
func MaxNodes() (int, error) {
	v, ok := os.LookupEnv(MaxNodesEnv)
	if !ok || v == "" {
		return DefaultMaxNodes, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s %q is not a positive number of YAML nodes (default %d)", MaxNodesEnv, v, DefaultMaxNodes)
	}
	return n, nil
}

// parseSize reads bytes, or a number with KiB, MiB or GiB (powers of 1024; Ki, K, Mi, M,
// Gi, G and B too).
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	shift := 0
	for _, u := range []struct {
		suffix string
		shift  int
	}{{"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"K", 10}, {"M", 20}, {"G", 30}, {"B", 0}} {
		if strings.HasSuffix(s, u.suffix) {
			s, shift = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<62)>>shift {
		return 0, fmt.Errorf("not a size: %q", s)
	}
	return n << shift, nil
}

// TooLargeError is the error of an input longer than its bound (ReadInput).
type TooLargeError struct {
	// Limit is the bound, in bytes.
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the input is longer than %d bytes, the bound on the function's input (%s; default 64MiB): "+
		"split the package, or raise the bound if the machine has the memory (about 350 bytes of memory a byte of "+
		"typical YAML)", e.Limit, MaxInputEnv)
}

// ReadInput reads r whole, at most limit bytes: it returns the bytes and nil, or, when r
// holds more, the first limit bytes and a *TooLargeError (it reads one byte past the
// limit, no more); a read error is returned as it is, with what was read before it.
func ReadInput(r io.Reader, limit int64, sizeHint int) ([]byte, error) {
	var buf bytes.Buffer
	if sizeHint > 0 && int64(sizeHint) <= limit {
		buf.Grow(sizeHint + 512)
	}
	n, err := buf.ReadFrom(io.LimitReader(r, limit+1))
	data := buf.Bytes()
	if err != nil {
		return data, err
	}
	if n > limit {
		return data[:limit], &TooLargeError{Limit: limit}
	}
	return data, nil
}
