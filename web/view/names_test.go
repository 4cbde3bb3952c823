package view

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// TestFilesTableNamesAndSums: a file name wraps only after its separators (its
// text unchanged, a <wbr> after each), and a SHA-256 shows 12 digits with the
// whole sum on hover and on the copy button.
func TestFilesTableNamesAndSums(t *testing.T) {
	sha := "da472d62113c354b3a959b25300eadcf928cdaac8e3ea78566fb7d86b45ebaf3"
	name := "parca-self-heap-t0-1644509272.pb.gz"
	var buf bytes.Buffer
	if err := FilesTable([]FileInfo{{Name: name, SHA256: sha}}).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	cell := doc.Find("[data-testid=file-name]")
	if cell.Text() != name || cell.Find("wbr").Length() != strings.Count(name, "-")+strings.Count(name, ".") {
		t.Errorf("file name cell %q with %d <wbr>", cell.Text(), cell.Find("wbr").Length())
	}
	if got := breakParts(name); strings.Join(got, "|") != "parca-|self-|heap-|t0-|1644509272.|pb.|gz" {
		t.Errorf("parts %q", got)
	}
	s := doc.Find("[data-testid=report-sha256] .sha")
	if s.Find("[data-testid=sha-short]").Text() != sha[:12] || s.AttrOr("title", "") != sha || s.Find("[data-testid=sha-copy]").AttrOr("data-copy", "") != sha {
		t.Errorf("sha cell %q title %q", s.Text(), s.AttrOr("title", ""))
	}
}
