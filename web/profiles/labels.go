package profiles

import (
	"context"
	"fmt"
	"net/url"
	"regexp"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
)

// viewLabels is the labels view: the values of each label key of a profile
// with their share, as `go tool pprof -tags` prints them.
const viewLabels = "labels"

// labelsView is the labels view's page model.
type labelsView struct {
	SampleType, Total string
	Keys              []labelKeyView
}

type labelKeyView struct {
	Key, Total, Share string
	Values            []labelValueView
}

type labelValueView struct {
	Value, Total, Share string
	// FilterURL is the profile's top table of the samples with this value
	// (tf, pprof's -tagfocus).
	FilterURL string
}

// labelsProfileView registers the labels view for one profile (its file in a
// diff or series).
func labelsProfileView() profileView {
	return profileView{
		key:     viewLabels,
		label:   "labels",
		applies: func(ps *profileSet) bool { return ps.q.mode == modeSingle },
		page:    (*Kind).labelsPage,
		json:    (*Kind).labelsJSON,
	}
}

// labels collects the labels of the shown profile, filtered as the query says.
func (ps *profileSet) labels(notices *[]string) (pprof.Labels, error) {
	fp, err := ps.filtered(ps.shown(), notices)
	if err != nil {
		return pprof.Labels{}, err
	}
	return fp.Labels(pprof.TextOptions{SampleIndex: ps.si})
}

func (s *Kind) labelsPage(_ context.Context, ps *profileSet, pg *view.ProfileReport) error {
	l, err := ps.labels(&pg.Notices)
	if err != nil {
		return err
	}
	path := page.ReportURL(ps.rep.ID)
	v := labelsView{SampleType: l.SampleType, Total: analyze.FormatValue(l.Total, l.Unit)}
	for _, k := range l.Keys {
		kv := labelKeyView{Key: k.Key, Total: analyze.FormatValue(k.Total, l.Unit), Share: share(k.Share)}
		for _, val := range k.Values {
			tf := k.Key + "=^" + regexp.QuoteMeta(val.Value) + "$"
			kv.Values = append(kv.Values, labelValueView{Value: val.Value, Total: analyze.FormatValue(val.Total, l.Unit), Share: share(val.Share),
				FilterURL: ps.q.url(path, func(u url.Values) { u.Del("view"); u.Set("tf", tf) })})
		}
		v.Keys = append(v.Keys, kv)
	}
	pg.Extra = labelsTable(v)
	return ps.viewBanner(pg)
}

func (s *Kind) labelsJSON(_ context.Context, ps *profileSet, doc *kind.ReportJSON) error {
	l, err := ps.labels(&doc.Notices)
	if err != nil {
		return err
	}
	doc.Analysis = l
	return nil
}

// share formats a fraction as a percentage with one decimal, as pprof does.
func share(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

// viewBanner opens a view of one profile (labels, call graph) with the
// profile's verdict, as its top table does.
func (ps *profileSet) viewBanner(pg *view.ProfileReport) error {
	fp, err := ps.filtered(ps.shown(), nil)
	if err != nil {
		return err
	}
	top, err := fp.Top(ps.si)
	if err != nil {
		return err
	}
	pg.Verdict, err = topBanner(fp, ps.si, top, len(top.Rows))
	return err
}
