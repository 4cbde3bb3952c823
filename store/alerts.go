package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// An alert delivery is one verdict change of a watch on its way to one
// receiver (an Alertmanager, a Slack webhook, a JSON webhook): the event as
// sent, how many attempts it took, the last answer or error, and when it
// arrived. Package alert writes them; the store keeps them so that every
// replica and the operations page see where each alert stands.

// The states of a delivery (Delivery.State).
const (
	// DeliveryPending is a delivery not attempted yet.
	DeliveryPending = "pending"
	// DeliveryRetrying is a delivery whose last attempt failed and that will
	// be tried again.
	DeliveryRetrying = "retrying"
	// DeliveryDelivered is a delivery the receiver accepted.
	DeliveryDelivered = "delivered"
	// DeliveryFailed is a delivery given up: the receiver refused it, or its
	// attempts ran out.
	DeliveryFailed = "failed"
)

// The bounds of a delivery's fields: a record beyond them is ErrInvalid, but
// for the last error, which is cut to MaxDeliveryErrorBytes.
const (
	// MaxDeliveryNameLen bounds a delivery's id, receiver and watch, in bytes.
	MaxDeliveryNameLen = 128
	// MaxDeliveryEventBytes bounds the event's JSON.
	MaxDeliveryEventBytes = 16 << 10
	// MaxDeliveryErrorBytes bounds the last error kept.
	MaxDeliveryErrorBytes = 1 << 10
	// MaxDeliveryPage is the most deliveries Deliveries returns at once.
	MaxDeliveryPage = 500
)

// Delivery is one event's delivery to one receiver.
type Delivery struct {
	// ID names the delivery; package alert derives it from the receiver and
	// the event, so that the same change noticed twice is stored once.
	ID string
	// Receiver is the receiver's name (never its URL, which may be secret).
	Receiver string
	// Watch is the watch whose verdict changed, and Verdict its new verdict.
	Watch, Verdict string
	// Event is the event as package alert sends it, as JSON.
	Event json.RawMessage
	// EventAt is when the verdict changed.
	EventAt time.Time
	// State is one of DeliveryPending, DeliveryRetrying, DeliveryDelivered
	// and DeliveryFailed.
	State string
	// Attempts counts the attempts made.
	Attempts int
	// LastStatus is the HTTP status of the last attempt (0 when it got no
	// answer), and LastError what went wrong with it ("" when it was
	// delivered), with no secret in it.
	LastStatus int
	LastError  string
	// CreatedAt and UpdatedAt are when the delivery was stored and last
	// changed; DeliveredAt when the receiver accepted it (zero before).
	CreatedAt, UpdatedAt, DeliveredAt time.Time
}

// DeliveryAttempt is the outcome of one attempt, as RecordAttempt stores it.
type DeliveryAttempt struct {
	// Number is the attempt's number, from 1.
	Number int
	// Status is the HTTP status answered (0 for none), Error what went wrong
	// ("" when delivered).
	Status int
	Error  string
	// State is the delivery's state after the attempt: DeliveryDelivered,
	// DeliveryRetrying or DeliveryFailed.
	State string
	// At is when the attempt ended.
	At time.Time
}

const deliveryColumns = `id, receiver, watch, verdict, event, event_at, state, attempts, last_status, last_error, created_at, updated_at, delivered_at`

func validDeliveryName(s string) bool {
	return s != "" && len(s) <= MaxDeliveryNameLen && utf8.ValidString(s)
}

// CreateDelivery stores a new delivery in the state DeliveryPending and
// reports whether it did: a delivery with the same ID already stored is left
// as it is (created is false).
func (db *DB) CreateDelivery(ctx context.Context, d *Delivery) (created bool, err error) {
	if !validDeliveryName(d.ID) || !validDeliveryName(d.Receiver) || !validDeliveryName(d.Watch) || !validDeliveryName(d.Verdict) {
		return false, fmt.Errorf("%w: a delivery needs an id, a receiver, a watch and a verdict of at most %d bytes", ErrInvalid, MaxDeliveryNameLen)
	}
	if len(d.Event) > MaxDeliveryEventBytes || !json.Valid(d.Event) {
		return false, fmt.Errorf("%w: a delivery's event must be JSON of at most %d bytes", ErrInvalid, MaxDeliveryEventBytes)
	}
	if d.EventAt.IsZero() {
		return false, fmt.Errorf("%w: a delivery's event has no time", ErrInvalid)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	d.State, d.Attempts, d.LastStatus, d.LastError = DeliveryPending, 0, 0, ""
	d.CreatedAt, d.UpdatedAt, d.DeliveredAt = now, now, time.Time{}
	d.EventAt = d.EventAt.UTC().Truncate(time.Millisecond)
	err = db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, db.q(`INSERT INTO alert_deliveries (`+deliveryColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, '', ?, ?, 0) ON CONFLICT (id) DO NOTHING`),
			d.ID, d.Receiver, d.Watch, d.Verdict, string(d.Event), millis(d.EventAt), d.State, millis(now), millis(now))
		if err != nil {
			return fmt.Errorf("store: delivery: %w", err)
		}
		n, err := res.RowsAffected()
		created = n > 0
		return err
	})
	return created, err
}

// RecordAttempt stores the outcome of a delivery's attempt. An attempt older
// than the one stored (a late write of a rescued job) changes nothing, and a
// delivered delivery stays delivered.
func (db *DB) RecordAttempt(ctx context.Context, id string, a DeliveryAttempt) error {
	switch a.State {
	case DeliveryDelivered, DeliveryRetrying, DeliveryFailed:
	default:
		return fmt.Errorf("%w: an attempt ends delivered, retrying or failed, not %q", ErrInvalid, a.State)
	}
	if a.At.IsZero() {
		a.At = time.Now()
	}
	msg := strings.ToValidUTF8(a.Error, "?")
	if len(msg) > MaxDeliveryErrorBytes {
		cut := MaxDeliveryErrorBytes
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	var delivered int64
	if a.State == DeliveryDelivered {
		delivered = millis(a.At)
	}
	return db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, db.q(`UPDATE alert_deliveries SET state = ?, attempts = ?, last_status = ?, last_error = ?,
			updated_at = ?, delivered_at = ? WHERE id = ? AND attempts <= ? AND state <> ?`),
			a.State, a.Number, a.Status, msg, millis(a.At), delivered, id, a.Number, DeliveryDelivered)
		if err != nil {
			return fmt.Errorf("store: delivery attempt: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n > 0 {
			return err
		}
		var exists int
		if err := tx.QueryRowContext(ctx, db.q(`SELECT COUNT(*) FROM alert_deliveries WHERE id = ?`), id).Scan(&exists); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if exists == 0 {
			return fmt.Errorf("store: delivery %q: %w", id, ErrNotFound)
		}
		return nil
	})
}

// Delivery returns one delivery.
func (db *DB) Delivery(ctx context.Context, id string) (*Delivery, error) {
	d, err := scanDelivery(db.read.QueryRowContext(ctx, db.q(`SELECT `+deliveryColumns+` FROM alert_deliveries WHERE id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: delivery %q: %w", id, ErrNotFound)
	}
	return d, err
}

// LastDelivery returns the delivery to receiver of watch's latest change to
// verdict (ErrNotFound when there is none): the alert a resolution resolves.
func (db *DB) LastDelivery(ctx context.Context, receiver, watch, verdict string) (*Delivery, error) {
	d, err := scanDelivery(db.read.QueryRowContext(ctx, db.q(`SELECT `+deliveryColumns+` FROM alert_deliveries
		WHERE receiver = ? AND watch = ? AND verdict = ? ORDER BY event_at DESC, id DESC LIMIT 1`), receiver, watch, verdict))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: no delivery of %s to %s: %w", watch, receiver, ErrNotFound)
	}
	return d, err
}

// LatestDeliveries returns, for each watch, the delivery to receiver of its
// latest change when that change was to verdict: the alerts a receiver
// holds open (verdict "leak"), which package alert sends again while they
// last. At most MaxDeliveryPage, by watch.
func (db *DB) LatestDeliveries(ctx context.Context, receiver, verdict string) ([]Delivery, error) {
	return db.queryDeliveries(ctx, `SELECT `+deliveryColumns+` FROM alert_deliveries d
		WHERE receiver = ? AND verdict = ? AND NOT EXISTS (SELECT 1 FROM alert_deliveries e
			WHERE e.receiver = d.receiver AND e.watch = d.watch AND (e.event_at > d.event_at OR e.event_at = d.event_at AND e.id > d.id))
		ORDER BY watch LIMIT ?`, receiver, verdict, MaxDeliveryPage)
}

// Deliveries returns the latest deliveries, newest event first: of one watch,
// or of all when watch is "". limit is at most MaxDeliveryPage (50 when 0).
func (db *DB) Deliveries(ctx context.Context, watch string, limit int) ([]Delivery, error) {
	if limit <= 0 {
		limit = 50
	}
	limit = min(limit, MaxDeliveryPage)
	if watch == "" {
		return db.queryDeliveries(ctx, `SELECT `+deliveryColumns+` FROM alert_deliveries ORDER BY event_at DESC, id DESC LIMIT ?`, limit)
	}
	return db.queryDeliveries(ctx, `SELECT `+deliveryColumns+` FROM alert_deliveries WHERE watch = ? ORDER BY event_at DESC, id DESC LIMIT ?`, watch, limit)
}

// queryDeliveries returns the deliveries query selects (deliveryColumns) with
// args, in its order.
func (db *DB) queryDeliveries(ctx context.Context, query string, args ...any) ([]Delivery, error) {
	rows, err := db.read.QueryContext(ctx, db.q(query), args...)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	var out []Delivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return out, nil
}

func scanDelivery(row interface{ Scan(...any) error }) (*Delivery, error) {
	var d Delivery
	var event string
	var at, created, updated, delivered int64
	if err := row.Scan(&d.ID, &d.Receiver, &d.Watch, &d.Verdict, &event, &at, &d.State, &d.Attempts, &d.LastStatus, &d.LastError,
		&created, &updated, &delivered); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		return nil, fmt.Errorf("store: %w", err)
	}
	d.Event = json.RawMessage(event)
	d.EventAt, d.CreatedAt, d.UpdatedAt = fromMillis(at), fromMillis(created), fromMillis(updated)
	if delivered != 0 {
		d.DeliveredAt = fromMillis(delivered)
	}
	return &d, nil
}

// copyDelivery stores a delivery of another store as it is there.
func (db *DB) copyDelivery(ctx context.Context, d *Delivery) error {
	var delivered int64
	if !d.DeliveredAt.IsZero() {
		delivered = millis(d.DeliveredAt)
	}
	return db.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, db.q(`INSERT INTO alert_deliveries (`+deliveryColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			d.ID, d.Receiver, d.Watch, d.Verdict, string(d.Event), millis(d.EventAt), d.State, d.Attempts, d.LastStatus, d.LastError,
			millis(d.CreatedAt), millis(d.UpdatedAt), delivered)
		if err != nil {
			return fmt.Errorf("store: delivery: %w", err)
		}
		return nil
	})
}

func sameDelivery(a, b *Delivery) bool {
	return a.ID == b.ID && a.Receiver == b.Receiver && a.Watch == b.Watch && a.Verdict == b.Verdict && string(a.Event) == string(b.Event) &&
		a.EventAt.Equal(b.EventAt) && a.State == b.State && a.Attempts == b.Attempts && a.LastStatus == b.LastStatus &&
		a.LastError == b.LastError && a.CreatedAt.Equal(b.CreatedAt) && a.UpdatedAt.Equal(b.UpdatedAt) && a.DeliveredAt.Equal(b.DeliveredAt)
}

// UnfinishedDeliveries returns the deliveries still pending or retrying whose
// record has not changed since before (at most MaxDeliveryPage, oldest
// first): those a process that died between storing a delivery and inserting
// its job, or between an attempt and its record, left behind. Package alert
// sweeps them into jobs again.
func (db *DB) UnfinishedDeliveries(ctx context.Context, before time.Time) ([]Delivery, error) {
	return db.queryDeliveries(ctx, `SELECT `+deliveryColumns+` FROM alert_deliveries
		WHERE state IN (?, ?) AND updated_at < ? ORDER BY updated_at, id LIMIT ?`,
		DeliveryPending, DeliveryRetrying, millis(before), MaxDeliveryPage)
}
