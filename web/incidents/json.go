package incidents

import (
	"net/http"
	"time"

	"github.com/leakui/leakui/incident"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/page"
)

// incidentHead is an incident without its evidence, as the list and the
// writes answer it.
type incidentHead struct {
	Slug        string    `json:"slug"`
	Title       string    `json:"title"`
	TicketURL   string    `json:"ticket_url,omitempty"`
	State       string    `json:"state"`
	URL         string    `json:"url"`
	MarkdownURL string    `json:"markdown_url"`
	JSONURL     string    `json:"json_url"`
	TimelineURL string    `json:"timeline_url"`
	Created     time.Time `json:"created"`
	Updated     time.Time `json:"updated"`
	Reports     int64     `json:"reports"`
	Runs        int64     `json:"runs"`
	Annotations int64     `json:"annotations"`
}

func incidentHeadJSON(r *http.Request, in *store.Incident) incidentHead {
	return incidentHead{Slug: in.Slug, Title: in.Title, TicketURL: in.TicketURL, State: in.State,
		URL: page.Absolute(r, URL(in.Slug)), MarkdownURL: page.Absolute(r, MarkdownURL(in.Slug)),
		JSONURL: page.Absolute(r, JSONURL(in.Slug)), TimelineURL: page.Absolute(r, TimelineURL(in.Slug)),
		Created: in.CreatedAt.UTC(), Updated: in.UpdatedAt.UTC(), Reports: in.Reports, Runs: in.Runs, Annotations: in.Annotations}
}

// listJSON is one page of incidents.
type listJSON struct {
	Incidents []incidentHead `json:"incidents"`
	// Next is the next page's URL, absent on the last.
	Next string `json:"next,omitempty"`
}

func listJSONOf(r *http.Request, items []listItem, next string) listJSON {
	out := listJSON{Incidents: make([]incidentHead, 0, len(items))}
	for _, it := range items {
		in := store.Incident{Slug: it.Slug, Title: it.Title, TicketURL: it.TicketURL, State: it.State,
			Reports: it.Reports, Runs: it.Runs, Annotations: it.Annotations}
		h := incidentHeadJSON(r, &in)
		h.Created, h.Updated = time.Time{}, time.Time{}
		out.Incidents = append(out.Incidents, h)
	}
	if next != "" {
		out.Next = page.Absolute(r, next)
	}
	return out
}

// incidentJSON is /i/{slug}.json: the incident, its verdict, its evidence
// strongest first (the page judged), its timeline and its annotations.
type incidentJSON struct {
	incidentHead
	Verdict  verdictJSON    `json:"verdict"`
	Evidence []evidenceJSON `json:"evidence"`
	// MoreEvidence counts the evidence attached beyond the page judged.
	MoreEvidence    int              `json:"more_evidence"`
	Timeline        timeline         `json:"timeline"`
	Annotations     []annotationJSON `json:"annotations"`
	MoreAnnotations int              `json:"more_annotations"`
}

type verdictJSON struct {
	Strength       string         `json:"strength"`
	Headline       string         `json:"headline"`
	Link           string         `json:"link,omitempty"`
	Number         string         `json:"number,omitempty"`
	Counts         map[string]int `json:"counts"`
	Contradictions []string       `json:"contradictions"`
}

type evidenceJSON struct {
	Kind     string     `json:"kind"`
	Title    string     `json:"title,omitempty"`
	Strength string     `json:"strength"`
	Domain   string     `json:"domain,omitempty"`
	Cause    string     `json:"cause,omitempty"`
	Finding  string     `json:"finding"`
	Sentence string     `json:"sentence,omitempty"`
	Number   *int64     `json:"number,omitempty"`
	Unit     string     `json:"unit,omitempty"`
	Shown    string     `json:"number_text,omitempty"`
	Start    *time.Time `json:"start,omitempty"`
	End      *time.Time `json:"end,omitempty"`
	Link     string     `json:"link"`
}

type annotationJSON struct {
	ID      string    `json:"id"`
	At      time.Time `json:"at"`
	Text    string    `json:"text"`
	Author  string    `json:"author,omitempty"`
	Created time.Time `json:"created"`
}

func annotationJSONOf(a store.Annotation) annotationJSON {
	return annotationJSON{ID: a.ID, At: a.At.UTC(), Text: a.Text, Author: a.Author, Created: a.CreatedAt.UTC()}
}

func evidenceJSONOf(r *http.Request, e incident.Evidence) evidenceJSON {
	out := evidenceJSON{Kind: e.Kind, Title: e.Title, Strength: e.Strength.String(), Domain: string(e.Domain), Cause: e.Cause,
		Finding: e.Finding, Sentence: e.Sentence, Unit: e.Unit, Shown: e.NumberText(), Link: e.Link}
	if out.Shown != "" {
		n := e.Number
		out.Number = &n
	}
	if !e.Start.IsZero() {
		s, end := e.Start.UTC(), e.End.UTC()
		out.Start, out.End = &s, &end
	}
	if len(e.Link) > 0 && e.Link[0] == '/' {
		out.Link = page.Absolute(r, e.Link)
	}
	return out
}

func incidentJSONOf(r *http.Request, j *judged) incidentJSON {
	v := j.verdict
	out := incidentJSON{incidentHead: incidentHeadJSON(r, j.in), MoreEvidence: j.more, MoreAnnotations: j.moreNotes,
		Timeline: j.timelineOf(), Evidence: make([]evidenceJSON, 0, len(v.Ranked)), Annotations: make([]annotationJSON, 0, len(j.notes))}
	out.Verdict = verdictJSON{Strength: v.Strength.String(), Headline: v.Headline, Number: v.Number, Counts: map[string]int{},
		Contradictions: make([]string, 0, len(v.Contradictions))}
	if v.Link != "" {
		out.Verdict.Link = page.Absolute(r, v.Link)
	}
	for s, n := range v.Counts {
		out.Verdict.Counts[s.String()] = n
	}
	for _, c := range v.Contradictions {
		out.Verdict.Contradictions = append(out.Verdict.Contradictions, c.Text)
	}
	for _, e := range v.Ranked {
		out.Evidence = append(out.Evidence, evidenceJSONOf(r, e))
	}
	for _, a := range j.notes {
		out.Annotations = append(out.Annotations, annotationJSONOf(a))
	}
	return out
}
