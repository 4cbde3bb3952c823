package kind

import (
	"sync"

	"github.com/leakui/leakui/analyze"
)

// Caches holds every cache of parsed inputs and views the kinds keep, charged to
// one memory budget. When an analysis finds no room in the budget, Reclaim drops
// cached results first: an entry of each cache in turn, least recently used
// first. A server under memory pressure forgets what it can parse again rather
// than refusing new work.
type Caches struct {
	budget *analyze.Budget
	mu     sync.Mutex
	all    []reclaimable
	names  []string
}

type reclaimable interface {
	DropOldest() int64
	Charged() int64
	Clear()
}

// NewCaches is the set of caches charged to b; it makes b reclaim from them.
func NewCaches(b *analyze.Budget) *Caches {
	cs := &Caches{budget: b}
	b.SetReclaim(cs.Reclaim)
	return cs
}

// Register charges c to the caches' budget from now on and reclaims from it,
// after the caches registered before it; name says what it holds. It returns c.
func Register[V any](cs *Caches, name string, c *Cache[V]) *Cache[V] {
	c.SetBudget(cs.budget)
	cs.mu.Lock()
	cs.all = append(cs.all, c)
	cs.names = append(cs.names, name)
	cs.mu.Unlock()
	return c
}

// Charged is what each cache holds of the budget, by its name.
func (cs *Caches) Charged() map[string]int64 {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	m := make(map[string]int64, len(cs.all))
	for i, c := range cs.all {
		m[cs.names[i]] += c.Charged()
	}
	return m
}

// Reclaim gives back at least need bytes if the caches hold them and reports
// whether it gave back anything.
func (cs *Caches) Reclaim(need int64) bool {
	cs.mu.Lock()
	caches := append([]reclaimable(nil), cs.all...)
	cs.mu.Unlock()
	var freed int64
	dropped := false
	for {
		round := false
		for _, c := range caches {
			if n := c.DropOldest(); n > 0 {
				freed += n
				round, dropped = true, true
				if freed >= need {
					return true
				}
			}
		}
		if !round {
			return dropped
		}
	}
}

// Clear empties every cache.
func (cs *Caches) Clear() {
	cs.mu.Lock()
	caches := append([]reclaimable(nil), cs.all...)
	cs.mu.Unlock()
	for _, c := range caches {
		c.Clear()
	}
}
