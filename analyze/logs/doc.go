// Package logs counts what a text log says: exact patterns and regexps, start/close pairs and the keys never closed, counts over time, with presets for known leaks.
package logs
