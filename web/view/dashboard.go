package view

// Dashboard is the home page: the upload form and the recent reports.
type Dashboard struct {
	MaxUpload string
	Accepted  []string
	// Reports is the searchable, paged list of reports.
	Reports ReportList
	Lab     RunList
	// SignIn is true when the server has a token the visitor has not given: the
	// lists stay hidden and the page offers /login. Auth is true when a token is
	// configured at all.
	SignIn, Auth bool
	// Log is the pattern form for logs inside the upload form.
	Log LogPatternForm
}

// ReportListItem is one line of the recent reports list.
type ReportListItem struct {
	URL, Title, Kind, Created, Summary string
	// Size is the size of the report's inputs.
	Size string
	// Label is the label the files were uploaded with, Verdict the report's
	// verdict ("leak", …) and VerdictClass its badge colour; Run is true for a
	// lab run's report.
	Label, Verdict, VerdictClass string
	Run                          bool
}

// ReportList is the dashboard's list of reports: one page of a search, newest
// first.
type ReportList struct {
	Items []ReportListItem
	// Query and Source are the search as given (Source "", "upload" or "run").
	Query, Source string
	// Next links to the following page, First back to the first; "" when there
	// is none.
	Next, First string
	// Searched is true when a query or source narrowed the list.
	Searched bool
}
