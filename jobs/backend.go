package jobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// A Dialect is what differs between the databases in the few statements this
// package runs on River's tables itself (fairness, heartbeats, the snapshot).
type Dialect interface {
	// Name is "sqlite" or "postgres".
	Name() string
	// Rebind turns the ? placeholders of query into the database's.
	Rebind(query string) string
	// Time is t as the database compares it with River's time columns.
	Time(t time.Time) any
	// Lock serializes, until tx ends, the transactions that take the same key
	// (a client's inserts of one kind). SQLite needs none: its transactions
	// are IMMEDIATE, one writer at a time.
	Lock(ctx context.Context, tx riverdriver.ExecutorTx, key int64) error
	// Query runs a query of many rows on the backend's pool (River's
	// executor runs statements of none or one row only).
	Query(ctx context.Context, query string, args ...any) (Rows, error)
}

// Rows are a query's rows, as Dialect.Query returns them.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// A Backend is River's driver for one database, opened and migrated by a
// backend package (jobs/sqlite, jobs/postgres); New runs a Runner on it.
type Backend struct {
	dialect   Dialect
	newClient func(*river.Config) (riverClient, error)
	close     func() error
}

// NewBackend wraps River's driver for a database whose River tables are
// migrated. close releases what the backend opened (its pool), after the
// Runner has stopped.
func NewBackend[TTx any](driver riverdriver.Driver[TTx], d Dialect, close func() error) *Backend {
	return &Backend{
		dialect: d,
		newClient: func(cfg *river.Config) (riverClient, error) {
			c, err := river.NewClient(driver, cfg)
			if err != nil {
				return nil, err
			}
			return &typedClient[TTx]{Client: c, driver: driver}, nil
		},
		close: close,
	}
}

// Name is the backend's database: "sqlite" or "postgres".
func (b *Backend) Name() string { return b.dialect.Name() }

// Close releases the backend's pool. Stop the Runner first.
func (b *Backend) Close() error {
	if b.close == nil {
		return nil
	}
	return b.close()
}

// riverClient is the part of River's client the Runner uses, without its
// transaction type.
type riverClient interface {
	Start(ctx context.Context) error
	StopAndCancel(ctx context.Context) error
	ID() string
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	JobGet(ctx context.Context, id int64) (*rivertype.JobRow, error)
	JobCancel(ctx context.Context, id int64) (*rivertype.JobRow, error)
	JobList(ctx context.Context, params *river.JobListParams) (*river.JobListResult, error)
	JobUpdate(ctx context.Context, id int64, params *river.JobUpdateParams) (*rivertype.JobRow, error)
	PeriodicJobs() *river.PeriodicJobBundle
	// exec runs statements outside a transaction.
	exec() riverdriver.Executor
	// inTx runs fn in a transaction, with insert adding a job in it.
	inTx(ctx context.Context, fn func(tx riverdriver.ExecutorTx, insert insertFunc) error) error
}

type insertFunc func(args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)

type typedClient[TTx any] struct {
	*river.Client[TTx]
	driver riverdriver.Driver[TTx]
}

func (c *typedClient[TTx]) exec() riverdriver.Executor { return c.driver.GetExecutor() }

func (c *typedClient[TTx]) inTx(ctx context.Context, fn func(riverdriver.ExecutorTx, insertFunc) error) error {
	execTx, err := c.driver.GetExecutor().Begin(ctx)
	if err != nil {
		return err
	}
	committed := false
	defer func() {
		if !committed {
			execTx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	tx := c.driver.UnwrapTx(execTx)
	err = fn(execTx, func(args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error) {
		return c.Client.InsertTx(ctx, tx, args, opts)
	})
	if err != nil {
		return err
	}
	if err := execTx.Commit(ctx); err != nil {
		return err
	}
	committed = true
	return nil
}
