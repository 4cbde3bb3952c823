package jobs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/leakui/leakui/jobs"
)

// TestFindAndClientJobs finds jobs by an argument and counts a client's live
// jobs, on both backends: the newest job with the argument is found (with its
// position while it waits), another value finds none, and a client's count
// drops as its jobs end.
func TestFindAndClientJobs(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		backend := db.open(t)
		r := jobs.New(backend, testConfig(map[string]int{jobs.DefaultQueue: 1}))
		g := newGate()
		jobs.Register(r, jobs.WorkFunc[holdArgs](g.work), jobs.Kind{MaxAttempts: 1})
		start(t, r)
		ctx := context.Background()
		var ids []int64
		for _, name := range []string{"a", "b", "c"} {
			in, err := r.Insert(ctx, holdArgs{Name: name}, jobs.InsertOptions{Client: "10.0.0.1"})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, in.ID)
		}
		g.waitBegun(t, "a")
		if n, err := r.ClientJobs(ctx, holdArgs{}.Kind(), "10.0.0.1"); err != nil || n != 3 {
			t.Errorf("ClientJobs = %d, %v; want 3", n, err)
		}
		if n, err := r.ClientJobs(ctx, holdArgs{}.Kind(), "10.0.0.2"); err != nil || n != 0 {
			t.Errorf("ClientJobs of another client = %d, %v; want 0", n, err)
		}
		info, err := r.Find(ctx, holdArgs{}.Kind(), "name", "c")
		if err != nil || info.ID != ids[2] || info.State != jobs.Queued || info.Position != 2 {
			t.Errorf("Find(c) = %+v, %v; want job %d queued at position 2", info, err, ids[2])
		}
		if _, err := r.Find(ctx, holdArgs{}.Kind(), "name", "z"); !errors.Is(err, jobs.ErrNotFound) {
			t.Errorf("Find(z) = %v, want ErrNotFound", err)
		}
		if _, err := r.Find(ctx, holdArgs{}.Kind(), "name') OR ('1", "z"); err == nil {
			t.Error("Find took a field that is not an argument's name")
		}
		close(g.open)
		waitFor(t, r, ids[2], 20*time.Second, jobs.Done)
		if n, err := r.ClientJobs(ctx, holdArgs{}.Kind(), "10.0.0.1"); err != nil || n != 0 {
			t.Errorf("ClientJobs once done = %d, %v; want 0", n, err)
		}
		if info, err := r.Find(ctx, holdArgs{}.Kind(), "name", "a"); err != nil || info.State != jobs.Done {
			t.Errorf("Find(a) once done = %+v, %v", info, err)
		}
	})
}
