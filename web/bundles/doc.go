// Package bundles is leakui's capture bundles (leakui capture jvm|go) as a kind
// of evidence in the web: uploads of one bundle or more of one process, the
// report's page (for a JVM, the native memory it does not track with the
// Inflaters alive), JSON and Markdown, and what a lab run shows of a capture.
// It implements kind.Kind; the web root registers it.
package bundles
