package web

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/web/heapdumps"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
)

// uploads is the server's upload path: receiving and spooling the files,
// classifying them, checking the disk quotas, planning the report with its
// kind and storing it.
type uploads struct{ *Server }

// multipartSlack is what the multipart framing may add to the files' bytes.
const multipartSlack = 1 << 20

// Bounds on an upload's text fields (patterns, presets, the label), which are
// held in memory: each field at most maxFormFieldBytes, at most maxFormFields of
// them (repetitions included) and maxFormBytes in all; 413 beyond.
const (
	maxFormFieldBytes = 64 << 10
	maxFormFields     = 256
	maxFormBytes      = 1 << 20
)

// uploadTempPattern names the temporary files uploads are spooled to.
const uploadTempPattern = "leakui-upload-*"

// receiveUpload streams a multipart upload's files to temporary files, hashing them
// on the way, within the size and count limits. Nothing is stored yet. The caller
// must call remove on the result.
func (s uploads) receiveUpload(w http.ResponseWriter, r *http.Request) (*kind.Upload, error) {
	limit := s.cfg.MaxUpload
	// A JVM heap dump has a limit of its own (see spool); the body may be as large.
	bodyLimit := max(limit, s.cfg.MaxHeapDump)
	if r.ContentLength > bodyLimit+multipartSlack {
		return nil, serrors.Errorf(http.StatusRequestEntityTooLarge, "the upload is %s; the limit is %s (-max-upload; %s for a JVM heap dump, -max-heapdump)",
			analyze.FormatBytes(r.ContentLength), analyze.FormatBytes(limit), analyze.FormatBytes(s.cfg.MaxHeapDump))
	}
	r.Body = http.MaxBytesReader(w, r.Body, bodyLimit+multipartSlack)
	// A body declared larger than -max-upload may only carry a heap dump: without
	// one, any failure (or the end) is the 413 that the declared length earns.
	var heapTotal int64
	overUpload := func(err error) error {
		if r.ContentLength > limit+multipartSlack && heapTotal == 0 {
			return serrors.Errorf(http.StatusRequestEntityTooLarge, "the upload is %s; the limit is %s (-max-upload; %s for a JVM heap dump, -max-heapdump)",
				analyze.FormatBytes(r.ContentLength), analyze.FormatBytes(limit), analyze.FormatBytes(s.cfg.MaxHeapDump))
		}
		return err
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, serrors.Errorf(http.StatusBadRequest, "send the files as multipart/form-data in a field named \"file\" (%v)", err)
	}
	form := &kind.Upload{Fields: map[string]string{}, Client: clientKey(r)}
	var total int64
	// Repeated text fields are joined once at the end, not on each repetition,
	// and their count and bytes are bounded.
	texts := map[string]*strings.Builder{}
	var textFields, textBytes int
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			form.Remove()
			return nil, overUpload(uploadError(err, limit))
		}
		switch {
		case part.FormName() == "file":
			if len(form.Files) >= s.cfg.MaxFiles {
				part.Close()
				form.Remove()
				return nil, serrors.Errorf(http.StatusRequestEntityTooLarge, "too many files in one upload: the limit is %d", s.cfg.MaxFiles)
			}
			rec, err := s.spool(part, limit-total, s.cfg.MaxHeapDump-heapTotal)
			part.Close()
			if err != nil {
				form.Remove()
				if e := (*serrors.Error)(nil); errors.As(err, &e) {
					return nil, e
				}
				return nil, overUpload(uploadError(err, limit))
			}
			if rec.HeapDump {
				heapTotal += rec.Size
			} else {
				total += rec.Size
			}
			form.Files = append(form.Files, rec)
		case part.FormName() != "":
			if textFields++; textFields > maxFormFields {
				part.Close()
				form.Remove()
				return nil, serrors.Errorf(http.StatusRequestEntityTooLarge, "too many form fields: the limit is %d besides the files", maxFormFields)
			}
			v, err := io.ReadAll(io.LimitReader(part, maxFormFieldBytes+1))
			part.Close()
			if err != nil {
				form.Remove()
				return nil, overUpload(uploadError(err, limit))
			}
			if len(v) > maxFormFieldBytes {
				form.Remove()
				return nil, serrors.Errorf(http.StatusRequestEntityTooLarge, "the form field %q is longer than 64 kB", part.FormName())
			}
			if textBytes += len(v); textBytes > maxFormBytes {
				form.Remove()
				return nil, serrors.Errorf(http.StatusRequestEntityTooLarge, "the form fields hold more than %s besides the files", analyze.FormatBytes(maxFormBytes))
			}
			if part.FormName() == "label" {
				form.Label = page.CleanText(string(v), 200)
				break
			}
			b := texts[part.FormName()]
			if b == nil {
				b = &strings.Builder{}
				texts[part.FormName()] = b
			}
			// Repeated values are separated by a newline; empty leading ones
			// vanish, as they always have.
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.Write(v)
		default:
			part.Close()
		}
	}
	for name, b := range texts {
		form.Fields[name] = b.String()
	}
	if err := overUpload(nil); err != nil {
		form.Remove()
		return nil, err
	}
	if len(form.Files) == 0 {
		return nil, serrors.Errorf(http.StatusBadRequest, "the upload has no file: send it in a multipart field named \"file\", e.g. curl -F file=@heap.pb.gz")
	}
	return form, nil
}

// spool copies one file part to a temporary file, hashing it, failing once more
// than left bytes arrive, or heapLeft for a JVM heap dump (told by its first bytes).
func (s uploads) spool(part *multipart.Part, left, heapLeft int64) (*kind.Received, error) {
	f, err := os.CreateTemp(s.cfg.TempDir, uploadTempPattern)
	if err != nil {
		return nil, fmt.Errorf("spooling the upload: %w", err)
	}
	rec := &kind.Received{Name: safeFileName(part.FileName()), Path: f.Name()}
	br := bufio.NewReaderSize(part, heapdumps.Sniff)
	head, _ := br.Peek(heapdumps.Sniff)
	if rec.HeapDump = heapdumps.IsHeapDump(head); rec.HeapDump {
		left = heapLeft
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(br, left+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > left {
		err = &http.MaxBytesError{Limit: s.cfg.MaxUpload}
		if rec.HeapDump {
			err = serrors.Errorf(http.StatusRequestEntityTooLarge, "the heap dump %s is larger than the %s limit (-max-heapdump)",
				rec.Name, analyze.FormatBytes(s.cfg.MaxHeapDump))
		}
	}
	if err != nil {
		os.Remove(rec.Path)
		return nil, err
	}
	rec.Size, rec.SHA256 = n, hex.EncodeToString(h.Sum(nil))
	return rec, nil
}

// uploadError explains a failure while reading the request body.
func uploadError(err error, limit int64) error {
	var maxBytes *http.MaxBytesError
	if errors.As(err, &maxBytes) {
		return serrors.Errorf(http.StatusRequestEntityTooLarge, "the upload is larger than the %s limit (-max-upload)", analyze.FormatBytes(limit))
	}
	if status, _ := serrors.StatusOf(err); status == http.StatusInsufficientStorage {
		return err // the disk is full, not the request wrong: 507 without the spool's path
	}
	if status, _ := serrors.StatusOf(err); status == http.StatusRequestTimeout {
		return err // the body was cut (progressDeadlines)
	}
	return &serrors.Error{Status: http.StatusBadRequest, Message: fmt.Sprintf("the upload could not be read: %v", err), Err: err}
}

// safeFileName reduces a client-supplied file name to a printable base name: no
// directories, no control characters, at most 200 characters.
func safeFileName(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	name = filepath.Base(name)
	name = page.CleanText(name, 200)
	if name == "" || name == "." || name == "/" || name == ".." {
		return "upload"
	}
	return name
}
