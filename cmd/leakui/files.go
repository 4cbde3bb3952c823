package main

import (
	"io"
	"os"
)

// openFile opens a named input; "-" is standard input.
func openFile(path string) (io.ReadCloser, error) {
	if path == "-" {
		return io.NopCloser(os.Stdin), nil
	}
	return os.Open(path)
}
