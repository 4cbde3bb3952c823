package watcher_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/watchtarget"
	"github.com/leakui/leakui/watch"
	"github.com/leakui/leakui/watch/watcher"
)

// A target that requires credentials (a real Go program behind a proxy that
// checks them, as an authenticating sidecar does) is scraped with the
// bearer token or the basic credentials its declaration names, read from the
// environment or a file; without them, or with wrong ones, the scrape fails
// with a reason that names neither the credentials nor where a page could
// set them, and no snapshot is stored.
func TestScrapeWithCredentials(t *testing.T) {
	tg := watchtarget.Start(t, "steady")
	u, err := url.Parse(tg.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	const bearer, user, pass = "scrape-bearer-3f9a1c", "leakui", "basic-pass-77e2"
	var refused atomic.Int64
	guard := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, basic := r.BasicAuth()
		if r.Header.Get("Authorization") != "Bearer "+bearer && !(basic && u == user && p == pass) {
			refused.Add(1)
			http.Error(w, "sign in", http.StatusUnauthorized)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer guard.Close()
	t.Setenv("LEAKUI_TEST_SCRAPE_BEARER", bearer)
	t.Setenv("LEAKUI_TEST_WRONG_BEARER", "not-the-token")
	basicFile := filepath.Join(t.TempDir(), "basic")
	if err := os.WriteFile(basicFile, []byte(user+":"+pass+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		decl, want string
		ok         bool
	}{
		{"none=" + guard.URL, "401 Unauthorized: the target requires credentials", false},
		{"wrong=" + guard.URL + ",bearer=env:LEAKUI_TEST_WRONG_BEARER", "401 Unauthorized: the target refused the watch's credentials", false},
		{"bearer=" + guard.URL + ",bearer=env:LEAKUI_TEST_SCRAPE_BEARER", "", true},
		{"basic=" + guard.URL + ",basic=file:" + basicFile, "", true},
	}
	eachDatabase(t, func(t *testing.T, db database) {
		st := db.openStore(t)
		var decls []watch.Declaration
		for _, c := range cases {
			decls = append(decls, mustParse(t, c.decl+",every=10s"))
		}
		w := watcher.New(watcher.Config{Store: st, Logger: quietLogger()}, decls)
		ctx := context.Background()
		if err := w.Declare(ctx); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now().Truncate(10 * time.Second)
		for i, c := range cases {
			tickAt(t, w, decls[i].Name, t0)
			cur, err := st.Watch(ctx, decls[i].Name)
			if err != nil {
				t.Fatal(err)
			}
			if c.ok && (cur.Snapshots != 1 || cur.LastError != "") || !c.ok && (cur.Snapshots != 0 || !strings.Contains(cur.LastError, c.want)) {
				t.Errorf("%s: %d snapshots, last error %q; want %v %q", decls[i].Name, cur.Snapshots, cur.LastError, c.ok, c.want)
			}
			for _, secret := range []string{bearer, pass, "not-the-token"} {
				if strings.Contains(cur.LastError, secret) || strings.Contains(decls[i].String(), secret) {
					t.Errorf("%s: a credential shows: %q / %q", decls[i].Name, cur.LastError, decls[i].String())
				}
			}
		}
	})
	if refused.Load() == 0 {
		t.Error("the guard refused nothing")
	}
}
