package watch

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Secret is where a credential is: an environment variable (env:VAR) or a
// file (file:PATH), read when it is used (Read), so that a rotated file is
// read again. A declaration holds a Secret, never the credential itself, and
// nothing shows the credential: not the pages, the metrics or the logs.
type Secret struct {
	source string
}

// maxSecretBytes bounds a secret read from a file.
const maxSecretBytes = 4 << 10

// ParseSecret reads env:VAR or file:PATH.
func ParseSecret(s string) (Secret, error) {
	kind, ref, ok := strings.Cut(s, ":")
	switch {
	case !ok || ref == "":
	case kind == "env" && !strings.ContainsAny(ref, "= \t"):
		return Secret{source: s}, nil
	case kind == "file":
		return Secret{source: s}, nil
	}
	return Secret{}, fmt.Errorf("%q: want env:VAR or file:PATH, where the secret is (never the secret itself)", s)
}

// IsZero tells no secret.
func (s Secret) IsZero() bool { return s.source == "" }

// String is where the secret is (env:VAR or file:PATH), not the secret.
func (s Secret) String() string { return s.source }

// ErrNoSecret is a secret whose variable is unset or empty, or whose file is
// empty or missing.
var ErrNoSecret = errors.New("no secret there")

// Read reads the secret: the variable's value, or the file's first line
// (at most 4 KiB), without surrounding white space. An empty secret is
// ErrNoSecret.
func (s Secret) Read() (string, error) {
	kind, ref, _ := strings.Cut(s.source, ":")
	var v string
	switch kind {
	case "env":
		v = os.Getenv(ref)
	case "file":
		f, err := os.Open(ref)
		if err != nil {
			return "", fmt.Errorf("%s: %w", s.source, err)
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, maxSecretBytes+1))
		if err != nil {
			return "", fmt.Errorf("%s: %w", s.source, err)
		}
		if len(b) > maxSecretBytes {
			return "", fmt.Errorf("%s: longer than %d bytes", s.source, maxSecretBytes)
		}
		v, _, _ = strings.Cut(string(b), "\n")
	default:
		return "", fmt.Errorf("%w: no secret declared", ErrNoSecret)
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return "", fmt.Errorf("%s: %w", s.source, ErrNoSecret)
	}
	return v, nil
}

// CheckSecrets checks that every secret a declaration names can be read, so
// that a server refuses to start with a watch it could not authenticate.
func (d Declaration) CheckSecrets() error {
	for _, sec := range []Secret{d.Token, d.Bearer, d.Basic} {
		if sec.IsZero() {
			continue
		}
		v, err := sec.Read()
		if err != nil {
			return fmt.Errorf("watch %s: %w", d.Name, err)
		}
		if sec == d.Token && len(v) < MinTokenLen {
			return fmt.Errorf("watch %s: the token in %s has %d characters; a push token has at least %d", d.Name, sec, len(v), MinTokenLen)
		}
		if sec == d.Basic && !strings.Contains(v, ":") {
			return fmt.Errorf("watch %s: %s holds no user:password", d.Name, sec)
		}
	}
	return nil
}

// MinTokenLen is the shortest push token a watch accepts.
const MinTokenLen = 16
