package logs

import (
	"encoding/binary"
	"slices"
	"testing"
	"time"
)

// FuzzBucketMemo holds addOne (the overview's counting through the bucket of
// the time before) to add: the input is a run of time steps (back and
// forth, small and large, so that sets grow both ways and widen) and columns,
// counted into two sets of each width, one each way, which must end equal;
// other times touched in between widen the sets behind addOne's back.
func FuzzBucketMemo(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0, 0, 255, 255, 255, 255, 10, 0, 200, 0, 3, 0, 0, 0, 0, 0, 0, 0})
	f.Add(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 1<<31), 1<<30))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, width := range []time.Duration{BucketAuto, time.Second, time.Millisecond} {
			want, got := newLogBuckets(width, 3), newLogBuckets(width, 3)
			var m bucketMemo
			ms := int64(1687305600000)
			for i := 0; i+4 <= len(in); i += 4 {
				step := int64(int32(binary.LittleEndian.Uint32(in[i:])))
				ms += step >> 4
				col := int(uint32(step) % 3)
				want.add(ms, col, 1)
				got.addOne(&m, ms, col)
				if step&0x100 != 0 { // the patterns' counting and touching in between
					want.touch(ms + step<<4)
					got.touch(ms + step<<4)
				}
				if i%32 == 28 { // another set now and then, as a new part has
					want, got = want.empty(), got.empty()
				}
			}
			if want.width != got.width || want.lo != got.lo || want.n != got.n || !slices.Equal(want.counts, got.counts) {
				t.Fatalf("width %v: add gives %d ms × %d from %d %v, addOne %d ms × %d from %d %v", width,
					want.width, want.n, want.lo, want.counts, got.width, got.n, got.lo, got.counts)
			}
		}
	})
}
