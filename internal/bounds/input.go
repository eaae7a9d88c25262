package bounds

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Memory grows with an input's YAML nodes, not its bytes: a node of typical Kubernetes
// YAML (about 14 bytes of text) costs about 350 bytes of resident memory at the peak of
// a run, 25 bytes a byte, but the smallest nodes cost far more per byte: a list of
// 260,000 empty lists (3 bytes of text a node) peaked at 453 MB, 1.7 KB a node and 580
// bytes a byte (bench/memory_test.go's BenchmarkMemory measures both, in process, where
// the collector runs more lazily: up to 2.9 KB a node). So the whole input is bounded
// twice: its bytes (MaxInputBytes, before anything is decoded) and its nodes with
// aliases expanded (MaxNodes, counted once decoded, before any merge). An input past the
// node bound costs its decoding only: about 75 bytes of memory a byte of text at most
// (16 MB of empty lists, refused, peaked at 1.2 GB), so at most about 5 GB at the
// default byte bound; an input within both bounds peaks below about 4.3 GB (2,500,000
// nodes at 1.7 KB), about 1 GB for typical YAML.

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
// expanded: 2,500,000, about 35 MB of typical Kubernetes YAML (some 3,500 resources in
// three versions). At the worst cost measured (1.7 KB of resident memory a node) an
// input at the bound peaks near 4.3 GB; typical YAML near 1 GB.
const DefaultMaxNodes = 2_500_000

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

// Error says the input is longer than the bound, names the variable that sets it, and
// what to do.
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
