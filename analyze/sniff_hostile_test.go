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
