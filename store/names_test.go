package store

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateName(t *testing.T) {
	tests := []struct {
		name    string
		wantErr string // substring of the message; "" means valid
	}{
		{"bob", ""},
		{"ab", ""},
		{"abcdefghijklmnop", ""}, // 16
		{"a_b-c", ""},
		{"9lives", ""},
		{"bob-2", ""},
		{"player-1a2b", ""},
		{"Bob", ""},             // judged as "bob"
		{"BOB_THE-BUILDER", ""}, // judged as "bob_the-builder"
		{"guesthouse", "reserved for guests"},
		{"a", "2–16 characters"},
		{"", "2–16 characters"},
		{"abcdefghijklmnopq", "2–16 characters"}, // 17
		{"bob smith", "2–16 characters"},
		{"bob!", "2–16 characters"},
		{"bøb", "2–16 characters"},
		{"bob\x1b[31m", "2–16 characters"},
		{"-bob", "starting with a letter or digit"},
		{"_bob", "starting with a letter or digit"},
		{"--", "starting with a letter or digit"},
		{strings.Repeat("a", 10000), "2–16 characters"},
		{"admin", `name "admin" is reserved`},
		{"ADMIN", `name "admin" is reserved`},
		{"root", "is reserved"},
		{"Moderator", "is reserved"},
		{"termarena", "is reserved"},
		{"me", "is reserved"},
		{"console", "is reserved"},
		{"guest", "reserved for guests"},
		{"guest-1a2b", "reserved for guests"},
		{"Guest42", "reserved for guests"},
		{"admin2", ""}, // only the exact words are reserved
	}
	for _, tt := range tests {
		err := ValidateName(tt.name)
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("ValidateName(%q) = %v, want nil", tt.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("ValidateName(%q) = nil, want error containing %q", tt.name, tt.wantErr)
			continue
		}
		if !errors.Is(err, ErrInvalidName) {
			t.Errorf("ValidateName(%q) = %v, does not match ErrInvalidName", tt.name, err)
		}
		if !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("ValidateName(%q) = %q, want it to contain %q", tt.name, err, tt.wantErr)
		}
	}
}

func TestNormalizeName(t *testing.T) {
	if got := NormalizeName("BoB_X"); got != "bob_x" {
		t.Errorf("NormalizeName = %q", got)
	}
}

func TestDerivedBase(t *testing.T) {
	tests := map[string]string{
		"Bob Smith!":                "bobsmith",
		"averyveryverylongusername": "averyveryve",
		"--bob--":                   "bob",
		"__":                        "",
		"Ünïcode":                   "ncode",
		"bob\x1b[31m":               "bob31m",
		"":                          "",
		"a-b-c-d-e-f-g":             "a-b-c-d-e-f", // cut at 11, then trailing "-" dropped
	}
	for in, want := range tests {
		if got := derivedBase(in); got != want {
			t.Errorf("derivedBase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNameCandidatesStopEarly(t *testing.T) {
	var got []string
	for n := range NameCandidates("bob", "SHA256:x") {
		got = append(got, n)
		if len(got) == 3 {
			break
		}
	}
	want := []string{"bob", "bob-2", "bob-3"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("candidates = %v, want %v", got, want)
	}
}

// FuzzNameCandidates checks that whatever an SSH client sends as its user
// name, every name Login could pick is valid, distinct and already normalised.
func FuzzNameCandidates(f *testing.F) {
	for _, s := range []string{"bob", "Bob Smith!", "root", "", "guest", "-x", "averyveryverylongusername", "K\u212a"} {
		f.Add(s, "SHA256:abc")
	}
	f.Fuzz(func(t *testing.T, user, fp string) {
		seen := map[string]bool{}
		for n := range NameCandidates(user, fp) {
			if err := ValidateName(n); err != nil {
				t.Fatalf("candidate %q for %q: %v", n, user, err)
			}
			if n != NormalizeName(n) {
				t.Fatalf("candidate %q not normalised", n)
			}
			if seen[n] {
				t.Fatalf("candidate %q repeated for %q", n, user)
			}
			seen[n] = true
		}
		if len(seen) == 0 {
			t.Fatalf("no candidates for %q", user)
		}
	})
}
