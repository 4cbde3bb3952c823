package logs

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
)

// FuzzNewlines holds newlines (the AVX2 scan where the machine has it) to
// newlinesGeneric and both to a byte loop, from every start of the input
// and with room for 32 to 160 ends: the same ends, in order; the vector scan
// may stop up to 64 places early, saying so.
func FuzzNewlines(f *testing.F) {
	f.Add([]byte("a\nbb\n\n\nccc"), uint8(0))
	f.Add(make([]byte, 200), uint8(5))
	f.Add([]byte("\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\nxyz\n"), uint8(1))
	f.Add([]byte(strings.Repeat("ab\n", 200)), uint8(40)) // the vector scan runs out of places
	f.Fuzz(func(t *testing.T, in []byte, room uint8) {
		size := 32 + int(room)%129
		for from := 0; from <= len(in); from++ {
			var want []int32
			for i := from; i < len(in) && len(want) < size; i++ {
				if in[i] == '\n' {
					want = append(want, int32(i))
				}
			}
			got, more := newlines(in, from, make([]int32, 0, size))
			generic, genericMore := newlinesGeneric(in, from, make([]int32, 0, size))
			if !slices.Equal(generic, want) || genericMore != (len(want) == size) {
				t.Fatalf("from %d, room %d: generic %v (more %v), want %v", from, size, generic, genericMore, want)
			}
			// The vector scan may stop short of full, but only with more
			// set, and always at a prefix of the ends.
			if len(got) > len(want) || !slices.Equal(got, want[:len(got)]) {
				t.Fatalf("from %d, room %d: newlines %v, want a prefix of %v", from, size, got, want)
			}
			if !more && len(got) != len(want) || more && len(got) < size-64 {
				t.Fatalf("from %d, room %d: newlines %d ends, more %v; want %d", from, size, len(got), more, len(want))
			}
			if !more && len(want) == size {
				t.Fatalf("from %d, room %d: newlines filled ends without more", from, size)
			}
		}
	})
}

// TestOverviewGenericNewlines counts the testdata logs with the overview
// twice, with the vector newline scan and with the generic one (what machines
// without AVX2 run), in the variants of the count tests: the same reports.
func TestOverviewGenericNewlines(t *testing.T) {
	checkOverviewGeneric(t, &hasNewlinesAVX2, "newline scan")
}

// checkOverviewGeneric counts the testdata logs with the overview twice, with
// *vector as it is and set to false (what machines without AVX2 run), in the
// variants of the count tests, and wants the same reports.
func checkOverviewGeneric(t *testing.T, vector *bool, what string) {
	if !*vector {
		t.Logf("no vector %s here (no AVX2, or built with the purego tag): both runs use the generic one", what)
	}
	for _, path := range fixtures.Glob(t, "logs", "*") {
		for _, v := range countVariants[:4] {
			withVector := countFile(t, v, path, CountOptions{Overview: true})
			was := *vector
			*vector = false
			generic := countFile(t, v, path, CountOptions{Overview: true})
			*vector = was
			if !reflect.DeepEqual(withVector, generic) {
				t.Errorf("%s, %s: the overview differs with the generic %s", path, v.name, what)
			}
		}
	}
}
