package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/leakui/leakui/store"
)

func testRunLifecycle(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	r := &store.Run{ID: store.NewID(), Workload: "checkpoint", Spec: json.RawMessage(`{"cycles":5}`), Owner: "a", LeaseUntil: time.Now().Add(time.Minute)}
	if err := db.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	if err := db.UpdateRunProgress(ctx, r.ID, json.RawMessage(`{"step":2}`), time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	heap := randomBytes(3000)
	a := &store.RunArtifact{Role: "heap", Step: 2}
	if err := db.AddRunArtifact(ctx, r.ID, a, upload("heap-0002.pb.gz", heap)); err != nil {
		t.Fatal(err)
	}
	if err := db.AddRunArtifact(ctx, r.ID, &store.RunArtifact{Role: "heap", Step: 4}, upload("heap-0004.pb.gz", heap)); err != nil {
		t.Fatal(err)
	}
	arts, err := db.RunArtifacts(ctx, r.ID)
	if err != nil || len(arts) != 2 || arts[0].Seq != 0 || arts[1].Seq != 1 || arts[1].Step != 4 || arts[0].Size != 3000 {
		t.Fatalf("artifacts %+v (%v)", arts, err)
	}
	if got := counts(t, db); got[0] != 1 {
		t.Errorf("the same bytes twice are %d artifacts", got[0])
	}
	r.Status, r.Verdict, r.Reason, r.Progress = "done", "leak", "4 consumers never closed", json.RawMessage(`{"step":5}`)
	if err := db.FinishRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err := db.Run(ctx, r.ID)
	if err != nil || got.Status != "done" || got.Verdict != "leak" || string(got.Progress) != `{"step":5}` || got.FinishedAt.IsZero() {
		t.Fatalf("run read back %+v (%v)", got, err)
	}
	if err := db.UpdateRunProgress(ctx, r.ID, nil, time.Now()); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("progress on a finished run: %v", err)
	}
	if err := db.FinishRun(ctx, r); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("finishing twice: %v", err)
	}
	back, _ := db.ReadArtifact(ctx, arts[0].SHA256)
	if !bytes.Equal(back, heap) {
		t.Error("captured bytes differ")
	}
}

func testInterruptRuns(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	now := time.Now()
	expired := &store.Run{ID: store.NewID(), Workload: "checkpoint", Owner: "a", LeaseUntil: now.Add(-time.Second)}
	live := &store.Run{ID: store.NewID(), Workload: "checkpoint", Owner: "b", LeaseUntil: now.Add(time.Hour)}
	mine := &store.Run{ID: store.NewID(), Workload: "recovery", Owner: "c", LeaseUntil: now.Add(time.Hour)}
	for _, r := range []*store.Run{expired, live, mine} {
		if err := db.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := db.InterruptExpiredRuns(ctx, now); err != nil || n != 1 {
		t.Fatalf("interrupted %d (%v), want the expired one", n, err)
	}
	if n, err := db.InterruptOwnedRuns(ctx, "c"); err != nil || n != 1 {
		t.Fatalf("interrupted %d (%v), want owner c's", n, err)
	}
	for id, want := range map[string]string{expired.ID: "interrupted", live.ID: "running", mine.ID: "interrupted"} {
		r, err := db.Run(ctx, id)
		if err != nil || r.Status != want {
			t.Errorf("run %s: %v (%v), want %s", id, r, err, want)
		}
	}
	recent, err := db.RecentRuns(ctx, 10)
	if err != nil || len(recent) != 3 {
		t.Errorf("recent runs: %d (%v)", len(recent), err)
	}
}

// A capture for a run that does not exist stores nothing.
func testRunArtifactNeedsARun(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	err := db.AddRunArtifact(ctx, store.NewID(), &store.RunArtifact{Role: "heap"}, upload("heap.pb.gz", randomBytes(100)))
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("capture of an unknown run: %v, want ErrNotFound", err)
	}
	if got := counts(t, db); got != [3]int{0, 0, 0} {
		t.Errorf("left %v", got)
	}
}

// Captures of one run stored at the same time get distinct, dense numbers.
func testConcurrentCaptures(t *testing.T, dsn string) {
	ctx := context.Background()
	a, b := openStore(t, dsn), openStore(t, dsn)
	r := &store.Run{ID: store.NewID(), Workload: "checkpoint", LeaseUntil: time.Now().Add(time.Minute)}
	if err := a.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 10 {
		db := []*store.DB{a, b}[i%2]
		wg.Go(func() {
			if err := db.AddRunArtifact(ctx, r.ID, &store.RunArtifact{Role: "heap", Step: int64(i)}, upload("h", randomBytes(100+i))); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	arts, err := a.RunArtifacts(ctx, r.ID)
	if err != nil || len(arts) != 10 {
		t.Fatalf("%d artifacts (%v)", len(arts), err)
	}
	for i, art := range arts {
		if art.Seq != i {
			t.Errorf("capture %d has seq %d", i, art.Seq)
		}
	}
}
