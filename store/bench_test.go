package store_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"sync/atomic"
	"testing"

	"github.com/leakui/leakui/internal/pgtest"
	"github.com/leakui/leakui/store"
)

// benchSeq numbers the artifacts BenchmarkStore creates.
var benchSeq atomic.Int64

// BenchmarkStore measures the store's hot paths on each backend: a report over a
// new 128 KiB artifact (one chunk), reading a report back, and streaming a 4 MiB
// artifact (four chunks) out. PostgreSQL runs when LEAKUI_TEST_POSTGRES is set.
func BenchmarkStore(b *testing.B) {
	ctx := context.Background()
	for _, be := range []struct {
		name string
		dsn  func(b *testing.B) string
	}{
		{"sqlite", func(b *testing.B) string { return b.TempDir() }},
		{"postgres", func(b *testing.B) string { return pgtest.DSN(b) }},
	} {
		b.Run(be.name, func(b *testing.B) {
			db, err := open(ctx, be.dsn(b))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			data := randomBytes(128 << 10)
			b.Run("CreateReport", func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					// Different first bytes every time, in every run of the
					// benchmark: a new artifact each time.
					i := benchSeq.Add(1)
					binary.LittleEndian.PutUint64(data, uint64(i))
					if err := db.CreateReport(ctx, &store.Report{Kind: "profile"}, []store.Upload{upload(fmt.Sprint(i), data)}); err != nil {
						b.Fatal(err)
					}
				}
			})
			r := &store.Report{Kind: "profile"}
			big := upload("big", randomBytes(4<<20))
			if err := db.CreateReport(ctx, r, []store.Upload{big}); err != nil {
				b.Fatal(err)
			}
			b.Run("Report", func(b *testing.B) {
				for b.Loop() {
					if _, err := db.Report(ctx, r.ID); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("OpenArtifact4MiB", func(b *testing.B) {
				b.SetBytes(big.Size)
				for b.Loop() {
					rc, err := db.OpenArtifact(ctx, big.SHA256)
					if err != nil {
						b.Fatal(err)
					}
					if n, err := io.Copy(io.Discard, rc); err != nil || n != big.Size {
						b.Fatalf("%d bytes (%v)", n, err)
					}
					rc.Close()
				}
			})
		})
	}
}

// BenchmarkSearchReports measures one page of the dashboard's list over 5,000
// reports on each backend: the first page, a text search that scans names,
// labels and summaries, and a SHA-256 prefix.
func BenchmarkSearchReports(b *testing.B) {
	ctx := context.Background()
	for _, be := range []struct {
		name string
		dsn  func(b *testing.B) string
	}{
		{"sqlite", func(b *testing.B) string { return b.TempDir() }},
		{"postgres", func(b *testing.B) string { return pgtest.DSN(b) }},
	} {
		b.Run(be.name, func(b *testing.B) {
			db, err := open(ctx, be.dsn(b))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			var sha string
			for i := range 5000 {
				u := upload(fmt.Sprintf("heap-%05d.pb.gz", i), []byte(fmt.Sprintf("search bench %d", i)))
				u.Label = fmt.Sprintf("INC-%d", i)
				if err := db.CreateReport(ctx, &store.Report{Kind: "profile"}, []store.Upload{u}); err != nil {
					b.Fatal(err)
				}
				sha = u.SHA256
			}
			for _, c := range []struct{ name, text string }{{"first-page", ""}, {"label", "inc-4321"}, {"sha-prefix", sha[:12]}} {
				b.Run(c.name, func(b *testing.B) {
					for b.Loop() {
						rs, err := db.SearchReports(ctx, store.ReportSearch{Text: c.text, Limit: 21})
						if err != nil || len(rs) == 0 {
							b.Fatal(len(rs), err)
						}
					}
				})
			}
		})
	}
}
