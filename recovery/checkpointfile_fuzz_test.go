package recovery

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRecoveryPoints reads any bytes as a log directory's
// recovery-point-offset-checkpoint: nothing panics, a refusal wraps
// ErrBadCheckpoint, and what is accepted is written back and read again
// unchanged.
func FuzzRecoveryPoints(f *testing.F) {
	f.Add([]byte("0\n2\nrecovery 0 120\nrecovery 1 0\n"))
	f.Add([]byte("0\n1\n  topic\t3   9223372036854775807  \n"))
	f.Add([]byte("0\n9223372036854775807\n"))
	f.Add([]byte("1\n0\n"))
	f.Add([]byte("0\n1\nt -1 5\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		points, err := parseRecoveryPoints(data)
		if err != nil {
			if !errors.Is(err, ErrBadCheckpoint) {
				t.Fatalf("an error that wraps no sentinel: %v", err)
			}
			return
		}
		dir := t.TempDir()
		if err := WriteRecoveryPoints(dir, points); err != nil {
			t.Fatal(err)
		}
		again, err := ReadRecoveryPoints(dir)
		if err != nil || !maps.Equal(again, points) {
			b, _ := os.ReadFile(filepath.Join(dir, RecoveryPointFile))
			t.Fatalf("%q read as %v, written as %q, read back as %v (%v)", data, points, b, again, err)
		}
	})
}
