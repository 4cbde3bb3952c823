package pprof

import (
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/hostile"
)

// TestParseProfileWithLongNames: the profile.proto of
// TestDetectKindProfileWithLongNames, whose 100 KB function name fills the sniffed
// prefix, parses, and its top names the long function.
func TestParseProfileWithLongNames(t *testing.T) {
	data := hostile.LongNameProfile()
	p, err := parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if top := mustTop(t, p, p.DefaultSampleIndex()); top.Total != 512 || top.Rows[0].Name != hostile.LongName {
		t.Errorf("total %d, first row %.40q", top.Total, top.Rows[0].Name)
	}
}

// TestProfileTotalsThatOverflowAreRefused: samples of math.MaxInt64 bytes add up
// to more than an int64 holds; the profile is refused rather than shown with
// wrapped-around totals. Negative values within range are fine (pprof's total is
// the sum of absolute values: 4096 + 1024).
func TestProfileTotalsThatOverflowAreRefused(t *testing.T) {
	_, err := parse(hostile.HugeValues())
	if !isErr(err, analyze.ErrMalformed) || !strings.Contains(err.Error(), "inuse_space values add up to more than 9223372036854775807") {
		t.Errorf("err %v, want ErrMalformed naming inuse_space", err)
	}
	p, err := parse(hostile.NegativeValues())
	if err != nil {
		t.Fatal(err)
	}
	if st := p.SampleTypes(); st[0].Total != 5120 {
		t.Errorf("total %d, want 5120", st[0].Total)
	}
}
