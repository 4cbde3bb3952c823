package store

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"strings"
	"testing"
)

// shippedMigrations are the SHA-256 digests of the migrations each backend
// shipped as files of its own (store/sqlite/migrations/*.sql and
// store/postgres/migrations/*.sql at commit 38caea3) before they were written
// once, in store/schema, with placeholders.
var shippedMigrations = map[string]map[string]string{
	"sqlite": {
		"0001_init.sql": "e3e3b032fefeee816736afe8670379b8f4b13ec5bf37183c9af864aa77cd51f4",
		"0002_runs.sql": "b823c62794a17ff35f206a0ac9ae672dc7407d6e9181e14ca27e909a2ba8edbb",
		// Written in store/schema from the start (sign-in sessions).
		"0003_sessions.sql": "c5eb2f50f5997b544ca7f18f9f3b82625eba55098354266a898bee312d9bf8e2",
		// Derived blobs and report states (heap dumps analyzed in the background).
		"0004_derived.sql": "1afdb906c9b6c0ac48b11020757027a0b6abc7da8c00e13af684e9ae3322ef10",
		// Who uploaded each report, for the disk quota per client.
		"0005_uploaders.sql": "b8f115adbaa1cbcc632300ec95ca9627726998010e005dd3d0c2938415bc56f6",
		// Incidents: their attached reports and runs, and annotations.
		"0006_incidents.sql": "b4c77f6cde411b3e00765aea4ec3ff7154fb1b3e694d643933634f8ce221aca8",
		// The reports' headline columns, which the dashboard lists them by.
		"0007_report_headlines.sql": "bec6984e8ff8a693c5e3f858cb8ac3a8247ef72a5ef96fffd3435503885d1ad0",
		// Watches: their state and the snapshots of their window.
		"0008_watches.sql": "15c0c51372027d2956e141f000728d186a506f5bee346594315bb9e77f53b2b6",
		// Alert deliveries: each verdict change's delivery to each receiver.
		"0009_alerts.sql": "36cf2ebc1b1f30102540ba52d3f3418909308082eb16001a7ad33ef3bdc8121d",
		// Pushed watches' bundles, the incident a watch's alerts go to, and the index the sweep of unfinished alert deliveries reads.
		"0010_watch_push.sql": "2c17707672bc6415a33f7675adfd3c79c3186ece3a61ed452e1b05192c6b07c1",
		// The words each report is searched by, as whole tokens.
		"0011_report_search_terms.sql": "6b2a333d91ea4946bca0d084f0090f42b94c28dc5978f681379ed1501ad3c935",
		// The heap dump analyses' lease columns dropped: the job system runs them.
		"0012_drop_analysis_lease.sql": "cf66e55d8ecb2edaaf19c623c2511047b808fcdfa5833772855c2922615ab917",
	},
	"postgres": {
		"0001_init.sql":                "ccce9a9cef16f4ef512aab9f7831a49261f7260fc645edce8aec775b53dbf2f5",
		"0002_runs.sql":                "320599d54a003bd2362b15b95d462b2ab3f4669a89e344b80bead007657d4d61",
		"0003_sessions.sql":            "fe20fffb1755f8b844dd293b54475656c9f4fa2fefbb17ea9e0f0761cfdb9ebc",
		"0004_derived.sql":             "b106da055c6df98dee4857ed2c0602a2692edbdb7361485af66a9e743f78942f",
		"0005_uploaders.sql":           "266ea2ca5e8344b29f5411ab643a43b1670cf4f36d78a7c15eab20875dbd7407",
		"0006_incidents.sql":           "9286bd292f227b4fac342bf6b332f88120237066c432551cadcea696e4cad1aa",
		"0007_report_headlines.sql":    "044f580f943bebc0b59ad57da6f6123ab05c588cb8f5533c448a303365ecb1f4",
		"0008_watches.sql":             "6e2774272b3fecd3022a7e7a88f5b6e01222f66b64a1088877090015d4aa1925",
		"0009_alerts.sql":              "09026a2f56da8a4d4fdfe4c952b767a0b4a7a7e955a43c7c73e778e691190099",
		"0010_watch_push.sql":          "2dc2976fde8476b247b936abfb1fbbb2de4c7d2c8d41c30f42a72f7045e5eee5",
		"0011_report_search_terms.sql": "6b2a333d91ea4946bca0d084f0090f42b94c28dc5978f681379ed1501ad3c935",
		"0012_drop_analysis_lease.sql": "cf66e55d8ecb2edaaf19c623c2511047b808fcdfa5833772855c2922615ab917",
	},
}

// TestMigrationsAsShipped renders the shared schema in each backend's words and
// checks that every migration is, byte for byte, the one that backend shipped, so
// a database migrated by an earlier leakui has exactly the schema a new one gets.
func TestMigrationsAsShipped(t *testing.T) {
	for backend, words := range map[string]SchemaWords{
		"sqlite":   {Int64: "INTEGER", Bytes: "BLOB", Float64: "REAL", Strict: " STRICT"},
		"postgres": {Int64: "BIGINT", Bytes: "BYTEA", Float64: "DOUBLE PRECISION", Strict: ""},
	} {
		rendered := Migrations(words)
		entries, err := fs.ReadDir(rendered, ".")
		if err != nil || len(entries) != len(shippedMigrations[backend]) {
			t.Fatalf("%s: %d migrations rendered, %d shipped (%v)", backend, len(entries), len(shippedMigrations[backend]), err)
		}
		for name, want := range shippedMigrations[backend] {
			b, err := fs.ReadFile(rendered, name)
			if err != nil {
				t.Fatalf("%s %s: %v", backend, name, err)
			}
			if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != want {
				t.Errorf("%s %s renders differently from the shipped file:\n%s", backend, name, b)
			}
		}
	}
}

// TestMigrationVersionsAreUnique checks that no two migrations share a
// version number: migrate records versions, so the second of two would be
// taken as applied and never run (two branches that each add the next
// migration meet here).
func TestMigrationVersionsAreUnique(t *testing.T) {
	entries, err := fs.ReadDir(schema, "schema")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, e := range entries {
		version, _, _ := strings.Cut(e.Name(), "_")
		if other, ok := seen[version]; ok {
			t.Errorf("migrations %s and %s share the version %s", other, e.Name(), version)
		}
		seen[version] = e.Name()
	}
}
