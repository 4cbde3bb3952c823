package analyze

import (
	"errors"
	"io"
)

func ioReadFull(r io.Reader, b []byte) (int, error) { return io.ReadFull(r, b) }

func ioCopyDiscard(r io.Reader) (int64, error) { return io.Copy(io.Discard, r) }

func isErr(err, target error) bool { return errors.Is(err, target) }
