// Package snapshot owns a JVM report of several snapshots, as the JVM's
// histograms, thread dumps and native memory reports, capture bundles, heap
// dump comparisons and lab runs show them: the JVM cache and its loads (Loader,
// Entry, ParseReceived, LoadParsed), the order of snapshots (Plan, LoadAll,
// Params, Ref), the page query (Query), the header, tabs and snapshot table, the
// JSON of a snapshot and the Markdown head, and a loaded report (Set, ShowPage).
package snapshot
