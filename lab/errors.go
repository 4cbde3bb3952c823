package lab

import "errors"

// Sentinel errors of the lab; the web package maps them to HTTP statuses.
var (
	// ErrInvalidSpec means a run's parameters are wrong (unknown workload, variant
	// or codec, a size out of range).
	ErrInvalidSpec = errors.New("invalid run")
	// ErrTooLarge means a run asks for more work than the server allows.
	ErrTooLarge = errors.New("run too large")
	// ErrBusy means the maximum number of concurrent runs is reached.
	ErrBusy = errors.New("too many runs")
	// ErrDisabled means the lab is turned off on this server (-lab=false).
	ErrDisabled = errors.New("the lab is turned off on this server (-lab=false): it only analyzes uploads")
	// ErrNotRunning means the run is not running on this server.
	ErrNotRunning = errors.New("run not running here")
	// ErrUnknownTarget means a live target name is not on the operator's list.
	ErrUnknownTarget = errors.New("unknown target")
)
