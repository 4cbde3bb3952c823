package analyze

import (
	"errors"
	"io"
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
)

func ioReadFull(r io.Reader, b []byte) (int, error) { return io.ReadFull(r, b) }

func ioCopyDiscard(r io.Reader) (int64, error) { return io.Copy(io.Discard, r) }

func isErr(err, target error) bool { return errors.Is(err, target) }

func fixturesGlob(t testing.TB, dir string) []string { return fixtures.Glob(t, dir, "*") }
