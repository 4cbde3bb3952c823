package store

import (
	"strings"
	"unicode"
)

// maxSearchTerms is the most bytes of a report's search terms.
const maxSearchTerms = 16 << 10

// searchTerms is what the search_terms column holds for headline h: the words
// of its title, verdict (as the pages say it), line and Terms, lowercased, as
// whole tokens between single spaces with a space at each end, so that a search
// is a LIKE of " phrase " (see searchPhrase). At most maxSearchTerms bytes.
func searchTerms(h Headline) string {
	var b strings.Builder
	b.WriteByte(' ')
	for _, part := range []string{h.Title, verdictWords(h.Verdict), h.Line, h.Terms} {
		for _, tok := range tokens(part) {
			if b.Len()+len(tok)+1 > maxSearchTerms {
				return b.String()
			}
			b.WriteString(tok)
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// verdictWords is a verdict as the pages say it: "leak suspected" for a leak,
// "no steady growth" for a steady series.
func verdictWords(v string) string {
	switch v {
	case "leak":
		return "leak suspected"
	case "steady":
		return "no steady growth"
	}
	return v
}

// runVerdicts are the verdicts a lab run has (see lab.Verdict*), which a search
// matches by the words the run page says them with.
var runVerdicts = []string{"leak", "no-leak"}

// tokens splits s into lowercase words of letters and digits: a function name
// "main.(*Cache).Put" is "main cache put", a file name "heap-00.pb.gz" "heap 00
// pb gz". A negated leak ("no leak", "no-leak", "not leaking") is one token,
// "noleak", so that a search for "leak" never finds it.
func tokens(s string) []string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := words[:0]
	for i := 0; i < len(words); i++ {
		w := words[i]
		if (w == "no" || w == "not") && i+1 < len(words) && strings.HasPrefix(words[i+1], "leak") {
			out = append(out, "noleak")
			i++
			continue
		}
		out = append(out, w)
	}
	return out
}

// searchPhrase is the LIKE pattern of the search text as whole tokens, "" when
// it has no word.
func searchPhrase(text string) string {
	toks := tokens(text)
	if len(toks) == 0 {
		return ""
	}
	return "% " + likeEscape(strings.Join(toks, " ")) + " %"
}

// verdictsNamed are the run verdicts whose words hold the search text's words.
func verdictsNamed(text string) []any {
	toks := tokens(text)
	if len(toks) == 0 {
		return nil
	}
	phrase := " " + strings.Join(toks, " ") + " "
	var out []any
	for _, v := range runVerdicts {
		if strings.Contains(searchTerms(Headline{Verdict: v}), phrase) {
			out = append(out, v)
		}
	}
	return out
}
