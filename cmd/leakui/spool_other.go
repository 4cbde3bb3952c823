//go:build !unix

package main

import (
	"errors"
	"os"
)

// tryLock has no lock to take here: a server cannot tell a live server's spool
// directory from a dead one's, so it removes none but its own.
func tryLock(f *os.File) (bool, error) { return false, errors.ErrUnsupported }
