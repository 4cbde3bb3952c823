package kind

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/leakui/leakui/analyze"
)

// Source is one input a load reads: an uploaded file on disk or a stored
// artifact, opened the same way.
type Source struct {
	Name string
	Open func(ctx context.Context) (io.ReadCloser, error)
}

// Source is the spooled file of an upload. Open returns the *os.File itself,
// which keeps io.ReaderAt for the parsers that split a plain file across cores.
func (f *Received) Source() Source {
	return Source{Name: f.Name, Open: func(context.Context) (io.ReadCloser, error) { return os.Open(f.Path) }}
}

// Stored is a stored artifact, streamed from the store.
func Stored(st Store, sha, name string) Source {
	return Source{Name: name, Open: func(ctx context.Context) (io.ReadCloser, error) { return st.OpenArtifact(ctx, sha) }}
}

// Parse is one load: its cache key, the inputs it reads, how it reads them and
// what it costs in the cache.
type Parse[V any] struct {
	// Key names the result in the cache: the inputs' hashes, the parameters and
	// the limit they were read with.
	Key     string
	Sources []Source
	// Decompress removes gzip or zstd from each source first, at most Limit
	// bytes once inflated.
	Decompress bool
	Limit      int64
	// Run parses the opened sources within one analysis's budget b.
	Run func(ctx context.Context, in []io.Reader, b *analyze.Budget) (V, error)
	// Charged keeps the result in the cache at what Run charged to b (the
	// cache's own cost function otherwise).
	Charged bool
	// Wrap makes an error of Run, or of decompressing a source, name the source
	// ("name: err"), when there is one.
	Wrap bool
}

// Load returns p's result: from c; or, when a load of the same key is in flight,
// its result (the callers wait; a waiter whose own context lives loads again
// when the flight was stopped by its caller's context); or it opens the
// sources, charges one analysis's budget (d.Analysis) while Run parses, gives
// that budget back and adds the result to c, which charges it to the server's
// budget in the parse's stead.
func Load[V any](ctx context.Context, d *Deps, c *Cache[V], p Parse[V]) (V, error) {
	return c.do(ctx, p.Key, func() (V, int64, error) {
		var zero V
		wrap := func(err error) error {
			if p.Wrap && len(p.Sources) == 1 {
				return fmt.Errorf("%s: %w", p.Sources[0].Name, err)
			}
			return err
		}
		var in []io.Reader
		var closers []io.Closer
		defer func() {
			for i := len(closers) - 1; i >= 0; i-- {
				closers[i].Close()
			}
		}()
		for _, src := range p.Sources {
			rc, err := src.Open(ctx)
			if err != nil {
				return zero, 0, err
			}
			closers = append(closers, rc)
			r := io.Reader(rc)
			if p.Decompress {
				dr, _, err := analyze.Decompress(rc, p.Limit)
				if err != nil {
					return zero, 0, wrap(err)
				}
				closers = append(closers, dr)
				r = dr
			}
			in = append(in, r)
		}
		b := d.Analysis()
		defer b.Release()
		v, err := p.Run(ctx, in, b)
		if err != nil {
			return zero, 0, wrap(err)
		}
		cost := int64(-1)
		if p.Charged {
			cost = b.Used()
		}
		b.Release() // the cache charges what the result keeps in its stead
		return v, cost, nil
	})
}

// flight is one load in progress.
type flight[V any] struct {
	done chan struct{}
	v    V
	err  error
}

// do returns the cached value of key, or loads it with load (once, however many
// callers ask at the same time) and caches it at the cost load returns (its
// cost function's when that is negative). A caller whose context ends stops
// waiting; when the load itself was stopped by its caller's context, a waiter
// whose own context is alive loads again.
func (c *Cache[V]) do(ctx context.Context, key string, load func() (V, int64, error)) (V, error) {
	var zero V
	for {
		if v, ok := c.Get(key); ok {
			return v, nil
		}
		c.flightMu.Lock()
		if f, ok := c.flights[key]; ok {
			c.flightMu.Unlock()
			if c.joined != nil {
				c.joined()
			}
			select {
			case <-f.done:
			case <-ctx.Done():
				return zero, ctx.Err()
			}
			if f.err == nil {
				return f.v, nil
			}
			if isContextError(f.err) && ctx.Err() == nil {
				continue
			}
			return zero, f.err
		}
		f := &flight[V]{done: make(chan struct{})}
		if c.flights == nil {
			c.flights = map[string]*flight[V]{}
		}
		c.flights[key] = f
		c.flightMu.Unlock()

		var cost int64
		f.v, cost, f.err = load()
		if f.err == nil {
			if cost < 0 {
				c.Add(key, f.v)
			} else {
				c.add(key, f.v, cost)
			}
		}
		c.flightMu.Lock()
		delete(c.flights, key)
		c.flightMu.Unlock()
		close(f.done)
		return f.v, f.err
	}
}

func isContextError(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
