package alert

import (
	"encoding/json"
	"strings"
	"time"
)

// Payload is the generic JSON webhook's body: the event, with the new
// verdict as "verdict" and the old one as "from".
type Payload struct {
	Watch         string    `json:"watch"`
	Verdict       string    `json:"verdict"`
	From          string    `json:"from"`
	Suspect       string    `json:"suspect"`
	GrowthPerHour float64   `json:"growth_per_hour"`
	WindowSeconds float64   `json:"window_seconds,omitempty"`
	ReportURL     string    `json:"report_url"`
	At            time.Time `json:"at"`
}

// postableAlert is one alert as Alertmanager's API v2 takes it
// (api/v2/openapi.yaml, definitions postableAlert and alert): labels are
// required; startsAt, endsAt, annotations and generatorURL optional.
type postableAlert struct {
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations,omitempty"`
	StartsAt     time.Time         `json:"startsAt,omitzero"`
	EndsAt       time.Time         `json:"endsAt,omitzero"`
	GeneratorURL string            `json:"generatorURL,omitempty"`
}

// slackMessage is a Slack incoming webhook's body: the text in Slack's
// mrkdwn, which is what notifications show.
type slackMessage struct {
	Text string `json:"text"`
}

// message is an event as stored with its delivery: the event, and for an
// Alertmanager resolution the firing it resolves (whose labels and start
// the resolution repeats, so that Alertmanager matches them).
type message struct {
	Event
	// FiredAt and FiredSuspect are the firing alert's start and suspect
	// label (a resolution to Alertmanager only).
	FiredAt      time.Time `json:"fired_at,omitzero"`
	FiredSuspect *string   `json:"fired_suspect,omitempty"`
}

// body renders m for a receiver of kind k.
func (m message) body(k Kind) ([]byte, error) {
	e := m.Event
	switch k {
	case Alertmanager:
		return json.Marshal([]postableAlert{m.alertmanager()})
	case Slack:
		return json.Marshal(slackMessage{Text: slackText(e)})
	default:
		return json.Marshal(Payload{Watch: e.Watch, Verdict: e.To, From: e.From, Suspect: e.Suspect,
			GrowthPerHour: e.GrowthPerHour, WindowSeconds: e.WindowSeconds, ReportURL: e.ReportURL, At: e.At.UTC()})
	}
}

// alertmanager is the alert that m fires or resolves. A firing alert has no
// endsAt: Alertmanager keeps it for its resolve_timeout. A resolution
// repeats the firing's labels and start, with endsAt at the change.
func (m message) alertmanager() postableAlert {
	e := m.Event
	suspect, start := e.Suspect, e.At
	if e.Resolving() {
		if m.FiredSuspect != nil {
			suspect = *m.FiredSuspect
		}
		if !m.FiredAt.IsZero() {
			start = m.FiredAt
		}
	}
	a := postableAlert{
		Labels:       map[string]string{"alertname": AlertName, "watch": e.Watch},
		Annotations:  map[string]string{"summary": e.summary()},
		StartsAt:     start.UTC(),
		GeneratorURL: e.ReportURL,
	}
	if suspect != "" {
		a.Labels["suspect"] = suspect
	}
	if e.ReportURL != "" {
		a.Annotations["report_url"] = e.ReportURL
	}
	if e.Resolving() {
		a.EndsAt = e.At.UTC()
	}
	return a
}

// slackEscaper escapes the three characters Slack's mrkdwn reserves.
var slackEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// slackText is the event in Slack's mrkdwn: what happened, and a link to the
// report.
func slackText(e Event) string {
	var b strings.Builder
	switch {
	case e.Firing():
		b.WriteString(":rotating_light: *Leak suspected* on watch *" + slackEscaper.Replace(e.Watch) + "*")
		if e.Suspect != "" {
			b.WriteString(": `" + slackEscaper.Replace(strings.ReplaceAll(e.Suspect, "`", "'")) + "` " + e.growthText(formatGrowth))
		}
	case e.Resolving():
		b.WriteString(":white_check_mark: *Leak cleared* on watch *" + slackEscaper.Replace(e.Watch) + "*: the verdict is now " + e.To)
	default:
		b.WriteString(":grey_question: Watch *" + slackEscaper.Replace(e.Watch) + "* is now " + e.To)
	}
	b.WriteString(" (" + e.From + " → " + e.To + ")")
	if e.ReportURL != "" {
		b.WriteString(" <" + slackEscaper.Replace(e.ReportURL) + "|report>")
	}
	return b.String()
}
