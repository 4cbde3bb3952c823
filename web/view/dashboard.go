package view

// Dashboard is the home page: the upload form and the recent reports.
type Dashboard struct {
	MaxUpload string
	Accepted  []string
	Recent    []ReportListItem
	Lab       RunList
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
}
