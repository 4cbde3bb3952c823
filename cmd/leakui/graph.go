package main

import (
	"context"
	"fmt"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
)

// runGraph implements `leakui graph [-sample_index NAME] [-nodecount N]
// [-nodefraction F] [-edgefraction F] [-unit U] [the filters of top]
// [-format dot|json] PROFILE`: the call graph as `go tool pprof -dot` draws it.
// The DOT output is pprof's, byte for byte (render it with Graphviz: `| dot
// -Tsvg`); the JSON holds the same nodes and edges for drawing elsewhere.
func runGraph(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("graph", "PROFILE", std.err)
	sampleIndex := fs.String("sample_index", "", "sample type to draw (name or index; default as pprof chooses)")
	nc := &nodeCountFlag{n: pprof.DefaultGraphNodeCount}
	fs.Var(nc, "nodecount", fmt.Sprintf("draw at most `N` nodes, as pprof's -nodecount (default %d; 0 for all)", pprof.DefaultGraphNodeCount))
	nodeFraction := fs.Float64("nodefraction", pprof.DefaultNodeFraction, "leave out nodes whose cum is below this fraction of the total, as pprof's -nodefraction")
	edgeFraction := fs.Float64("edgefraction", pprof.DefaultEdgeFraction, "leave out calls below this fraction of the total, as pprof's -edgefraction")
	unit := fs.String("unit", pprof.DefaultUnit, "unit of the values, as pprof's -unit (minimum chooses)")
	format := fs.String("format", "dot", "output: dot (Graphviz, as go tool pprof -dot) or json")
	maxDecompressed := fs.Int64("max-decompressed", analyze.DefaultMaxDecompressed, "refuse inputs larger than this many bytes after decompression")
	ff := addFilterFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || (*format != "dot" && *format != "json") {
		fs.Usage()
		return errUsage
	}
	f, err := ff.compile(std.err, "graph")
	if err != nil {
		return err
	}
	path := fs.Arg(0)
	p, release, err := openFiltered(std.err, "graph", path, *maxDecompressed, f)
	if err != nil {
		return err
	}
	defer release()
	si, err := p.SampleIndex(*sampleIndex)
	if err != nil {
		return err
	}
	o := pprof.TextOptions{SampleIndex: si, NodeCount: nc.n, NodeFraction: *nodeFraction, EdgeFraction: *edgeFraction, Unit: *unit}
	if *format == "json" {
		g, err := p.Graph(o)
		if err != nil {
			return err
		}
		return writeJSON(std.out, g)
	}
	return p.WriteDOT(std.out, o)
}
