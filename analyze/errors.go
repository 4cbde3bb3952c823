package analyze

import "errors"

// Sentinel errors of the analyze packages: the root and every subpackage (pprof,
// goroutines, logs, jvm, series) return these. The web package maps each to an HTTP status
// in one table; wrap them with fmt.Errorf("…: %w", err) to add detail.
var (
	// ErrTooLarge means an input, or its decompressed form, exceeds a size limit.
	ErrTooLarge = errors.New("input too large")
	// ErrUnsupportedKind means the input is of a kind the requested analysis does not
	// accept (a log where a profile was expected, say), or of no known kind at all.
	ErrUnsupportedKind = errors.New("unsupported kind of input")
	// ErrMalformed means the input claims to be of a known kind but cannot be parsed:
	// a truncated gzip stream, a broken profile.proto, a dump cut mid-frame.
	ErrMalformed = errors.New("malformed input")
	// ErrEmpty means the input has no bytes.
	ErrEmpty = errors.New("empty input")
	// ErrInvalidParameter means a parameter of an analysis is invalid: an unknown
	// sample index, a regexp that does not compile, a negative count.
	ErrInvalidParameter = errors.New("invalid parameter")
	// ErrMismatch means two inputs cannot be compared, such as a heap and a CPU profile.
	ErrMismatch = errors.New("inputs cannot be compared")
	// ErrBusy means the analysis could run, but not now: the memory the server
	// shares among analyses is in use by others (see Budget). Try again later.
	ErrBusy = errors.New("server busy")
)
