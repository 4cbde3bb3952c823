// Package serrors owns how the web answers an error: Error (a status and a
// message safe to show), the one table that maps the sentinel errors of the
// other packages to HTTP statuses (StatusOf), the table of pages that explain an
// error further (DetailsOf), and Busy, an analyze.ErrBusy with a message of its
// own. It imports nothing of web.
package serrors

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/store"
)

// Error is an error with the HTTP status it should produce and a message safe to
// show the user.
type Error struct {
	Status  int
	Message string
	// Err is the underlying error, logged for 5xx and never shown.
	Err error
	// Details, when set, is the path of a page that explains more than the
	// one-line Message (see detailsOf).
	Details string
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %v", e.Message, e.Err)
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf makes an *Error with a formatted message.
func Errorf(status int, format string, args ...any) *Error {
	return &Error{Status: status, Message: fmt.Sprintf(format, args...)}
}

// statusTable maps the sentinel errors of the other packages to HTTP statuses. It
// is the only place that does.
var statusTable = []struct {
	err    error
	status int
}{
	{store.ErrNotFound, http.StatusNotFound},
	{store.ErrInvalid, http.StatusBadRequest},
	{store.ErrIntegrity, http.StatusInternalServerError},
	{analyze.ErrEmpty, http.StatusBadRequest},
	{analyze.ErrTooLarge, http.StatusRequestEntityTooLarge},
	{analyze.ErrUnsupportedKind, http.StatusUnsupportedMediaType},
	{analyze.ErrMalformed, http.StatusUnprocessableEntity},
	{analyze.ErrInvalidParameter, http.StatusBadRequest},
	{analyze.ErrMismatch, http.StatusUnprocessableEntity},
	{analyze.ErrBusy, http.StatusServiceUnavailable},
	{lab.ErrInvalidSpec, http.StatusBadRequest},
	{lab.ErrTooLarge, http.StatusRequestEntityTooLarge},
	{lab.ErrBusy, http.StatusTooManyRequests},
	{lab.ErrDisabled, http.StatusForbidden},
	{lab.ErrNotRunning, http.StatusConflict},
	{lab.ErrUnknownTarget, http.StatusBadRequest},
	{store.ErrFull, http.StatusInsufficientStorage},
	{syscall.ENOSPC, http.StatusInsufficientStorage},
	{syscall.EDQUOT, http.StatusInsufficientStorage},
	{syscall.EFBIG, http.StatusInsufficientStorage},
}

// DiskFullMessage is the answer to a write the server's disk had no room for
// (507). It names no path: where the server keeps its data is its own business.
const DiskFullMessage = "the server's disk is full: nothing of this request was stored; try again once the operator has made room (retention, -retain)"

// StatusOf returns the status and the user-facing message for err.
func StatusOf(err error) (int, string) {
	var e *Error
	if errors.As(err, &e) {
		return e.Status, e.Message
	}
	var maxBytes *http.MaxBytesError
	if errors.As(err, &maxBytes) {
		return http.StatusRequestEntityTooLarge, fmt.Sprintf("the request is larger than the %s limit", analyze.FormatBytes(maxBytes.Limit))
	}
	for _, row := range statusTable {
		if errors.Is(err, row.err) {
			if row.status == http.StatusInsufficientStorage {
				return row.status, DiskFullMessage
			}
			if row.status >= 500 {
				return row.status, http.StatusText(row.status)
			}
			return row.status, err.Error()
		}
	}
	return http.StatusInternalServerError, "internal error; the server log has the details"
}

// KindsURL is the page that lists every kind of input leakui accepts, /kinds:
// the details behind a 415.
const KindsURL = "/kinds"

// detailsTable names, for the sentinel errors whose one-line message cannot say
// everything, the page that does.
var detailsTable = []struct {
	err  error
	path string
}{
	{analyze.ErrUnsupportedKind, KindsURL},
}

// DetailsOf returns the path of the page that explains err further, or "".
func DetailsOf(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Details != "" {
		return e.Details
	}
	for _, row := range detailsTable {
		if errors.Is(err, row.err) {
			return row.path
		}
	}
	return ""
}

// OneLine folds a message onto one line: an error names files, and a file name
// or a parser's message may carry line breaks.
func OneLine(msg string) string {
	return strings.Join(strings.Fields(msg), " ")
}

// Busy is analyze.ErrBusy with a message of its own: the answer (503) when a
// bounded resource stayed taken.
func Busy(msg string) error { return &busyError{msg} }

// busyError wraps analyze.ErrBusy with a message of its own.
type busyError struct{ msg string }

func (e *busyError) Error() string { return e.msg }
func (e *busyError) Unwrap() error { return analyze.ErrBusy }
