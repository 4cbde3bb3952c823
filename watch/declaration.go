package watch

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Declaration is one watch as the operator declares it, on the command line
// (-watch, repeatable) or as a line of a watch file: never from the browser.
// A Go program is scraped: name=URL[,every=1m][,keep=24][,bearer=SECRET |
// ,basic=SECRET]. A JVM pushes its capture bundles:
// name=jvm,token=SECRET[,every=1m][,keep=24]. A SECRET is env:VAR or
// file:PATH (see Secret): the declaration names where a credential is, never
// the credential.
type Declaration struct {
	// Name names the watch in pages, URLs, metrics and alerts.
	Name string `json:"name"`
	// URL is the target's base: scheme, host, port and an optional path
	// prefix, to which /debug/pprof/heap and the others are appended; JVM
	// for a watch its JVM pushes to.
	URL string `json:"url"`
	// Every is the time between two ticks (DefaultEvery when not given).
	Every time.Duration `json:"every"`
	// Keep is how many snapshots the watch holds, the window its verdict is
	// decided over (DefaultKeep when not given).
	Keep int `json:"keep"`
	// Token is where the token a pushed watch's pushes carry is (required
	// for a pushed watch, none for a scraped one): it lets its holder push
	// to this watch and do nothing else.
	Token Secret `json:"-"`
	// Bearer and Basic are where a scraped target's credentials are, at most
	// one of them: a bearer token sent as "Authorization: Bearer TOKEN", or
	// "user:password" sent as basic authentication.
	Bearer Secret `json:"-"`
	Basic  Secret `json:"-"`
}

// JVM is a pushed watch's URL: its JVM pushes bundles (leakui capture jvm
// -push URL -watch NAME) instead of being scraped.
const JVM = "jvm"

// Pushed tells a watch whose target pushes its snapshots.
func (d Declaration) Pushed() bool { return d.URL == JVM }

// The defaults and bounds of a declaration.
const (
	DefaultEvery = time.Minute
	MinEvery     = time.Second
	MaxEvery     = 24 * time.Hour
	DefaultKeep  = 24
	// MinKeep is the fewest snapshots a window may hold: the series
	// analysis calls nothing steady over fewer than 8 snapshots when the
	// total moved (series.MinDecisiveSnapshots), so a smaller window could
	// never clear a verdict.
	MinKeep = 8
	// MaxKeep bounds the snapshots one watch stores.
	MaxKeep = 500
	// MaxNameLen bounds a watch's name.
	MaxNameLen = 64
)

// ErrInvalid is a declaration that cannot be watched; the message says why.
var ErrInvalid = errors.New("invalid watch declaration")

var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Parse reads one declaration, name=URL[,every=DURATION][,keep=N] with
// bearer=SECRET or basic=SECRET for a target that requires credentials, or
// name=jvm,token=SECRET[,every=DURATION][,keep=N] for a JVM that pushes: a
// name of letters, digits, '.', '_' and '-' (starting with a letter or a
// digit, at most MaxNameLen), an http or https URL without credentials, query
// or fragment (a comma in it escaped as %2C), every a Go duration of whole
// seconds from MinEvery to MaxEvery (for a pushed watch, the period its
// pushes come at), keep from MinKeep to MaxKeep, a SECRET env:VAR or
// file:PATH. Errors wrap ErrInvalid.
func Parse(s string) (Declaration, error) {
	s = strings.TrimSpace(s)
	name, rest, ok := strings.Cut(s, "=")
	if !ok {
		return Declaration{}, invalid("%q: want name=URL[,every=1m][,keep=24]", s)
	}
	d := Declaration{Name: name, Every: DefaultEvery, Keep: DefaultKeep}
	if err := checkName(name); err != nil {
		return Declaration{}, err
	}
	parts := strings.Split(rest, ",")
	if parts[0] == JVM {
		d.URL = JVM
	} else {
		base, err := checkURL(name, parts[0])
		if err != nil {
			return Declaration{}, err
		}
		d.URL = base
	}
	seen := map[string]bool{}
	for _, opt := range parts[1:] {
		key, value, _ := strings.Cut(opt, "=")
		if seen[key] {
			return Declaration{}, invalid("watch %s: %s given twice", name, key)
		}
		seen[key] = true
		switch key {
		case "every":
			every, err := time.ParseDuration(value)
			if err != nil {
				return Declaration{}, invalid("watch %s: every=%q is not a duration such as 30s or 5m", name, value)
			}
			if every < MinEvery || every > MaxEvery || every%time.Second != 0 {
				return Declaration{}, invalid("watch %s: every must be whole seconds from %s to %s, not %s", name, MinEvery, MaxEvery, every)
			}
			d.Every = every
		case "keep":
			keep, err := strconv.Atoi(value)
			if err != nil || keep < MinKeep || keep > MaxKeep {
				return Declaration{}, invalid("watch %s: keep must be a number of snapshots from %d to %d, not %q", name, MinKeep, MaxKeep, value)
			}
			d.Keep = keep
		case "token", "bearer", "basic":
			sec, err := ParseSecret(value)
			if err != nil {
				return Declaration{}, invalid("watch %s: %s=%v", name, key, err)
			}
			switch key {
			case "token":
				d.Token = sec
			case "bearer":
				d.Bearer = sec
			default:
				d.Basic = sec
			}
		default:
			return Declaration{}, invalid("watch %s: unknown option %q after the URL (want every=DURATION, keep=N, bearer=SECRET, basic=SECRET or, for a JVM, token=SECRET; a comma in the URL is written %%2C)", name, opt)
		}
	}
	switch {
	case d.Pushed() && d.Token.IsZero():
		return Declaration{}, invalid("watch %s: a JVM that pushes needs token=env:VAR or token=file:PATH, the token its pushes carry", name)
	case d.Pushed() && (!d.Bearer.IsZero() || !d.Basic.IsZero()):
		return Declaration{}, invalid("watch %s: bearer= and basic= are a scraped target's credentials; a JVM that pushes carries token=", name)
	case !d.Pushed() && !d.Token.IsZero():
		return Declaration{}, invalid("watch %s: token= is for a JVM that pushes (name=jvm,token=…); a scraped target's credentials are bearer= or basic=", name)
	case !d.Bearer.IsZero() && !d.Basic.IsZero():
		return Declaration{}, invalid("watch %s: bearer= or basic=, not both", name)
	}
	return d, nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

func checkName(name string) error {
	if name == "" {
		return invalid("a watch needs a name before the '='")
	}
	if len(name) > MaxNameLen || !namePattern.MatchString(name) {
		return invalid("watch name %q: want at most %d letters, digits, '.', '_' or '-', starting with a letter or a digit", name, MaxNameLen)
	}
	return nil
}

// checkURL returns the target's base URL, scheme://host[:port][/path] with no
// trailing slash.
func checkURL(name, raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return "", invalid("watch %s: want an http or https URL of a Go program serving net/http/pprof, not %q", name, raw)
	}
	if u.User != nil {
		return "", invalid("watch %s: the URL may not carry credentials (%q)", name, u.Redacted())
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(raw, "#") {
		return "", invalid("watch %s: want scheme://host:port[/path] without a query or fragment, not %q", name, raw)
	}
	if u.Port() != "" {
		if p, err := strconv.Atoi(u.Port()); err != nil || p < 1 || p > 65535 {
			return "", invalid("watch %s: port %q is not a port number", name, u.Port())
		}
	}
	return u.Scheme + "://" + u.Host + strings.TrimRight(u.EscapedPath(), "/"), nil
}

// String is the declaration as Parse reads it: where its credentials are,
// never what they are.
func (d Declaration) String() string {
	s := fmt.Sprintf("%s=%s,every=%s,keep=%d", d.Name, d.URL, d.Every, d.Keep)
	for _, o := range []struct {
		key string
		sec Secret
	}{{"token", d.Token}, {"bearer", d.Bearer}, {"basic", d.Basic}} {
		if !o.sec.IsZero() {
			s += "," + o.key + "=" + o.sec.String()
		}
	}
	return s
}

// ParseFile reads a watch file: one declaration per line in Parse's syntax;
// blank lines and lines starting with '#' are skipped. A watch declared twice,
// a line longer than 4 KiB or more than MaxDeclarations declarations is an
// error; errors name the file (name) and the line.
func ParseFile(r io.Reader, name string) ([]Declaration, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 4096)
	var out []Declaration
	seen := map[string]int{}
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		d, err := Parse(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if first, ok := seen[d.Name]; ok {
			return nil, fmt.Errorf("%s:%d: %w: watch %s is declared on line %d already", name, n, ErrInvalid, d.Name, first)
		}
		seen[d.Name] = n
		if len(out) == MaxDeclarations {
			return nil, fmt.Errorf("%s:%d: %w: more than %d watches", name, n, ErrInvalid, MaxDeclarations)
		}
		out = append(out, d)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s: %w: a line longer than 4096 bytes", name, ErrInvalid)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// ReadFile reads the watch file at path (see ParseFile).
func ReadFile(path string) ([]Declaration, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseFile(f, path)
}

// MaxDeclarations bounds the watches one server runs.
const MaxDeclarations = 1000

// Flags collects repeated -watch flags (a flag.Value).
type Flags []Declaration

// String lists the declarations, comma-separated.
func (f *Flags) String() string {
	if f == nil {
		return ""
	}
	s := make([]string, len(*f))
	for i, d := range *f {
		s[i] = d.String()
	}
	return strings.Join(s, " ")
}

// Set adds one -watch value.
func (f *Flags) Set(s string) error {
	d, err := Parse(s)
	if err != nil {
		return err
	}
	return f.add(d)
}

func (f *Flags) add(d Declaration) error {
	for _, o := range *f {
		if o.Name == d.Name {
			return fmt.Errorf("%w: watch %s is declared twice", ErrInvalid, d.Name)
		}
	}
	if len(*f) == MaxDeclarations {
		return fmt.Errorf("%w: more than %d watches", ErrInvalid, MaxDeclarations)
	}
	*f = append(*f, d)
	return nil
}

// Merge adds the declarations of a watch file to the flags' (a watch declared
// in both is an error).
func (f *Flags) Merge(ds []Declaration) error {
	for _, d := range ds {
		if err := f.add(d); err != nil {
			return err
		}
	}
	return nil
}
