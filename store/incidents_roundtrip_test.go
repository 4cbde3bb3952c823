package store_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/pgtest"
	"github.com/leakui/leakui/store"
)

// TestIncidentsRoundTrip moves a store with incidents from SQLite to
// PostgreSQL and back to a new SQLite file: every incident reads back the same
// in each, with its evidence (a large one of 1,200 reports, in pages) and its
// annotations, and Verify finds every row at each step.
func TestIncidentsRoundTrip(t *testing.T) {
	ctx := context.Background()
	first := openStore(t, t.TempDir())
	fillSource(t, first)
	if err := first.CreateIncident(ctx, &store.Incident{Slug: "big", Title: "Many heap series"}); err != nil {
		t.Fatal(err)
	}
	fillIncident(t, first, "big", 1_200, 7)
	for i := range 3 {
		a := store.Annotation{At: time.Date(2026, 3, 1, 10, i, 0, 0, time.UTC), Text: "note ünïcode <b>" + string(rune('a'+i)), Author: "ops"}
		if err := first.Annotate(ctx, "big", &a); err != nil {
			t.Fatal(err)
		}
	}
	pg := openStore(t, pgtest.DSN(t))
	last := openStore(t, t.TempDir())
	for _, step := range []struct{ dst, src *store.DB }{{pg, first}, {last, pg}} {
		res, err := store.Copy(ctx, step.dst, step.src, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Incidents != 2 {
			t.Errorf("%s → %s: %d incidents copied, want 2", step.src.Backend(), step.dst.Backend(), res.Incidents)
		}
		checks, err := store.Verify(ctx, step.dst, step.src, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range checks {
			if !c.OK() || len(c.Missing) > 0 {
				t.Errorf("%s → %s: table %s: %+v", step.src.Backend(), step.dst.Backend(), c.Table, c)
			}
		}
	}
	for _, slug := range []string{"checkout-oom", "big"} {
		want := readIncident(t, first, slug)
		for _, db := range []*store.DB{pg, last} {
			if got := readIncident(t, db, slug); !reflect.DeepEqual(got, want) {
				t.Errorf("incident %s in %s differs from the first store's", slug, db.Backend())
			}
		}
		if n := len(want.evidence); slug == "big" && n != 1_207 || slug == "checkout-oom" && n != 2 {
			t.Errorf("incident %s has %d pieces of evidence", slug, n)
		}
	}
}

// incidentRead is an incident with all its evidence and annotations, read a
// page at a time.
type incidentRead struct {
	incident    store.Incident
	evidence    []store.Evidence
	annotations []store.Annotation
}

func readIncident(t *testing.T, db *store.DB, slug string) incidentRead {
	t.Helper()
	ctx := context.Background()
	in, err := db.Incident(ctx, slug)
	if err != nil {
		t.Fatal(err)
	}
	r := incidentRead{incident: *in}
	for after := ""; ; {
		page, err := db.IncidentEvidence(ctx, slug, after, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		r.evidence = append(r.evidence, page...)
		after = store.EvidenceCursor(page[len(page)-1])
	}
	for after := ""; ; {
		page, err := db.Annotations(ctx, slug, after, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		r.annotations = append(r.annotations, page...)
		after = store.AnnotationCursor(page[len(page)-1])
	}
	return r
}
