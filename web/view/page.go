// Package view holds leakui's HTML: templ components and the view models they
// render. Components take plain data with numbers already formatted; handlers in
// package web fill the models.
package view

// Page is what every page's layout needs.
type Page struct {
	// Title goes into <title> after "leakui — ".
	Title string
	// CSS is the content-hashed URL of the stylesheet; Scripts those of the scripts.
	CSS     string
	Scripts []string
	// VendorStyles are the vendored libraries' stylesheets (the chart
	// library's), loaded before CSS so that leakui's own rules win.
	VendorStyles []string
	// Icon is the content-hashed URL of the favicon, "" for none.
	Icon string
	// Styles are more stylesheets, after CSS.
	Styles []string
	// Nav marks the current section ("upload", "reports", "runs", "incidents").
	Nav string
	// Incidents shows the link to the incidents (/i) in the top bar: the
	// server keeps them.
	Incidents bool
	// Watches shows the link to the watches (/watch): the server runs some.
	Watches bool
	// Description is the verdict in a sentence: with it the page carries
	// OpenGraph and Twitter card tags, so a link pasted in a ticket or a chat
	// unfurls with its title and verdict.
	Description string
	// Image is the absolute URL of a PNG for link unfurls (og:image), "" for none.
	Image string
}

// Link is a labelled URL.
type Link struct {
	Label, URL string
	// Current marks the link to the page being shown.
	Current bool
	// Key is a keyboard shortcut that follows the link ("1".."9"), or "".
	Key string
	// Value is a figure shown with the link, such as a sample type's total.
	Value string
}
