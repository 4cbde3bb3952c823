package web

import (
	"container/list"
	"sync"

	"github.com/leakui/leakui/analyze"
)

// lru is a small least-recently-used cache of analysis results keyed by artifact
// hash and parameters, so a report viewed many times is parsed once. It holds at
// most max entries and, when it has a cost function, at most maxCost of their
// cost (bytes): a few huge profiles must not pin gigabytes. It is safe for
// concurrent use.
type lru[V any] struct {
	mu      sync.Mutex
	max     int
	maxCost int64
	cost    func(V) int64 // nil: every entry costs 0
	total   int64
	order   *list.List // front = most recent; elements hold *lruEntry[V]
	items   map[string]*list.Element
	// budget, when set, is charged with the cost of every entry kept: an entry
	// the server's memory budget has no room for is not kept.
	budget *analyze.Budget
}

type lruEntry[V any] struct {
	key   string
	value V
	cost  int64
}

func newLRU[V any](max int) *lru[V] {
	return &lru[V]{max: max, order: list.New(), items: make(map[string]*list.Element)}
}

// newSizedLRU is an lru that also keeps the sum of cost over its entries within
// maxCost; an entry that alone costs more is not kept.
func newSizedLRU[V any](max int, maxCost int64, cost func(V) int64) *lru[V] {
	c := newLRU[V](max)
	c.maxCost, c.cost = maxCost, cost
	return c
}

func (c *lru[V]) get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*lruEntry[V]).value, true
	}
	var zero V
	return zero, false
}

func (c *lru[V]) add(key string, v V) {
	var cost int64
	if c.cost != nil {
		cost = c.cost(v)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.drop(e)
	}
	if c.cost != nil && cost > c.maxCost {
		return
	}
	for c.budget.Charge(cost) != nil {
		if c.order.Len() == 0 {
			return
		}
		c.drop(c.order.Back())
	}
	c.items[key] = c.order.PushFront(&lruEntry[V]{key, v, cost})
	c.total += cost
	for c.order.Len() > c.max || (c.cost != nil && c.total > c.maxCost) {
		c.drop(c.order.Back())
	}
}

// drop removes one element; c.mu is held.
func (c *lru[V]) drop(e *list.Element) {
	entry := e.Value.(*lruEntry[V])
	c.order.Remove(e)
	delete(c.items, entry.key)
	c.total -= entry.cost
	c.budget.Uncharge(entry.cost)
}

// setBudget charges the cache's entries to b from now on.
func (c *lru[V]) setBudget(b *analyze.Budget) { c.budget = b }

func (c *lru[V]) remove(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.drop(e)
	}
}

func (c *lru[V]) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.order.Init()
	clear(c.items)
	c.budget.Uncharge(c.total)
	c.total = 0
}

// dropOldest drops the least recently used entry to make room in the memory
// budget and returns its cost; 0 when the cache is empty or busy (a cache whose
// lock is held, perhaps by the very add that needs the room, is skipped rather
// than waited for).
func (c *lru[V]) dropOldest() int64 {
	if !c.mu.TryLock() {
		return 0
	}
	defer c.mu.Unlock()
	e := c.order.Back()
	if e == nil {
		return 0
	}
	cost := e.Value.(*lruEntry[V]).cost
	c.drop(e)
	return cost
}

// charged is the sum of the entries' costs, what the cache holds of its budget.
func (c *lru[V]) charged() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}
