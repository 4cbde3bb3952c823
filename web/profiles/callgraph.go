package profiles

import (
	"context"
	"strconv"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/view"
)

// viewCallGraph is the call graph view: the nodes and edges `go tool pprof
// -dot` draws, from pprof's own graph code (pprof.Profile.Graph) with its
// default -nodecount, -nodefraction and -edgefraction.
const viewCallGraph = "callgraph"

// callGraphView is the call graph view's page model.
type callGraphView struct {
	SampleType string
	Legend     []string
	Nodes      []callGraphNode
	Edges      []callGraphEdge
}

type callGraphNode struct {
	ID          int
	Name, Short string
	Flat, Cum   string
}

type callGraphEdge struct {
	From, To, Weight string
}

func callGraphProfileView() profileView {
	return profileView{
		key:     viewCallGraph,
		label:   "call graph",
		applies: func(ps *profileSet) bool { return ps.q.mode == modeSingle },
		page:    (*Kind).callGraphPage,
		json:    (*Kind).callGraphJSON,
	}
}

// callGraph draws the shown profile's graph, filtered as the query says.
func (ps *profileSet) callGraph(notices *[]string) (*pprof.Graph, error) {
	fp, err := ps.filtered(ps.shown(), notices)
	if err != nil {
		return nil, err
	}
	return fp.Graph(pprof.TextOptions{SampleIndex: ps.si, NodeCount: pprof.DefaultGraphNodeCount,
		NodeFraction: pprof.DefaultNodeFraction, EdgeFraction: pprof.DefaultEdgeFraction, Unit: pprof.DefaultUnit})
}

func (s *Kind) callGraphPage(_ context.Context, ps *profileSet, pg *view.ProfileReport) error {
	g, err := ps.callGraph(&pg.Notices)
	if err != nil {
		return err
	}
	unit := ps.shown().SampleTypes()[ps.si].Unit
	v := callGraphView{SampleType: ps.shown().SampleTypes()[ps.si].Type, Legend: g.Legend}
	short := map[int]string{}
	for _, n := range g.Nodes {
		short[n.ID] = n.Short
		v.Nodes = append(v.Nodes, callGraphNode{ID: n.ID, Name: n.Name, Short: n.Short,
			Flat: analyze.FormatValue(n.Flat, unit), Cum: analyze.FormatValue(n.Cum, unit)})
	}
	for _, e := range g.Edges {
		v.Edges = append(v.Edges, callGraphEdge{From: "N" + strconv.Itoa(e.From) + " " + short[e.From], To: "N" + strconv.Itoa(e.To) + " " + short[e.To],
			Weight: analyze.FormatValue(e.Weight, unit)})
	}
	pg.Extra = callGraphTables(v)
	return ps.viewBanner(pg)
}

func (s *Kind) callGraphJSON(_ context.Context, ps *profileSet, doc *kind.ReportJSON) error {
	g, err := ps.callGraph(&doc.Notices)
	if err != nil {
		return err
	}
	doc.Analysis = g
	return nil
}
