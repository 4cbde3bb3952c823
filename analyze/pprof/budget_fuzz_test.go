package pprof

import (
	"bytes"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/hostile"
)

// FuzzOpenWithinBudget feeds arbitrary bytes to Open with a small
// budget: it must never panic, refuse only with the errors it documents, give the
// budget back whole, and load exactly what the unbudgeted loader loads whenever
// the budget suffices.
func FuzzOpenWithinBudget(f *testing.F) {
	f.Add(hostile.SmallProfile())
	f.Add(hostile.HostileNamesProfile())
	f.Add([]byte{0x22, 0x80, 0x80, 0x80, 0x01, 0x08, 0x01, 0x22, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		server := analyze.NewBudget(1 << 20)
		b := server.Child(0)
		p, err := Open(Reader(bytes.NewReader(data)), Options{Limit: 1 << 20, Budget: b})
		if server.Used() != 0 || b.Used() != 0 {
			t.Fatalf("the budget holds %d bytes after the load", server.Used())
		}
		if err != nil {
			for _, sentinel := range []error{analyze.ErrEmpty, analyze.ErrTooLarge, analyze.ErrMalformed, analyze.ErrUnsupportedKind} {
				if isErr(err, sentinel) {
					return
				}
			}
			t.Fatalf("undocumented error %v", err)
		}
		q, err := Open(Reader(bytes.NewReader(data)), Options{Limit: 1 << 20})
		if err != nil {
			t.Fatalf("the budgeted loader accepts what the loader refuses: %v", err)
		}
		if p.Samples() != q.Samples() || p.TypeNames() != q.TypeNames() {
			t.Fatalf("%d samples of %s, the loader %d of %s", p.Samples(), p.TypeNames(), q.Samples(), q.TypeNames())
		}
	})
}
