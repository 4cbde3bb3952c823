package view

// Dashboard is the home page: the upload form and the recent reports.
type Dashboard struct {
	MaxUpload string
	Accepted  []string
	Recent    []ReportListItem
	Lab       RunList
}

// ReportListItem is one line of the recent reports list.
type ReportListItem struct {
	URL, Title, Kind, Created, Summary string
}
