package analyze

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/hostile"
)

// TestDetectKindProfileWithLongNames: a profile.proto whose 100 KB function name
// fills the sniffed prefix has few control bytes, yet it is a profile, not a log.
func TestDetectKindProfileWithLongNames(t *testing.T) {
	data := hostile.LongNameProfile()
	if looksBinary(data[:SniffSize]) {
		t.Fatal("the test input looks binary; it no longer tests the text-looking case")
	}
	if got := DetectKind(data); got.Kind != KindProfile || got.Format != "profile.proto" {
		t.Errorf("detected %v, want a profile.proto", got)
	}
	p, err := ParseProfile(data)
	if err != nil {
		t.Fatal(err)
	}
	if top := p.Top(p.DefaultSampleIndex()); top.Total != 512 || top.Rows[0].Name != hostile.LongName {
		t.Errorf("total %d, first row %.40q", top.Total, top.Rows[0].Name)
	}
}

// TestDetectKindTextThatWalksAsProto: a log whose lines are exactly 50 bytes and
// start with "20" happens to be a valid sequence of profile.proto fields ('2' is
// the key of field 6, '0' a length of 48). Without control bytes it is text.
func TestDetectKindTextThatWalksAsProto(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		line := fmt.Sprintf("2024-01-01 00:00:%02d INFO consumer %d started", i%60, i)
		b.WriteString(line + strings.Repeat(" ", 49-len(line)) + "\n")
	}
	data := []byte(b.String())
	if !profileProtoFraming(data[:SniffSize], false) {
		t.Fatal("the test log does not walk as profile.proto; it no longer tests the ambiguity")
	}
	if got := DetectKind(data); got.Kind != KindLog {
		t.Errorf("detected %v, want a text log", got)
	}
}

func TestProfileProtoFraming(t *testing.T) {
	whole := hostile.SmallProfile()
	for _, tc := range []struct {
		name     string
		b        []byte
		complete bool
		want     bool
	}{
		{"a whole profile", whole, true, true},
		{"a prefix, as a prefix", whole[:len(whole)-3], false, true},
		{"a prefix, as the whole input", whole[:len(whole)-3], true, false},
		{"field 15", append([]byte{15<<3 | 2, 0}, whole...), true, false},
		{"wire type 5", append([]byte{1<<3 | 5, 0, 0, 0, 0}, whole...), true, false},
		{"zeros after a valid field", append(whole[:6:6], 0, 0, 0), true, false},
		{"empty", nil, true, false},
	} {
		if got := profileProtoFraming(tc.b, tc.complete); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestProfileTotalsThatOverflowAreRefused: samples of math.MaxInt64 bytes add up
// to more than an int64 holds; the profile is refused rather than shown with
// wrapped-around totals. Negative values within range are fine (pprof's total is
// the sum of absolute values: 4096 + 1024).
func TestProfileTotalsThatOverflowAreRefused(t *testing.T) {
	_, err := ParseProfile(hostile.HugeValues())
	if !isErr(err, ErrMalformed) || !strings.Contains(err.Error(), "inuse_space values add up to more than 9223372036854775807") {
		t.Errorf("err %v, want ErrMalformed naming inuse_space", err)
	}
	p, err := ParseProfile(hostile.NegativeValues())
	if err != nil {
		t.Fatal(err)
	}
	if st := p.SampleTypes(); st[0].Total != 5120 {
		t.Errorf("total %d, want 5120", st[0].Total)
	}
}
