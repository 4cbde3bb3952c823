package web

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestRoundRobinServesEachOwnerInTurn queues four items of A, one of B and
// two of C, in that order: they come out A, B, C, A, C, A, A — each owner's
// next item behind every other owner's — and position foretells that order.
func TestRoundRobinServesEachOwnerInTurn(t *testing.T) {
	var q roundRobin[string]
	for _, it := range []string{"A1", "A2", "A3", "A4", "B1", "C1", "C2"} {
		q.push(it[:1], it)
	}
	want := []string{"A1", "B1", "C1", "A2", "C2", "A3", "A4"}
	for i, it := range want {
		if p := q.position(it); p != i {
			t.Errorf("position(%s) = %d, want %d", it, p, i)
		}
	}
	if p := q.position("Z1"); p != -1 {
		t.Errorf("position of an item not queued: %d", p)
	}
	if q.count("A") != 4 || q.count("B") != 1 || q.len() != 7 {
		t.Errorf("counts: A %d, B %d, all %d", q.count("A"), q.count("B"), q.len())
	}
	var got []string
	for {
		owner, it, ok := q.next(nil)
		if !ok {
			break
		}
		if owner != it[:1] {
			t.Errorf("next gave %s as %s's", it, owner)
		}
		got = append(got, it)
	}
	if !slices.Equal(got, want) {
		t.Errorf("served %v, want %v", got, want)
	}
}

// TestRoundRobinSkipsWhatIsNotReady checks that next passes over the items
// ready refuses, that an owner served without queueing (served) goes behind
// the others, and that remove takes an item out without a turn.
func TestRoundRobinSkipsWhatIsNotReady(t *testing.T) {
	var q roundRobin[string]
	for _, it := range []string{"A1", "B1", "B2", "C1"} {
		q.push(it[:1], it)
	}
	q.served("A")
	if _, it, _ := q.next(func(owner, _ string) bool { return owner != "B" }); it != "C1" {
		t.Errorf("with B not ready and A just served: %s, want C1", it)
	}
	if !q.remove("B1") || q.remove("B1") || q.contains("B1") {
		t.Error("remove does not take B1 out once")
	}
	if _, it, _ := q.next(nil); it != "B2" {
		t.Errorf("after C's turn: %s, want B2 (B never served)", it)
	}
	if _, _, ok := q.next(func(string, string) bool { return false }); ok {
		t.Error("next gave an item none of which is ready")
	}
}

// TestRoundRobinForgetsIdleOwners serves 5,000 owners one item each: the turns
// it remembers stay bounded.
func TestRoundRobinForgetsIdleOwners(t *testing.T) {
	var q roundRobin[int]
	for i := range 5000 {
		q.push(fmt.Sprint(i), i)
		q.next(nil)
	}
	if len(q.turns) > maxForgottenTurns+1 {
		t.Errorf("%d turns remembered of owners with nothing queued", len(q.turns))
	}
}

// grantOrder starts a request of each client in turn on f, the next once the
// one before is granted or waiting, and returns a channel that receives each
// client as its request is granted, with a function that releases one of the
// named client's slots.
func grantOrder(t *testing.T, f *fairThrottle, clients ...string) (granted chan string, release func(client string)) {
	t.Helper()
	granted = make(chan string, len(clients))
	started := map[string]int{}
	for _, c := range clients {
		go func() {
			if _, err := f.acquire(context.Background(), c); err != nil {
				t.Errorf("%s: %v", c, err)
				return
			}
			granted <- c
		}()
		started[c]++
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			f.mu.Lock()
			n := f.pending[c]
			f.mu.Unlock()
			if n == started[c] {
				break
			}
		}
	}
	return granted, f.release
}

// TestFairThrottleGivesFreedSlotsRoundRobin holds one slot with A, queues two
// more of A's requests and then one of D's: the freed slot goes to D, which
// has had none, then to A's in turn.
func TestFairThrottleGivesFreedSlotsRoundRobin(t *testing.T) {
	f := newFairThrottle(1, 8, 1, 8, time.Minute)
	granted, release := grantOrder(t, f, "A", "A", "A", "D")
	var order []string
	next := func() string {
		select {
		case c := <-granted:
			return c
		case <-time.After(10 * time.Second):
			t.Fatalf("no grant after %v", order)
			return ""
		}
	}
	order = append(order, next())
	for range 3 {
		release(order[len(order)-1])
		order = append(order, next())
	}
	if want := []string{"A", "D", "A", "A"}; !slices.Equal(order, want) {
		t.Errorf("grants %v, want %v", order, want)
	}
}

// TestFairThrottleShares checks each address's share: with 3 slots and a
// share of 2 slots and 3 requests, A's third waits though a slot is free and
// its fourth is refused; B is served at once; then a full backlog and a wait
// past the timeout are refused with errors of their own.
func TestFairThrottleShares(t *testing.T) {
	f := newFairThrottle(3, 1, 2, 3, 300*time.Millisecond)
	ctx := context.Background()
	var releases []func()
	for range 2 {
		rel, err := f.acquire(ctx, "A")
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, rel)
	}
	waited := make(chan error, 1)
	go func() {
		rel, err := f.acquire(ctx, "A")
		if err == nil {
			rel()
		}
		waited <- err
	}()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if _, w := f.load(); w == 1 {
			break
		}
	}
	if _, err := f.acquire(ctx, "A"); !errors.Is(err, errClientShare) {
		t.Errorf("A's fourth request: %v, want its share refused", err)
	}
	if busy, waiting := f.load(); busy != 2 || waiting != 1 {
		t.Errorf("with A's share going: %d busy, %d waiting; want 2 and 1", busy, waiting)
	}
	rel, err := f.acquire(ctx, "B")
	if err != nil {
		t.Fatalf("B, with slots free: %v", err)
	}
	releases = append(releases, rel)
	if _, err := f.acquire(ctx, "C"); !errors.Is(err, errBacklogFull) {
		t.Errorf("C with the slots taken and the backlog of one full: %v, want errBacklogFull", err)
	}
	if err := <-waited; !errors.Is(err, errBacklogWait) {
		t.Errorf("A's third, never given a slot: %v, want errBacklogWait", err)
	}
	for _, rel := range releases {
		rel()
	}
	if busy, waiting := f.load(); busy != 0 || waiting != 0 || len(f.held) != 0 || len(f.pending) != 0 {
		t.Errorf("after every release: %d busy, %d waiting, held %v, pending %v", busy, waiting, f.held, f.pending)
	}
}
