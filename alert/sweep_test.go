package alert_test

import (
	"testing"
	"time"

	"github.com/leakui/leakui/alert"
	"github.com/leakui/leakui/jobs"
	"github.com/leakui/leakui/store"
)

// A process that stored a delivery and died before its job was inserted (a
// runner that no longer runs: the insert fails after the record is stored)
// leaves it pending; the live process's sweep queues it again and the
// receiver gets it, once.
func TestSweepDeliversWhatADeadProcessLeft(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		hk := newHook(t, 200)
		rcv := []alert.Receiver{receiver(t, "webhook="+hk.srv.URL+"/hook")}
		h := db.start(t, rcv, alert.Config{Sweep: time.Second, SweepAfter: 500 * time.Millisecond})
		dead := alert.New(h.db, jobs.New(h.backend, jobs.Config{Logger: logger()}), rcv, alert.Config{Logger: logger()})
		ev := leakEvent
		ev.At = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
		if err := dead.Notify(t.Context(), ev); err == nil {
			t.Fatal("a runner that does not run inserted the delivery's job")
		}
		left, err := h.db.Deliveries(t.Context(), ev.Watch, 10)
		if err != nil || len(left) != 1 || left[0].State != store.DeliveryPending {
			t.Fatalf("what the dead process left: %+v, %v", left, err)
		}
		d := h.waitEnded(t, "webhook", ev.Watch, alert.Leak, 30*time.Second)
		if d.State != store.DeliveryDelivered || d.Attempts != 1 {
			t.Errorf("the swept delivery: %s after %d attempts", d.State, d.Attempts)
		}
		time.Sleep(2 * time.Second) // another sweep or two
		if bodies, _ := hk.requests(); len(bodies) != 1 {
			t.Errorf("the receiver got %d requests, want 1", len(bodies))
		}
	})
}
