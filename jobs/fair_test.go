package jobs_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/leakui/leakui/jobs"
)

// One worker is held by 127.0.0.2's first job while it queues two more and
// 127.0.0.3 one: 127.0.0.3's waits behind the running job only, 127.0.0.2's
// fourth is refused (ErrClientLimit), and the jobs run round robin:
// 127.0.0.2's first, 127.0.0.3's, then 127.0.0.2's second and third. A
// third client arriving while 127.0.0.3's runs goes before 127.0.0.2's
// second, as a round robin's new client does.
func TestFairRoundRobinByClient(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		g := newGate()
		r := jobs.New(db.open(t), testConfig(map[string]int{"analyses": 1}))
		jobs.Register(r, jobs.WorkFunc[holdArgs](g.work), jobs.Kind{Queue: "analyses", MaxPerClient: 3})
		start(t, r)
		insert := func(name, client string) (int64, error) {
			ins, err := r.Insert(t.Context(), holdArgs{name}, jobs.InsertOptions{Client: client})
			return ins.ID, err
		}
		must := func(name, client string) int64 {
			t.Helper()
			id, err := insert(name, client)
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
		a1 := must("a1", "127.0.0.2")
		g.waitBegun(t, "a1")
		a2, a3 := must("a2", "127.0.0.2"), must("a3", "127.0.0.2")
		if _, err := insert("a4", "127.0.0.2"); !errors.Is(err, jobs.ErrClientLimit) {
			t.Errorf("127.0.0.2's fourth: %v, want ErrClientLimit", err)
		}
		b1 := must("b1", "127.0.0.3")
		if p := positions(t, r, a2, a3, b1); !slices.Equal(p, []int{2, 3, 1}) {
			t.Errorf("jobs before a2, a3 and b1: %v, want [2 3 1]", p)
		}
		g.open <- struct{}{} // a1 ends
		g.waitBegun(t, "b1")
		waitFor(t, r, a1, 10*time.Second, jobs.Done) // its completion is recorded apart
		c1 := must("c1", "127.0.0.4")
		if p := positions(t, r, a2, a3, c1); !slices.Equal(p, []int{2, 3, 1}) {
			t.Errorf("while b1 runs, jobs before a2, a3 and c1: %v, want [2 3 1]", p)
		}
		close(g.open)
		for _, id := range []int64{a2, a3, b1, c1} {
			waitFor(t, r, id, 30*time.Second, jobs.Done)
		}
		if got, want := g.order(), []string{"a1", "b1", "c1", "a2", "a3"}; !slices.Equal(got, want) {
			t.Errorf("the jobs ran in the order %v, want %v", got, want)
		}
		// Once its jobs are done, 127.0.0.2 may queue again.
		if _, err := insert("a5", "127.0.0.2"); err != nil {
			t.Errorf("127.0.0.2's next job once the others are done: %v", err)
		}
	})
}

// Many clients queue at once, one of them ten times more jobs than the
// others: between two of its jobs, every client with jobs left runs one.
func TestFairManyClients(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		g := newGate()
		r := jobs.New(db.open(t), testConfig(map[string]int{"analyses": 1}))
		jobs.Register(r, jobs.WorkFunc[holdArgs](g.work), jobs.Kind{Queue: "analyses"})
		start(t, r)
		if _, err := r.Insert(t.Context(), holdArgs{"hold"}, jobs.InsertOptions{Client: "holder"}); err != nil {
			t.Fatal(err)
		}
		g.waitBegun(t, "hold")
		// The heavy client queues 4 (its rank is at most 4), then 3 others 2 each.
		var ids []int64
		add := func(name, client string) {
			ins, err := r.Insert(t.Context(), holdArgs{name}, jobs.InsertOptions{Client: client})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, ins.ID)
		}
		for _, n := range []string{"h1", "h2", "h3", "h4"} {
			add(n, "heavy")
		}
		for _, c := range []string{"x", "y", "z"} {
			add(c+"1", c)
		}
		for _, c := range []string{"x", "y", "z"} {
			add(c+"2", c)
		}
		close(g.open)
		for _, id := range ids {
			waitFor(t, r, id, 30*time.Second, jobs.Done)
		}
		want := []string{"hold", "h1", "x1", "y1", "z1", "h2", "x2", "y2", "z2", "h3", "h4"}
		if got := g.order(); !slices.Equal(got, want) {
			t.Errorf("the jobs ran in the order %v, want %v", got, want)
		}
	})
}

// positions returns the queue positions of jobs ids.
func positions(t *testing.T, r *jobs.Runner, ids ...int64) []int {
	t.Helper()
	var p []int
	for _, id := range ids {
		info, err := r.Job(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		p = append(p, info.Position)
	}
	return p
}

// With two jobs running at once (one of each of two clients), the ranks put
// each client's next job before either's second: one client's many jobs do
// not take both slots when they free.
func TestFairTwoWorkers(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		g := newGate()
		r := jobs.New(db.open(t), testConfig(map[string]int{"analyses": 2}))
		jobs.Register(r, jobs.WorkFunc[holdArgs](g.work), jobs.Kind{Queue: "analyses"})
		start(t, r)
		ids := map[string]int64{}
		add := func(name, client string) {
			t.Helper()
			ins, err := r.Insert(t.Context(), holdArgs{name}, jobs.InsertOptions{Client: client})
			if err != nil {
				t.Fatal(err)
			}
			ids[name] = ins.ID
		}
		add("h0", "heavy")
		g.waitBegun(t, "h0")
		add("x0", "x")
		g.waitBegun(t, "x0")
		waitFor(t, r, ids["x0"], 10*time.Second, jobs.Running)
		for _, n := range []string{"h1", "h2", "h3"} {
			add(n, "heavy")
		}
		add("x1", "x")
		if p := positions(t, r, ids["h1"], ids["x1"], ids["h2"], ids["h3"]); !slices.Equal(p, []int{2, 3, 4, 5}) {
			t.Errorf("jobs before h1, x1, h2, h3: %v, want [2 3 4 5]", p)
		}
		close(g.open)
		for _, id := range ids {
			waitFor(t, r, id, 30*time.Second, jobs.Done)
		}
	})
}

// When a client's job ends its turn, the client's next job steps up a rank:
// a client that has waited goes before a new client's second job.
func TestFairStepsUpAfterATurn(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		g := newGate()
		r := jobs.New(db.open(t), testConfig(map[string]int{"analyses": 1}))
		jobs.Register(r, jobs.WorkFunc[holdArgs](g.work), jobs.Kind{Queue: "analyses"})
		start(t, r)
		ids := map[string]int64{}
		add := func(name, client string) {
			t.Helper()
			ins, err := r.Insert(t.Context(), holdArgs{name}, jobs.InsertOptions{Client: client})
			if err != nil {
				t.Fatal(err)
			}
			ids[name] = ins.ID
		}
		for _, n := range []string{"a1", "a2", "a3"} {
			add(n, "a")
		}
		g.waitBegun(t, "a1")
		g.open <- struct{}{} // a1 ends
		g.waitBegun(t, "a2")
		waitFor(t, r, ids["a1"], 10*time.Second, jobs.Done) // its completion is recorded apart
		add("b1", "b")
		add("b2", "b")
		if p := positions(t, r, ids["b1"], ids["a3"], ids["b2"]); !slices.Equal(p, []int{1, 2, 3}) {
			t.Errorf("jobs before b1, a3, b2: %v, want [1 2 3] (a3 a rank up since a1's turn)", p)
		}
		close(g.open)
		for _, id := range ids {
			waitFor(t, r, id, 30*time.Second, jobs.Done)
		}
		if got, want := g.order(), []string{"a1", "a2", "b1", "a3", "b2"}; !slices.Equal(got, want) {
			t.Errorf("the jobs ran in the order %v, want %v", got, want)
		}
	})
}
