package store

import (
	"errors"
	"fmt"
	"syscall"
)

// ErrFull means the database had no room for a write: the disk (or the
// process's file size limit, or a quota) is full. The write was rolled back;
// nothing of it is stored.
var ErrFull = errors.New("the store is full")

// sqliteFull is SQLite's primary result code SQLITE_FULL ("database or disk is
// full"); the driver's errors report it through a Code() int method.
const sqliteFull = 13

// postgresDiskFull is PostgreSQL's SQLSTATE disk_full (class 53, insufficient
// resources); the driver's errors report it through a SQLState() string method.
const postgresDiskFull = "53100"

// markFull returns err wrapped with ErrFull when it says the database or its
// disk is full, and err otherwise. It recognises the backends' errors by
// their methods, so the store needs neither driver.
func markFull(err error) error {
	if err == nil || errors.Is(err, ErrFull) || !isFull(err) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrFull, err)
}

// isFull reports whether err is a backend's or the system's "no space".
func isFull(err error) bool {
	var code interface{ Code() int }
	if errors.As(err, &code) && code.Code()&0xff == sqliteFull {
		return true
	}
	var state interface{ SQLState() string }
	if errors.As(err, &state) && state.SQLState() == postgresDiskFull {
		return true
	}
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, syscall.EFBIG)
}
