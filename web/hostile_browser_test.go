package web

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/internal/browser"
	"github.com/leakui/leakui/internal/hostile"
)

// pageWatch records the dialogs a tab opens (and dismisses them, so that an
// injected alert cannot block the test) and the console's errors and uncaught
// exceptions.
type pageWatch struct {
	ctx      context.Context
	mu       sync.Mutex
	dialogs  []string
	problems []string
	marks    int           // the check marks sent to the console (check's own)
	seen     int           // the last check mark the console goroutine saw
	marked   chan struct{} // closed and replaced when the console goroutine sees a mark
	stop     context.CancelFunc
	wg       sync.WaitGroup
}

// checkMark starts the text of the console messages that check writes to know
// that the console goroutine has caught up with the page.
const checkMark = "leakui-check-mark-"

func watchPage(t *testing.T, ctx context.Context) *pageWatch {
	t.Helper()
	lctx, stop := context.WithCancel(ctx)
	w := &pageWatch{ctx: ctx, stop: stop, marked: make(chan struct{})}
	dialogs := chromedp.Events(lctx, page.JavascriptDialogOpening)
	console := chromedp.Console(lctx)
	w.wg.Add(2)
	go func() {
		defer w.wg.Done()
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			w.mu.Lock()
			w.dialogs = append(w.dialogs, string(ev.Type)+": "+ev.Message)
			w.mu.Unlock()
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	go func() {
		defer w.wg.Done()
		for m, err := range console {
			if err != nil {
				return
			}
			if n, ok := strings.CutPrefix(m.Text, checkMark); ok && m.Type == chromedp.ConsoleLog {
				if n, err := strconv.Atoi(n); err == nil {
					w.mu.Lock()
					w.seen = n
					close(w.marked)
					w.marked = make(chan struct{})
					w.mu.Unlock()
				}
				continue
			}
			// The browser asks for /favicon.ico on its own; leakui has none.
			if (m.Type == chromedp.ConsoleError || m.IsException()) && !strings.HasSuffix(m.URL, "/favicon.ico") {
				w.mu.Lock()
				w.problems = append(w.problems, m.String()+" at "+m.URL)
				w.mu.Unlock()
			}
		}
	}()
	t.Cleanup(w.end)
	return w
}

// end stops watching; it is safe to call twice.
func (w *pageWatch) end() {
	w.stop()
	w.wg.Wait()
}

// check fails the test for every dialog and console error seen so far. The
// events come from other goroutines, so check first writes a mark to the
// console and waits until the console goroutine has seen it: the console keeps
// the order of its messages, so every message before the mark has been read.
// A dialog stops the page's scripts until the dialog goroutine, which records
// it first, dismisses it, so every dialog before the mark has been recorded.
func (w *pageWatch) check(t *testing.T, where string) {
	t.Helper()
	w.marks++
	mark := w.marks
	browser.Do(t, w.ctx, chromedp.Evaluate[chromedp.Void](`console.log(`+jsString(checkMark+strconv.Itoa(mark))+`)`))
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	for {
		w.mu.Lock()
		seen, marked := w.seen, w.marked
		w.mu.Unlock()
		if seen >= mark {
			break
		}
		select {
		case <-marked:
		case <-timeout.C:
			t.Fatalf("%s: the console never showed the check mark %d", where, mark)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, d := range w.dialogs {
		t.Errorf("%s: a dialog opened: %s", where, d)
	}
	for _, p := range w.problems {
		t.Errorf("%s: console: %s", where, p)
	}
	w.dialogs, w.problems = nil, nil
}

// TestBrowserHostileNames uploads, through the dashboard, a profile whose file
// name and function names carry markup, quotes and U+2028, and a goroutine dump
// with the same names; then opens the report, the flame graph (hovering and
// searching the hostile frames), the JSON twin and the Markdown in the real
// Chromium. No dialog opens, the console stays free of errors (a CSP refusal of
// an injected script would be one), no element comes from the input, and every
// name shows as text.
func TestBrowserHostileNames(t *testing.T) {
	ctx := browser.New(t, 120*time.Second)
	ts := newTestServer(t, Config{})
	w := watchPage(t, ctx)
	names := hostile.HostileNames
	noInjected := `document.querySelectorAll("img, iframe, object, embed, script:not([src]):not([type='application/json'])").length`

	// The profile, by the dashboard's file input, under a hostile file name.
	path := filepath.Join(t.TempDir(), `"><img src=x onerror=alert(2)>.pb.gz`)
	if err := os.WriteFile(path, hostile.Gzip(hostile.HostileNamesProfile()), 0o644); err != nil {
		t.Fatal(err)
	}
	browser.Do(t, ctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(`[data-testid=dropzone]`),
		chromedp.SetUploadFiles(`[data-testid=file-input]`, []string{path}),
		chromedp.WaitVisible(`[data-testid=top-table]`),
	)
	report := browser.Get(t, ctx, chromedp.Location())
	if !strings.Contains(report, "/r/") {
		t.Fatalf("the upload did not land on a report: %s", report)
	}
	shown := browser.Get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("[data-testid=top-row] [data-testid=name]")).map(e => e.textContent)`))
	for _, n := range names {
		if !slices.Contains(shown, n) {
			t.Errorf("the top table does not show %q as text; it shows %q", n, shown)
		}
	}
	if n := browser.Get(t, ctx, chromedp.Evaluate[int](noInjected)); n != 0 {
		t.Errorf("the report page has %d elements from the input", n)
	}
	// The browser sends the name with its quote as %22 (the HTML standard's
	// multipart/form-data encoding); the rest arrives as it is.
	if body := browser.Text(t, ctx, "body"); !strings.Contains(body, `%22><img src=x onerror=alert(2)>.pb.gz`) {
		t.Errorf("the report does not show the file name as text:\n%s", body)
	}
	browser.Screenshot(t, ctx, "hostile-report.png")
	w.check(t, "report")

	// The flame graph: hover every hostile box, then search for them.
	browser.Do(t, ctx,
		chromedp.Navigate(report+"?view=flame"),
		chromedp.WaitVisible(`[data-testid=flame-svg]`),
	)
	for _, n := range names {
		at := browser.Get(t, ctx, chromedp.Evaluate[[]float64](`(() => {
			const g = Array.from(document.querySelectorAll("[data-testid=flame-box]")).find(g => g.getAttribute("data-name") === `+jsString(n)+`);
			if (!g) return [];
			const r = g.querySelector("rect").getBoundingClientRect();
			return [r.left + r.width / 2, r.top + r.height / 2];
		})()`))
		if len(at) != 2 {
			t.Errorf("no flame box named %q", n)
			continue
		}
		browser.Do(t, ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at[0], at[1]))
		tip := browser.Get(t, ctx, chromedp.Evaluate[string](`document.querySelector("[data-testid=flame-tooltip]").textContent`))
		if first, _, _ := strings.Cut(tip, "\n"); first != n {
			t.Errorf("hovering %q shows the tip %q", n, tip)
		}
	}
	browser.Do(t, ctx,
		chromedp.SendKeys(`[data-testid=flame-search]`, "onerror|<script>|'|\u2028"),
		chromedp.WaitVisible(`[data-match=true]`),
	)
	matched := browser.Get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("[data-match=true]")).map(g => g.getAttribute("data-name"))`))
	for _, n := range names {
		if !slices.Contains(matched, n) {
			t.Errorf("searching did not highlight %q (highlighted %q)", n, matched)
		}
	}
	if n := browser.Get(t, ctx, chromedp.Evaluate[int](noInjected)); n != 0 {
		t.Errorf("the flame graph page has %d elements from the input", n)
	}
	browser.Screenshot(t, ctx, "hostile-flame.png")
	w.check(t, "flame graph")

	// The JSON twin and the Markdown, as the browser shows them: text.
	id := report[strings.LastIndex(report, "/")+1:]
	for _, p := range []string{"/api/reports/" + id, "/r/" + id + ".md"} {
		browser.Do(t, ctx, chromedp.Navigate(ts.URL+p))
		if n := browser.Get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("img, iframe, script").length`)); n != 0 {
			t.Errorf("%s became a page with %d elements", p, n)
		}
		text := browser.Get(t, ctx, chromedp.Evaluate[string](`document.body.innerText`))
		if !strings.Contains(text, "onerror=alert(1)") || !strings.Contains(text, "alert(1)") {
			t.Errorf("%s does not show the names as text: %.300q", p, text)
		}
		w.check(t, p)
	}

	// The goroutine dump with the same names.
	_, dump, raw := ts.upload(t, file{"hostile-goroutines.txt", hostile.HostileNamesDump()})
	if dump.ReportURL == "" {
		t.Fatal(raw)
	}
	browser.Do(t, ctx,
		chromedp.Navigate(ts.URL+dump.ReportURL),
		chromedp.WaitVisible(`[data-testid=goroutine-groups]`),
	)
	funcs := browser.Get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("[data-testid=group-func]")).map(e => e.textContent)`))
	for _, n := range names {
		if !slices.Contains(funcs, n) {
			t.Errorf("the goroutine page does not show %q as text; it shows %q", n, funcs)
		}
	}
	if n := browser.Get(t, ctx, chromedp.Evaluate[int](noInjected)); n != 0 {
		t.Errorf("the goroutine page has %d elements from the input", n)
	}
	browser.Screenshot(t, ctx, "hostile-goroutines.png")
	w.check(t, "goroutine page")
}

// jsString quotes s as a JavaScript string literal: JSON, as encoding/json
// writes it, escapes <, >, &, U+2028 and U+2029 too.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
