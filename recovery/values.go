package recovery

import (
	"math/rand/v2"
	"strconv"
)

// recordTime is the timestamp of offset 0; record n is n milliseconds later.
const recordTime = 1581643922114 // 2020-02-14 01:32:02.114 UTC, the broker log's era

// vocabulary gives values the redundancy of real event payloads.
var vocabulary = []string{
	"checkout", "cart", "payment", "accepted", "declined", "retry", "timeout", "order",
	"shipment", "warehouse", "region", "eu-west-1", "us-east-1", "customer", "premium",
	"standard", "session", "expired", "refreshed", "token", "inventory", "reserved",
	"released", "price", "discount", "coupon", "applied", "rejected", "latency", "upstream",
	"downstream", "cache", "hit", "miss", "database", "replica", "primary", "failover",
	"search", "query", "results", "recommendation", "clicked", "viewed", "scrolled",
	"mobile", "desktop", "android", "ios", "browser", "firefox", "chrome", "safari",
}

var eventTypes = []string{"page_view", "add_to_cart", "checkout", "search", "login", "logout", "purchase"}

var userAgents = []string{
	"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/79.0.3945.130 Safari/537.36",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 13_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.0.5 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:72.0) Gecko/20100101 Firefox/72.0",
}

// recordGenerator makes the key and value of every record deterministically from
// the seed, the partition and the offset, so a test can regenerate what was written.
type recordGenerator struct {
	seed       uint64
	valueBytes int
}

// key returns the record key, like "user-0012345", appended to dst.
func (g recordGenerator) key(dst []byte, partition int, offset int64) []byte {
	rng := g.rng(partition, offset)
	dst = append(dst, "user-"...)
	return appendPadded(dst, rng.Uint64()%100_000, 7)
}

// value returns a JSON event of exactly valueBytes bytes, appended to dst: field
// names, enumerations and a text of common words, with random ids and numbers,
// which compresses about as well as real event payloads.
func (g recordGenerator) value(dst []byte, partition int, offset int64) []byte {
	rng := g.rng(partition, offset)
	rng.Uint64() // the key's draw
	start := len(dst)
	dst = append(dst, `{"ts":`...)
	dst = strconv.AppendInt(dst, recordTime+offset, 10)
	dst = append(dst, `,"event":"`...)
	dst = append(dst, eventTypes[rng.Uint64()%uint64(len(eventTypes))]...)
	dst = append(dst, `","session":"`...)
	dst = strconv.AppendUint(dst, rng.Uint64(), 16)
	dst = append(dst, `","path":"/products/`...)
	dst = strconv.AppendUint(dst, rng.Uint64()%50_000, 10)
	dst = append(dst, `","status":`...)
	dst = strconv.AppendUint(dst, 200+100*(rng.Uint64()%4), 10)
	dst = append(dst, `,"latency_ms":`...)
	dst = strconv.AppendUint(dst, rng.Uint64()%2000, 10)
	dst = append(dst, `,"ua":"`...)
	dst = append(dst, userAgents[rng.Uint64()%uint64(len(userAgents))]...)
	dst = append(dst, `","msg":"`...)
	for len(dst)-start < g.valueBytes {
		dst = append(dst, vocabulary[rng.Uint64()%uint64(len(vocabulary))]...)
		dst = append(dst, ' ')
	}
	dst = dst[:start+g.valueBytes]
	if g.valueBytes >= 2 {
		dst[len(dst)-2], dst[len(dst)-1] = '"', '}'
	}
	return dst
}

func (g recordGenerator) rng(partition int, offset int64) *rand.Rand {
	return rand.New(rand.NewPCG(g.seed^uint64(partition)<<48, uint64(offset)))
}

func appendPadded(dst []byte, v uint64, width int) []byte {
	var digits [20]byte
	s := strconv.AppendUint(digits[:0], v, 10)
	for i := len(s); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}
