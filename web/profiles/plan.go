package profiles

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/web/kind"
)

// planProfiles makes a profile report of one file, a diff of two, a series of more.
// Several profiles must be of one type; they are ordered by the time each was
// taken when all say it, else kept in upload order.
func (s *Kind) planProfiles(form *kind.Upload) (*kind.Plan, error) {
	profs := make([]*pprof.Profile, len(form.Files))
	for i, f := range form.Files {
		p, err := s.loadReceivedProfile(f)
		if err != nil {
			return nil, err
		}
		if i > 0 && !profs[0].SameType(p) {
			first, this := pprof.MismatchNames(profs[0], p)
			return nil, fmt.Errorf("%w: %s measures %s but %s measures %s; upload profiles of one type together",
				analyze.ErrMismatch, form.Files[0].Name, first, f.Name, this)
		}
		profs[i] = p
	}
	timed := true
	for _, p := range profs {
		timed = timed && !p.Time().IsZero()
	}
	if timed {
		order := make([]int, len(profs))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return profs[order[a]].Time().Before(profs[order[b]].Time()) })
		files := make([]*kind.Received, len(order))
		sorted := make([]*pprof.Profile, len(order))
		for i, k := range order {
			files[i], sorted[i] = form.Files[k], profs[k]
		}
		form.Files, profs = files, sorted
	}
	last := profs[len(profs)-1]
	sum := profileSummaryOf(last)
	rk := modeSingle
	switch {
	case len(profs) == 2:
		rk = modeDiff
	case len(profs) > 2:
		rk = seriesKind
		sum.Profiles = len(profs)
		sum.Verdict = seriesVerdictOf(form.Files, profs)
	}
	names := make([]string, len(form.Files))
	for i, f := range form.Files {
		names[i] = f.Name
	}
	sum.Title, sum.Functions = listingTitle(names, sum.Default), topFunctions(last)
	return &kind.Plan{Kind: rk, Params: map[string]any{"ordered_by": orderedBy(timed, len(profs))}, Summary: sum}, nil
}

func orderedBy(timed bool, n int) string {
	switch {
	case n == 1:
		return ""
	case timed:
		return "profile time"
	}
	return "upload order"
}

// loadReceivedProfile parses a received file as a profile and caches it.
func (s *Kind) loadReceivedProfile(f *kind.Received) (*pprof.Profile, error) {
	return s.profile(context.Background(), f.SHA256, f.Source(), true)
}

// loadProfile returns an artifact's parsed profile, from the cache when it is there.
func (s *Kind) loadProfile(ctx context.Context, sha string) (*pprof.Profile, error) {
	return s.profile(ctx, sha, kind.Stored(s.d.Store, sha, ""), false)
}

// loadProfileBytes reads an artifact's profile keeping its decompressed bytes
// (pprof.Options.KeepBytes), outside the cache, charged to b until it is
// released: for the labels
// view and tag filters, which read it again with pprof's parser.
func (s *Kind) loadProfileBytes(ctx context.Context, sha string, b *analyze.Budget) (*pprof.Profile, error) {
	rc, err := kind.Stored(s.d.Store, sha, "").Open(ctx)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	p, err := pprof.Open(pprof.Reader(rc), pprof.Options{Limit: s.d.Limits.MaxDecompressed, Budget: b, KeepBytes: true})
	if err != nil {
		return nil, err
	}
	// What it holds stays charged until the request releases its budget.
	if err := b.Charge(p.MemSize()); err != nil {
		return nil, err
	}
	return p, nil
}

// profile loads the profile of hash sha from src: a received file streams and
// its errors name it; a stored one is read whole first.
func (s *Kind) profile(ctx context.Context, sha string, src kind.Source, received bool) (*pprof.Profile, error) {
	limit := s.d.Limits.MaxDecompressed
	return kind.Load(ctx, s.d, s.profiles, kind.Parse[*pprof.Profile]{Key: sha, Sources: []kind.Source{src}, Wrap: received,
		Run: func(_ context.Context, in []io.Reader, b *analyze.Budget) (*pprof.Profile, error) {
			r := in[0]
			if !received {
				data, err := io.ReadAll(r)
				if err != nil {
					return nil, err
				}
				r = bytes.NewReader(data)
			}
			return pprof.Open(pprof.Reader(r), pprof.Options{Limit: limit, Budget: b})
		}})
}

// seriesVerdictOf is the verdict of a new series report, as its page will show
// it first (the default sample type, no filter), for the upload API's answer and
// the dashboard's search; "" when the series cannot be analyzed (its page says
// why).
func seriesVerdictOf(files []*kind.Received, profs []*pprof.Profile) string {
	snaps := make([]pprof.Snapshot, len(profs))
	for i, p := range profs {
		snaps[i] = pprof.Snapshot{Name: files[i].Name, Profile: p}
	}
	rep, err := pprof.Series(snaps, series.Options{})
	if err != nil {
		return ""
	}
	return string(rep.Verdict)
}
