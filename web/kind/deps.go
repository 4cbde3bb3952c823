package kind

import (
	"fmt"
	"log/slog"
	"net/http"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/web/page"
)

// MaxAnalysisBudget bounds what one analysis may hold however large the
// server's budget: four times the default -max-decompressed, what a profile of
// many samples needs, and less than the 11 GB that 400 KB of gzip can ask for.
const MaxAnalysisBudget = 4 << 30

// Deps is what every kind is built over: the root builds one and passes it to
// each kind's New.
type Deps struct {
	Store Store
	Log   *slog.Logger
	// Budget is the server's memory budget, shared by the analyses and the
	// caches; Analysis is one analysis's share of it.
	Budget *analyze.Budget
	Limits Limits
	// Render renders a page (the layout around content) into a buffer first;
	// Handle turns a handler's error into a status and a page or JSON body.
	Render page.Renderer
	Handle func(page.HandlerFunc) http.HandlerFunc
	// Caches registers the kinds' caches, charged to Budget and dropped first
	// when an analysis needs the room.
	Caches *Caches
	// Owner is this replica's id (runs, analysis leases); Closing is closed when
	// the server begins to shut down.
	Owner   string
	Closing <-chan struct{}
}

// Limits are the server's limits on one input.
type Limits struct {
	// MaxDecompressed caps the decompressed size of one input; MaxHeapDump the
	// bytes of a heap dump; MaxUpload one upload request.
	MaxDecompressed, MaxHeapDump, MaxUpload int64
	// TempDir receives what is spooled to disk.
	TempDir string
}

// Analysis is the budget of one analysis (one input parsed, one view built):
// half of the server's, at most MaxAnalysisBudget, charged to the server's too.
// Release it when done.
func (d *Deps) Analysis() *analyze.Budget {
	return d.Budget.Child(min(d.Budget.Limit()/2, MaxAnalysisBudget))
}

// ChargeView charges n bytes of a view to the server's memory budget before
// the view allocates them, and returns what gives them back. A budget that has
// no room (once the caches gave back what they could) is ErrBusy: 503 with
// Retry-After, never a view that takes the server past its budget.
func (d *Deps) ChargeView(n int64) (release func(), err error) {
	if n <= 0 {
		return func() {}, nil
	}
	if err := d.Budget.Charge(n); err != nil {
		if n > d.Budget.Limit() && d.Budget.Limit() > 0 {
			return nil, fmt.Errorf("%w: this view needs %s, more than the server's memory budget of %s (-memory-budget)",
				analyze.ErrBusy, analyze.FormatBytes(n), analyze.FormatBytes(d.Budget.Limit()))
		}
		return nil, fmt.Errorf("%w: this view needs %s of the server's memory budget, which other work holds now (-memory-budget)",
			analyze.ErrBusy, analyze.FormatBytes(n))
	}
	return func() { d.Budget.Uncharge(n) }, nil
}
