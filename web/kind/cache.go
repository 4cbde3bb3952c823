package kind

import (
	"container/list"
	"sync"

	"github.com/leakui/leakui/analyze"
)

// Cache is a small least-recently-used cache of analysis results keyed by artifact
// hash and parameters, so a report viewed many times is parsed once. It holds at
// most max entries and, when it has a cost function, at most maxCost of their
// cost (bytes): a few huge profiles must not pin gigabytes. It is safe for
// concurrent use.
type Cache[V any] struct {
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

	// flights are the loads in progress, by key (see Load).
	flightMu sync.Mutex
	flights  map[string]*flight[V]
	// joined, when it is not nil, is called each time a caller finds the load
	// of its key in flight and is about to wait for it. Tests set it to know
	// that a caller joined a flight; it is nil in production.
	joined func()
}

type cacheEntry[V any] struct {
	key   string
	value V
	cost  int64
}

// NewCache is a Cache of at most max entries, whatever they cost.
func NewCache[V any](max int) *Cache[V] {
	return &Cache[V]{max: max, order: list.New(), items: make(map[string]*list.Element)}
}

// NewSizedCache is a Cache that also keeps the sum of cost over its entries within
// maxCost; an entry that alone costs more is not kept.
func NewSizedCache[V any](max int, maxCost int64, cost func(V) int64) *Cache[V] {
	c := NewCache[V](max)
	c.maxCost, c.cost = maxCost, cost
	return c
}

// Get returns the value cached under key and makes it the most recent.
func (c *Cache[V]) Get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*cacheEntry[V]).value, true
	}
	var zero V
	return zero, false
}

// Add keeps v under key at its cost, charged to the budget: the least recent
// entries go first when the budget or the cache has no room; v is not kept when
// it alone costs more than the cache may hold.
func (c *Cache[V]) Add(key string, v V) {
	var cost int64
	if c.cost != nil {
		cost = c.cost(v)
	}
	c.add(key, v, cost)
}

// add keeps v under key at cost.
func (c *Cache[V]) add(key string, v V, cost int64) {
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
	c.items[key] = c.order.PushFront(&cacheEntry[V]{key, v, cost})
	c.total += cost
	for c.order.Len() > c.max || (c.cost != nil && c.total > c.maxCost) {
		c.drop(c.order.Back())
	}
}

// drop removes one element; c.mu is held.
func (c *Cache[V]) drop(e *list.Element) {
	entry := e.Value.(*cacheEntry[V])
	c.order.Remove(e)
	delete(c.items, entry.key)
	c.total -= entry.cost
	c.budget.Uncharge(entry.cost)
}

// SetBudget charges the cache's entries to b from now on.
func (c *Cache[V]) SetBudget(b *analyze.Budget) { c.budget = b }

// Remove drops the entry of key.
func (c *Cache[V]) Remove(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.drop(e)
	}
}

// Clear drops every entry.
func (c *Cache[V]) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.order.Init()
	clear(c.items)
	c.budget.Uncharge(c.total)
	c.total = 0
}

// DropOldest drops the least recently used entry to make room in the memory
// budget and returns its cost; 0 when the cache is empty or busy (a cache whose
// lock is held, perhaps by the very add that needs the room, is skipped rather
// than waited for).
func (c *Cache[V]) DropOldest() int64 {
	if !c.mu.TryLock() {
		return 0
	}
	defer c.mu.Unlock()
	e := c.order.Back()
	if e == nil {
		return 0
	}
	cost := e.Value.(*cacheEntry[V]).cost
	c.drop(e)
	return cost
}

// Charged is the sum of the entries' costs, what the cache holds of its budget.
func (c *Cache[V]) Charged() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// SetCost bounds the cache by the sum of cost over its entries, at most maxCost.
func (c *Cache[V]) SetCost(maxCost int64, cost func(V) int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.maxCost, c.cost = maxCost, cost
}

// Len is the number of entries the cache holds.
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
