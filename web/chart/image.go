package chart

import (
	"net/http"

	"github.com/leakui/leakui/internal/linechart"
)

// Size of a chart image, in pixels.
const (
	chartImageWidth  = 720
	chartImageHeight = 300
)

// WriteSVG answers a chart as a standalone SVG image.
func WriteSVG(w http.ResponseWriter, c linechart.Chart) error {
	w.Header().Set("Content-Type", "image/svg+xml; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, err := w.Write([]byte(linechart.SVG(c, chartImageWidth, chartImageHeight, true)))
	return err
}
