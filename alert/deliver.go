package alert

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/leakui/leakui/jobs"
	"github.com/leakui/leakui/store"
)

// Queue is the jobs queue alert deliveries wait in: give it workers in the
// runner's Config.Queues (a few are enough; each waits on the network).
const Queue = "alerts"

// The defaults of Config.
const (
	// DefaultAttempts is how many times a delivery is tried.
	DefaultAttempts = 8
	// maxResponse is how much of a receiver's answer is read: enough for
	// an error message, never a whole page.
	maxResponse = 4 << 10
	// maxRedirects is how many redirects on the receiver's own host are
	// followed.
	maxRedirects = 3
)

// DefaultBackoff waits 10 s after the first failed attempt, doubling after
// each next one up to 10 minutes: 8 attempts span about 20 minutes.
func DefaultBackoff(attempt int) time.Duration {
	d := 10 * time.Second
	for i := 1; i < attempt && d < 10*time.Minute; i++ {
		d *= 2
	}
	return min(d, 10*time.Minute)
}

// Config says how a Deliverer delivers.
type Config struct {
	// Attempts bounds the attempts of one delivery (DefaultAttempts when 0).
	Attempts int
	// Backoff is the wait after the attempt-th failed attempt
	// (DefaultBackoff when nil).
	Backoff func(attempt int) time.Duration
	// Transport sends the requests (a clone of http.DefaultTransport when
	// nil).
	Transport http.RoundTripper
	// Logger receives a line per failed attempt (slog.Default when nil).
	Logger *slog.Logger
	// Refresh is how often the alerts that fire are sent to the
	// Alertmanagers again (DefaultRefresh when 0): Alertmanager resolves an
	// alert nobody sent again within its resolve_timeout (5 minutes by
	// default), so Refresh must be shorter.
	Refresh time.Duration
	// Sweep is how often the deliveries a dead process left unfinished are
	// queued again (DefaultSweep when 0); SweepAfter is how long a pending or
	// retrying delivery's record must be unchanged to be swept
	// (DefaultSweepAfter when 0).
	Sweep, SweepAfter time.Duration
}

// DefaultRefresh is how often firing alerts are sent again by default.
const DefaultRefresh = time.Minute

// The defaults of the sweep of unfinished deliveries.
const (
	DefaultSweep      = time.Minute
	DefaultSweepAfter = 2 * time.Minute
)

// A Deliverer delivers the verdict changes of watches to the receivers, as
// jobs: one per receiver and change, retried with back-off, each attempt
// recorded in the store.
type Deliverer struct {
	db        *store.DB
	runner    *jobs.Runner
	receivers map[string]Receiver
	order     []Receiver
	client    *http.Client
	attempts  int
	log       *slog.Logger
	// sweepAfter is Config.SweepAfter.
	sweepAfter time.Duration
}

// sweepArgs are the periodic job's that queues unfinished deliveries again.
type sweepArgs struct{}

func (sweepArgs) Kind() string { return "alert_sweep" }

// refreshArgs are the periodic job's that sends the firing alerts again.
type refreshArgs struct{}

func (refreshArgs) Kind() string { return "alert_refresh" }

// deliveryArgs are a delivery job's arguments: the delivery's id and the
// receiver's name. The receiver's URL, which may be secret, stays in this
// process's configuration, never in the job's row.
type deliveryArgs struct {
	Delivery string `json:"delivery"`
	Receiver string `json:"receiver"`
}

func (deliveryArgs) Kind() string { return "alert_delivery" }

// New returns a Deliverer to receivers, storing deliveries in db and running
// them on runner, whose kind it registers: call it before runner.Start, and
// give the runner's Config.Queues workers for Queue.
func New(db *store.DB, runner *jobs.Runner, receivers []Receiver, cfg Config) *Deliverer {
	if cfg.Attempts <= 0 {
		cfg.Attempts = DefaultAttempts
	}
	if cfg.Backoff == nil {
		cfg.Backoff = DefaultBackoff
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Transport == nil {
		cfg.Transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	d := &Deliverer{db: db, runner: runner, receivers: map[string]Receiver{}, attempts: cfg.Attempts, log: cfg.Logger}
	d.client = &http.Client{Transport: cfg.Transport, CheckRedirect: sameHostRedirects}
	var longest time.Duration
	managers := 0
	for _, r := range receivers {
		d.receivers[r.Name] = r
		d.order = append(d.order, r)
		longest = max(longest, r.timeout())
		if r.Kind == Alertmanager {
			managers++
		}
	}
	if cfg.Refresh <= 0 {
		cfg.Refresh = DefaultRefresh
	}
	if managers > 0 {
		// One request per Alertmanager, each within its timeout.
		jobs.Register(runner, jobs.WorkFunc[refreshArgs](d.refresh), jobs.Kind{Queue: Queue, MaxAttempts: 1,
			Timeout: time.Duration(managers)*max(longest, DefaultTimeout) + 30*time.Second})
		runner.AddPeriodic(jobs.Periodic{Every: cfg.Refresh, Args: func() jobs.Args { return refreshArgs{} }})
	}
	if cfg.Sweep <= 0 {
		cfg.Sweep = DefaultSweep
	}
	if cfg.SweepAfter <= 0 {
		cfg.SweepAfter = DefaultSweepAfter
	}
	d.sweepAfter = cfg.SweepAfter
	jobs.Register(runner, jobs.WorkFunc[sweepArgs](d.sweep), jobs.Kind{Queue: Queue, MaxAttempts: 1, Timeout: time.Minute})
	runner.AddPeriodic(jobs.Periodic{Every: cfg.Sweep, Args: func() jobs.Args { return sweepArgs{} }})
	jobs.Register(runner, jobs.WorkFunc[deliveryArgs](d.work), jobs.Kind{
		Queue:       Queue,
		MaxAttempts: cfg.Attempts,
		Backoff:     cfg.Backoff,
		// The attempt's request is bounded by its receiver's timeout; the
		// rest is two writes to the store.
		Timeout: max(longest, DefaultTimeout) + 30*time.Second,
	})
	return d
}

// Receivers are the receivers, in the order declared.
func (d *Deliverer) Receivers() []Receiver { return d.order }

// Notify delivers e to every receiver it concerns: Slack and webhook
// receivers get every change, an Alertmanager only the changes to and from
// Leak (a firing alert, then its resolution). It stores one delivery per
// receiver and inserts its job, and returns once they are stored; the jobs
// deliver after. The same change notified again (by another replica, or a
// retried tick) is stored and delivered once. e.At defaults to now.
func (d *Deliverer) Notify(ctx context.Context, e Event) error {
	if e.At.IsZero() {
		e.At = time.Now()
	}
	e.At = e.At.UTC().Truncate(time.Millisecond)
	if err := e.check(); err != nil {
		return err
	}
	var errs []error
	for _, r := range d.order {
		if r.Kind == Alertmanager && !e.Firing() && !e.Resolving() {
			continue
		}
		if err := d.enqueue(ctx, r, e); err != nil {
			errs = append(errs, fmt.Errorf("alert: %s to %s: %w", e.Watch, r.Name, err))
		}
	}
	return errors.Join(errs...)
}

// enqueue stores e's delivery to r and inserts its job.
func (d *Deliverer) enqueue(ctx context.Context, r Receiver, e Event) error {
	m := message{Event: e}
	if r.Kind == Alertmanager && e.Resolving() {
		// The resolution repeats the labels and start of the alert it
		// resolves, or Alertmanager takes it for another alert.
		fired, err := d.db.LastDelivery(ctx, r.Name, e.Watch, Leak)
		switch {
		case err == nil:
			var f message
			if err := json.Unmarshal(fired.Event, &f); err == nil {
				m.FiredAt, m.FiredSuspect = f.At, &f.Suspect
			}
		case !errors.Is(err, store.ErrNotFound):
			return err
		}
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return err
	}
	id := deliveryID(r.Name, e)
	if _, err := d.db.CreateDelivery(ctx, &store.Delivery{ID: id, Receiver: r.Name, Watch: e.Watch, Verdict: e.To, Event: raw, EventAt: e.At}); err != nil {
		return err
	}
	_, err = d.runner.Insert(ctx, deliveryArgs{Delivery: id, Receiver: r.Name}, jobs.InsertOptions{Unique: jobs.Unique{ByArgs: true}})
	return err
}

// sweep queues again the deliveries a dead process left pending or
// retrying: a process that stored a delivery and died before inserting its
// job, or whose job ended without its record. The insert is unique by
// arguments, so a delivery whose job waits or runs is not queued twice. A
// delivery to a receiver this process does not declare is left to the
// processes that do.
func (d *Deliverer) sweep(ctx context.Context, _ sweepArgs, _ jobs.Progress) error {
	left, err := d.db.UnfinishedDeliveries(ctx, time.Now().Add(-d.sweepAfter))
	if err != nil {
		return err
	}
	queued := 0
	for _, rec := range left {
		if _, ok := d.receivers[rec.Receiver]; !ok {
			continue
		}
		ins, err := d.runner.Insert(ctx, deliveryArgs{Delivery: rec.ID, Receiver: rec.Receiver}, jobs.InsertOptions{Unique: jobs.Unique{ByArgs: true}})
		if err != nil {
			return err
		}
		if !ins.Duplicate {
			queued++
		}
	}
	if queued > 0 {
		d.log.Info("queued alert deliveries left unfinished again", "deliveries", queued)
	}
	return nil
}

// deliveryID names the delivery of e to a receiver: the same for the same
// change, whoever notices it.
func deliveryID(receiver string, e Event) string {
	h := sha256.New()
	for _, s := range []string{receiver, e.Watch, e.From, e.To, strconv.FormatInt(e.At.UnixMilli(), 10)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// work runs one attempt of a delivery and records it.
func (d *Deliverer) work(ctx context.Context, a deliveryArgs, progress jobs.Progress) error {
	attempt, _ := jobs.CurrentAttempt(ctx)
	number := max(attempt.Number, 1)
	rec, err := d.db.Delivery(ctx, a.Delivery)
	if errors.Is(err, store.ErrNotFound) {
		return jobs.Fail(err)
	}
	if err != nil {
		return err // the store is down: try again later
	}
	if rec.State == store.DeliveryDelivered {
		return nil
	}
	r, ok := d.receivers[rec.Receiver]
	if !ok {
		err := fmt.Errorf("no receiver %q is configured in this process", rec.Receiver)
		d.record(ctx, rec.ID, store.DeliveryAttempt{Number: number, Error: err.Error(), State: store.DeliveryFailed})
		return jobs.Fail(err)
	}
	var m message
	if err := json.Unmarshal(rec.Event, &m); err != nil {
		d.record(ctx, rec.ID, store.DeliveryAttempt{Number: number, Error: "the stored event is not readable", State: store.DeliveryFailed})
		return jobs.Fail(err)
	}
	body, err := m.body(r.Kind)
	if err != nil {
		return jobs.Fail(err)
	}
	progress("sending", 0)
	status, sendErr := d.send(ctx, r, body)
	switch {
	case sendErr == nil:
		return d.record(ctx, rec.ID, store.DeliveryAttempt{Number: number, Status: status, State: store.DeliveryDelivered})
	case ctx.Err() != nil && !errors.Is(context.Cause(ctx), context.DeadlineExceeded):
		// Stopped: the job goes back to its queue without using an attempt.
		return sendErr
	}
	permanent := errors.Is(sendErr, errPermanent)
	state := store.DeliveryRetrying
	if permanent || number >= d.attempts {
		state = store.DeliveryFailed
	}
	d.log.Warn("an alert delivery failed", "receiver", r.Name, "watch", rec.Watch, "attempt", number, "status", status, "err", sendErr, "state", state)
	if err := d.record(ctx, rec.ID, store.DeliveryAttempt{Number: number, Status: status, Error: sendErr.Error(), State: state}); err != nil {
		return err
	}
	if permanent {
		return jobs.Fail(sendErr)
	}
	var t *throttled
	if errors.As(sendErr, &t) {
		// The receiver said when to come back: not sooner.
		return jobs.RetryAfter(sendErr, t.wait)
	}
	return sendErr
}

// throttled is a 429 or 503 answer with a Retry-After: the next attempt
// waits that long (or the back-off, when longer).
type throttled struct {
	msg  string
	wait time.Duration
}

func (t *throttled) Error() string { return t.msg }

// retryAfter reads a Retry-After header (RFC 9110 10.2.3): a number of
// seconds or an HTTP date, as a wait from now, at most jobs.MaxRetryAfter.
func retryAfter(h string, now time.Time) (time.Duration, bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(h, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		return min(time.Duration(min(secs, int64(jobs.MaxRetryAfter/time.Second)))*time.Second, jobs.MaxRetryAfter), true
	}
	at, err := http.ParseTime(h)
	if err != nil {
		return 0, false
	}
	return min(max(at.Sub(now), 0), jobs.MaxRetryAfter), true
}

// refresh sends every Alertmanager the alerts that fire in it again, all in
// one request: those whose watch's latest change was to Leak, delivered (or
// given up: an Alertmanager that was down longer than the attempts lasted
// gets them back). A failure waits for the next period; it is logged, not
// recorded.
func (d *Deliverer) refresh(ctx context.Context, _ refreshArgs, _ jobs.Progress) error {
	for _, r := range d.order {
		if r.Kind != Alertmanager {
			continue
		}
		open, err := d.db.LatestDeliveries(ctx, r.Name, Leak)
		if err != nil {
			return err
		}
		var alerts []postableAlert
		for _, rec := range open {
			var m message
			if rec.State == store.DeliveryPending || rec.State == store.DeliveryRetrying || json.Unmarshal(rec.Event, &m) != nil {
				continue
			}
			alerts = append(alerts, m.alertmanager())
		}
		if len(alerts) == 0 {
			continue
		}
		body, err := json.Marshal(alerts)
		if err != nil {
			return err
		}
		if _, err := d.send(ctx, r, body); err != nil {
			d.log.Warn("sending the firing alerts again", "receiver", r.Name, "alerts", len(alerts), "err", err)
		}
	}
	return nil
}

// record stores an attempt's outcome, even when the attempt's context has
// ended (a timeout).
func (d *Deliverer) record(ctx context.Context, id string, a store.DeliveryAttempt) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := d.db.RecordAttempt(ctx, id, a); err != nil {
		d.log.Warn("recording an alert delivery's attempt", "delivery", id, "err", err)
		return err
	}
	return nil
}

// errPermanent marks an answer that trying again will not change: a 4xx but
// 408 and 429, a redirect off the receiver's host.
var errPermanent = errors.New("refused for good")

// errRedirectOffHost is a redirect to another host, not followed.
var errRedirectOffHost = errors.New("redirect to another host refused")

// sameHostRedirects follows a few redirects on the receiver's own scheme and
// host, and no other: a receiver's answer never sends the alert, and its
// credentials, elsewhere.
func sameHostRedirects(req *http.Request, via []*http.Request) error {
	first := via[0].URL
	if req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
		return errRedirectOffHost
	}
	if len(via) > maxRedirects {
		return fmt.Errorf("more than %d redirects", maxRedirects)
	}
	return nil
}

// send POSTs body to r and returns the status; an error, with no secret in
// it, for anything but a 2xx, wrapping errPermanent when trying again is of
// no use.
func (d *Deliverer) send(ctx context.Context, r Receiver, body []byte) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	u := r.endpoint()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("%w: %s", errPermanent, redactError(err, r))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "leakui-alert")
	resp, err := d.client.Do(req)
	if err != nil {
		if errors.Is(err, errRedirectOffHost) {
			return 0, fmt.Errorf("%w: %s", errPermanent, errRedirectOffHost)
		}
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return 0, fmt.Errorf("no answer within %s", r.timeout())
		}
		return 0, errors.New(redactError(err, r))
	}
	defer resp.Body.Close()
	// Read a bounded part of the answer, for the error message, and within
	// the timeout: a receiver that trickles its body ends the attempt.
	head, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp.StatusCode, nil // accepted, whatever its body
	}
	if err != nil && ctx.Err() != nil {
		return resp.StatusCode, fmt.Errorf("%s, and its body did not end within %s", resp.Status, r.timeout())
	}
	msg := resp.Status
	if text := oneLine(head); text != "" {
		msg += ": " + redactText(text, r)
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable:
		if wait, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			return resp.StatusCode, &throttled{msg: fmt.Sprintf("%s (Retry-After: %s)", msg, wait), wait: wait}
		}
		return resp.StatusCode, errors.New(msg)
	case resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode >= 500:
		return resp.StatusCode, errors.New(msg)
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return resp.StatusCode, fmt.Errorf("%w: %s (a redirect not followed)", errPermanent, msg)
	default:
		return resp.StatusCode, fmt.Errorf("%w: %s", errPermanent, msg)
	}
}

// oneLine is the start of a body as one line of printable text.
func oneLine(b []byte) string {
	s := strings.ToValidUTF8(string(b), "?")
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// redactError is err's message with the receiver's URL and its secrets
// replaced by its redacted URL: a *url.Error names the URL it requested.
func redactError(err error, r Receiver) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		inner := ue.Err
		var ne net.Error
		if errors.As(inner, &ne) && ne.Timeout() {
			return fmt.Sprintf("%s %s: timeout", ue.Op, r.Redacted())
		}
		return redactText(fmt.Sprintf("%s %s: %v", ue.Op, r.Redacted(), inner), r)
	}
	return redactText(err.Error(), r)
}

// redactText removes from s every secret part of the receiver's URL: the URL
// itself, its path for Slack, its password and query.
func redactText(s string, r Receiver) string {
	if r.url == nil {
		return s
	}
	var secrets []string
	for _, u := range []*url.URL{r.url, r.endpoint()} {
		secrets = append(secrets, u.String())
		if r.Kind == Slack && len(u.Path) > 1 {
			secrets = append(secrets, u.Path, u.EscapedPath())
		}
		if p, ok := u.User.Password(); ok && p != "" {
			secrets = append(secrets, p, url.QueryEscape(p))
		}
		if u.RawQuery != "" {
			secrets = append(secrets, u.RawQuery)
		}
	}
	for _, sec := range secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, "…")
		}
	}
	return s
}
