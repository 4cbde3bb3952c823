package kind

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/store"
)

// fakeKind is a kind with names only.
type fakeKind struct {
	in       analyze.Kind
	reports  []string
	accepted []string
}

func (k fakeKind) Input() analyze.Kind { return k.in }
func (k fakeKind) Reports() []string   { return k.reports }
func (k fakeKind) Accepted() []string  { return k.accepted }
func (fakeKind) Plan(context.Context, *Upload) (*Plan, error) {
	return nil, nil
}
func (fakeKind) Page(http.ResponseWriter, *http.Request, *store.Report) error { return nil }
func (fakeKind) JSON(*http.Request, *store.Report, *ReportJSON) error         { return nil }
func (fakeKind) Markdown(io.Writer, *http.Request, *store.Report) error       { return nil }
func (fakeKind) Summary(json.RawMessage) string                               { return "" }

// TestRegistryDispatchesInOrder: the registry finds each kind by its input and
// by each of its report kinds, lists what is accepted in registration order,
// and refuses a report kind registered twice.
func TestRegistryDispatchesInOrder(t *testing.T) {
	a := fakeKind{analyze.KindProfile, []string{"profile", "diff"}, []string{"pprof profiles: heap"}}
	b := fakeKind{analyze.KindLog, []string{"log"}, []string{"Logs: any text"}}
	run := fakeKind{"", []string{"run"}, nil}
	r := NewRegistry(a, b, run)
	if k, ok := r.Planner(analyze.KindLog); !ok || k.Reports()[0] != "log" {
		t.Errorf("Planner(log) = %v, %v", k, ok)
	}
	if _, ok := r.Planner(""); ok {
		t.Error("a kind no upload makes has a planner")
	}
	for _, rk := range []string{"profile", "diff", "log", "run"} {
		if _, ok := r.For(rk); !ok {
			t.Errorf("no kind for report kind %s", rk)
		}
	}
	if got, want := r.AcceptedNames(), "pprof profiles, and logs"; got != want {
		t.Errorf("AcceptedNames() = %q, want %q", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("a report kind registered twice did not panic")
		}
	}()
	NewRegistry(a, fakeKind{analyze.KindGoroutines, []string{"diff"}, nil})
}
