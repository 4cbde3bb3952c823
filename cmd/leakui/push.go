package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/leakui/leakui/store"
)

// pushFlags are the flags of a capture that uploads its bundle to a leakui
// server: where, with which token, and the labels it carries.
type pushFlags struct {
	url      *string
	token    *string
	incident *string
	label    *string
	timeout  *time.Duration
}

// addPushFlags declares -push, -token, -incident and -label on fs.
func addPushFlags(fs *flag.FlagSet) *pushFlags {
	return &pushFlags{
		url:      fs.String("push", "", "upload the bundle to this leakui server (its base URL) and print the report's URL"),
		token:    fs.String("token", "", "the server's token for -push (default: $LEAKUI_TOKEN)"),
		incident: fs.String("incident", "", "with -push, attach the report to this incident (its slug)"),
		label:    fs.String("label", "", "with -push, the label the uploaded bundle carries"),
		timeout:  fs.Duration("push-timeout", 5*time.Minute, "how long the upload may take"),
	}
}

// check validates the push flags before anything is captured, so that a
// mistake costs no capture.
func (p *pushFlags) check() error {
	if *p.url == "" {
		if *p.incident != "" || *p.label != "" || *p.token != "" {
			return errors.New("-incident, -label and -token go with -push URL")
		}
		return nil
	}
	u, err := url.Parse(*p.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("-push %q is not the http(s) URL of a leakui server", *p.url)
	}
	if *p.incident != "" && !store.ValidSlug(*p.incident) {
		return fmt.Errorf("-incident %q is not an incident's slug (lowercase letters, digits and dashes)", *p.incident)
	}
	if strings.ContainsAny(*p.label, "\r\n") || len(*p.label) > 200 {
		return errors.New("-label is one line of at most 200 bytes")
	}
	return nil
}

// labelField is the label the upload carries: the -label and the incident's
// "incident:SLUG", which the server attaches the report by.
func (p *pushFlags) labelField() string {
	l := strings.TrimSpace(*p.label)
	if *p.incident != "" {
		l = strings.TrimSpace(l + " incident:" + *p.incident)
	}
	return l
}

// pushAnswer is what POST /api/artifacts answers on success.
type pushAnswer struct {
	ReportID  string `json:"report_id"`
	ReportURL string `json:"report_url"`
	Verdict   string `json:"verdict"`
	Status    string `json:"status"`
	// Incidents are those the server attached the report to, when it says.
	Incidents []string `json:"incidents"`
}

// push uploads the bundle at path to the server as POST /api/artifacts and
// prints the report's URL on standard output. The body streams from the file;
// an answer other than 201 or 202 is an error naming the server's message.
func (p *pushFlags) push(ctx context.Context, path string, std stdio) (*pushAnswer, error) {
	base := strings.TrimSuffix(*p.url, "/")
	token := *p.token
	if token == "" {
		token = os.Getenv("LEAKUI_TOKEN")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	label := p.labelField()
	go func() {
		err := func() error {
			if label != "" {
				if err := mw.WriteField("label", label); err != nil {
					return err
				}
			}
			fw, err := mw.CreateFormFile("file", filepath.Base(path))
			if err != nil {
				return err
			}
			if _, err := io.Copy(fw, f); err != nil {
				return err
			}
			return mw.Close()
		}()
		pw.CloseWithError(err)
	}()
	ctx, cancel := context.WithTimeout(ctx, *p.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/artifacts", pr)
	if err != nil {
		pr.CloseWithError(err)
		return nil, err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Accept", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	// Whatever happened, the writer stops: a failed request closes the pipe.
	pr.CloseWithError(errors.New("upload ended"))
	if err != nil {
		return nil, fmt.Errorf("push to %s: %w", base, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("push to %s: reading the answer: %w", base, err)
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusAccepted {
		var e struct {
			Error string `json:"error"`
		}
		msg := strings.TrimSpace(string(body))
		if json.Unmarshal(body, &e) == nil && e.Error != "" {
			msg = e.Error
		}
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		return nil, fmt.Errorf("push to %s: %s: %s", base, resp.Status, visible(msg))
	}
	var a pushAnswer
	if err := json.Unmarshal(body, &a); err != nil || a.ReportURL == "" {
		return nil, fmt.Errorf("push to %s: %s without a report URL", base, resp.Status)
	}
	fmt.Fprintln(std.out, visible(a.ReportURL))
	what := "uploaded"
	if a.Verdict != "" {
		what += ", verdict " + a.Verdict
	}
	if a.Status != "" {
		what += ", " + a.Status
	}
	switch {
	case slices.Contains(a.Incidents, *p.incident):
		what += ", attached to incident " + *p.incident
	case *p.incident != "":
		what += ", labelled incident:" + *p.incident + " (attached when that incident exists on the server)"
	}
	fmt.Fprintf(std.err, "leakui capture: %s (%s)\n", what, visible(a.ReportURL))
	return &a, nil
}

// finishCapture writes the bundle to -o, pushes it with -push, or both. With
// -push and no -o, the bundle goes through a temporary file removed after.
func finishCapture(ctx context.Context, write func(path string) error, out string, p *pushFlags, std stdio) error {
	if *p.url == "" {
		return write(out)
	}
	path := out
	if path == "" || path == "-" {
		dir, err := os.MkdirTemp("", "leakui-push-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "capture.tar.gz")
	}
	if err := write(path); err != nil {
		return err
	}
	_, err := p.push(ctx, path, std)
	return err
}
