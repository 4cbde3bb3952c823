package alert_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leakui/leakui/alert"
	"github.com/leakui/leakui/store"
)

// hook is a receiver as a real HTTP server: it answers each request with
// the next of its statuses (the last one for ever after), and keeps what it
// got and when.
type hook struct {
	srv *httptest.Server

	mu       sync.Mutex
	statuses []int
	bodies   [][]byte
	times    []time.Time
	paths    []string
	hold     time.Duration // how long to wait before answering
	// retryAfter is the Retry-After header of its 429 and 503 answers
	// ("date": an HTTP date 4 s after the answer).
	retryAfter string
}

func newHook(t *testing.T, statuses ...int) *hook {
	h := &hook{statuses: statuses}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hook) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	n := len(h.bodies)
	h.bodies = append(h.bodies, body)
	h.times = append(h.times, time.Now())
	h.paths = append(h.paths, r.URL.Path)
	status := h.statuses[min(n, len(h.statuses)-1)]
	hold := h.hold
	if h.retryAfter != "" && (status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable) {
		ra := h.retryAfter
		if ra == "date" { // an HTTP date 4 s from now
			ra = time.Now().Add(4 * time.Second).UTC().Format(http.TimeFormat)
		}
		w.Header().Set("Retry-After", ra)
	}
	h.mu.Unlock()
	if hold > 0 {
		select {
		case <-time.After(hold):
		case <-r.Context().Done():
			return
		}
	}
	w.WriteHeader(status)
	io.WriteString(w, http.StatusText(status)+" from the hook at "+r.URL.Path)
}

func (h *hook) requests() ([][]byte, []time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([][]byte(nil), h.bodies...), append([]time.Time(nil), h.times...)
}

var leakEvent = alert.Event{Watch: "checkout", From: alert.Inconclusive, To: alert.Leak, Suspect: "main.(*cache).put",
	GrowthPerHour: 23_040_000, ReportURL: "https://leakui.example.com/r/abc"}

// A receiver answering 500 twice gets the event a third time, after the
// back-off each time, and the delivery records three attempts and the 200;
// the JSON webhook's body holds the event's fields.
func TestRetriesWithBackoffThenDelivers(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		hk := newHook(t, 500, 500, 200)
		const backoff = 300 * time.Millisecond
		h := db.start(t, []alert.Receiver{receiver(t, "webhook="+hk.srv.URL+"/hook")}, alert.Config{Attempts: 5, Backoff: fixedBackoff(backoff)})
		ev := leakEvent
		ev.At = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
		if err := h.d.Notify(t.Context(), ev); err != nil {
			t.Fatal(err)
		}
		// The same change again (another replica) is delivered once.
		if err := h.d.Notify(t.Context(), ev); err != nil {
			t.Fatal(err)
		}
		d := h.waitEnded(t, "webhook", "checkout", alert.Leak, time.Minute)
		if d.State != store.DeliveryDelivered || d.Attempts != 3 || d.LastStatus != 200 || d.LastError != "" || d.DeliveredAt.IsZero() {
			t.Fatalf("delivery %+v, want delivered at the third attempt", d)
		}
		bodies, times := hk.requests()
		if len(bodies) != 3 {
			t.Fatalf("the hook got %d requests, want 3", len(bodies))
		}
		for i := 1; i < len(times); i++ {
			if gap := times[i].Sub(times[i-1]); gap < backoff {
				t.Errorf("attempt %d came %s after the one before, before the back-off of %s", i+1, gap, backoff)
			}
		}
		var got map[string]any
		if err := json.Unmarshal(bodies[2], &got); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"watch": "checkout", "verdict": "leak", "from": "inconclusive", "suspect": "main.(*cache).put",
			"growth_per_hour": 2.304e7, "report_url": "https://leakui.example.com/r/abc", "at": "2026-03-01T09:30:00Z"}
		if len(got) != len(want) {
			t.Errorf("body %s, want the fields %v", bodies[2], want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("body's %s = %v, want %v", k, got[k], v)
			}
		}
	})
}

// A receiver that always answers 503 is tried Attempts times, then the
// delivery fails with its last answer.
func TestGivesUpAfterAttempts(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		hk := newHook(t, 503)
		h := db.start(t, []alert.Receiver{receiver(t, "webhook="+hk.srv.URL)}, alert.Config{Attempts: 3, Backoff: fixedBackoff(50 * time.Millisecond)})
		if err := h.d.Notify(t.Context(), leakEvent); err != nil {
			t.Fatal(err)
		}
		d := h.waitEnded(t, "webhook", "checkout", alert.Leak, time.Minute)
		if d.State != store.DeliveryFailed || d.Attempts != 3 || d.LastStatus != 503 || !strings.Contains(d.LastError, "503 Service Unavailable") {
			t.Fatalf("delivery %+v, want failed after 3 attempts with the 503", d)
		}
		time.Sleep(300 * time.Millisecond) // no fourth attempt comes
		if bodies, _ := hk.requests(); len(bodies) != 3 {
			t.Errorf("the hook got %d requests, want 3", len(bodies))
		}
	})
}

// A 4xx is not tried again, but a 429 (too many requests) is.
func TestClientErrorsAreNotRetriedButTooManyRequestsIs(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		refusing, busy := newHook(t, 400), newHook(t, 429, 200)
		h := db.start(t, []alert.Receiver{receiver(t, "webhook="+refusing.srv.URL+",name=refusing"), receiver(t, "webhook="+busy.srv.URL+",name=busy")},
			alert.Config{Attempts: 5, Backoff: fixedBackoff(50 * time.Millisecond)})
		if err := h.d.Notify(t.Context(), leakEvent); err != nil {
			t.Fatal(err)
		}
		d := h.waitEnded(t, "refusing", "checkout", alert.Leak, time.Minute)
		if d.State != store.DeliveryFailed || d.Attempts != 1 || d.LastStatus != 400 || !strings.Contains(d.LastError, "400 Bad Request: Bad Request from the hook") {
			t.Errorf("delivery to the refusing hook %+v, want failed at once", d)
		}
		d = h.waitEnded(t, "busy", "checkout", alert.Leak, time.Minute)
		if d.State != store.DeliveryDelivered || d.Attempts != 2 {
			t.Errorf("delivery to the busy hook %+v, want delivered at the second attempt", d)
		}
		time.Sleep(200 * time.Millisecond)
		if bodies, _ := refusing.requests(); len(bodies) != 1 {
			t.Errorf("the refusing hook got %d requests, want 1", len(bodies))
		}
	})
}

// A receiver slower than its timeout ends each attempt at the timeout, and
// the delivery fails once its attempts are used, recording why.
func TestSlowReceiverTimesOut(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		hk := newHook(t, 200)
		hk.hold = time.Minute
		h := db.start(t, []alert.Receiver{receiver(t, "webhook="+hk.srv.URL+",timeout=300ms")}, alert.Config{Attempts: 2, Backoff: fixedBackoff(50 * time.Millisecond)})
		start := time.Now()
		if err := h.d.Notify(t.Context(), leakEvent); err != nil {
			t.Fatal(err)
		}
		d := h.waitEnded(t, "webhook", "checkout", alert.Leak, 30*time.Second)
		if d.State != store.DeliveryFailed || d.Attempts != 2 || d.LastStatus != 0 || d.LastError != "no answer within 300ms" {
			t.Fatalf("delivery %+v, want failed after 2 timed-out attempts", d)
		}
		if took := time.Since(start); took > 20*time.Second {
			t.Errorf("two attempts of 300 ms took %s: the timeout did not end them", took)
		}
	})
}

// A redirect to another host is not followed (the second host gets
// nothing) and fails the delivery; a redirect on the receiver's own host is
// followed.
func TestRedirectsStayOnTheReceiversHost(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		elsewhere := newHook(t, 200)
		var sameHost *httptest.Server
		redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/away":
				http.Redirect(w, r, elsewhere.srv.URL+"/stolen", http.StatusTemporaryRedirect)
			case "/moved":
				http.Redirect(w, r, sameHost.URL+"/here", http.StatusPermanentRedirect)
			case "/here":
				w.WriteHeader(http.StatusAccepted)
			}
		}))
		sameHost = redirecting
		t.Cleanup(redirecting.Close)
		h := db.start(t, []alert.Receiver{receiver(t, "webhook="+redirecting.URL+"/away,name=away"), receiver(t, "webhook="+redirecting.URL+"/moved,name=moved")},
			alert.Config{Attempts: 3, Backoff: fixedBackoff(50 * time.Millisecond)})
		if err := h.d.Notify(t.Context(), leakEvent); err != nil {
			t.Fatal(err)
		}
		d := h.waitEnded(t, "away", "checkout", alert.Leak, time.Minute)
		if d.State != store.DeliveryFailed || d.Attempts != 1 || !strings.Contains(d.LastError, "redirect to another host refused") {
			t.Errorf("delivery redirected away: %+v", d)
		}
		if bodies, _ := elsewhere.requests(); len(bodies) != 0 {
			t.Errorf("the other host got %d requests", len(bodies))
		}
		d = h.waitEnded(t, "moved", "checkout", alert.Leak, time.Minute)
		if d.State != store.DeliveryDelivered || d.LastStatus != http.StatusAccepted {
			t.Errorf("delivery redirected on its host: %+v", d)
		}
	})
}

// A Slack webhook gets the event as {"text": …} in Slack's mrkdwn, and its
// URL, a secret, is in no record: not in an answer's error that quotes it,
// nor in a connection error.
func TestSlackURLIsNeverRecorded(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		const secret = "T0001/B0002/XXXXsecretXXXX"
		hk := newHook(t, 404)
		down := httptest.NewServer(http.NotFoundHandler())
		downURL := down.URL
		down.Close()
		h := db.start(t, []alert.Receiver{receiver(t, "slack="+hk.srv.URL+"/services/"+secret), receiver(t, "slack="+downURL+"/services/"+secret+",name=down")},
			alert.Config{Attempts: 2, Backoff: fixedBackoff(50 * time.Millisecond)})
		ev := leakEvent
		ev.Watch = "check<out>"
		if err := h.d.Notify(t.Context(), ev); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"slack", "down"} {
			d := h.waitEnded(t, name, ev.Watch, alert.Leak, time.Minute)
			if d.State != store.DeliveryFailed || d.LastError == "" {
				t.Errorf("%s: %+v, want failed", name, d)
			}
			if strings.Contains(d.LastError, "secret") || strings.Contains(string(d.Event), "secret") {
				t.Errorf("%s: the record holds the webhook's secret: %q", name, d.LastError)
			}
			t.Logf("%s: %s", name, d.LastError)
		}
		bodies, _ := hk.requests()
		if len(bodies) != 1 || hk.paths[0] != "/services/"+secret {
			t.Fatalf("the Slack hook got %d requests", len(bodies))
		}
		var msg map[string]string
		if err := json.Unmarshal(bodies[0], &msg); err != nil {
			t.Fatal(err)
		}
		want := ":rotating_light: *Leak suspected* on watch *check&lt;out&gt;*: `main.(*cache).put` grows +2.3e+07 per hour (inconclusive → leak) <https://leakui.example.com/r/abc|report>"
		if len(msg) != 1 || msg["text"] != want {
			t.Errorf("Slack message %s\nwant text %q", bodies[0], want)
		}
	})
}

// Notify refuses an event that is not a change of verdict, and sends an
// Alertmanager nothing for a change that neither fires nor resolves.
func TestNotifyChecksTheEvent(t *testing.T) {
	hk := newHook(t, 200)
	db := database{"sqlite", t.TempDir()}
	h := db.start(t, []alert.Receiver{receiver(t, "alertmanager="+hk.srv.URL)}, alert.Config{})
	for _, ev := range []alert.Event{
		{Watch: "", From: alert.NoLeak, To: alert.Leak},
		{Watch: "w", From: alert.Leak, To: alert.Leak},
		{Watch: "w", From: "fine", To: alert.Leak},
		{Watch: "w", From: alert.NoLeak, To: alert.Leak, ReportURL: "javascript:alert(1)"},
	} {
		if err := h.d.Notify(context.Background(), ev); err == nil {
			t.Errorf("Notify(%+v) took it", ev)
		}
	}
	if err := h.d.Notify(context.Background(), alert.Event{Watch: "w", From: alert.NoLeak, To: alert.Inconclusive}); err != nil {
		t.Fatal(err)
	}
	if all, err := h.db.Deliveries(context.Background(), "", 10); err != nil || len(all) != 0 {
		t.Errorf("deliveries %+v (%v), want none", all, err)
	}
}

// A receiver that answers 429 or 503 with Retry-After is not tried again
// before it said, even with a shorter back-off; the attempts count, and the
// delivery goes through once it accepts. An HTTP date counts from now.
func TestRetryAfterIsHonoured(t *testing.T) {
	for _, c := range []struct {
		status int
		header string
		wait   time.Duration
	}{
		{http.StatusTooManyRequests, "2", 2 * time.Second},
		// An HTTP date has whole seconds: 4 s ahead is at least 3 s.
		{http.StatusServiceUnavailable, "date", 3 * time.Second},
	} {
		t.Run(strconv.Itoa(c.status), func(t *testing.T) {
			eachDatabase(t, func(t *testing.T, db database) {
				hk := newHook(t, c.status, 200)
				hk.retryAfter = c.header
				h := db.start(t, []alert.Receiver{receiver(t, "webhook="+hk.srv.URL+"/hook")}, alert.Config{Attempts: 5, Backoff: fixedBackoff(100 * time.Millisecond)})
				ev := leakEvent
				ev.At = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
				if err := h.d.Notify(t.Context(), ev); err != nil {
					t.Fatal(err)
				}
				d := h.waitEnded(t, "webhook", ev.Watch, alert.Leak, time.Minute)
				_, times := hk.requests()
				if d.State != store.DeliveryDelivered || d.Attempts != 2 || len(times) != 2 {
					t.Fatalf("delivery %s after %d attempts and %d requests, want delivered at the second", d.State, d.Attempts, len(times))
				}
				if gap := times[1].Sub(times[0]); gap < c.wait {
					t.Errorf("Retry-After %q: tried again after %s", hk.retryAfter, gap)
				}
			})
		})
	}
}
