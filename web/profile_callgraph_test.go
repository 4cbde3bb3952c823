package web

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/web/page"
)

// TestProfileCallGraphView: a profile's call graph view has the nodes and edges
// of pprof's own graph code with pprof's default -nodecount, -nodefraction and
// -edgefraction (what `leakui graph` draws, TestGraphEqualsPprofDot checks it
// node for node against `go tool pprof -dot`), in the JSON and in the page.
func TestProfileCallGraphView(t *testing.T) {
	ts := newTestServer(t, Config{UploadsPerMinute: -1})
	for _, name := range []string{"flameshow-heap.pb.gz", "goprofnotes-block-net.pb.gz"} {
		up := ts.mustUpload(t, nil, fixture(t, "pprof", name))
		p, err := pprof.Open(pprof.File(fixtures.Path(t, "pprof", name)), pprof.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := p.Graph(pprof.TextOptions{SampleIndex: p.DefaultSampleIndex(), NodeCount: pprof.DefaultGraphNodeCount,
			NodeFraction: pprof.DefaultNodeFraction, EdgeFraction: pprof.DefaultEdgeFraction, Unit: pprof.DefaultUnit})
		p.Close()
		if err != nil {
			t.Fatal(err)
		}
		code, _, raw := ts.get(t, "/api/reports/"+up.ReportID+"?view=callgraph")
		var doc struct{ Analysis pprof.Graph }
		if err := json.Unmarshal(raw, &doc); code != 200 || err != nil {
			t.Fatalf("%s: %d %v %s", name, code, err, raw)
		}
		if len(want.Nodes) == 0 || !reflect.DeepEqual(doc.Analysis.Nodes, want.Nodes) || !reflect.DeepEqual(doc.Analysis.Edges, want.Edges) {
			t.Errorf("%s: the web's graph has %d nodes and %d edges, pprof's %d and %d", name, len(doc.Analysis.Nodes), len(doc.Analysis.Edges), len(want.Nodes), len(want.Edges))
		}
		pg := goroutinePage(t, ts, page.ReportURL(up.ReportID)+"?view=callgraph")
		if n, e := pg.Find("[data-testid=callgraph-node]").Length(), pg.Find("[data-testid=callgraph-edge]").Length(); n != len(want.Nodes) || e != len(want.Edges) {
			t.Errorf("%s: the page shows %d nodes and %d edges, want %d and %d", name, n, e, len(want.Nodes), len(want.Edges))
		}
	}
}
