package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/leakui/leakui/lab"
)

// TestRunFormPassesTheScenario offers the checkpoint scenarios on the dashboard's
// form and starts a run with the one chosen.
func TestRunFormPassesTheScenario(t *testing.T) {
	ts := labServer(t, "1ms", lab.Config{NoCapture: true})
	code, _, pg := ts.get(t, "/")
	if code != http.StatusOK {
		t.Fatalf("dashboard: %d", code)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(pg))
	if err != nil {
		t.Fatal(err)
	}
	var options []string
	doc.Find("[data-testid=run-scenario] option").Each(func(_ int, o *goquery.Selection) { options = append(options, o.AttrOr("value", "")) })
	if strings.Join(options, " ") != "storm steady reuse" {
		t.Errorf("scenario options %q", options)
	}

	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.PostForm(ts.URL+"/runs", url.Values{"workload": {"checkpoint"}, "variant": {"leaky"}, "mode": {"active"},
		"scenario": {"reuse"}, "cycles": {"3"}, "tasks": {"1"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/runs/") {
		t.Fatalf("POST /runs: %d, Location %q", resp.StatusCode, loc)
	}
	r := waitRun(t, ts, strings.TrimPrefix(loc, "/runs/"))
	var spec lab.Spec
	if err := json.Unmarshal(r.Spec, &spec); err != nil {
		t.Fatal(err)
	}
	if spec.Scenario != "reuse" || spec.Variant != "leaky" || spec.Cycles != 3 {
		t.Errorf("run spec %+v, want the reuse scenario", spec)
	}

	resp, err = client.PostForm(ts.URL+"/runs", url.Values{"workload": {"checkpoint"}, "variant": {"leaky"}, "scenario": {"hurricane"}, "cycles": {"3"}, "tasks": {"1"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("an unknown scenario: %d, want 400", resp.StatusCode)
	}
}
