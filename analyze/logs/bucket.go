package logs

import "time"

// Bucket limits. An automatic width keeps a chart between MinAutoBuckets and
// MaxAutoBuckets bars (fewer only when the log spans less than 50 ms); a
// width the user chose is widened, by doubling, only past MaxBuckets.
const (
	// MinAutoBuckets is the fewest bars an automatic width aims for.
	MinAutoBuckets = 50
	// MaxAutoBuckets is the most bars an automatic width allows.
	MaxAutoBuckets = 300
	// MaxBuckets is the most buckets a chosen width may produce.
	MaxBuckets = 10000
)

// Special values of CountOptions.Bucket.
const (
	// BucketAuto picks the width so that a chart has 50–300 bars.
	BucketAuto time.Duration = 0
	// BucketNone turns counts over time off (and with them timestamps).
	BucketNone time.Duration = -1
)

// bucketLadder lists the automatic widths in milliseconds. Each divides the
// next by at most 5, so widening a chart past 300 bars leaves at least 60.
var bucketLadder = func() []int64 {
	const s, m, h, d = 1000, 60 * 1000, 3600 * 1000, 86400 * 1000
	l := []int64{1, 2, 10, 20, 100, 200, s, 2 * s, 10 * s, 30 * s, m, 2 * m, 10 * m, 30 * m,
		h, 2 * h, 6 * h, 12 * h, d, 2 * d, 10 * d, 20 * d}
	for w := int64(20 * d); w < 1<<60/5; {
		w *= 5
		l = append(l, w)
		w *= 2
		l = append(l, w)
	}
	return l
}()

// timeBuckets counts matching lines per pattern in time buckets of one width,
// aligned to the Unix epoch so that sets of different widths on the same
// ladder merge exactly. It holds the dense range of buckets from lo to
// lo+len-1; when the range would pass the limit it widens first, so memory
// never exceeds limit × patterns counters.
type timeBuckets struct {
	width   int64 // milliseconds
	auto    bool  // widen along bucketLadder; otherwise by doubling
	limit   int64 // the most buckets kept
	np      int   // patterns per bucket
	lo      int64 // index (time / width) of the first bucket
	n       int64 // buckets held
	counts  []int64
	widened bool // a chosen width had to be widened
}

// newLogBuckets returns an empty set for np patterns; width ≤ 0 means automatic.
func newLogBuckets(width time.Duration, np int) *timeBuckets {
	b := &timeBuckets{np: np}
	if width <= 0 {
		b.auto, b.width, b.limit = true, bucketLadder[0], MaxAutoBuckets
	} else {
		b.width, b.limit = max(width.Milliseconds(), 1), MaxBuckets
	}
	return b
}

// empty returns a set with the same settings and no buckets.
func (b *timeBuckets) empty() *timeBuckets {
	return &timeBuckets{width: b.width, auto: b.auto, limit: b.limit, np: b.np, widened: b.widened}
}

// add counts n lines of pattern p at time ms.
func (b *timeBuckets) add(ms int64, p int, n int64) {
	i := b.cover(ms)
	b.counts[(i-b.lo)*int64(b.np)+int64(p)] += n
}

// bucketMemo remembers the bucket of the last time one set counted
// through it: its index and the times it spans at the set's width then.
type bucketMemo struct {
	b                  *timeBuckets
	width, from, to, i int64
}

// addOne counts one line of pattern p at time ms, as add does; a time in the
// bucket of the time before (the set neither replaced nor widened since, the
// bucket still held) skips the division and the range check.
func (b *timeBuckets) addOne(m *bucketMemo, ms int64, p int) {
	if m.b == b && m.width == b.width && ms >= m.from && ms < m.to {
		if k := m.i - b.lo; uint64(k) < uint64(b.n) {
			b.counts[k*int64(b.np)+int64(p)]++
			return
		}
	}
	i := b.cover(ms)
	b.counts[(i-b.lo)*int64(b.np)+int64(p)]++
	*m = bucketMemo{b: b, width: b.width, from: i * b.width, to: (i + 1) * b.width, i: i}
}

// touch makes the range include time ms without counting anything, so that a
// chart spans the whole log and not only its matches.
func (b *timeBuckets) touch(ms int64) { b.cover(ms) }

// cover widens and extends the range to include ms and returns its bucket index.
func (b *timeBuckets) cover(ms int64) int64 {
	i := floorDiv(ms, b.width)
	if b.n == 0 {
		b.lo, b.n = i, 1
		b.counts = append(b.counts[:0], make([]int64, b.np)...)
		return i
	}
	lo, hi := min(b.lo, i), max(b.lo+b.n-1, i)
	for hi-lo+1 > b.limit {
		b.widen(b.nextWidth())
		i = floorDiv(ms, b.width)
		lo, hi = min(b.lo, i), max(b.lo+b.n-1, i)
	}
	if lo < b.lo {
		grown := make([]int64, (hi-lo+1)*int64(b.np))
		copy(grown[(b.lo-lo)*int64(b.np):], b.counts)
		b.counts = grown
	} else if hi > b.lo+b.n-1 {
		b.counts = append(b.counts, make([]int64, (hi-(b.lo+b.n-1))*int64(b.np))...)
	}
	b.lo, b.n = lo, hi-lo+1
	return i
}

// nextWidth is the width after this one.
func (b *timeBuckets) nextWidth() int64 {
	if b.auto {
		for _, w := range bucketLadder {
			if w > b.width {
				return w
			}
		}
		return b.width * 2
	}
	b.widened = true
	return b.width * 2
}

// widen re-buckets the counts at width w, a multiple of the current width.
func (b *timeBuckets) widen(w int64) {
	if w <= b.width {
		return
	}
	factor := w / b.width
	if b.n == 0 {
		b.width = w
		return
	}
	lo := floorDiv(b.lo, factor)
	hi := floorDiv(b.lo+b.n-1, factor)
	counts := make([]int64, (hi-lo+1)*int64(b.np))
	for k := int64(0); k < b.n; k++ {
		dst := (floorDiv(b.lo+k, factor) - lo) * int64(b.np)
		src := k * int64(b.np)
		for p := 0; p < b.np; p++ {
			counts[dst+int64(p)] += b.counts[src+int64(p)]
		}
	}
	b.width, b.lo, b.n, b.counts = w, lo, hi-lo+1, counts
}

// merge adds the counts of o (same settings, maybe another width) to b.
func (b *timeBuckets) merge(o *timeBuckets) {
	if o == nil {
		return
	}
	b.widened = b.widened || o.widened
	if o.width > b.width {
		b.widen(o.width)
	}
	if o.n == 0 {
		return
	}
	if o.width < b.width {
		o.widen(b.width)
	}
	// Cover both ends first, so that any widening happens once, before copying.
	b.cover(o.lo * o.width)
	b.cover((o.lo + o.n - 1) * o.width)
	if o.width < b.width { // cover widened b past o's width
		o.widen(b.width)
	}
	for k := int64(0); k < o.n; k++ {
		dst := (o.lo + k - b.lo) * int64(b.np)
		src := k * int64(b.np)
		for p := 0; p < b.np; p++ {
			b.counts[dst+int64(p)] += o.counts[src+int64(p)]
		}
	}
}

// counted reports whether any bucket holds a count (a touched range alone holds
// none).
func (b *timeBuckets) counted() bool {
	for _, c := range b.counts {
		if c != 0 {
			return true
		}
	}
	return false
}

// at returns the counts of the k-th bucket held (one per pattern).
func (b *timeBuckets) at(k int64) []int64 {
	return b.counts[k*int64(b.np) : (k+1)*int64(b.np)]
}

// floorDiv divides rounding toward negative infinity (yearless times are
// before the epoch).
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
