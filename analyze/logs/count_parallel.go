package logs

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
)

// countParallel counts a plain input of known size with several scanners:
// the input is cut into parts of about partSize at line starts, each scanner
// reads its parts with ReadAt, and the parts are merged in order. At most two
// parts per scanner are in flight, so memory does not grow with the input.
func (c *counter) countParallel(ctx context.Context, file int, ra io.ReaderAt, size int64, head []byte) error {
	partSize := int64(c.opts.partSize)
	if partSize <= 0 {
		partSize = defaultPartSize
	}
	workers := c.opts.workers()
	if size <= partSize {
		workers = 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	type job struct {
		index     int
		off, size int64
	}
	jobs := make(chan job)
	results := make(chan *partResult, workers)
	tokens := make(chan struct{}, 2*workers)
	var wg sync.WaitGroup
	var splitErr error

	wg.Add(1)
	go func() { // the splitter
		defer wg.Done()
		defer close(jobs)
		for index, off := 0, int64(0); off < size; index++ {
			end, err := nextLineStart(ra, off+partSize, size)
			if err != nil {
				splitErr = err
				cancel()
				return
			}
			select {
			case tokens <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- job{index, off, end - off}:
			case <-ctx.Done():
				return
			}
			off = end
		}
	}()
	for range workers {
		wg.Add(1)
		go func() { // a scanner
			defer wg.Done()
			sc := c.newScanner(head)
			for j := range jobs {
				part := c.plan.newPart(j.index, c.merge.bucketsSnapshot())
				part.err = sc.scan(ctx, io.NewSectionReader(ra, j.off, j.size), part, j.index == 0, nil)
				select {
				case results <- part:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() { // closes results once every sender is gone
		wg.Wait()
		close(results)
	}()

	// Merge in order; parts that finish early wait in pending.
	pending := map[int]*partResult{}
	next := 0
	var err error
	for p := range results {
		if p.err != nil && err == nil {
			err = p.err
			cancel()
		}
		pending[p.index] = p
		for q, ok := pending[next]; ok; q, ok = pending[next] {
			delete(pending, next)
			if err == nil {
				c.merge.add(q)
				c.progress(file, c.merge.fileBytes())
			}
			next++
			<-tokens
		}
	}
	if splitErr != nil { // the root cause: the scanners only saw the cancel
		return splitErr
	}
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// nextLineStart returns the first line start at or after at (size when the
// input ends first): the byte after the first '\n' at or after at-1.
func nextLineStart(ra io.ReaderAt, at, size int64) (int64, error) {
	if at >= size {
		return size, nil
	}
	buf := make([]byte, 4<<10)
	for pos := at - 1; pos < size; {
		n, err := ra.ReadAt(buf[:min(int64(len(buf)), size-pos)], pos)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return pos + int64(i) + 1, nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if n == 0 {
			return size, nil
		}
		pos += int64(n)
		if len(buf) < 1<<20 {
			buf = make([]byte, 2*len(buf))
		}
	}
	return size, nil
}
