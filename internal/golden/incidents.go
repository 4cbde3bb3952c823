package golden

import (
	"context"
	"strings"

	"github.com/leakui/leakui/store"
)

// The incidents' methods: incidents are created and changed at Epoch, their
// reports go by their stable ids and times, and their annotations get ids that
// depend only on the order they were made in ("note" followed by n in
// letters), created at Epoch.

// fixIncident puts the stable times in an incident the database returned.
func fixIncident(in *store.Incident) {
	in.CreatedAt, in.UpdatedAt = Epoch, Epoch
}

// CreateIncident creates an incident, at Epoch as the server sees it.
func (s *Store) CreateIncident(ctx context.Context, in *store.Incident) error {
	err := s.DB.CreateIncident(ctx, in)
	fixIncident(in)
	return err
}

// Incident reads an incident with the stable times.
func (s *Store) Incident(ctx context.Context, slug string) (*store.Incident, error) {
	in, err := s.DB.Incident(ctx, slug)
	if in != nil {
		fixIncident(in)
	}
	return in, err
}

// SearchIncidents lists incidents with the stable times.
func (s *Store) SearchIncidents(ctx context.Context, q store.IncidentSearch) ([]store.Incident, error) {
	out, err := s.DB.SearchIncidents(ctx, q)
	for i := range out {
		fixIncident(&out[i])
	}
	return out, err
}

// Attach attaches a report by its stable id, or a run.
func (s *Store) Attach(ctx context.Context, slug, kind, id string) error {
	if kind == store.EvidenceReport {
		id = s.toReal(id)
	}
	return s.fixError(s.DB.Attach(ctx, slug, kind, id))
}

// Detach takes a report off by its stable id, or a run.
func (s *Store) Detach(ctx context.Context, slug, kind, id string) error {
	if kind == store.EvidenceReport {
		id = s.toReal(id)
	}
	return s.fixError(s.DB.Detach(ctx, slug, kind, id))
}

// IncidentEvidence lists the evidence with the reports' stable ids and times.
func (s *Store) IncidentEvidence(ctx context.Context, slug, after string, limit int) ([]store.Evidence, error) {
	out, err := s.DB.IncidentEvidence(ctx, slug, after, limit)
	for i := range out {
		e := &out[i]
		if e.Kind == store.EvidenceReport {
			e.ID = s.toStable(e.ID)
		}
		if e.RunID != "" && e.Kind == store.EvidenceReport {
			e.RunID = s.toStable(e.RunID)
		}
		s.mu.Lock()
		if t, ok := s.created[e.ID]; ok {
			e.At = t
		}
		s.mu.Unlock()
		e.AttachedAt = Epoch
	}
	return out, s.fixError(err)
}

// noteID is the n-th annotation's stable id.
func noteID(n int) string { return StableID("note", n) }

// Annotate adds an annotation under the next stable id, created at Epoch.
func (s *Store) Annotate(ctx context.Context, slug string, a *store.Annotation) error {
	if err := s.DB.Annotate(ctx, slug, a); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 1
	for stable := range s.real {
		if strings.HasPrefix(stable, "note") {
			n++
		}
	}
	stable := noteID(n)
	s.real[stable], s.stable[a.ID] = a.ID, stable
	a.ID, a.CreatedAt = stable, Epoch
	return nil
}

// DeleteAnnotation removes an annotation by its stable id.
func (s *Store) DeleteAnnotation(ctx context.Context, slug, id string) error {
	return s.fixError(s.DB.DeleteAnnotation(ctx, slug, s.toReal(id)))
}

// Annotations lists annotations with their stable ids, created at Epoch.
func (s *Store) Annotations(ctx context.Context, slug, after string, limit int) ([]store.Annotation, error) {
	out, err := s.DB.Annotations(ctx, slug, after, limit)
	for i := range out {
		out[i].ID, out[i].CreatedAt = s.toStable(out[i].ID), Epoch
	}
	return out, err
}
