package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The web's own memory budget reaches /metrics through serve's wiring: its
// limit gauge is -memory-budget less the watches' share (none without
// watches), and its used gauge what the web's budget holds.
func TestServeMetricsReadTheWebBudget(t *testing.T) {
	var out, errb bytes.Buffer
	m := NewMain(stdio{strings.NewReader(""), &out, &errb})
	const budget = 96 << 20
	if err := m.ParseFlags([]string{"-addr", "127.0.0.1:0", "-data", t.TempDir(), "-memory-budget", strconv.Itoa(budget), "-lab=false"}); err != nil {
		t.Fatal(err)
	}
	if err := m.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	_, text := scrapeMetrics(t, "http://"+m.Addr, "")
	gauge := func(name string) string {
		t.Helper()
		g := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindStringSubmatch(text)
		if g == nil {
			t.Fatalf("/metrics has no %s:\n%.2000s", name, text)
		}
		return g[1]
	}
	if got := gauge("leakui_memory_budget_limit_bytes"); got != "1.00663296e+08" {
		t.Errorf("leakui_memory_budget_limit_bytes %s, want %d", got, budget)
	}
	if got, want := gauge("leakui_memory_budget_used_bytes"), m.web.Budget().Used(); got != strconv.FormatInt(want, 10) && !(want == 0 && got == "0") {
		t.Errorf("leakui_memory_budget_used_bytes %s, the web's budget holds %d", got, want)
	}
}

// The new serve flags refuse what makes no sense.
func TestServeOpsFlagsUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-watch-stale-after", "0"}, "-watch-stale-after 0"},
		{[]string{"-job-rescue-after", "10ms"}, "-job-rescue-after 10ms"},
	} {
		var out, errb bytes.Buffer
		m := NewMain(stdio{strings.NewReader(""), &out, &errb})
		if err := m.ParseFlags(append([]string{"-addr", "127.0.0.1:0", "-data", t.TempDir()}, c.args...)); err == nil || !strings.Contains(errb.String(), c.want) {
			t.Errorf("serve %q: %v, stderr %q; want a usage error naming %q", c.args, err, errb.String(), c.want)
		}
	}
}
