package incident

import (
	"bufio"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/leakui/leakui/internal/markdown"
)

// Annotation is a note on an incident's timeline, as the summary lists it.
type Annotation struct {
	At     time.Time
	Text   string
	Author string
}

// Summary is what an incident's Markdown summary (/i/{slug}.md) shows.
type Summary struct {
	Slug, Title string
	// TicketURL is the incident's ticket, linked when it is http or https.
	TicketURL string
	// State is "open" or "resolved".
	State string
	// BaseURL is the server's absolute URL ("https://leakui.example.com"): every
	// link of the summary is absolute, so that it works pasted into a ticket.
	BaseURL string
	// TimelineImage is the timeline chart's path or URL (a PNG), "" for none.
	TimelineImage string
	// Verdict is Decide's verdict over the evidence.
	Verdict Verdict
	// MoreEvidence counts the pieces of evidence attached but not in Verdict
	// (an incident too large to judge whole), said under the table.
	MoreEvidence int
	// Annotations are the notes in the order of their times; MoreAnnotations
	// counts those left out.
	Annotations     []Annotation
	MoreAnnotations int
}

// The most rows each table of the summary lists; the incident's page has the
// rest.
const (
	MaxListedEvidence    = 200
	MaxListedAnnotations = 200
)

// timeLayout is how the summary shows times: to the minute, in UTC.
const timeLayout = "2006-01-02 15:04 UTC"

// WriteMarkdown writes the incident's summary: the title and state with the
// ticket and the page linked, the verdict's headline with its number and
// link, the timeline image, the contradictions, one table row per piece of
// evidence (strongest first, at most MaxListedEvidence) with its verdict,
// finding, time and link, and a table of the annotations. It is CommonMark with
// GitHub's tables and no HTML, so it pastes alike into GitHub, GitLab and
// Jira; every text from the evidence or people is escaped, and every link is
// absolute on BaseURL.
func WriteMarkdown(w io.Writer, s Summary) error {
	bw := bufio.NewWriter(w)
	abs := func(link string) string { return absolute(s.BaseURL, link) }
	page := abs("/i/" + url.PathEscape(s.Slug))

	fmt.Fprint(bw, markdown.Heading(1, "Incident "+markdown.Code(s.Slug)+": "+esc(s.Title)))
	line := "**State:** " + esc(s.State)
	if s.TicketURL != "" {
		line += " · **Ticket:** " + markdown.Link(s.TicketURL, s.TicketURL)
	}
	line += " · " + markdown.Link("incident page", page)
	fmt.Fprint(bw, line+"\n\n")

	v := s.Verdict
	head := "**" + esc(capitalize(v.Strength.String())) + ":** " + esc(strings.TrimPrefix(v.Headline, capitalize(v.Strength.String())+": "))
	if v.Lead >= 0 && v.Link != "" {
		head += " " + markdown.Link(leadLinkText(v), abs(v.Link))
	}
	fmt.Fprint(bw, head+"\n\n")
	if img := abs(s.TimelineImage); linkable(img) {
		fmt.Fprintf(bw, "![%s](%s)\n\n", esc("Timeline of "+s.Slug), destination(img))
	}

	if len(v.Contradictions) > 0 {
		fmt.Fprint(bw, markdown.Heading(2, "Contradictions"))
		for _, c := range v.Contradictions {
			fmt.Fprintf(bw, "- %s\n", esc(c.Text))
		}
		fmt.Fprint(bw, "\n")
	}

	fmt.Fprint(bw, markdown.Heading(2, "Evidence"))
	if len(v.Ranked) == 0 {
		fmt.Fprint(bw, "No evidence attached.\n\n")
	} else {
		fmt.Fprint(bw, markdown.TableHead(markdown.Right("#"), markdown.Left("verdict"), markdown.Left("evidence"),
			markdown.Left("finding"), markdown.Right("number"), markdown.Left("when"), markdown.Left("link")))
		for i, e := range v.Ranked {
			if i == MaxListedEvidence {
				break
			}
			what := esc(e.Kind)
			if e.Title != "" {
				what += " " + markdown.Code(e.Title)
			}
			link := ""
			if e.Link != "" {
				link = markdown.Link("open", abs(e.Link))
			}
			fmt.Fprint(bw, markdown.Row(fmt.Sprint(i+1), esc(e.Strength.String()), what, esc(e.Finding),
				esc(e.NumberText()), esc(span(e.Start, e.End)), link))
		}
		fmt.Fprint(bw, "\n")
		if more := len(v.Ranked) - min(len(v.Ranked), MaxListedEvidence) + s.MoreEvidence; more > 0 {
			fmt.Fprintf(bw, "%d more on the %s.\n\n", more, markdown.Link("incident page", page))
		}
	}

	if len(s.Annotations) > 0 {
		fmt.Fprint(bw, markdown.Heading(2, "Annotations"))
		fmt.Fprint(bw, markdown.TableHead(markdown.Left("time"), markdown.Left("note"), markdown.Left("by")))
		for i, a := range s.Annotations {
			if i == MaxListedAnnotations {
				break
			}
			fmt.Fprint(bw, markdown.Row(esc(a.At.UTC().Format(timeLayout)), esc(a.Text), esc(a.Author)))
		}
		fmt.Fprint(bw, "\n")
		if more := len(s.Annotations) - min(len(s.Annotations), MaxListedAnnotations) + s.MoreAnnotations; more > 0 {
			fmt.Fprintf(bw, "%d more on the %s.\n\n", more, markdown.Link("incident page", page))
		}
	}
	return bw.Flush()
}

// esc is markdown.Escape that also escapes "$": GitHub and GitLab read text
// between two dollar signs as math, and JVM class names hold them
// (LeakShape$Consumer).
func esc(s string) string { return strings.ReplaceAll(markdown.Escape(s), "$", `\$`) }

// leadLinkText names the strongest evidence's link.
func leadLinkText(v Verdict) string {
	e := v.Ranked[v.Lead]
	return "open the " + e.Kind
}

// span is a piece of evidence's time: one moment, a span within a day, or two
// dates; "" when unknown.
func span(start, end time.Time) string {
	switch {
	case start.IsZero():
		return ""
	case end.IsZero() || end.Equal(start):
		return start.UTC().Format(timeLayout)
	}
	a, b := start.UTC(), end.UTC()
	if a.Truncate(time.Minute).Equal(b.Truncate(time.Minute)) {
		return a.Format("2006-01-02 15:04:05") + "–" + b.Format("15:04:05 UTC")
	}
	if a.Format("2006-01-02") == b.Format("2006-01-02") {
		return a.Format("2006-01-02 15:04") + "–" + b.Format("15:04 UTC")
	}
	return a.Format(timeLayout) + " – " + b.Format(timeLayout)
}

// absolute makes a path on the server absolute on base; an absolute URL or a
// path without a base stays as it is.
func absolute(base, link string) string {
	if strings.HasPrefix(link, "/") && !strings.HasPrefix(link, "//") && base != "" {
		return strings.TrimRight(base, "/") + link
	}
	return link
}

// linkable reports whether a URL may be an image's destination: a path on
// the server or an absolute http or https URL.
func linkable(u string) bool {
	if strings.HasPrefix(u, "/") && !strings.HasPrefix(u, "//") {
		return true
	}
	p, err := url.Parse(u)
	return err == nil && (p.Scheme == "http" || p.Scheme == "https") && p.Host != ""
}

// destination writes a URL as a link or image destination: the characters
// that would end it are percent-encoded, as markdown.Link does.
func destination(u string) string {
	var b strings.Builder
	for _, c := range []byte(u) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>|\\`", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
