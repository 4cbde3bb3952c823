// Package browser starts the real Chromium for browser tests through chromedp.
//
// A test calls New; when /usr/bin/chromium (or $LEAKUI_CHROMIUM) is missing the test
// is skipped locally and fails in CI (CI=true), where the browser must be there
// (the policy of package testtool).
package browser

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/internal/testtool"
)

// Path returns the Chromium binary to use.
func Path() string {
	if p := os.Getenv("LEAKUI_CHROMIUM"); p != "" {
		return p
	}
	return "/usr/bin/chromium"
}

// New starts a headless Chromium with the flags this environment needs and
// returns a browser context for one tab, cancelled (and the browser stopped) when
// the test ends. timeout bounds the whole test's browsing.
func New(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	path := Path()
	if _, err := exec.LookPath(path); err != nil {
		testtool.Missing(t, path, testtool.Hint("chromium"), "browser test")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1000),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
	t.Cleanup(func() {
		chromedp.Cancel(ctx) // closes the browser and waits for it
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	return ctx
}

// Do runs actions in the tab and fails the test on the first error.
func Do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// Get runs one action that returns a value and fails the test on error.
func Get[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Text returns the visible text of the first element matching a CSS selector.
func Text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return Get(t, ctx, chromedp.Text(sel))
}

// Attr returns an attribute of the first element matching a CSS selector.
func Attr(t *testing.T, ctx context.Context, sel, name string) string {
	t.Helper()
	return Get(t, ctx, chromedp.AttributeValue(sel, name)).Value
}

// Screenshot saves a full-page PNG under the test's temporary directory and, when
// LEAKUI_SCREENSHOTS names a directory, there too (the README's pictures come from
// there). It returns the temporary path.
func Screenshot(t *testing.T, ctx context.Context, name string) string {
	t.Helper()
	// Scrollbars hidden while capturing, as on a phone: otherwise the page is
	// measured beside the scrollbar (375 px of a 390 px window) but captured
	// whole without one (laid out 390 px wide), and its right edge is cut off.
	capture := true
	png, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) ([]byte, error) {
		if _, err := cdp.Call(ctx, tg, emulation.SetScrollbarsHidden, emulation.SetScrollbarsHiddenParams{Hidden: true}); err != nil {
			return nil, err
		}
		defer cdp.Call(ctx, tg, emulation.SetScrollbarsHidden, emulation.SetScrollbarsHiddenParams{Hidden: false}) //nolint:errcheck
		size, err := chromedp.Evaluate[[]float64](`[window.innerWidth, document.documentElement.scrollHeight]`)(ctx, tg)
		if err != nil {
			return nil, err
		}
		res, err := cdp.Call(ctx, tg, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng,
			CaptureBeyondViewport: &capture, FromSurface: &capture, Clip: &page.Viewport{Width: size[0], Height: size[1], Scale: 1}})
		return res.Data, err
	})
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("LEAKUI_SCREENSHOTS"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshot: %s", path)
	return path
}
