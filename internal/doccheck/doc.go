// Package doccheck holds the documentation's link test; it has no code of its own.
//
// The test reads README.md and every Markdown file under docs/, and fails for a
// relative link ([text](path), [text](path#anchor), ![image](path)) whose target does
// not exist in the repository, and for an #anchor, in the same file or another one,
// that matches no heading's GitHub-style slug in the target file. External links
// (http, https, mailto) are not checked. It also fails when README.md reaches 200
// lines, and when a package named in the tables of the "Packages" section of
// docs/ARCHITECTURE.md is not a directory with Go files, or a package of the
// module has no row there. Each row's imports column must name every leakui
// package the package imports outside its tests, and nothing it does not
// import. ARCHITECTURE.md stays one screen (at most 150 lines), and each cell
// of its package tables but the imports column one line (at most 120
// characters): what a package owns in detail is its package documentation.
//
// Run it with go test ./internal/doccheck.
package doccheck
