package store_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/leakui/leakui/store"
)

// testStoredBytes stores reports from two uploaders sharing a file, one from
// nobody (a lab run's) and a heap dump index, and checks StoredBytes in all
// and per uploader; then that deleting a file takes its reports' bytes off
// their uploader, and that Copy keeps who uploaded what.
func testStoredBytes(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	a, b, c, d := upload("a.pb", randomBytes(2500)), upload("b.txt", randomBytes(700)), upload("c.log", randomBytes(3001)), upload("d.pb", randomBytes(100))
	first := &store.Report{Kind: "diff", Uploader: "192.0.2.1"}
	for _, r := range []struct {
		rep *store.Report
		up  []store.Upload
	}{
		{first, []store.Upload{a, b}},
		{&store.Report{Kind: "diff", Uploader: "2001:db8::/64"}, []store.Upload{b, c}},
		{&store.Report{Kind: "profile"}, []store.Upload{d}},
	} {
		if err := db.CreateReport(ctx, r.rep, r.up); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.PutDerived(ctx, first.ID, "index", bytes.NewReader(randomBytes(1000))); err != nil {
		t.Fatal(err)
	}
	check := func(db *store.DB, uploader string, want int64) {
		t.Helper()
		if got, err := db.StoredBytes(ctx, uploader); err != nil || got != want {
			t.Errorf("StoredBytes(%q) = %d, %v; want %d", uploader, got, err, want)
		}
	}
	check(db, "", 2500+700+3001+100+1000)
	check(db, "192.0.2.1", 2500+700+1000)
	check(db, "2001:db8::/64", 700+3001)
	check(db, "198.51.100.1", 0)

	dst := openStore(t, t.TempDir())
	if _, err := store.Copy(ctx, dst, db, nil); err != nil {
		t.Fatal(err)
	}
	check(dst, "2001:db8::/64", 700+3001)
	check(dst, "192.0.2.1", 2500+700+1000)

	if _, err := db.DeleteArtifact(ctx, a.SHA256); err != nil {
		t.Fatal(err)
	}
	check(db, "192.0.2.1", 0)
	check(db, "", 700+3001+100)
}
