package alert

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"
)

// Kind is what a receiver speaks.
type Kind string

// The kinds of receivers.
const (
	// Alertmanager is a Prometheus Alertmanager: alerts go to its
	// /api/v2/alerts, firing while a watch's verdict is "leak" and resolved
	// when it leaves it.
	Alertmanager Kind = "alertmanager"
	// Slack is a Slack-format incoming webhook ({"text": …}); its URL is a
	// secret.
	Slack Kind = "slack"
	// Webhook is a generic JSON webhook (Payload).
	Webhook Kind = "webhook"
)

// DefaultTimeout bounds one attempt to reach a receiver, from the connection
// to the end of the answer's body.
const DefaultTimeout = 10 * time.Second

// maxSecretFile bounds a file holding a receiver's URL.
const maxSecretFile = 8 << 10

// Receiver is one place alerts go, as the operator declared it. Its URL may
// hold a secret (a Slack webhook's path, a password, a token in the query):
// the receiver prints, logs and records only its Name and Redacted URL.
type Receiver struct {
	// Name names the receiver in the records and the logs.
	Name string
	// Kind is what it speaks.
	Kind Kind
	// Timeout bounds one attempt (DefaultTimeout when 0).
	Timeout time.Duration
	// url is where it is; unexported so that no %+v prints it.
	url *url.URL
}

// validName is a receiver's name: what ParseReceiver accepts after name=.
var validName = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,63}$`)

// ParseReceiver reads one receiver's declaration:
//
//	KIND=URL[,name=NAME][,timeout=DURATION]
//
// KIND is alertmanager, slack or webhook. URL is an http or https URL (an
// Alertmanager's base URL, such as http://alertmanager:9093; the webhook's
// own URL for the others), or env:VAR to read it from the environment, or
// file:PATH to read it from a file (its first line), so that a secret stays
// out of the command line. NAME defaults to KIND; timeout to DefaultTimeout.
// An error never holds the URL.
func ParseReceiver(decl string) (Receiver, error) {
	return parseReceiver(decl, os.LookupEnv, readSecretFile)
}

func readSecretFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxSecretFile {
		return "", fmt.Errorf("longer than %d bytes", maxSecretFile)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line), nil
}

func parseReceiver(decl string, lookupEnv func(string) (string, bool), readFile func(string) (string, error)) (Receiver, error) {
	kind, rest, ok := strings.Cut(decl, "=")
	if !ok {
		return Receiver{}, errors.New("an alert receiver is KIND=URL[,name=NAME][,timeout=DURATION], KIND one of alertmanager, slack, webhook")
	}
	r := Receiver{Kind: Kind(strings.TrimSpace(kind)), Name: strings.TrimSpace(kind)}
	switch r.Kind {
	case Alertmanager, Slack, Webhook:
	default:
		return Receiver{}, fmt.Errorf("alert receiver kind %q: want alertmanager, slack or webhook", kind)
	}
	parts := strings.Split(rest, ",")
	target := strings.TrimSpace(parts[0])
	for _, opt := range parts[1:] {
		k, v, ok := strings.Cut(strings.TrimSpace(opt), "=")
		switch {
		case !ok:
			return Receiver{}, fmt.Errorf("%s receiver: option %q is not KEY=VALUE (a URL with a comma goes in env: or file:)", r.Kind, visibleOption(opt))
		case k == "name":
			if !validName.MatchString(v) {
				return Receiver{}, fmt.Errorf("%s receiver: name %q: lower-case letters, digits, '.', '_' and '-', at most 64", r.Kind, v)
			}
			r.Name = v
		case k == "timeout":
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 || d > 5*time.Minute {
				return Receiver{}, fmt.Errorf("%s receiver: timeout %q: a duration such as 10s, at most 5m", r.Kind, v)
			}
			r.Timeout = d
		default:
			return Receiver{}, fmt.Errorf("%s receiver: unknown option %q (name, timeout)", r.Kind, k)
		}
	}
	switch {
	case strings.HasPrefix(target, "env:"):
		v, ok := lookupEnv(strings.TrimPrefix(target, "env:"))
		if !ok || v == "" {
			return Receiver{}, fmt.Errorf("%s receiver %s: the environment has no %s", r.Kind, r.Name, strings.TrimPrefix(target, "env:"))
		}
		target = strings.TrimSpace(v)
	case strings.HasPrefix(target, "file:"):
		v, err := readFile(strings.TrimPrefix(target, "file:"))
		if err != nil {
			return Receiver{}, fmt.Errorf("%s receiver %s: reading its URL: %w", r.Kind, r.Name, err)
		}
		target = v
	}
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Opaque != "" {
		// url.Parse's error holds the URL: say what is wrong without it.
		return Receiver{}, fmt.Errorf("%s receiver %s: not an http:// or https:// URL", r.Kind, r.Name)
	}
	if u.Fragment != "" {
		return Receiver{}, fmt.Errorf("%s receiver %s: a URL with a #fragment", r.Kind, r.Name)
	}
	if r.Kind == Slack && (u.User != nil) {
		return Receiver{}, fmt.Errorf("%s receiver %s: a Slack webhook's URL has no user or password", r.Kind, r.Name)
	}
	r.url = u
	return r, nil
}

// visibleOption is an option as an error may quote it: the part before any
// '=' or ':', which is never a secret.
func visibleOption(opt string) string {
	if i := strings.IndexAny(opt, "=:/"); i >= 0 {
		return opt[:i] + "…"
	}
	if len(opt) > 16 {
		return opt[:16] + "…"
	}
	return opt
}

// Redacted is the receiver's URL without its secrets: a Slack webhook's path
// and query, a password, the query's values.
func (r Receiver) Redacted() string {
	if r.url == nil {
		return ""
	}
	return redactURL(r.Kind, r.url)
}

func redactURL(kind Kind, u *url.URL) string {
	c := *u
	if c.User != nil {
		c.User = url.User(c.User.Username())
		if _, ok := u.User.Password(); ok {
			c.User = url.UserPassword(c.User.Username(), "redacted")
		}
	}
	if kind == Slack {
		return c.Scheme + "://" + c.Host + "/…"
	}
	if c.RawQuery != "" {
		q := c.Query()
		for k := range q {
			q[k] = []string{"redacted"}
		}
		c.RawQuery = q.Encode()
	}
	return c.String()
}

// String is the receiver as logs and errors show it: its name, kind and
// redacted URL.
func (r Receiver) String() string {
	return fmt.Sprintf("%s (%s %s)", r.Name, r.Kind, r.Redacted())
}

// GoString is String, so that %#v shows no secret either.
func (r Receiver) GoString() string { return r.String() }

// LogValue is what slog logs of the receiver.
func (r Receiver) LogValue() slog.Value {
	return slog.GroupValue(slog.String("name", r.Name), slog.String("kind", string(r.Kind)), slog.String("url", r.Redacted()))
}

// timeout is the receiver's bound on one attempt.
func (r Receiver) timeout() time.Duration {
	if r.Timeout > 0 {
		return r.Timeout
	}
	return DefaultTimeout
}

// endpoint is where the receiver's requests go: an Alertmanager's
// /api/v2/alerts under its base URL, the webhook's URL for the others.
func (r Receiver) endpoint() *url.URL {
	u := *r.url
	if r.Kind == Alertmanager {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/api/v2/alerts"
		u.RawPath = ""
	}
	return &u
}

// Receivers are the receivers declared with a repeatable flag (-alert), as a
// flag.Value.
type Receivers []Receiver

// Set parses one declaration (ParseReceiver) and adds it; two receivers may
// not share a name.
func (rs *Receivers) Set(decl string) error {
	r, err := ParseReceiver(decl)
	if err != nil {
		return err
	}
	for _, o := range *rs {
		if o.Name == r.Name {
			return fmt.Errorf("two alert receivers are named %q: name one of them (,name=…)", r.Name)
		}
	}
	*rs = append(*rs, r)
	return nil
}

// String lists the receivers' names.
func (rs *Receivers) String() string {
	if rs == nil {
		return ""
	}
	names := make([]string, len(*rs))
	for i, r := range *rs {
		names[i] = r.Name
	}
	return strings.Join(names, ",")
}
