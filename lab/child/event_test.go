package child

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

func TestEventRoundTrip(t *testing.T) {
	in := Event{
		Kind: EventProgress, Time: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC),
		Step: 3, Steps: 10, StepName: "cycle",
		Memory:   Memory{Goroutines: 42, HeapInuse: 1 << 20, HeapSys: 4 << 20, RSS: 9 << 20},
		Counters: map[string]int64{"consumer_starts": 3, "consumer_stops": 0, "open_consumers": 3},
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"event":"progress"`, `"consumer_stops":0`, `"step":3`, `"goroutines":42`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
	var out Event
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.Step != 3 || out.Steps != 10 || out.Memory != in.Memory || !out.Time.Equal(in.Time) ||
		out.StepName != "cycle" || len(out.Counters) != 3 || out.Counters["open_consumers"] != 3 {
		t.Errorf("round trip: got %+v, want %+v", out, in)
	}
}

func TestEventReservedCounter(t *testing.T) {
	_, err := json.Marshal(Event{Kind: EventDone, Counters: map[string]int64{"rss": 1}})
	if err == nil {
		t.Fatal("a counter named rss was accepted")
	}
}

func TestEventRejectsLineWithoutKind(t *testing.T) {
	var e Event
	if err := json.Unmarshal([]byte(`{"step":1}`), &e); err == nil {
		t.Fatal("an event without a kind was accepted")
	}
}

func TestEmitterHuman(t *testing.T) {
	var buf bytes.Buffer
	em := NewEmitter(&buf, false)
	if err := em.Emit(Event{Kind: EventProgress, Step: 2, Steps: 5, StepName: "cycle",
		Counters: map[string]int64{"open_consumers": 1}}); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); !strings.HasPrefix(got, "progress cycle 2/5 open_consumers=1 ") {
		t.Errorf("human line = %q", got)
	}
}

func TestReadMemoryCountsGoroutines(t *testing.T) {
	// A goroutine of an earlier test may end between the two readings, so a
	// reading may come out one short: up to five tries, each of which must see
	// exactly the ten goroutines it started for the test to pass.
	var before, after Memory
	for range 5 {
		before = ReadMemory()
		stop := make(chan struct{})
		for range 10 {
			go func() { <-stop }()
		}
		after = ReadMemory()
		close(stop)
		if after.Goroutines-before.Goroutines == 10 {
			break
		}
	}
	if after.Goroutines-before.Goroutines != 10 {
		t.Errorf("goroutines %d → %d, want +10", before.Goroutines, after.Goroutines)
	}
	if after.HeapInuse <= 0 || after.RSS <= 0 {
		t.Errorf("memory figures not read: %+v", after)
	}
}

func TestEmitterSyncWaitsForAnAck(t *testing.T) {
	var out bytes.Buffer
	acks, ackw := io.Pipe()
	em := NewEmitter(&out, true)
	em.SyncWith(acks)
	done := make(chan struct{})
	go func() {
		em.Emit(Event{Kind: EventProgress, Step: 1, Steps: 2})
		close(done)
	}()
	select {
	case <-done:
		t.Fatal("Emit returned before the ack")
	case <-time.After(50 * time.Millisecond):
	}
	ackw.Write([]byte("\n"))
	<-done
	// A done event does not wait; a closed ack stream stops the waiting.
	em.Emit(Event{Kind: EventDone, Step: 2, Steps: 2})
	ackw.Close()
	em.Emit(Event{Kind: EventProgress, Step: 3, Steps: 3})
	em.Emit(Event{Kind: EventProgress, Step: 4, Steps: 4})
	if n := strings.Count(out.String(), "\n"); n != 4 {
		t.Errorf("%d lines written, want 4", n)
	}
}
