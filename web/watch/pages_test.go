package watch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/pprof/profile"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/watch"
	"github.com/leakui/leakui/web"
)

// TestWatchPages watches real Go programs with the real watcher and reads
// the pages a real server makes of them: the list with each watch's verdict
// in its colour, the suspect, a sparkline of the suspect's bytes, the
// snapshots held, the last scrape and its error; a watch's page with the
// chart of its series, its suspects, the alert delivered and its snapshots'
// downloads; the JSON twins with the same numbers; the link in the top bar.
func TestWatchPages(t *testing.T) {
	f := newFixture(t)
	ts := f.server(t, web.Config{})
	ctx := context.Background()
	leaky, err := f.db.Watch(ctx, "leaky")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("leak after %d ticks: %s", f.leakTicks, leaky.Reason)
	// Ticks a second apart span too short a window for a rate per hour: the
	// growth reads as the change over the window, which is within 25% of
	// what the suspect's series itself went from and to over the snapshots
	// (the fixture ticks faster than its ticks' times: what the program
	// stranded in those seconds is not the anchor; watch/watcher's test
	// holds that).
	window := time.Duration(f.leakTicks-1) * time.Second
	grew := leaky.GrowthPerHour * window.Hours()
	wantGrowth := analyze.FormatSignedValue(int64(math.Round(grew)), leaky.Unit)
	if leaky.Unit == "count" {
		wantGrowth += " goroutines"
	}
	wantGrowth += " in " + strconv.Itoa(f.leakTicks-1) + " s"
	var rep struct {
		Series []struct {
			Profile string
			Report  struct {
				Suspects []struct {
					Name   string
					Growth int64
				}
			}
		}
	}
	if _, _, body := get(t, ts, "/watch/leaky.json"); json.Unmarshal(body, &rep) != nil {
		t.Fatalf("/watch/leaky.json: %s", body)
	}
	from, _, _ := strings.Cut(leaky.Reason, ":")
	observed := int64(-1)
	for _, s := range rep.Series {
		if s.Profile == from && len(s.Report.Suspects) > 0 && s.Report.Suspects[0].Name == leaky.Suspect {
			observed = s.Report.Suspects[0].Growth
		}
	}
	if observed <= 0 || math.Abs(grew-float64(observed)) > 0.25*float64(observed) {
		t.Errorf("the growth over %s is %.1f %s, the %s series' suspect went up %d", window, grew, leaky.Unit, from, observed)
	}
	t.Logf("growth over the window: %s", wantGrowth)

	t.Run("list", func(t *testing.T) {
		code, _, body := get(t, ts, "/watch")
		if code != http.StatusOK {
			t.Fatalf("/watch: %d %s", code, body)
		}
		d := doc(t, body)
		if d.Find(testid("nav-watches")).AttrOr("aria-current", "") != "page" {
			t.Error("the top bar's Watches link is missing or not current on /watch")
		}
		rows := d.Find(testid("watch-row"))
		if rows.Length() != 3 {
			t.Fatalf("%d rows, want the 3 watches", rows.Length())
		}
		if first := rows.First().AttrOr("data-name", ""); first != "leaky" {
			t.Errorf("the first row is %q, want the watch that suspects a leak", first)
		}
		byName := map[string]string{}
		for i := range rows.Length() {
			r := rows.Eq(i)
			name := r.AttrOr("data-name", "")
			v := r.Find(testid("watch-verdict"))
			colour := "grey"
			for _, c := range []string{"bad", "good"} {
				if v.HasClass(c) {
					colour = c
				}
			}
			byName[name] = v.AttrOr("data-verdict", "") + "/" + colour
		}
		if byName["leaky"] != "leak/bad" {
			t.Errorf("leaky reads %q, want a red leak verdict", byName["leaky"])
		}
		// Five ticks are too few to decide: grey.
		if byName["steady"] != "inconclusive/grey" {
			t.Errorf("steady reads %q, want grey inconclusive", byName["steady"])
		}
		if byName["dead.json"] != "none/grey" {
			t.Errorf("dead reads %q, want grey: no verdict", byName["dead.json"])
		}
		lr := d.Find(`[data-testid="watch-row"][data-name="leaky"]`)
		if got := strings.TrimSpace(lr.Find(testid("watch-suspect") + " .mono").Text()); got != leaky.Suspect || !strings.HasSuffix(got, "watchtarget.hold") {
			t.Errorf("leaky's suspect reads %q, the state %q", got, leaky.Suspect)
		}
		if got := strings.TrimSpace(lr.Find(testid("watch-suspect") + " .grow").Text()); got != wantGrowth {
			t.Errorf("leaky's growth reads %q, want %q", got, wantGrowth)
		}
		pts := strings.Fields(lr.Find(testid("watch-spark")+" polyline").AttrOr("points", ""))
		if len(pts) != leaky.Snapshots {
			t.Errorf("leaky's sparkline has %d points, want one per snapshot held (%d)", len(pts), leaky.Snapshots)
		}
		if got := strings.TrimSpace(lr.Find(testid("watch-snapshots")).Text()); got != strconv.Itoa(leaky.Snapshots)+" of 24 snapshots" {
			t.Errorf("leaky's snapshots read %q, want %d of 24", got, leaky.Snapshots)
		}
		if !strings.Contains(lr.Find(testid("watch-last-scrape")).Text(), leaky.LastScrape.UTC().Format("2006-01-02 15:04:05")) {
			t.Errorf("leaky's last scrape reads %q, want %s", lr.Find(testid("watch-last-scrape")).Text(), leaky.LastScrape.UTC())
		}
		dr := d.Find(`[data-testid="watch-row"][data-name="dead.json"]`)
		if e := dr.Find(testid("watch-error")).Text(); !strings.Contains(e, "127.0.0.1:1") {
			t.Errorf("the dead target's error reads %q", e)
		}
		if lr.Find(testid("watch-error")).Length() != 0 {
			t.Errorf("leaky shows an error: %q", lr.Find(testid("watch-error")).Text())
		}
	})

	t.Run("list json", func(t *testing.T) {
		code, hdr, body := get(t, ts, "/watch.json")
		var list struct {
			Watches []struct {
				Name, Verdict, Suspect, Unit string
				LastError                    string `json:"last_error"`
				Snapshots                    int
				GrowthPerHour                float64 `json:"growth_per_hour"`
				WindowSeconds                float64 `json:"window_seconds"`
				Growth                       string
				Spark                        *struct {
					Of     string
					Values []int64
				}
			}
		}
		if code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") || json.Unmarshal(body, &list) != nil {
			t.Fatalf("/watch.json: %d %s", code, body)
		}
		if len(list.Watches) != 3 {
			t.Fatalf("%d watches in JSON", len(list.Watches))
		}
		for _, w := range list.Watches {
			if w.Name != "leaky" {
				continue
			}
			if w.Verdict != "leak" || w.Suspect != leaky.Suspect || w.GrowthPerHour != leaky.GrowthPerHour || w.Snapshots != leaky.Snapshots {
				t.Errorf("leaky in JSON: %+v, the state %+v", w, leaky.WatchState)
			}
			if w.WindowSeconds != float64(f.leakTicks-1) || w.Growth != wantGrowth {
				t.Errorf("leaky's window in JSON %v s, growth %q; want %d s and the page's %q", w.WindowSeconds, w.Growth, f.leakTicks-1, wantGrowth)
			}
			if w.Spark == nil || w.Spark.Of != leaky.Suspect || len(w.Spark.Values) != leaky.Snapshots || w.Spark.Values[len(w.Spark.Values)-1] <= w.Spark.Values[0] {
				t.Errorf("leaky's spark in JSON: %+v, want the suspect's bytes growing over %d snapshots", w.Spark, leaky.Snapshots)
			}
		}
	})

	t.Run("page", func(t *testing.T) {
		code, _, body := get(t, ts, "/watch/leaky")
		if code != http.StatusOK {
			t.Fatalf("/watch/leaky: %d %s", code, body)
		}
		d := doc(t, body)
		v := d.Find(testid("watch-summary") + " " + testid("watch-verdict"))
		if v.AttrOr("data-verdict", "") != "leak" || !v.HasClass("bad") {
			t.Errorf("the page's verdict: %q class %q", v.AttrOr("data-verdict", ""), v.AttrOr("class", ""))
		}
		if got := d.Find(testid("watch-reason")).Text(); got != leaky.Reason {
			t.Errorf("reason %q, the state's %q", got, leaky.Reason)
		}
		if got := strings.TrimSpace(d.Find(testid("watch-growth")).Text()); got != wantGrowth {
			t.Errorf("the page's growth reads %q, want %q", got, wantGrowth)
		}
		// The series the verdict came from comes first, with its chart and
		// the watch's suspect among its suspects.
		from, _, _ := strings.Cut(leaky.Reason, ":")
		first := d.Find(`section.series`).First()
		if first.AttrOr("data-testid", "") != "series-watch-"+from || first.Find(testid("chart-totals-watch-"+from)).Length() != 1 {
			t.Errorf("the first series is %q, want the %s series the verdict came from, with its chart", first.AttrOr("data-testid", ""), from)
		}
		found := false
		first.Find(testid("series-suspects") + ` td.name`).Each(func(_ int, s *goquerySel) {
			found = found || strings.Contains(s.Text(), "watchtarget.hold")
		})
		if !found {
			t.Errorf("the %s series lists no suspect watchtarget.hold", from)
		}
		rows := d.Find(testid("watch-delivery"))
		if rows.Length() != 1 || !strings.Contains(rows.Text(), "ops-webhook") || rows.Find(testid("watch-delivery-state")).Text() != "delivered" {
			t.Errorf("the deliveries read %q", rows.Text())
		}
		held := d.Find(testid("watch-held-snapshot"))
		if held.Length() != leaky.Snapshots {
			t.Errorf("%d snapshots listed, %d held", held.Length(), leaky.Snapshots)
		}
		link := held.First().Find(testid("watch-snapshot-link")).First()
		href := link.AttrOr("href", "")
		code, hdr, prof := get(t, ts, href)
		if code != 200 || !strings.Contains(hdr.Get("Content-Disposition"), "attachment") {
			t.Fatalf("%s: %d %s", href, code, prof)
		}
		snaps, err := f.db.WatchSnapshots(ctx, "leaky")
		if err != nil {
			t.Fatal(err)
		}
		newest := snaps[len(snaps)-1]
		if link.Text() != "goroutineleak" && link.Text() != "heap" {
			t.Errorf("the first link is %q", link.Text())
		}
		want := newest.Heap
		if link.Text() == "goroutineleak" {
			want = newest.GoroutineLeak
		}
		if !bytes.Equal(prof, want) {
			t.Errorf("%s gave %d bytes, the newest snapshot's %s profile is %d", href, len(prof), link.Text(), len(want))
		}
		if _, err := profile.ParseData(prof); err != nil {
			t.Errorf("the download is no profile: %v", err)
		}
		if d.Find(`[data-watch-live][data-json="/watch/leaky.json"]`).Length() != 1 || d.Find(`noscript`).Length() == 0 {
			t.Error("the page does not update itself")
		}
	})

	t.Run("page json", func(t *testing.T) {
		code, _, body := get(t, ts, "/watch/leaky.json")
		var w struct {
			Verdict, Suspect, Version string
			Series                    []struct {
				Profile string
				Report  struct {
					Verdict  string
					Totals   []int64
					Suspects []struct{ Name string }
				}
			}
			Deliveries []struct{ Receiver, State string }
			Held       []struct{ Profiles map[string]string }
		}
		if code != 200 || json.Unmarshal(body, &w) != nil {
			t.Fatalf("/watch/leaky.json: %d %s", code, body)
		}
		if w.Verdict != "leak" || w.Suspect != leaky.Suspect || w.Version == "" || len(w.Deliveries) != 1 || w.Deliveries[0].State != "delivered" ||
			len(w.Held) != leaky.Snapshots || !strings.HasPrefix(w.Held[0].Profiles["heap"], ts.URL+"/watch/leaky/snapshots/") {
			t.Errorf("/watch/leaky.json: %s", body)
		}
		from, _, _ := strings.Cut(leaky.Reason, ":")
		ok := false
		for _, s := range w.Series {
			if s.Profile == from {
				ok = len(s.Report.Totals) == leaky.Snapshots && s.Report.Verdict == "leak" && len(s.Report.Suspects) > 0 &&
					s.Report.Suspects[0].Name == leaky.Suspect
			}
		}
		if !ok {
			t.Errorf("no %s series over the %d snapshots with the suspect %s: %s", from, leaky.Snapshots, leaky.Suspect, body)
		}
		// Asking for JSON with Accept gives the same.
		_, _, again := get(t, ts, "/watch/leaky", "Accept", "application/json")
		if !bytes.Equal(again, body) {
			t.Error("/watch/leaky with Accept: application/json differs from /watch/leaky.json")
		}
	})

	t.Run("nav on other pages", func(t *testing.T) {
		_, _, body := get(t, ts, "/")
		if doc(t, body).Find(testid("nav-watches")).Length() != 1 {
			t.Error("the dashboard has no link to the watches")
		}
	})
}

// goquerySel is goquery's selection, named for the Each callbacks.
type goquerySel = goquery.Selection

// TestWatchPagesBadInput: an unknown watch, a snapshot that is not held, a
// profile that is none and hostile names get a 404 page that shows the name
// escaped; a server with a token answers the pages only to its holders; a
// server without watches lists none and links none from the top bar.
func TestWatchPagesBadInput(t *testing.T) {
	f := newFixture(t)
	ts := f.server(t, web.Config{})
	ctx := context.Background()
	// A receiver that answers with markup: its error is shown as text.
	hostile := `<script>alert("watch")</script>`
	d := &store.Delivery{ID: "hostile-1", Receiver: "<b>ops</b>", Watch: "steady", Verdict: string(watch.NoLeak),
		Event: json.RawMessage(`{}`), EventAt: time.Now()}
	if _, err := f.db.CreateDelivery(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := f.db.RecordAttempt(ctx, d.ID, store.DeliveryAttempt{Number: 3, Status: 500, Error: hostile, State: store.DeliveryFailed}); err != nil {
		t.Fatal(err)
	}
	code, _, body := get(t, ts, "/watch/steady")
	if code != 200 || strings.Contains(string(body), hostile) || strings.Contains(string(body), "<b>ops</b>") {
		t.Errorf("/watch/steady: %d, the receiver's markup unescaped: %v", code, strings.Contains(string(body), hostile))
	}
	if got := doc(t, body).Find(testid("watch-delivery") + " td.name").Last().Text(); got != hostile {
		t.Errorf("the delivery's error reads %q, want the text %q", got, hostile)
	}
	for _, path := range []string{
		"/watch/nope", "/watch/nope.json", "/watch/" + url.PathEscape(`<img src=x onerror=alert(1)>`),
		"/watch/" + url.PathEscape(`"><script>alert(1)</script>`) + ".json",
		"/watch/leaky/snapshots/1/heap", "/watch/leaky/snapshots/not-a-tick/heap", "/watch/leaky/snapshots/1/secrets",
		"/watch/nope/snapshots/1/heap",
	} {
		code, _, body := get(t, ts, path)
		if code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, code)
		}
		if strings.Contains(string(body), "<script>alert") || strings.Contains(string(body), "<img src=x") {
			t.Errorf("%s: the name is not escaped: %s", path, body)
		}
	}
	// A watch whose name ends in .json: its page, then its JSON twin.
	code, hdr, body := get(t, ts, "/watch/dead.json")
	if code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "text/html") || doc(t, body).Find(testid("watch-name")).Text() != "dead.json" {
		t.Errorf("/watch/dead.json: %d %s, want the page of the watch dead.json", code, hdr.Get("Content-Type"))
	}
	var dead struct {
		Name      string
		LastError string `json:"last_error"`
	}
	if code, _, body := get(t, ts, "/watch/dead.json.json"); code != 200 || json.Unmarshal(body, &dead) != nil || dead.Name != "dead.json" || dead.LastError == "" {
		t.Errorf("/watch/dead.json.json: %d %s", code, body)
	}
	if code, _, body := get(t, ts, "/watch/nope", "Accept", "application/json"); code != 404 || !json.Valid(body) {
		t.Errorf("/watch/nope as JSON: %d %s", code, body)
	}

	// A server with a token: no page without it.
	secured := f.server(t, web.Config{Token: "s3cret-token"})
	for _, path := range []string{"/watch", "/watch.json", "/watch/leaky", "/watch/leaky.json"} {
		if code, _, _ := get(t, secured, path); code != http.StatusUnauthorized {
			t.Errorf("%s without the token: %d, want 401", path, code)
		}
		if code, _, _ := get(t, secured, path, "Authorization", "Bearer s3cret-token"); code != http.StatusOK {
			t.Errorf("%s with the token: %d, want 200", path, code)
		}
	}

	// A server without watches.
	bare := f.server(t, web.Config{}, withoutWatches)
	_, _, body = get(t, bare, "/")
	if doc(t, body).Find(testid("nav-watches")).Length() != 0 {
		t.Error("a server without watches links to them")
	}
	code, _, body = get(t, bare, "/watch")
	if code != 200 || doc(t, body).Find(testid("watch-none")).Length() != 1 {
		t.Errorf("/watch without watches: %d %s", code, body)
	}
	var empty struct{ Watches []any }
	if code, _, body := get(t, bare, "/watch.json"); code != 200 || json.Unmarshal(body, &empty) != nil || empty.Watches == nil || len(empty.Watches) != 0 {
		t.Errorf("/watch.json without watches: %d %s", code, body)
	}
}

// TestWatchPagesWithinBudget: on a server whose memory budget cannot hold a
// watch's snapshots, the page still shows the watcher's verdict and says why
// the series are missing, and a snapshot's download is refused, not served
// past the budget.
func TestWatchPagesWithinBudget(t *testing.T) {
	f := newFixture(t)
	ts := f.server(t, web.Config{MemoryBudget: 64 << 10})
	code, _, body := get(t, ts, "/watch/leaky")
	if code != http.StatusOK {
		t.Fatalf("/watch/leaky: %d %s", code, body)
	}
	d := doc(t, body)
	if d.Find(testid("watch-summary")+" "+testid("watch-verdict")).AttrOr("data-verdict", "") != "leak" {
		t.Error("the watcher's verdict is not shown")
	}
	if why := d.Find(testid("watch-unanalyzed")).Text(); !strings.Contains(why, "could not be analyzed") || d.Find(`section.series`).Length() != 0 {
		t.Errorf("the page says %q with %d series, want why no series is shown", why, d.Find(`section.series`).Length())
	}
	_, _, js := get(t, ts, "/watch/leaky.json")
	var w struct {
		Held []struct{ Profiles map[string]string }
	}
	snaps, err := f.db.WatchSnapshots(context.Background(), "leaky")
	if err != nil || json.Unmarshal(js, &w) != nil {
		t.Fatal(err, string(js))
	}
	path := "/watch/leaky/snapshots/" + strconv.FormatInt(snaps[0].Tick.UnixMilli(), 10) + "/heap"
	if code, _, body := get(t, ts, path); code != http.StatusRequestEntityTooLarge && code != http.StatusServiceUnavailable {
		t.Errorf("%s within a 64 KiB budget: %d %.200s, want 413 or 503", path, code, body)
	}
}
