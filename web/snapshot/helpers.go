package snapshot

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/leakui/leakui/internal/markdown"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/page"
)

func TakenAt(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return ", taken " + page.FormatTime(t)
}

// OrderedBy reads what ordered a report's snapshots.
func OrderedBy(rep *store.Report) string {
	var p Params
	json.Unmarshal(rep.Params, &p)
	return p.OrderedBy
}

// MarkdownWarnings writes a report's warnings as quoted paragraphs.
func MarkdownWarnings(b *strings.Builder, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(b, "\n> Warning: %s\n", markdown.Escape(w))
	}
}
