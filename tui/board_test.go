package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/store"
)

// feed runs cmd and hands the lobby what it returns.
func feed(t *testing.T, m *Lobby, cmd tea.Cmd) {
	t.Helper()
	for _, msg := range runCmd(t, cmd) {
		switch msg.(type) {
		case boardMsg, profileMsg:
			m.Update(msg)
		}
	}
}

// The lobby's leaderboard and profile screens read the service layer's
// queries, the ones `leaderboard` and `profile` answer with: a ranked win
// shows on the board, in the winner's profile and in the loser's own.
func TestLeaderboardAndProfileScreensReadTheService(t *testing.T) {
	st := testStore(t)
	for _, p := range [][2]string{{"SHA256:ann", "ann"}, {"SHA256:ben", "ben"}} {
		if _, _, err := st.Login(context.Background(), p[0], "ssh-ed25519", p[1]); err != nil {
			t.Fatal(err)
		}
	}
	_, err := st.RecordMatch(context.Background(), store.MatchEnd{Match: store.MatchRecord{Mode: "pong-1v1", Ranked: true, Room: "r1", Start: time.Now(), Duration: time.Minute,
		Players: []store.MatchPlayer{{Fingerprint: "SHA256:ben", Place: 1, Score: 5}, {Fingerprint: "SHA256:ann", Slot: 1, Place: 2, Score: 2}}}, Rate: func(cur []store.Rating) ([]store.Rating, error) {
		cur[0].Rating, cur[0].Games, cur[0].Wins, cur[0].Deviation = cur[0].Rating+20, 1, 1, 80
		cur[1].Rating, cur[1].Games, cur[1].Losses, cur[1].Deviation = cur[1].Rating-20, 1, 1, 90
		return cur, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := NewLobby(LobbyDeps{Ctx: ctx, Player: game.Player{ID: "SHA256:ann", Name: "ann"}, Online: lobby.NewHub(), Rooms: testRooms(t), Store: st})
	m.w, m.h = 120, 40

	feed(t, m, press(m, "L"))
	scr := plain(m)
	ben, ann := strings.Index(scr, "ben"), strings.Index(scr, "ann")
	if !strings.Contains(scr, "   1  ben                 1520   80      1  100%") || ann < ben {
		t.Fatalf("leaderboard:\n%s", scr)
	}
	feed(t, m, press(m, "enter"))
	if scr := plain(m); !strings.Contains(scr, "ben") || !strings.Contains(scr, "pong-1v1   1520 ± 80    #1            1    1    0") ||
		!strings.Contains(scr, "pong-1v1   won     5 vs ann 2  +20") {
		t.Fatalf("ben's profile from the leaderboard:\n%s", scr)
	}
	press(m, "esc", "esc")
	feed(t, m, press(m, "m"))
	if scr := plain(m); !strings.Contains(scr, "pong-1v1   1480 ± 90    #2            1    0    1") || !strings.Contains(scr, "pong-1v1   2nd     2 vs ben 5  -20") {
		t.Fatalf("ann's own profile:\n%s", scr)
	}
}
