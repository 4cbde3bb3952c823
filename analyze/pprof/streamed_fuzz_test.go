package pprof

import (
	"errors"
	"testing"
)

// FuzzStreamedProfile feeds arbitrary bytes to the streamed profile. It must
// never panic, and it must agree with the loaded profile: refuse what Load
// refuses, and for what Load reads as a streamable profile.proto give the same
// top tables and, when TextExact, the same -top text.
func FuzzStreamedProfile(f *testing.F) {
	addProfileSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		p, loadErr := parse(data)
		sp, err := openStreamed(openBytes(data, nil), 0, nil)
		if errors.Is(err, errNotStreamable) {
			if loadErr == nil && p.Format == "profile.proto" && p.meta.dropFrames == "" {
				t.Fatalf("a profile.proto Load reads without drop_frames was not streamed")
			}
			return
		}
		if err == nil {
			defer sp.Close()
			// The samples are read by the first walk: its errors are the profile's.
			_, err = sp.Top(0)
		}
		if loadErr != nil {
			if err == nil {
				t.Fatalf("Load refuses (%v), the streamed profile reads it", loadErr)
			}
			return
		}
		if err != nil {
			t.Fatalf("Load reads it, the streamed profile says %v", err)
		}
		compareStreamed(t, "input", p, sp)
	})
}
