package pprof

import (
	"bytes"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/hostile"
)

// allocated is the bytes the process has allocated on the heap so far.
func allocated() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// TestAmplifyingProfilesAreRefusedWithinTheBudget: valid profile.proto that is
// small gzipped and huge decoded (an amplifying profile: one Location of 200 M
// empty Lines, 100 MiB of empty strings) is refused with ErrTooLarge naming the budget, having
// allocated less than the budget; the budget holds nothing afterwards.
func TestAmplifyingProfilesAreRefusedWithinTheBudget(t *testing.T) {
	checkAmplifyingRefused(t, func(data []byte, b *analyze.Budget) error {
		_, err := Open(Reader(bytes.NewReader(data)), Options{Limit: analyze.DefaultMaxDecompressed, Budget: b})
		return err
	})
}

// checkAmplifyingRefused loads the two amplifying profiles with load within a
// budget of 64 MiB (a child of a server budget of four times that): each must
// be refused with ErrTooLarge naming the budget, having allocated less than
// it, and leave both budgets empty.
func checkAmplifyingRefused(t *testing.T, load func(data []byte, b *analyze.Budget) error) {
	const limit = 64 << 20
	for name, data := range map[string][]byte{"one Location of 200 M Lines": hostile.LineBomb(), "100 MiB of empty strings": hostile.EmptyStringsBomb()} {
		t.Run(name, func(t *testing.T) {
			server := analyze.NewBudget(4 * limit)
			b := server.Child(limit)
			runtime.GC()
			before := allocated()
			err := load(data, b)
			grew := allocated() - before
			t.Logf("%d bytes gzipped: %v; %d bytes allocated", len(data), err, grew)
			if !isErr(err, analyze.ErrTooLarge) || !strings.Contains(err.Error(), "memory budget of 64.0 MB") {
				t.Fatalf("err %v, want ErrTooLarge naming the 64.0 MB budget", err)
			}
			if grew > limit {
				t.Errorf("%d bytes allocated, more than the budget of %d", grew, limit)
			}
			if b.Used() != 0 || server.Used() != 0 {
				t.Errorf("the budgets hold %d and %d bytes after the load", b.Used(), server.Used())
			}
		})
	}
}

// TestBudgetIsChargedByTheDecodedSize: a profile that fits its budget loads,
// and the budget's peak is what the decoder holds, not the file's size: a budget
// of the decompressed size alone is too small for a profile of many samples.
func TestBudgetIsChargedByTheDecodedSize(t *testing.T) {
	p := hostile.Profile{SampleTypes: hostile.Heap}
	for i := range 20_000 {
		p.Samples = append(p.Samples, hostile.Sample{Stack: []string{"main.leaf", "main.main"}, Values: []int64{1, int64(i), 1, int64(i)}})
	}
	data := p.Encode()
	if _, err := Open(Reader(bytes.NewReader(data)), Options{Budget: analyze.NewBudget(int64(len(data))).Child(0)}); !isErr(err, analyze.ErrTooLarge) {
		t.Errorf("a budget of the file's %d bytes: err %v, want ErrTooLarge", len(data), err)
	}
	b := analyze.NewBudget(8 * int64(len(data)))
	prof, err := Open(Reader(bytes.NewReader(data)), Options{Budget: b.Child(0)})
	if err != nil {
		t.Fatal(err)
	}
	if prof.Samples() != 20_000 || b.Used() != 0 {
		t.Errorf("%d samples, %d bytes still charged", prof.Samples(), b.Used())
	}
}

// TestSharedBudgetInUseIsBusy: when the analyses together hold the process-wide
// budget, another analysis that would fit its own budget gets ErrBusy (503), not
// ErrTooLarge.
func TestSharedBudgetInUseIsBusy(t *testing.T) {
	data := hostile.SmallProfile()
	server := analyze.NewBudget(1 << 20)
	other := server.Child(0)
	if err := other.Charge(1<<20 - 100); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(Reader(bytes.NewReader(data)), Options{Budget: server.Child(0)}); !isErr(err, analyze.ErrBusy) {
		t.Errorf("err %v, want ErrBusy", err)
	}
	other.Release()
	if _, err := Open(Reader(bytes.NewReader(data)), Options{Budget: server.Child(0)}); err != nil {
		t.Errorf("after the other analysis ended: %v", err)
	}
}
