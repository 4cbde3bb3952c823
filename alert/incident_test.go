package alert_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/alert"
	"github.com/leakui/leakui/store"
)

// A leak alert opens an incident for its watch; the resolution annotates it
// and leaves it open; the next leak joins it while it is open, and opens a
// new one once the responders resolved it. A change that neither fires nor
// resolves touches no incident.
func TestAlertsOpenAndJoinIncidents(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		h := db.start(t, nil, alert.Config{Logger: logger()})
		ctx := context.Background()
		if err := h.db.DeclareWatches(ctx, []store.Watch{{Name: "Checkout.API_v2", URL: "http://127.0.0.1:6060", Every: time.Minute, Keep: 24}}); err != nil {
			t.Fatal(err)
		}
		book := alert.NewIncidents(h.db, logger())
		t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
		record := func(from, to string, at time.Time) string {
			t.Helper()
			slug, err := book.Record(ctx, alert.Event{Watch: "Checkout.API_v2", From: from, To: to, Suspect: "main.cache.put",
				GrowthPerHour: 1179648000, ReportURL: "https://leakui.example/watch/Checkout.API_v2", At: at})
			if err != nil {
				t.Fatal(err)
			}
			return slug
		}
		annotations := func(slug string) []store.Annotation {
			t.Helper()
			as, err := h.db.Annotations(ctx, slug, "", 100)
			if err != nil {
				t.Fatal(err)
			}
			return as
		}
		if slug := record(alert.NoLeak, alert.Inconclusive, t0); slug != "" {
			t.Errorf("an inconclusive verdict went to incident %q", slug)
		}
		first := record(alert.Inconclusive, alert.Leak, t0.Add(time.Minute))
		if first != "leak-checkout-api-v2-20260301-100100" {
			t.Errorf("the leak opened %q", first)
		}
		in, err := h.db.Incident(ctx, first)
		if err != nil || in.State != store.IncidentOpen || in.Title != "Leak suspected on watch Checkout.API_v2: main.cache.put" {
			t.Fatalf("the incident: %+v, %v", in, err)
		}
		if w, _ := h.db.Watch(ctx, "Checkout.API_v2"); w.Incident != first {
			t.Errorf("the watch's incident is %q", w.Incident)
		}
		as := annotations(first)
		if len(as) != 1 || as[0].Text != "Watch Checkout.API_v2: leak suspected: main.cache.put, growing 1,179,648,000 an hour. https://leakui.example/watch/Checkout.API_v2" ||
			as[0].Author != alert.IncidentAuthor || !as[0].At.Equal(t0.Add(time.Minute)) {
			t.Errorf("the first annotation: %+v", as)
		}
		if slug := record(alert.Leak, alert.NoLeak, t0.Add(2*time.Minute)); slug != first {
			t.Errorf("the resolution went to %q, want %q", slug, first)
		}
		if in, _ := h.db.Incident(ctx, first); in.State != store.IncidentOpen {
			t.Errorf("a resolved alert resolved the incident: %s", in.State)
		}
		if again := record(alert.NoLeak, alert.Leak, t0.Add(3*time.Minute)); again != first {
			t.Errorf("the next leak opened %q instead of joining %q", again, first)
		}
		as = annotations(first)
		if len(as) != 3 || !strings.Contains(as[1].Text, "the leak verdict cleared (now no leak)") || !strings.Contains(as[2].Text, "leak suspected") {
			t.Errorf("the timeline: %+v", as)
		}
		if err := h.db.SetIncidentState(ctx, first, store.IncidentResolved); err != nil {
			t.Fatal(err)
		}
		record(alert.Leak, alert.Inconclusive, t0.Add(4*time.Minute))
		second := record(alert.Inconclusive, alert.Leak, t0.Add(5*time.Minute))
		if second == first || second != "leak-checkout-api-v2-20260301-100500" {
			t.Errorf("a leak after the incident was resolved went to %q", second)
		}
		if n := len(annotations(first)); n != 4 {
			t.Errorf("the resolved incident holds %d annotations, want 4", n)
		}
	})
}
