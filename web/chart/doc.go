// Package chart owns the figures several kinds of evidence share: line charts as
// a page shows them (View: the static SVG and the data uPlot draws), the series
// view of snapshots (Series, SeriesRow, Sparkline, Totals) and the verdict
// banners of a series (SeriesBanner, SeriesClass, SnapshotsText,
// BannerDescription).
package chart
