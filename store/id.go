package store

import (
	"crypto/rand"
	"encoding/base32"
	"strings"
)

// idEncoding is lowercase base32 without padding: URL-safe and easy to read aloud.
var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// NewID returns a random, unguessable id of 130 bits (26 characters of lowercase
// base32), for reports and runs.
func NewID() string {
	var b [17]byte // 136 bits of randomness; 26 characters carry 130 of them
	rand.Read(b[:])
	return idEncoding.EncodeToString(b[:])[:26]
}

// ValidID reports whether s has the form NewID produces, so that handlers can
// refuse anything else before it reaches a query.
func ValidID(s string) bool {
	if len(s) != 26 {
		return false
	}
	return strings.Trim(s, "abcdefghijklmnopqrstuvwxyz234567") == ""
}

// ValidSHA256 reports whether s is a lowercase hex SHA-256.
func ValidSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}
