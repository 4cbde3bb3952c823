package hprof

import (
	"fmt"
	"strings"

	"github.com/leakui/leakui/analyze"
)

// MaxChain is how many objects a suspect's Chain names, from the top-level
// object down to where the memory accumulates: the first and the last
// MaxChain-1, "…" between them.
const MaxChain = 5

// Bounds of what elements reads of a dominator tree: the children of the
// accumulation point, the elements whose children it reads, and how many
// children of each.
const (
	maxElementScan = 1 << 20
	maxPayloadOf   = 1 << 10
	maxPayloadScan = 16
)

// typeName is the class of object o, "class NAME" for a class object.
func (h *Heap) typeName(o uint32) string {
	if h.Classes[h.class[o]].kind == objClass {
		return h.className(o)
	}
	return h.Classes[h.class[o]].Name
}

// chain names the accumulation point p by the field that holds it: the
// top-level object above p with the field of the next step ("HeapLeak.CACHE"
// for a static field of class HeapLeak, "LeakShape$ConsumerThread.consumer"),
// then the class of each object down the shortest path to p (every path from
// a GC root to p goes through the top-level object that dominates it). Long
// chains keep the top-level object and the last MaxChain-1 objects.
func (h *Heap) chain(p uint32, res *resolver) []string {
	n := uint32(len(h.ids))
	var last []uint32 // p first, up to MaxChain-1 objects
	x, walked := p, 0
	for h.idom[x] != n {
		up := h.bfs[x]
		if up == n || up == noObject {
			break // a root that is not top-level: no path above it
		}
		if len(last) < MaxChain-1 {
			last = append(last, x)
		}
		walked++
		x = up
	}
	top := x
	if top == p {
		return []string{h.typeName(p)}
	}
	// The object after the top-level one on the path: the last one walked.
	next := p
	if walked <= len(last) {
		next = last[len(last)-1]
	} else {
		for y := p; h.bfs[y] != top; y = h.bfs[y] {
			next = h.bfs[y]
		}
	}
	head := h.typeName(top)
	if h.Classes[h.class[top]].kind == objClass {
		head = strings.TrimPrefix(head, "class ")
	}
	if field := h.stepField(next, res); field != "" {
		if strings.HasPrefix(field, "[") {
			head += field
		} else {
			head += "." + strings.TrimPrefix(field, "static ")
		}
	}
	out := []string{head}
	if walked > len(last) {
		out = append(out, "…")
	}
	for i := len(last) - 1; i >= 0; i-- {
		out = append(out, h.typeName(last[i]))
	}
	return out
}

// stepField is the field through which the object before o on its shortest
// path references o, "" when it was not read.
func (h *Heap) stepField(o uint32, res *resolver) string {
	if h.pathVia == nil || int(o) >= len(h.pathVia) {
		return ""
	}
	return res.viaName(h.pathVia[o])
}

// elements says what the accumulation point p holds: of the objects it
// dominates, the class that retains the most and how many of them there are;
// and, when those objects hold mostly another class in turn (a map's nodes
// holding byte arrays), that class.
func (h *Heap) elements(p uint32) (class string, count int64, payload string) {
	type tally struct{ count, size int64 }
	kids := h.domKids.row(p)
	kids = kids[:min(len(kids), maxElementScan)]
	if len(kids) == 0 {
		return "", 0, ""
	}
	byClass := map[uint32]*tally{}
	for _, k := range kids {
		cn := h.class[k]
		t := byClass[cn]
		if t == nil {
			t = &tally{}
			byClass[cn] = t
		}
		t.count++
		t.size += h.Retained(k)
	}
	best := largest(byClass, func(t *tally) int64 { return t.size })
	class, count = h.Classes[best].Name, byClass[best].count

	inner := map[uint32]*tally{}
	var elemSize int64
	read := 0
	for _, k := range kids {
		if h.class[k] != best {
			continue
		}
		if read++; read > maxPayloadOf {
			break
		}
		elemSize += h.Retained(k)
		grand := h.domKids.row(k)
		for _, g := range grand[:min(len(grand), maxPayloadScan)] {
			cn := h.class[g]
			t := inner[cn]
			if t == nil {
				t = &tally{}
				inner[cn] = t
			}
			t.size += h.Retained(g)
		}
	}
	if len(inner) == 0 {
		return class, count, ""
	}
	in := largest(inner, func(t *tally) int64 { return t.size })
	// The payload is named when it is most of what the elements retain.
	if in != best && 2*inner[in].size > elemSize {
		payload = h.Classes[in].Name
	}
	return class, count, payload
}

// largest is the key of m with the largest size, the smallest key on a tie.
func largest[T any](m map[uint32]T, size func(T) int64) uint32 {
	best, bestSize := uint32(0), int64(-1)
	for k, v := range m {
		if s := size(v); s > bestSize || s == bestSize && k < best {
			best, bestSize = k, s
		}
	}
	return best
}

// sentence says a suspect in one line with the size and share of where its
// memory accumulates, named by the field that holds it, with what it holds:
// "`HeapLeak.CACHE` → `java.util.HashMap` → `java.util.HashMap$Node[]` retains
// 4.0 MB (84%) in 2,000 `java.util.HashMap$Node` of `byte[]`", or "6 instances
// of `LeakShape$Consumer` retain 1.5 MB (71%) in `byte[]`, the largest held by
// `LeakShape$ConsumerThread.consumer`, accumulated in threads
// `KafkaConsumerProxy-0`, … and 3 more".
func sentence(s Suspect) string {
	var what string
	switch {
	case s.HolderInstances == 1 && len(s.Chain) > 1:
		what = chainText(s.Chain) + " retains"
	case s.HolderInstances == 1:
		what = fmt.Sprintf("One instance of `%s` retains", s.Holder)
	default:
		what = fmt.Sprintf("%s instances of `%s` retain", analyze.FormatCount(s.HolderInstances), s.Holder)
	}
	held := ""
	switch {
	case s.Element == "":
	case s.HolderInstances == 1 && s.ElementCount == 1:
		held = fmt.Sprintf(" in one `%s`", s.Element)
	case s.HolderInstances == 1:
		held = fmt.Sprintf(" in %s `%s`", analyze.FormatCount(s.ElementCount), s.Element)
	default:
		held = fmt.Sprintf(" in `%s`", s.Element)
	}
	if held != "" && s.Payload != "" {
		held += fmt.Sprintf(" of `%s`", s.Payload)
	}
	if s.HolderInstances != 1 && len(s.Chain) > 1 {
		held += ", the largest held by " + chainText(s.Chain[:len(s.Chain)-1])
	}
	where := ""
	switch {
	case len(s.Threads) == 1 && s.ThreadCount <= 1:
		where = fmt.Sprintf(", accumulated in thread `%s`", s.Threads[0])
	case len(s.Threads) > 0:
		shown := s.Threads[:min(len(s.Threads), 3)]
		where = ", accumulated in threads `" + strings.Join(shown, "`, `") + "`"
		if more := max(s.ThreadCount, len(s.Threads)) - len(shown); more > 0 {
			where += fmt.Sprintf(" and %s more", analyze.FormatCount(int64(more)))
		}
	case len(s.Chain) > 1:
		// The chain names what holds it.
	case strings.HasPrefix(s.Class, "class "):
		where = fmt.Sprintf(", held by the statics of `%s`", strings.TrimPrefix(s.Class, "class "))
	case s.Class != s.Holder && s.Instances == 1:
		where = fmt.Sprintf(", held by one `%s`", s.Class)
	case s.Class != s.Holder:
		where = fmt.Sprintf(", held by %s instances of `%s`", analyze.FormatCount(s.Instances), s.Class)
	}
	return fmt.Sprintf("%s %s (%.0f%%)%s%s.", what, analyze.FormatBytes(s.HolderRetained), 100*s.HolderShare, held, where)
}

// chainText joins a chain's names with arrows, each in backticks but "…".
func chainText(chain []string) string {
	parts := make([]string, len(chain))
	for i, c := range chain {
		parts[i] = "`" + c + "`"
		if c == "…" {
			parts[i] = c
		}
	}
	return strings.Join(parts, " → ")
}
