package kind

import "testing"

// TestSizedLRUBoundsTheCost: entries are evicted, least recent first, once their
// cost passes the budget, and an entry over the budget alone is not kept.
func TestSizedLRUBoundsTheCost(t *testing.T) {
	c := NewSizedCache(10, 100, func(v int) int64 { return int64(v) })
	c.Add("a", 40)
	c.Add("b", 40)
	c.Get("a") // b is now the least recent
	c.Add("c", 40)
	if _, ok := c.Get("b"); ok {
		t.Error("b survived though a, b and c cost 120 of 100")
	}
	for _, k := range []string{"a", "c"} {
		if _, ok := c.Get(k); !ok {
			t.Errorf("%s was evicted", k)
		}
	}
	if c.total != 80 {
		t.Errorf("total cost %d, want 80", c.total)
	}
	c.Add("huge", 101)
	if _, ok := c.Get("huge"); ok || c.total != 80 {
		t.Errorf("an entry over the whole budget was kept (total %d)", c.total)
	}
	c.Add("a", 10) // replacing an entry replaces its cost
	c.Remove("c")
	if c.total != 10 || c.order.Len() != 1 {
		t.Errorf("after replace and remove: total %d, %d entries", c.total, c.order.Len())
	}
}
