package alert_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/leakui/leakui/alert"
	"github.com/leakui/leakui/store"
)

// A leak decided over snapshots 6 s apart in all (a watch ticking every
// second; the growth per hour is what watch/watcher's test fitted to a real
// leaking program over 7 snapshots) is told as the change over those 6 s,
// not as a rate per hour that multiplies them by 600: in Slack's text, in
// the incident's annotation, and as window_seconds in the JSON webhook's
// body beside growth_per_hour.
func TestShortWindowIsToldAsTheChangeOverIt(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		slack, hook := newHook(t, 200), newHook(t, 200)
		h := db.start(t, []alert.Receiver{receiver(t, "slack="+slack.srv.URL+"/services/T1/B2/x"), receiver(t, "webhook="+hook.srv.URL+"/hook")},
			alert.Config{Logger: logger()})
		ctx := context.Background()
		if err := h.db.DeclareWatches(ctx, []store.Watch{{Name: "leaky", URL: "http://127.0.0.1:6060", Every: time.Second, Keep: 24}}); err != nil {
			t.Fatal(err)
		}
		at := time.Date(2026, 12, 2, 14, 39, 16, 0, time.UTC)
		ev := alert.Event{Watch: "leaky", From: alert.Inconclusive, To: alert.Leak, Suspect: "watchtarget.hold",
			GrowthPerHour: 1_155_971_314, WindowSeconds: 6, ReportURL: "https://leakui.example/watch/leaky", At: at}
		if err := h.d.Notify(t.Context(), ev); err != nil {
			t.Fatal(err)
		}
		slug, err := alert.NewIncidents(h.db, logger()).Record(ctx, ev)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"slack", "webhook"} {
			if d := h.waitEnded(t, name, "leaky", alert.Leak, time.Minute); d.State != store.DeliveryDelivered {
				t.Fatalf("%s: %+v", name, d)
			}
		}
		// 1,155,971,314 bytes an hour over 6 s: 1,926,619 bytes.
		bodies, _ := slack.requests()
		var msg map[string]string
		if len(bodies) != 1 || json.Unmarshal(bodies[0], &msg) != nil {
			t.Fatalf("Slack got %q", bodies)
		}
		if want := ":rotating_light: *Leak suspected* on watch *leaky*: `watchtarget.hold` grew +1.93e+06 in 6 s (inconclusive → leak) <https://leakui.example/watch/leaky|report>"; msg["text"] != want {
			t.Errorf("Slack text %q\nwant %q", msg["text"], want)
		}
		bodies, _ = hook.requests()
		var p alert.Payload
		if len(bodies) != 1 || json.Unmarshal(bodies[0], &p) != nil || p.WindowSeconds != 6 || p.GrowthPerHour != 1_155_971_314 {
			t.Errorf("the webhook got %q, want window_seconds 6 beside growth_per_hour", bodies)
		}
		as, err := h.db.Annotations(ctx, slug, "", 10)
		if err != nil || len(as) != 1 {
			t.Fatalf("annotations %+v, %v", as, err)
		}
		if want := "Watch leaky: leak suspected: watchtarget.hold, having grown 1,926,619 in 6 s. https://leakui.example/watch/leaky"; as[0].Text != want {
			t.Errorf("the annotation %q\nwant %q", as[0].Text, want)
		}
	})
}
