package analyze

import "testing"

// TestDetectGoroutineLeakProfile checks that the debug=1 text of the runtime's
// goroutineleak profile is a goroutine dump of its own format, not a legacy pprof
// count profile, and that the goroutine profile keeps its detection.
func TestDetectGoroutineLeakProfile(t *testing.T) {
	for head, want := range map[string]Detection{
		"goroutineleak profile: total 5\n5 @ 0x47e08e 0x4158ee\n#\t0x4da198\tmain.leak.func1+0x18\t/tmp/gl/main.go:15\n": {Kind: KindGoroutines, Format: FormatGoroutineLeak},
		"goroutine profile: total 5\n5 @ 0x47e08e 0x4158ee\n":                                                            {Kind: KindGoroutines, Format: "debug=1"},
		"threadcreate profile: total 5\n5 @ 0x47e08e 0x4158ee\n":                                                         {Kind: KindProfile, Format: "legacy text threadcreate"},
	} {
		if got := DetectKind([]byte(head)); got != want {
			t.Errorf("DetectKind(%.30q) = %+v, want %+v", head, got, want)
		}
	}
}
