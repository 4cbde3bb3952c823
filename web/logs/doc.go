// Package logs is logs as a kind of evidence in the web: an upload of text logs
// counted like grep -c (patterns, start/close pairs with the keys never closed,
// counts over time, presets), the log report's page, JSON, Markdown, keys.csv
// and open-N.svg charts, the cache of counts with one count of a key at a time,
// and a lab run's own log counted with its workload's preset. It implements
// kind.Kind; the web root registers it.
package logs
