package jvm

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ThreadGroup is a set of threads of one dump with the same state, the same
// stack and the same kinds of locks on the same frames, like a goroutine group.
type ThreadGroup struct {
	Count int    `json:"count"`
	State string `json:"state"`
	// Stack is the frames, innermost first, as printed after "at ".
	Stack []string `json:"stack"`
	// Daemon counts the group's daemon threads (Count for a group of daemons only).
	Daemon int `json:"daemon"`
	// Deadlocked is set when the JVM reported a deadlock involving these threads.
	Deadlocked bool `json:"deadlocked,omitempty"`
	// Names are the threads' names folded into patterns (see foldThreadName).
	Names []NamePattern `json:"names"`
	// Locks are the lock lines the group's threads share, per frame.
	Locks []GroupLock `json:"locks,omitempty"`
	// Key identifies the group across dumps: state, frames and lock kinds.
	Key string `json:"-"`
}

// GroupLock is one lock line that every thread of a group has on the same frame.
type GroupLock struct {
	Kind  string `json:"kind"`
	Class string `json:"class,omitempty"`
	Frame int    `json:"frame"`
	// Objects counts the distinct objects (addresses) the group's threads name here:
	// one object for many threads means contention on one lock.
	Objects int `json:"objects"`
	// HeldBy names (at most five) other threads that hold an object the group waits
	// for here.
	HeldBy []string `json:"held_by,omitempty"`
}

// NamePattern is a thread name pattern and the number of threads that match it.
type NamePattern struct {
	Pattern string `json:"pattern"`
	Count   int    `json:"count"`
}

// StateCount is the number of threads in one state.
type StateCount struct {
	State string `json:"state"`
	Count int    `json:"count"`
}

// ThreadGroups is the grouped view of one thread dump.
type ThreadGroups struct {
	Header string `json:"header,omitempty"`
	// Origin is the dump's (see ThreadDump.Origin).
	Origin
	Time   time.Time `json:"time,omitzero"`
	Total  int       `json:"total"`
	Daemon int       `json:"daemon"`
	// States counts threads per state, most first (a chart's data).
	States []StateCount `json:"states"`
	// Deadlocks are the deadlocks the JVM reported, to be shown first.
	Deadlocks []Deadlock `json:"deadlocks,omitempty"`
	// Groups are ordered deadlocked first, then by size, largest first.
	Groups []ThreadGroup `json:"groups"`
	// Names counts threads per folded name over the whole dump, most first.
	Names []NamePattern `json:"names"`
}

// GroupThreads groups the threads of one dump by identical state, stack and lock
// kinds, and counts states and thread name patterns.
func GroupThreads(d *ThreadDump) *ThreadGroups {
	g := &ThreadGroups{Header: d.Header, Origin: d.Origin, Time: d.Time, Total: len(d.Threads), Deadlocks: d.Deadlocks, Groups: []ThreadGroup{}}
	holders := lockHolders(d.Threads)
	type building struct {
		group   *ThreadGroup
		names   map[string]int
		objects []map[string]bool
		heldBy  []map[string]bool
	}
	groups := map[string]*building{}
	var order []*building
	states := map[string]int{}
	names := map[string]int{}
	var key []byte // reused: only a new group's key is copied into a string
	for i := range d.Threads {
		t := &d.Threads[i]
		state := t.EffectiveState()
		states[state]++
		folded := foldThreadName(t.Name)
		names[folded]++
		if t.Daemon {
			g.Daemon++
		}
		key = threadKey(key[:0], state, t)
		b, ok := groups[string(key)]
		if !ok {
			grp := &ThreadGroup{State: state, Stack: t.Frames, Key: string(key)}
			for _, l := range t.Locks {
				grp.Locks = append(grp.Locks, GroupLock{Kind: l.Kind, Class: l.Class, Frame: l.Frame})
			}
			b = &building{group: grp, names: map[string]int{}, objects: make([]map[string]bool, len(t.Locks)), heldBy: make([]map[string]bool, len(t.Locks))}
			groups[grp.Key] = b
			order = append(order, b)
		}
		b.group.Count++
		if t.Daemon {
			b.group.Daemon++
		}
		b.group.Deadlocked = b.group.Deadlocked || t.Deadlocked
		b.names[folded]++
		for j, l := range t.Locks {
			if l.Address == "" {
				continue
			}
			if b.objects[j] == nil {
				b.objects[j] = map[string]bool{}
			}
			b.objects[j][l.Address] = true
			if !l.Waiting() {
				continue
			}
			for _, h := range holders[l.Address] {
				if h != t.Name {
					if b.heldBy[j] == nil {
						b.heldBy[j] = map[string]bool{}
					}
					if len(b.heldBy[j]) < 5 {
						b.heldBy[j][h] = true
					}
				}
			}
		}
	}
	for _, b := range order {
		for j := range b.group.Locks {
			b.group.Locks[j].Objects = len(b.objects[j])
			b.group.Locks[j].HeldBy = sortedKeys(b.heldBy[j])
		}
		b.group.Names = groupNamePatterns(b.names)
		g.Groups = append(g.Groups, *b.group)
	}
	slices.SortStableFunc(g.Groups, func(a, b ThreadGroup) int {
		if a.Deadlocked != b.Deadlocked {
			if a.Deadlocked {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
	for s, n := range states {
		g.States = append(g.States, StateCount{State: s, Count: n})
	}
	slices.SortFunc(g.States, func(a, b StateCount) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.State, b.State)
	})
	g.Names = nameCounts(names)
	return g
}

// threadKey appends the grouping key of a thread to b: its state, its frames
// and, per frame, the kinds and classes (not the addresses) of its lock lines.
func threadKey(b []byte, state string, t *Thread) []byte {
	b = append(b, state...)
	locks := t.Locks
	for f := -1; f < len(t.Frames); f++ {
		if f >= 0 {
			b = append(b, '\n')
			b = append(b, t.Frames[f]...)
		}
		for len(locks) > 0 && locks[0].Frame == f {
			b = append(b, "\n- "...)
			b = append(b, locks[0].Kind...)
			b = append(b, ' ')
			b = append(b, locks[0].Class...)
			locks = locks[1:]
		}
	}
	for _, l := range locks { // ownable synchronizers (frame -1 after the frames)
		b = append(b, "\n= "...)
		b = append(b, l.Kind...)
		b = append(b, ' ')
		b = append(b, l.Class...)
	}
	return b
}

// lockHolders maps each object address to the names of the threads holding it.
func lockHolders(threads []Thread) map[string][]string {
	holders := map[string][]string{}
	for i := range threads {
		for _, l := range threads[i].Locks {
			if l.Held() && l.Address != "" && len(holders[l.Address]) < 5 {
				holders[l.Address] = append(holders[l.Address], threads[i].Name)
			}
		}
	}
	return holders
}

func sortedKeys(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// foldThreadName folds the parts of a thread name that vary between threads of
// one pool into "…": runs of digits, "0x" hex numbers and hex ids of eight or more
// characters. "hz._hzInstance_2_dev.cached.thread-4" becomes
// "hz._hzInstance_…_dev.cached.thread-…". HotSpot's own "G1", "C1" and "C2" stay.
func foldThreadName(name string) string {
	var b strings.Builder
	folded := false
	for i := 0; i < len(name); {
		n := varyingRun(name, i)
		if n == 0 {
			b.WriteByte(name[i])
			i++
			folded = false
			continue
		}
		if !folded {
			b.WriteString("…")
			folded = true
		}
		i += n
	}
	return b.String()
}

// varyingRun returns the length of the number or id that starts at s[i], or 0.
func varyingRun(s string, i int) int {
	if i > 0 && isAlnum(s[i-1]) && !isDigit(s[i]) {
		return 0 // inside a word
	}
	if i >= 1 && (i == 1 || !isAlnum(s[i-2])) && fixedJVMWord(s[i-1:]) {
		return 0
	}
	if strings.HasPrefix(s[i:], "0x") || strings.HasPrefix(s[i:], "0X") {
		j := i + 2
		for j < len(s) && isHex(s[j]) {
			j++
		}
		if j > i+2 {
			return j - i
		}
	}
	j, digits := i, false
	for j < len(s) && isHex(s[j]) {
		digits = digits || isDigit(s[j])
		j++
	}
	if j-i >= 8 && digits && (j == len(s) || !isAlnum(s[j])) {
		return j - i
	}
	j = i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	return j - i
}

// fixedJVMWord reports whether s starts with a word that names a part of
// HotSpot rather than a thread number: "G1 Conc#0", "C2 CompilerThread0".
func fixedJVMWord(s string) bool {
	for _, w := range []string{"G1", "C1", "C2"} {
		if strings.HasPrefix(s, w) && (len(s) == len(w) || !isAlnum(s[len(w)])) {
			return true
		}
	}
	return false
}

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isAlnum(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// nameCounts turns folded name counts into patterns, most threads first.
func nameCounts(m map[string]int) []NamePattern {
	out := make([]NamePattern, 0, len(m))
	for p, n := range m {
		out = append(out, NamePattern{Pattern: p, Count: n})
	}
	slices.SortFunc(out, func(a, b NamePattern) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Pattern, b.Pattern)
	})
	return out
}

// groupNamePatterns summarizes the folded names of one group: up to three as
// they are; more are merged into their common prefix and suffix around "…"
// ("Samza KafkaConsumerProxy Poll … - kafka"), or, with nothing in common, the three
// most frequent and a count of the others.
func groupNamePatterns(m map[string]int) []NamePattern {
	all := nameCounts(m)
	if len(all) <= 3 {
		return all
	}
	total := 0
	prefix, suffix := all[0].Pattern, all[0].Pattern
	for _, p := range all {
		total += p.Count
		prefix = commonPrefix(prefix, p.Pattern)
		suffix = commonSuffix(suffix, p.Pattern)
	}
	shortest := len(all[0].Pattern)
	for _, p := range all {
		shortest = min(shortest, len(p.Pattern))
	}
	if len(prefix)+len(suffix) > shortest {
		suffix = suffix[len(prefix)+len(suffix)-shortest:]
		for len(suffix) > 0 && !runeStart(suffix[0]) {
			suffix = suffix[1:]
		}
	}
	if len(strings.TrimSpace(prefix))+len(strings.TrimSpace(suffix)) >= 3 {
		return []NamePattern{{Pattern: strings.TrimSuffix(prefix, "…") + "…" + strings.TrimPrefix(suffix, "…"), Count: total}}
	}
	rest := 0
	for _, p := range all[3:] {
		rest += p.Count
	}
	return append(all[:3:3], NamePattern{Pattern: fmt.Sprintf("(%d other names)", len(all)-3), Count: rest})
}

func commonPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && n < len(a) && !runeStart(a[n]) {
		n--
	}
	return a[:n]
}

func commonSuffix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	s := a[len(a)-n:]
	for len(s) > 0 && !runeStart(s[0]) {
		s = s[1:]
	}
	return s
}

// runeStart reports whether c can start a UTF-8 sequence.
func runeStart(c byte) bool { return c&0xC0 != 0x80 }
