package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"unicode"
)

const (
	minNameLen = 2
	maxNameLen = 16

	// MaxNameInput bounds how much of an attacker-chosen string is
	// lower-cased before validation. The only non-ASCII runes that lower-case
	// to ASCII take two or three bytes, so no acceptable name is longer.
	MaxNameInput = 4 * maxNameLen

	// derivedBaseLen leaves room for "-" and up to four digits within
	// maxNameLen.
	derivedBaseLen = 11
	// Derived names give up on suffixes early: past that point the SSH user
	// name is a pile-up, and scanning on inside Login's write transaction
	// would only slow every login down.
	maxDerivedSuffix  = 999
	maxFallbackSuffix = 9999

	guestPrefix = "guest"

	nameRule = "name must be 2–16 characters of a-z, 0-9, _ or -, starting with a letter or digit"
)

// nameError's message is written for players, so callers may show it as is.
type nameError struct{ msg string }

func (e *nameError) Error() string        { return e.msg }
func (e *nameError) Is(target error) bool { return target == ErrInvalidName }

// NormalizeName is the form names are stored and compared in.
func NormalizeName(name string) string { return strings.ToLower(name) }

// ValidateName accepts any case and judges the lower-cased form, since that
// is the form that gets stored: "Bob" is valid and means "bob". Errors match
// ErrInvalidName and explain the rule in words fit to show a player.
//
// Beyond length and alphabet, a name must start with a letter or digit so it
// can never be read as a command-line flag (admin ban -x …), must not be a
// reserved word, and must not start with "guest": guests are shown as
// guest-xxxx and a keyed player must never pass for one.
func ValidateName(name string) error {
	if len(name) > MaxNameInput {
		return &nameError{nameRule}
	}
	n := NormalizeName(name)
	if !wellFormed(n) {
		return &nameError{nameRule}
	}
	if strings.HasPrefix(n, guestPrefix) {
		return &nameError{fmt.Sprintf("names starting with %q are reserved for guests", guestPrefix)}
	}
	if isReserved(n) {
		return &nameError{fmt.Sprintf("name %q is reserved", n)}
	}
	return nil
}

func wellFormed(n string) bool {
	if len(n) < minNameLen || len(n) > maxNameLen || !isAlnum(n[0]) {
		return false
	}
	for i := 0; i < len(n); i++ {
		if !isNameByte(n[i]) {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool    { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
func isNameByte(c byte) bool { return isAlnum(c) || c == '_' || c == '-' }

// isReserved lists words that would let a player pose as staff, the system
// or a pronoun in chat. A switch rather than a map keeps it immutable.
func isReserved(n string) bool {
	switch n {
	case "admin", "administrator", "root", "system", "server", "guest",
		"mod", "moderator", "operator", "sysop", "staff", "support",
		"termarena", "null", "nil", "nobody", "everyone", "all", "me",
		"you", "help", "anonymous", "spectator", "console":
		return true
	}
	return false
}

// NameCandidates yields, best first and without repeats, every name Login
// may give a new player; Login takes the first one that is free. All of them
// pass ValidateName.
//
//  1. the SSH user name, lower-cased, if it is a valid name;
//  2. a base derived from it (lower-cased, only [a-z0-9_-], leading and
//     trailing _ and - dropped, at most 11 characters), then base-2 …
//     base-999, if the base is itself a valid name;
//  3. player-xxxx with xxxx from the fingerprint's hash, then player-xxxx-2 …
//     player-xxxx-9999.
//
// A reserved user name ("root") skips step 2 too, so nobody gets root-2.
func NameCandidates(sshUser, fingerprint string) iter.Seq[string] {
	return func(yield func(string) bool) {
		var direct string
		if ValidateName(sshUser) == nil {
			direct = NormalizeName(sshUser)
			if !yield(direct) {
				return
			}
		}
		if base := derivedBase(sshUser); ValidateName(base) == nil {
			if !withSuffixes(base, base == direct, maxDerivedSuffix, yield) {
				return
			}
		}
		withSuffixes(FallbackName(fingerprint), false, maxFallbackSuffix, yield)
	}
}

func withSuffixes(base string, skipBare bool, maxSuffix int, yield func(string) bool) bool {
	if !skipBare && !yield(base) {
		return false
	}
	for i := 2; i <= maxSuffix; i++ {
		n := base + "-" + strconv.Itoa(i)
		if len(n) > maxNameLen {
			break
		}
		if !yield(n) {
			return false
		}
	}
	return true
}

func derivedBase(sshUser string) string {
	var b strings.Builder
	for _, r := range sshUser {
		r = unicode.ToLower(r)
		if r > unicode.MaxASCII || !isNameByte(byte(r)) {
			continue
		}
		if b.Len() == 0 && !isAlnum(byte(r)) {
			continue
		}
		b.WriteRune(r)
		if b.Len() == derivedBaseLen {
			break
		}
	}
	return strings.TrimRight(b.String(), "_-")
}

// FallbackName is the last resort of NameCandidates ("player-" and four
// hex digits). It is deterministic so the same key keeps getting the same
// suggestion, and hashed so it reveals nothing readable about the key.
func FallbackName(fingerprint string) string {
	sum := sha256.Sum256([]byte(fingerprint))
	return "player-" + hex.EncodeToString(sum[:2])
}
