// Package jvm reads the JVM's text dumps (class histograms, thread dumps and native memory tracking summaries), compares them and reports on them.
package jvm
