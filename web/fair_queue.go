package web

// roundRobin is a queue served round robin by owner (a client address): the
// next item is the oldest of the owner whose last turn is longest ago, an
// owner never served first. So one owner's many items wait behind every other
// owner's next one, and each owner waits at most one turn per other owner
// waiting. It is not safe for concurrent use; its users hold their own lock.
// The throttles (throttles.go) use it.
type roundRobin[T comparable] struct {
	items []roundRobinItem[T] // in arrival order
	// turns holds each owner's last turn (a tick of clock); owners never served,
	// or forgotten, have none and go first.
	turns map[string]uint64
	clock uint64
}

type roundRobinItem[T comparable] struct {
	owner string
	value T
}

// maxForgottenTurns bounds the turns remembered of owners with nothing
// queued.
const maxForgottenTurns = 1024

// push queues value for owner.
func (q *roundRobin[T]) push(owner string, value T) {
	q.items = append(q.items, roundRobinItem[T]{owner, value})
}

// len is the number of items queued.
func (q *roundRobin[T]) len() int { return len(q.items) }

// count is the number of items owner has queued.
func (q *roundRobin[T]) count(owner string) int {
	n := 0
	for _, it := range q.items {
		if it.owner == owner {
			n++
		}
	}
	return n
}

// contains reports whether value is queued.
func (q *roundRobin[T]) contains(value T) bool {
	return q.index(value) >= 0
}

func (q *roundRobin[T]) index(value T) int {
	for i, it := range q.items {
		if it.value == value {
			return i
		}
	}
	return -1
}

// remove takes value out of the queue without giving its owner a turn; it
// reports whether it was queued.
func (q *roundRobin[T]) remove(value T) bool {
	i := q.index(value)
	if i < 0 {
		return false
	}
	q.items = append(q.items[:i:i], q.items[i+1:]...)
	return true
}

// next takes the next item that ready accepts (nil: any) off the queue and
// gives its owner the turn; ok is false when no item is ready.
func (q *roundRobin[T]) next(ready func(owner string, value T) bool) (owner string, value T, ok bool) {
	best := -1
	var bestTurn uint64
	for i, it := range q.items {
		if ready != nil && !ready(it.owner, it.value) {
			continue
		}
		turn := q.turns[it.owner]
		if best < 0 || turn < bestTurn {
			best, bestTurn = i, turn
		}
	}
	if best < 0 {
		return "", value, false
	}
	it := q.items[best]
	q.items = append(q.items[:best:best], q.items[best+1:]...)
	q.served(it.owner)
	return it.owner, it.value, true
}

// served gives owner a turn, as next does; for an owner served without
// waiting in the queue.
func (q *roundRobin[T]) served(owner string) {
	q.clock++
	if q.turns == nil {
		q.turns = map[string]uint64{}
	}
	q.turns[owner] = q.clock
	q.forget()
}

// forget drops the turns of owners with nothing queued once there are more
// than maxForgottenTurns of them, so the memory stays bounded by the items.
func (q *roundRobin[T]) forget() {
	if len(q.turns) <= maxForgottenTurns+len(q.items) {
		return
	}
	queued := map[string]bool{}
	for _, it := range q.items {
		queued[it.owner] = true
	}
	for owner := range q.turns {
		if !queued[owner] {
			delete(q.turns, owner)
		}
	}
}

// position is how many items next would take before value if nothing else
// arrived and every item were ready (-1: value is not queued). Owners take
// their turns in a fixed rotation (by last turn, then by their first item's
// arrival), each its items in arrival order.
func (q *roundRobin[T]) position(value T) int {
	i := q.index(value)
	if i < 0 {
		return -1
	}
	owner := q.items[i].owner
	// The items of each owner, and where value is among its owner's.
	counts := map[string]int{}
	firsts := map[string]int{}
	k := 0
	for j, it := range q.items {
		if _, ok := firsts[it.owner]; !ok {
			firsts[it.owner] = j
		}
		if j < i && it.owner == owner {
			k++
		}
		counts[it.owner]++
	}
	// before tells whether other's turn in a round comes before owner's.
	before := func(other string) bool {
		a, b := q.turns[other], q.turns[owner]
		return a < b || a == b && firsts[other] < firsts[owner]
	}
	// Rounds 0…k-1 take min(count, k) items of every owner; in round k the
	// owners ahead in the rotation that still have an item go first.
	pos := 0
	for other, n := range counts {
		if other == owner {
			pos += k
			continue
		}
		pos += min(n, k)
		if n > k && before(other) {
			pos++
		}
	}
	return pos
}
