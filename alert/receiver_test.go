package alert

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestParseReceiver(t *testing.T) {
	env := map[string]string{"SLACK_URL": "https://hooks.slack.com/services/T1/B2/envsecret"}
	files := map[string]string{"/run/secrets/slack": "https://hooks.slack.com/services/T1/B2/filesecret\nignored\n"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	read := func(p string) (string, error) {
		if v, ok := files[p]; ok {
			line, _, _ := strings.Cut(v, "\n")
			return line, nil
		}
		return "", errors.New("no such file")
	}
	for _, tc := range []struct {
		decl, name, kind, redacted, endpoint string
		timeout                              time.Duration
	}{
		{"alertmanager=http://am:9093", "alertmanager", "alertmanager", "http://am:9093", "http://am:9093/api/v2/alerts", DefaultTimeout},
		{"alertmanager=https://ops:pw@am.example.com/prefix/,name=am-eu,timeout=3s", "am-eu", "alertmanager",
			"https://ops:redacted@am.example.com/prefix/", "https://ops:pw@am.example.com/prefix/api/v2/alerts", 3 * time.Second},
		{"slack=env:SLACK_URL", "slack", "slack", "https://hooks.slack.com/…", "https://hooks.slack.com/services/T1/B2/envsecret", DefaultTimeout},
		{"slack=file:/run/secrets/slack,name=oncall", "oncall", "slack", "https://hooks.slack.com/…", "https://hooks.slack.com/services/T1/B2/filesecret", DefaultTimeout},
		{"webhook=https://hooks.example.com/leakui?token=abc", "webhook", "webhook", "https://hooks.example.com/leakui?token=redacted",
			"https://hooks.example.com/leakui?token=abc", DefaultTimeout},
	} {
		r, err := parseReceiver(tc.decl, lookup, read)
		if err != nil {
			t.Errorf("%s: %v", tc.decl, err)
			continue
		}
		if r.Name != tc.name || string(r.Kind) != tc.kind || r.Redacted() != tc.redacted || r.endpoint().String() != tc.endpoint || r.timeout() != tc.timeout {
			t.Errorf("%s: %s %s %s %s %s", tc.decl, r.Name, r.Kind, r.Redacted(), r.endpoint(), r.timeout())
		}
		// No way of printing a receiver shows its secrets.
		for _, s := range []string{fmt.Sprint(r), fmt.Sprintf("%+v", r), fmt.Sprintf("%#v", r), r.LogValue().String()} {
			if strings.Contains(s, "secret") || strings.Contains(s, "pw@") || strings.Contains(s, "abc") {
				t.Errorf("%s prints as %q", tc.decl, s)
			}
		}
	}
	for _, tc := range []struct{ decl, err string }{
		{"http://am:9093", "KIND=URL"},
		{"pagerduty=https://x", `kind "pagerduty"`},
		{"webhook=ftp://x/secret", "not an http:// or https:// URL"},
		{"webhook=https://x/a#secret", "#fragment"},
		{"webhook=https://x/a,token=secret", `unknown option "token"`},
		{"webhook=https://x/a,secret/b", `option "secret…"`},
		{"webhook=https://x,timeout=forever", "timeout"},
		{"webhook=https://x,name=Has Space", "name"},
		{"slack=env:NOPE", "the environment has no NOPE"},
		{"slack=file:/nope", "reading its URL"},
		{"slack=https://user:secret@hooks.slack.com/services/x", "no user or password"},
	} {
		_, err := parseReceiver(tc.decl, lookup, read)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v, want an error with %q", tc.decl, err, tc.err)
		}
		if err != nil && strings.Contains(err.Error(), "secret") && !strings.Contains(tc.err, "secret") {
			t.Errorf("%s: the error shows the secret: %v", tc.decl, err)
		}
	}
	var rs Receivers
	for _, d := range []string{"webhook=https://a", "webhook=https://b,name=b"} {
		if err := rs.Set(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := rs.Set("webhook=https://c"); err == nil || !strings.Contains(err.Error(), `two alert receivers are named "webhook"`) {
		t.Errorf("a second receiver of the same name: %v", err)
	}
	if rs.String() != "webhook,b" {
		t.Errorf("receivers %q", rs.String())
	}
}
