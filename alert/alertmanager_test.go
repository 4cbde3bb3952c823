package alert_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leakui/leakui/alert"
	"github.com/leakui/leakui/store"
)

// alertmanagerModule is the Go module the real Alertmanager is built from, at
// the version go.mod pins (a tool of this module).
const alertmanagerModule = "github.com/prometheus/alertmanager"

var (
	alertmanagerOnce sync.Once
	alertmanagerPath string
	alertmanagerErr  error
)

// alertmanagerBinary builds Alertmanager from its module at the version
// go.mod pins, once per version in the user's cache directory. The module as
// published lacks its web UI's generated assets (ui/app/dist, built with npm
// in Alertmanager's own release process), which ui/web.go embeds: the build
// copies the module and puts a one-line page in their place. The API, which
// this package uses, is the module's own.
func alertmanagerBinary(t *testing.T) string {
	t.Helper()
	alertmanagerOnce.Do(func() { alertmanagerPath, alertmanagerErr = buildAlertmanager() })
	if alertmanagerErr != nil {
		t.Fatalf("building Alertmanager from its module: %v", alertmanagerErr)
	}
	return alertmanagerPath
}

func buildAlertmanager() (string, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", err
	}
	goCmd := func(dir string, args ...string) ([]byte, error) {
		cmd := exec.Command(goTool, args...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
		}
		return out, nil
	}
	// The module at the version of this module's build list, downloaded
	// into the module cache (verified against go.sum) when it is not there.
	out, err := goCmd(".", "mod", "download", "-json", alertmanagerModule)
	if err != nil {
		return "", err
	}
	var m struct{ Dir, Version, Error string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" || m.Error != "" {
		return "", fmt.Errorf("go mod download %s: %s %v", alertmanagerModule, m.Error, err)
	}
	moduleDir, version := m.Dir, m.Version
	gomod, err := goCmd(".", "env", "GOMOD")
	if err != nil {
		return "", err
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	// Built once into the repository's own ignored cache directory: nothing
	// the tests use lives outside the repository's root (and the Go caches).
	dir := filepath.Join(root, ".cache", "alertmanager-"+version)
	bin := filepath.Join(dir, "alertmanager")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	work, err := os.MkdirTemp("", "leakui-alertmanager-build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	src := filepath.Join(work, "src")
	if err := os.CopyFS(src, os.DirFS(moduleDir)); err != nil {
		return "", err
	}
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	for _, ui := range []string{"elm", "mantine"} {
		if err := os.MkdirAll(filepath.Join(src, "ui", "app", "dist", ui), 0o755); err != nil {
			return "", err
		}
		page := "<!doctype html><title>Alertmanager</title><p>This test build has no web UI; the API is at /api/v2/.\n"
		if err := os.WriteFile(filepath.Join(src, "ui", "app", "dist", ui, "index.html"), []byte(page), 0o644); err != nil {
			return "", err
		}
	}
	// A copy of this module's go.mod and go.sum, with the module replaced by
	// the copy: every other dependency at the version go.mod pins.
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		return "", err
	}
	mod = append(mod, []byte("\nreplace "+alertmanagerModule+" => "+src+"\n")...)
	if err := os.WriteFile(filepath.Join(work, "go.mod"), mod, 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(work, "go.sum"), sum, 0o644); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp := filepath.Join(dir, fmt.Sprintf("alertmanager.%d", os.Getpid()))
	if _, err := goCmd(root, "build", "-modfile", filepath.Join(work, "go.mod"), "-o", tmp, alertmanagerModule+"/cmd/alertmanager"); err != nil {
		return "", err
	}
	return bin, os.Rename(tmp, bin)
}

// startAlertmanager runs Alertmanager on 127.0.0.1 with a receiver that
// sends nowhere and its data in a temporary directory, until the test ends,
// and returns its base URL.
func startAlertmanager(t *testing.T) string {
	t.Helper()
	bin := alertmanagerBinary(t)
	dir := t.TempDir()
	// An alert not sent again within 10 s resolves itself.
	config := "global:\n  resolve_timeout: 10s\nroute:\n  receiver: nowhere\nreceivers:\n  - name: nowhere\n"
	if err := os.WriteFile(filepath.Join(dir, "alertmanager.yml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "alertmanager.yml"), "--storage.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--cluster.listen-address=", "--log.level=warn")
	logs, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var logBuf bytes.Buffer
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(logs)
		for sc.Scan() {
			logBuf.WriteString(sc.Text() + "\n")
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { <-copied; cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("Alertmanager's log:\n%s", logBuf.String())
		}
	})
	base := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("Alertmanager is not ready at %s after 30 s: %v", base, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// gettableAlert is the part of Alertmanager's gettableAlert this test reads.
type gettableAlert struct {
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations"`
	StartsAt     time.Time         `json:"startsAt"`
	EndsAt       time.Time         `json:"endsAt"`
	GeneratorURL string            `json:"generatorURL"`
	Status       struct {
		State string `json:"state"`
	} `json:"status"`
}

// alertsOf lists Alertmanager's LeakSuspected alerts through its API.
func alertsOf(t *testing.T, base string) []gettableAlert {
	t.Helper()
	resp, err := http.Get(base + "/api/v2/alerts?filter=" + url.QueryEscape(`alertname="LeakSuspected"`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []gettableAlert
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("GET /api/v2/alerts: %s: %v", resp.Status, err)
	}
	return out
}

// receivedTotal is Alertmanager's count of alerts received in a status
// ("firing" or "resolved"), from its own /metrics.
func receivedTotal(t *testing.T, base, status string) string {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	prefix := `alertmanager_alerts_received_total{status="` + status + `",version="v2"} `
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, prefix); ok {
			return v
		}
	}
	return ""
}

// A leak verdict fires LeakSuspected{watch, suspect} in a real Alertmanager,
// with the report's link in its annotations and its start at the change,
// sent again while it fires (it outlives Alertmanager's resolve_timeout);
// the verdict clearing resolves the same alert (same labels, endsAt at the
// change), which leaves Alertmanager's list of active alerts.
func TestRealAlertmanagerFiresAndResolves(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs Alertmanager")
	}
	base := startAlertmanager(t)
	resolved := 0 // the subtests that got as far as the resolution
	eachDatabase(t, func(t *testing.T, db database) {
		h := db.start(t, []alert.Receiver{receiver(t, "alertmanager="+base)}, alert.Config{Attempts: 3, Backoff: fixedBackoff(100 * time.Millisecond), Refresh: time.Second})
		watch := "checkout-" + db.name
		firedAt := time.Now().Add(-time.Minute).UTC().Truncate(time.Millisecond)
		fire := alert.Event{Watch: watch, From: alert.Inconclusive, To: alert.Leak, Suspect: "main.(*cache).put",
			GrowthPerHour: 23_040_000, ReportURL: "https://leakui.example.com/r/abc", At: firedAt}
		if err := h.d.Notify(context.Background(), fire); err != nil {
			t.Fatal(err)
		}
		if d := h.waitEnded(t, "alertmanager", watch, alert.Leak, time.Minute); d.State != store.DeliveryDelivered || d.LastStatus != 200 || d.Attempts != 1 {
			t.Fatalf("the firing's delivery %+v", d)
		}
		var mine []gettableAlert
		deadline := time.Now().Add(30 * time.Second)
		for {
			mine = mine[:0]
			for _, a := range alertsOf(t, base) {
				if a.Labels["watch"] == watch {
					mine = append(mine, a)
				}
			}
			if len(mine) == 1 && mine[0].Status.State == "active" || time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if len(mine) != 1 {
			t.Fatalf("Alertmanager lists %d alerts of %s, want 1: %+v", len(mine), watch, mine)
		}
		a := mine[0]
		wantLabels := map[string]string{"alertname": "LeakSuspected", "watch": watch, "suspect": "main.(*cache).put"}
		if fmt.Sprint(a.Labels) != fmt.Sprint(wantLabels) {
			t.Errorf("labels %v, want %v", a.Labels, wantLabels)
		}
		if a.Annotations["report_url"] != fire.ReportURL || a.GeneratorURL != fire.ReportURL ||
			a.Annotations["summary"] != "Leak suspected on watch "+watch+": main.(*cache).put grows +2.3e+07 per hour" {
			t.Errorf("annotations %v, generatorURL %q", a.Annotations, a.GeneratorURL)
		}
		if a.Status.State != "active" || !a.StartsAt.Equal(firedAt) || !a.EndsAt.After(time.Now()) {
			t.Errorf("state %q, startsAt %s (want %s), endsAt %s (want later than now)", a.Status.State, a.StartsAt, firedAt, a.EndsAt)
		}

		// Sent again every second (River's scheduler makes each periodic job
		// available within 5 s), it outlives Alertmanager's resolve_timeout
		// of 10 s.
		time.Sleep(15 * time.Second)
		if n := len(alertsOf(t, base)); n == 0 {
			t.Fatal("the firing alert resolved itself: it was not sent again")
		}

		// The verdict clears, with no suspect: the resolution repeats the
		// firing's labels.
		clear := alert.Event{Watch: watch, From: alert.Leak, To: alert.NoLeak, ReportURL: "https://leakui.example.com/r/def"}
		if err := h.d.Notify(context.Background(), clear); err != nil {
			t.Fatal(err)
		}
		if d := h.waitEnded(t, "alertmanager", watch, alert.NoLeak, time.Minute); d.State != store.DeliveryDelivered || d.LastStatus != 200 {
			t.Fatalf("the resolution's delivery %+v", d)
		}
		resolved++
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			mine = mine[:0]
			for _, a := range alertsOf(t, base) {
				if a.Labels["watch"] == watch {
					mine = append(mine, a)
				}
			}
			if len(mine) == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("Alertmanager still lists %+v after the resolution", mine)
			}
		}
	})
	// Alertmanager counted what it received: per database, one resolved
	// alert, and one firing sent at least twice.
	f, r := receivedTotal(t, base, "firing"), receivedTotal(t, base, "resolved")
	if n, err := strconv.Atoi(f); err != nil || n < 2*resolved || r != strconv.Itoa(resolved) {
		t.Errorf("Alertmanager received %q firing and %q resolved alerts, want at least %d and %d", f, r, 2*resolved, resolved)
	}
}
