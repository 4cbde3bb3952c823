package postgres

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestRebind(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT a FROM t WHERE x = ? AND y = ?`:   `SELECT a FROM t WHERE x = $1 AND y = $2`,
		`SELECT '?' FROM t WHERE x = ?`:           `SELECT '?' FROM t WHERE x = $1`,
		`SELECT "a?b" FROM t WHERE x = ? LIMIT ?`: `SELECT "a?b" FROM t WHERE x = $1 LIMIT $2`,
		`INSERT INTO t VALUES (?, 'it''s ?', ?)`:  `INSERT INTO t VALUES ($1, 'it''s ?', $2)`,
		`no placeholders`:                         `no placeholders`,
	} {
		if got := (dialect{}).Rebind(in); got != want {
			t.Errorf("rebind(%q) = %q, want %q", in, got, want)
		}
	}
}

// A server that cannot be reached is a clear error that names the server but
// never its password.
func TestOpenErrors(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, tc := range []struct{ dsn, want string }{
		{"postgres://leakui:s3cret@127.0.0.1:1/leakui?sslmode=disable&connect_timeout=5", "127.0.0.1:1"},
		{"postgres://leakui:s3cret@127.0.0.1:5432/leakui?leakui_max_conns=zero", "leakui_max_conns"},
		{"postgres://leakui@%zz/", "not a postgres:// URL"},
	} {
		db, err := Open(ctx, tc.dsn)
		if err == nil {
			db.Close()
			t.Errorf("Open(%q) succeeded", tc.dsn)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Open(%q): %v; want it to mention %q and not the password", tc.dsn, err, tc.want)
		}
	}
	if got := redact("postgres://u:pw@h/db?password=pw2&sslmode=disable"); strings.Contains(got, "pw") || !strings.Contains(got, "u@h/db") {
		t.Errorf("redacted %q", got)
	}
}

// FuzzRebind checks that rebind only ever turns the ? outside quotes into $1, $2, …
// in order, and changes nothing else.
func FuzzRebind(f *testing.F) {
	for _, s := range []string{`SELECT ? FROM t`, `'?' ? "?" ?`, `it''s ? '`, `"unterminated ?`, `??`, ``} {
		f.Add(s)
	}
	placeholder := regexp.MustCompile(`\$[0-9]+`)
	digitAfterMark := regexp.MustCompile(`\?[0-9]`)
	f.Fuzz(func(t *testing.T, query string) {
		if strings.Contains(query, "$") || digitAfterMark.MatchString(query) {
			return // "?0" would read back as $10: no query of the store has either
		}
		got := (dialect{}).Rebind(query)
		n := 0
		back := placeholder.ReplaceAllStringFunc(got, func(p string) string {
			n++
			if p != "$"+strconv.Itoa(n) {
				t.Fatalf("placeholder %d is %s in %q", n, p, got)
			}
			return "?"
		})
		if back != query {
			t.Fatalf("rebind(%q) = %q changes more than placeholders", query, got)
		}
		if want := strings.Count(query, "?") - strings.Count(got, "?"); want != n {
			t.Fatalf("rebind(%q) = %q: %d placeholders for %d replaced question marks", query, got, n, want)
		}
	})
}
