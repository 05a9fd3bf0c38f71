package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/service"
	"github.com/termarena/termarena/store"
)

// Issue 20: a 2v2 in a player's profile listed their teammate among the
// opponents ("11 vs bob 11, carol 7, dave 7"). Teammates are "with",
// opponents "vs" with their team's score once; a 1v1 reads as before.
// Read from a real store through the service the profile screen uses.
func TestProfileListsATeammateAsOne(t *testing.T) {
	st := testStore(t)
	for _, n := range []string{"alice", "bob", "carol", "dave"} {
		if _, _, err := st.Login(context.Background(), "SHA256:"+n, "ssh-ed25519", n); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	rec := func(mode string, ps ...store.MatchPlayer) {
		t.Helper()
		for i := range ps {
			ps[i].Slot = i
		}
		if _, err := st.RecordMatch(context.Background(), store.MatchEnd{Match: store.MatchRecord{Mode: mode, Start: start, Duration: time.Minute, Players: ps}}); err != nil {
			t.Fatal(err)
		}
		start = start.Add(time.Hour)
	}
	rec("casual-1v1", store.MatchPlayer{Fingerprint: "SHA256:alice", Place: 1, Score: 11}, store.MatchPlayer{Fingerprint: "SHA256:bob", Place: 2, Score: 7})
	rec("casual-2v2",
		store.MatchPlayer{Fingerprint: "SHA256:alice", Team: 0, Place: 1, Score: 11}, store.MatchPlayer{Fingerprint: "SHA256:carol", Team: 1, Place: 2, Score: 7},
		store.MatchPlayer{Fingerprint: "SHA256:bob", Team: 0, Place: 1, Score: 11}, store.MatchPlayer{Fingerprint: "SHA256:dave", Team: 1, Place: 2, Score: 7})
	pr, err := service.New(st, nil).Profile(t.Context(), "SHA256:alice")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, mt := range pr.Matches {
		lines = append(lines, matchLine(mt, "SHA256:alice"))
	}
	got := strings.Join(lines, "\n")
	for _, want := range []string{"casual-2v2 won     11 with bob vs carol + dave 7", "casual-1v1 won     11 vs bob 7"} {
		if !strings.Contains(got, want) {
			t.Fatalf("alice's profile lacks %q:\n%s", want, got)
		}
	}
}
