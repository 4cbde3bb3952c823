// Package pgtest gives each test its own empty PostgreSQL schema in the database
// that LEAKUI_TEST_POSTGRES names (a postgres:// URL), so that tests run in
// parallel on one server and leave nothing behind. Without the variable a test
// is skipped locally and fails in CI (CI=true), where .ci/run starts a cluster.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/leakui/leakui/internal/testtool"
)

// EnvDSN is the variable naming the test database.
const EnvDSN = "LEAKUI_TEST_POSTGRES"

// Available reports whether a test database is configured.
func Available() bool { return os.Getenv(EnvDSN) != "" }

// DSN creates a new schema for the test and returns a URL of the test database
// whose search_path is that schema. The schema and everything in it are dropped
// when the test ends; close the test's connections before (register their
// cleanup after calling DSN).
func DSN(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvDSN)
	if base == "" {
		testtool.Missing(t, "PostgreSQL ("+EnvDSN+" is not set)", testtool.Hint("postgres"), "PostgreSQL store test")
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var b [8]byte
	rand.Read(b[:])
	schema := "leakui_test_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("creating the test schema in %s: %v", EnvDSN, err)
	}
	t.Cleanup(func() { Drop(t, base, schema) })
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Drop removes a schema and everything in it.
func Drop(t testing.TB, base, schema string) {
	t.Helper()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Error(err)
		return
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, `DROP SCHEMA IF EXISTS `+schema+` CASCADE`); err != nil {
		t.Errorf("dropping the test schema %s: %v", schema, err)
	}
}
