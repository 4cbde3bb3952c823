package store

import "errors"

// Sentinel errors of the store; the web package maps them to HTTP statuses.
var (
	// ErrNotFound means no report, artifact or run has the requested id.
	ErrNotFound = errors.New("not found")
	// ErrIntegrity means stored bytes do not hash to the SHA-256 they were stored
	// under, or an upload's claimed hash does not match its bytes.
	ErrIntegrity = errors.New("integrity check failed")
	// ErrInvalid means a record to be stored is incomplete or inconsistent.
	ErrInvalid = errors.New("invalid record")
)
