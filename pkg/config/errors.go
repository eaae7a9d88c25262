package config

import "strings"

// ErrorPrefix starts every functionConfig error message, so that a user reading a
// results entry knows the problem is in the function's configuration, not in an item.
const ErrorPrefix = "functionConfig: "

// Error is one problem with the functionConfig. Load reports problems as Errors, a list
// of *Error; errors.As(err, &e) with e of type *Error finds the first one.
//
// A caller turns each Error into a results entry with severity error and
// field.path = Field (docs/function.md, "Output": errors say what and where).
type Error struct {
	// Field is the path of the offending field inside the functionConfig, in the
	// notation of a results entry's field.path: "data.mode", "spec.mergeOnPath",
	// "spec.original[0].metadata.name", "kind". Empty when the problem is the
	// functionConfig as a whole (e.g. it is not a map).
	Field string
	// Value is the offending value or key as given (for an unknown key, the key).
	// Empty when there is none (e.g. a missing key).
	Value string
	// Valid lists the accepted values or keys when they are a finite set (enums, key
	// names, accepted kinds); nil otherwise.
	Valid []string
	// Message says what is wrong, without ErrorPrefix.
	Message string
}

// Error returns ErrorPrefix followed by the message, e.g.
// `functionConfig: mode "3-way" is invalid; valid values: 3way, 2way, apply`.
func (e *Error) Error() string {
	return ErrorPrefix + e.Message
}

// Errors is every problem Load found, in a stable order: the kind, then unknown and
// repeated keys in the order they appear, then (typed form) the schema's type and
// required-field failures sorted by field, then bad values in the order the keys appear,
// then problems that involve several keys. Load never returns an empty Errors: no
// problem is a nil error.
type Errors []*Error

// Error returns one line per problem, each starting with ErrorPrefix.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the problems, so that errors.As and errors.Is see each *Error.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}
