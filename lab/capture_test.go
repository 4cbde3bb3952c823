package lab

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestCaptureProfilesGoroutineLeak checks that a snapshot takes the goroutineleak
// profile when the target serves it, captures nothing and fails nothing when it
// answers 404, and does not ask for it in a quiet-heap run (it runs a GC).
func TestCaptureProfilesGoroutineLeak(t *testing.T) {
	for _, c := range []struct {
		name   string
		serve  bool
		gc     bool
		roles  []string
		leakGC int64
	}{
		{"served", true, true, []string{"heap", "goroutine", RoleGoroutineLeak}, 1},
		{"absent", false, true, []string{"heap", "goroutine"}, 1},
		{"quiet heap", true, false, []string{"heap", "goroutine"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var asked atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/debug/pprof/goroutineleak":
					asked.Add(1)
					if !c.serve {
						http.NotFound(w, r)
						return
					}
					w.Write([]byte("leak"))
				default:
					w.Write([]byte(r.URL.Path))
				}
			}))
			defer srv.Close()
			caps, err := captureProfiles(context.Background(), srv.Client(), srv.URL, 3, c.gc, time.Now)
			if err != nil {
				t.Fatal(err)
			}
			var roles []string
			for _, cp := range caps {
				roles = append(roles, cp.Role)
				if cp.Role == RoleGoroutineLeak && (string(cp.Data) != "leak" || cp.Name != "goroutineleak-00003.pb.gz") {
					t.Errorf("goroutineleak capture %q: %q", cp.Name, cp.Data)
				}
			}
			if len(roles) != len(c.roles) || asked.Load() != c.leakGC {
				t.Fatalf("roles %v, want %v; goroutineleak asked %d times, want %d", roles, c.roles, asked.Load(), c.leakGC)
			}
			for i := range roles {
				if roles[i] != c.roles[i] {
					t.Errorf("roles %v, want %v", roles, c.roles)
				}
			}
		})
	}
}
