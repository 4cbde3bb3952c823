package watch_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/watch"
)

func secret(t *testing.T, s string) watch.Secret {
	t.Helper()
	sec, err := watch.ParseSecret(s)
	if err != nil {
		t.Fatal(err)
	}
	return sec
}

// A JVM watch is declared with where its push token is; a scraped one with
// where its credentials are. The declaration and its String name the
// places, never the secrets, and round-trip.
func TestParseCredentials(t *testing.T) {
	for _, c := range []struct {
		in   string
		want watch.Declaration
	}{
		{"broker=jvm,token=env:BROKER_TOKEN", watch.Declaration{Name: "broker", URL: watch.JVM, Every: time.Minute, Keep: 24, Token: secret(t, "env:BROKER_TOKEN")}},
		{"broker=jvm,keep=8,every=30s,token=file:/etc/leakui/broker.token",
			watch.Declaration{Name: "broker", URL: watch.JVM, Every: 30 * time.Second, Keep: 8, Token: secret(t, "file:/etc/leakui/broker.token")}},
		{"api=http://10.0.0.7:6060,bearer=env:API_TOKEN", watch.Declaration{Name: "api", URL: "http://10.0.0.7:6060", Every: time.Minute, Keep: 24, Bearer: secret(t, "env:API_TOKEN")}},
		{"api=http://10.0.0.7:6060,basic=file:/run/secrets/api", watch.Declaration{Name: "api", URL: "http://10.0.0.7:6060", Every: time.Minute, Keep: 24, Basic: secret(t, "file:/run/secrets/api")}},
	} {
		got, err := watch.Parse(c.in)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
		if again, err := watch.Parse(got.String()); err != nil || again != got {
			t.Errorf("Parse(%q), its String parsed again: %+v, %v", c.in, again, err)
		}
		if got.Pushed() != (got.URL == watch.JVM) {
			t.Errorf("%q: pushed %v", c.in, got.Pushed())
		}
	}
	for _, c := range []struct{ in, want string }{
		{"broker=jvm", "needs token=env:VAR or token=file:PATH"},
		{"broker=jvm,token=hunter2hunter2hunter2", "want env:VAR or file:PATH"},
		{"broker=jvm,token=env:", "want env:VAR or file:PATH"},
		{"broker=jvm,token=env:T,bearer=env:B", "a JVM that pushes carries token="},
		{"api=http://host,token=env:T", "token= is for a JVM that pushes"},
		{"api=http://host,bearer=env:A,basic=env:B", "bearer= or basic=, not both"},
		{"api=http://host,bearer=s3cr3t", "want env:VAR or file:PATH"},
	} {
		_, err := watch.Parse(c.in)
		if !errors.Is(err, watch.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q): %v, want ErrInvalid saying %q", c.in, err, c.want)
		}
	}
}

// A secret is read when it is used: the variable's value or the file's first
// line, trimmed; an empty one is ErrNoSecret. CheckSecrets refuses a push
// token shorter than MinTokenLen and basic credentials without a colon.
func TestSecretRead(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	if err := os.WriteFile(file, []byte("  push-token-0123456789  \nsecond line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LEAKUI_TEST_SECRET", "from-the-environment")
	t.Setenv("LEAKUI_TEST_EMPTY", "")
	if v, err := secret(t, "file:"+file).Read(); err != nil || v != "push-token-0123456789" {
		t.Errorf("file: %q, %v", v, err)
	}
	if v, err := secret(t, "env:LEAKUI_TEST_SECRET").Read(); err != nil || v != "from-the-environment" {
		t.Errorf("env: %q, %v", v, err)
	}
	for _, s := range []string{"file:" + empty, "env:LEAKUI_TEST_EMPTY", "env:LEAKUI_TEST_UNSET_" + t.Name()} {
		if v, err := secret(t, s).Read(); !errors.Is(err, watch.ErrNoSecret) {
			t.Errorf("%s: %q, %v; want ErrNoSecret", s, v, err)
		}
	}
	if _, err := secret(t, "file:"+filepath.Join(dir, "missing")).Read(); err == nil {
		t.Error("a missing file read")
	}
	for _, c := range []struct{ decl, want string }{
		{"b=jvm,token=env:LEAKUI_TEST_SECRET", ""},
		{"b=jvm,token=env:LEAKUI_TEST_SHORT", "a push token has at least 16"},
		{"a=http://h,basic=env:LEAKUI_TEST_SECRET", "holds no user:password"},
		{"a=http://h,bearer=env:LEAKUI_TEST_EMPTY", "no secret there"},
	} {
		t.Setenv("LEAKUI_TEST_SHORT", "short")
		d, err := watch.Parse(c.decl)
		if err != nil {
			t.Fatal(err)
		}
		err = d.CheckSecrets()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckSecrets(%s): %v, want %q", c.decl, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "from-the-environment") {
			t.Errorf("the error shows the secret: %v", err)
		}
	}
}
