package watch_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/fixtures"
	storesqlite "github.com/leakui/leakui/store/sqlite"
	"github.com/leakui/leakui/watch"
	"github.com/leakui/leakui/watch/watcher"
	"github.com/leakui/leakui/web"
)

// A JVM watch's page says that its JVM pushes (no target to scrape, "last
// push"), offers each pushed bundle for download byte for byte, shows the
// native memory verdict the two real bundles of a JVM's 20,000 dropped
// GZIPInputStreams give, and links the incident its alert opened.
func TestJVMWatchPage(t *testing.T) {
	ts, pushed := jvmWatchServer(t)
	code, _, body := get(t, ts, "/watch/broker")
	if code != http.StatusOK {
		t.Fatalf("/watch/broker: %d %s", code, body)
	}
	page := doc(t, body)
	if got := page.Find(testid("watch-series-none")).Text(); !strings.Contains(got, "native memory analysis of the bundles") {
		t.Errorf("the series note reads %q, want that the verdict is the bundles' native memory analysis", got)
	}
	if got := page.Find(testid("watch-target")).Text(); !strings.Contains(got, "pushed by its JVM") {
		t.Errorf("target reads %q, want that its JVM pushes", got)
	}
	if got := page.Find(`dl.watch-meta dt`).Text(); !strings.Contains(got, "last push") || strings.Contains(got, "scrape") {
		t.Errorf("the facts read %q, want last push and no scrape", got)
	}
	if got := page.Find(testid("watch-suspect")).Text() + page.Find(testid("watch-reason")).Text(); !strings.Contains(got, "Inflater") {
		t.Errorf("suspect and reason read %q, want the Inflaters", got)
	}
	if href := page.Find(testid("watch-incident")).AttrOr("href", ""); href != "/i/leak-broker-1" {
		t.Errorf("the incident link is %q, want /i/leak-broker-1", href)
	}
	var links []string
	page.Find(`a[href*="/snapshots/"]`).Each(func(_ int, s *goquery.Selection) { links = append(links, s.AttrOr("href", "")) })
	if len(links) != len(pushed) {
		t.Fatalf("%d snapshot downloads %q, want one bundle per push", len(links), links)
	}
	// Newest first.
	for i, link := range links {
		if !strings.HasSuffix(link, "/bundle") {
			t.Errorf("download %q is not the bundle", link)
		}
		code, h, b := get(t, ts, link)
		if want := pushed[len(pushed)-1-i]; code != http.StatusOK || !bytes.Equal(b, want) {
			t.Errorf("%s: %d, %d bytes, want the %d bytes pushed", link, code, len(b), len(want))
		}
		if cd := h.Get("Content-Disposition"); !strings.HasSuffix(cd, `-bundle.tar.gz"`) {
			t.Errorf("%s: Content-Disposition %q, want a .tar.gz", link, cd)
		}
	}
	code, _, body = get(t, ts, "/watch")
	if row := doc(t, body).Find(testid("watch-last-scrape")).Text(); code != http.StatusOK || !strings.HasPrefix(row, "last push") {
		t.Errorf("/watch: %d, the row reads %q, want its last push", code, row)
	}
}

// jvmWatchServer is a web server over a JVM watch "broker" that two real
// bundles were pushed to (a JVM's 20,000 dropped GZIPInputStreams, before and
// after), whose alert opened the incident leak-broker-1; pushed are the
// bundles' bytes, in the order pushed.
func jvmWatchServer(t *testing.T) (ts *httptest.Server, pushed [][]byte) {
	t.Helper()
	ctx := context.Background()
	db, err := storesqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("broker-push-token-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := watch.Parse("broker=jvm,keep=8,token=file:" + tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	w := watcher.New(watcher.Config{Store: db, Logger: quietLogger(), Budget: analyze.NewBudget(256 << 20)}, []watch.Declaration{d})
	t.Cleanup(w.CloseIdleConnections)
	if err := w.Declare(ctx); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().Truncate(time.Second)
	for i, name := range []string{"jvm-unclosed-gzip-before.tar.gz", "jvm-unclosed-gzip-after.tar.gz"} {
		b, err := os.ReadFile(fixtures.Path(t, "capture", name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Push(ctx, "broker", b, t0.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatalf("push %s: %v", name, err)
		}
		pushed = append(pushed, b)
	}
	if err := db.SetWatchIncident(ctx, "broker", "leak-broker-1"); err != nil {
		t.Fatal(err)
	}
	st, err := db.Watch(ctx, "broker")
	if err != nil {
		t.Fatal(err)
	}
	if st.Verdict != string(watch.Leak) {
		t.Fatalf("the two bundles give %q (%s), want a leak", st.Verdict, st.Reason)
	}
	f := &fixture{db: db, w: w, source: source{w, db}}
	return f.server(t, web.Config{}), pushed
}
