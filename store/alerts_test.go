package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/store"
)

// testAlertDeliveries stores deliveries and their attempts: the same id twice
// is stored once, attempts count up, a late attempt changes nothing, a
// delivered one stays delivered, a long error is cut, and the latest
// delivery of a verdict is found.
func testAlertDeliveries(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	ev := json.RawMessage(`{"watch":"checkout","from":"inconclusive","to":"leak"}`)
	fire := &store.Delivery{ID: "f1", Receiver: "alertmanager", Watch: "checkout", Verdict: "leak", Event: ev, EventAt: at}
	if created, err := db.CreateDelivery(ctx, fire); err != nil || !created {
		t.Fatalf("created %v (%v)", created, err)
	}
	again := *fire
	if created, err := db.CreateDelivery(ctx, &again); err != nil || created {
		t.Fatalf("the same delivery again: created %v (%v)", created, err)
	}
	got, err := db.Delivery(ctx, "f1")
	if err != nil || got.State != store.DeliveryPending || got.Attempts != 0 || string(got.Event) != string(ev) || !got.EventAt.Equal(at) || !got.DeliveredAt.IsZero() {
		t.Fatalf("stored %+v (%v)", got, err)
	}
	long := strings.Repeat("é", store.MaxDeliveryErrorBytes)
	if err := db.RecordAttempt(ctx, "f1", store.DeliveryAttempt{Number: 1, Status: 500, Error: long, State: store.DeliveryRetrying}); err != nil {
		t.Fatal(err)
	}
	got, _ = db.Delivery(ctx, "f1")
	if got.State != store.DeliveryRetrying || got.Attempts != 1 || got.LastStatus != 500 || len(got.LastError) > store.MaxDeliveryErrorBytes+len("…") ||
		!strings.HasSuffix(got.LastError, "é…") {
		t.Fatalf("after a failed attempt: %q %d %d, error of %d bytes", got.State, got.Attempts, got.LastStatus, len(got.LastError))
	}
	done := time.Now().UTC().Truncate(time.Millisecond)
	if err := db.RecordAttempt(ctx, "f1", store.DeliveryAttempt{Number: 2, Status: 200, State: store.DeliveryDelivered, At: done}); err != nil {
		t.Fatal(err)
	}
	// A late write of the first attempt, and a later failure, change nothing.
	for _, a := range []store.DeliveryAttempt{{Number: 1, Status: 500, Error: "late", State: store.DeliveryRetrying},
		{Number: 3, Status: 0, Error: "timeout", State: store.DeliveryFailed}} {
		if err := db.RecordAttempt(ctx, "f1", a); err != nil {
			t.Fatal(err)
		}
	}
	got, _ = db.Delivery(ctx, "f1")
	if got.State != store.DeliveryDelivered || got.Attempts != 2 || got.LastStatus != 200 || got.LastError != "" || !got.DeliveredAt.Equal(done) {
		t.Fatalf("after delivery: %+v", got)
	}
	// A late write of an earlier attempt does not undo a later one.
	late := &store.Delivery{ID: "l1", Receiver: "webhook", Watch: "billing", Verdict: "leak", Event: ev, EventAt: at}
	if _, err := db.CreateDelivery(ctx, late); err != nil {
		t.Fatal(err)
	}
	for _, a := range []store.DeliveryAttempt{{Number: 2, Status: 503, Error: "second", State: store.DeliveryRetrying},
		{Number: 1, Status: 500, Error: "first", State: store.DeliveryRetrying}} {
		if err := db.RecordAttempt(ctx, "l1", a); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := db.Delivery(ctx, "l1"); got.Attempts != 2 || got.LastError != "second" {
		t.Errorf("after a late first attempt: %d attempts, %q", got.Attempts, got.LastError)
	}
	if err := db.RecordAttempt(ctx, "nope", store.DeliveryAttempt{Number: 1, State: store.DeliveryFailed}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an attempt of no delivery: %v", err)
	}
	if err := db.RecordAttempt(ctx, "f1", store.DeliveryAttempt{Number: 9, State: "maybe"}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("an attempt in no state: %v", err)
	}
	for _, bad := range []store.Delivery{
		{ID: "x", Receiver: "r", Watch: "", Verdict: "leak", Event: ev, EventAt: at},
		{ID: "x", Receiver: "r", Watch: "w", Verdict: "leak", Event: json.RawMessage(`{`), EventAt: at},
		{ID: "x", Receiver: "r", Watch: "w", Verdict: "leak", Event: ev},
		{ID: strings.Repeat("x", store.MaxDeliveryNameLen+1), Receiver: "r", Watch: "w", Verdict: "leak", Event: ev, EventAt: at},
	} {
		if _, err := db.CreateDelivery(ctx, &bad); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("%+v: %v, want ErrInvalid", bad, err)
		}
	}
	// Two later firings and a resolution: the last firing is the latest.
	for i, d := range []*store.Delivery{
		{ID: "f2", Receiver: "alertmanager", Watch: "checkout", Verdict: "leak", Event: ev, EventAt: at.Add(2 * time.Hour)},
		{ID: "r1", Receiver: "alertmanager", Watch: "checkout", Verdict: "no leak", Event: ev, EventAt: at.Add(time.Hour)},
		{ID: "o1", Receiver: "alertmanager", Watch: "search", Verdict: "leak", Event: ev, EventAt: at.Add(3 * time.Hour)},
		{ID: "s1", Receiver: "slack", Watch: "checkout", Verdict: "leak", Event: ev, EventAt: at.Add(4 * time.Hour)},
	} {
		if _, err := db.CreateDelivery(ctx, d); err != nil {
			t.Fatal(i, err)
		}
	}
	last, err := db.LastDelivery(ctx, "alertmanager", "checkout", "leak")
	if err != nil || last.ID != "f2" {
		t.Errorf("last firing %+v (%v), want f2", last, err)
	}
	if _, err := db.LastDelivery(ctx, "webhook", "checkout", "leak"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("last delivery to no receiver: %v", err)
	}
	// The open alerts: checkout's latest change (f2) and search's (o1) are
	// to leak; then checkout clears.
	open := func() string {
		t.Helper()
		ds, err := db.LatestDeliveries(ctx, "alertmanager", "leak")
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, d := range ds {
			ids = append(ids, d.ID)
		}
		return strings.Join(ids, " ")
	}
	if got := open(); got != "f2 o1" {
		t.Errorf("open alerts %q, want f2 o1", got)
	}
	if _, err := db.CreateDelivery(ctx, &store.Delivery{ID: "r2", Receiver: "alertmanager", Watch: "checkout", Verdict: "no leak", Event: ev, EventAt: at.Add(5 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if got := open(); got != "o1" {
		t.Errorf("open alerts after checkout cleared %q, want o1", got)
	}
	var ids []string
	all, err := db.Deliveries(ctx, "checkout", 0)
	for _, d := range all {
		ids = append(ids, d.ID)
	}
	if err != nil || strings.Join(ids, " ") != "r2 s1 f2 r1 f1" {
		t.Errorf("deliveries of checkout: %v (%v)", ids, err)
	}
	if all, err := db.Deliveries(ctx, "", 2); err != nil || len(all) != 2 || all[0].ID != "r2" || all[1].ID != "s1" {
		t.Errorf("the latest two deliveries: %+v (%v)", all, err)
	}
}
