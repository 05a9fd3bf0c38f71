package lobby

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/bolt"
)

// leavesRefused is the real store but for the write of a strike on its
// own, which fails as a full disk's would: what a crash between that
// write and the match's leaves behind.
type leavesRefused struct{ *bolt.Store }

func (leavesRefused) PutLeaves(context.Context, string, store.Leaves) error {
	return fmt.Errorf("injected: %w", store.ErrCannotSave)
}

// A ranked leaver's strike is stored with the match they left, in its
// transaction, not only by the write made when they walked out: when that
// one is lost, the match end still carries it, and a restart forgives
// nobody.
func TestRankedLeaveIsStoredWithItsMatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	st, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, p := range []struct{ fp, name string }{{"SHA256:aaa", "ann"}, {"SHA256:bbb", "ben"}} {
		if _, _, err := st.Login(context.Background(), p.fp, "ssh-ed25519", p.name); err != nil {
			t.Fatal(err)
		}
	}
	games := pongGames(func(m pong.Mode) pong.Config {
		c := pong.DefaultConfig(m)
		c.PointsToWin, c.Lives = 1, 1
		return c
	})
	svc, err := Start(leavesRefused{st}, Config{Rooms: RoomsConfig{Room: game.RoomConfig{Countdown: -1}, Games: games}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// ann left a ranked match before (forgiven): this leave is her second.
	svc.Results.cooldowns.RecordLeave("SHA256:aaa", time.Now().Add(-time.Hour))
	r := matchUp(t, svc)
	if err := r.Leave(context.Background(), "SHA256:aaa"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the result to be saved", func() bool { o := r.Outcome(); return o != nil && o.MatchID != 0 })
	o := r.Outcome()
	if c := o.Changes[r.Seats["SHA256:aaa"]]; !c.Left || c.Cooldown.Before(time.Now().Add(4*time.Minute)) || c.Games != 1 {
		t.Errorf("ann's change %+v; want a left game with a cooldown, 1 game played", c)
	}
	svc.Stop()

	all, err := st.LoadLeaves(context.Background(), nil)
	if err != nil || all["SHA256:aaa"].Strikes != 2 {
		t.Fatalf("stored strikes %+v, %v; want ann's two, stored with the match", all, err)
	}
	svc2, err := Start(st, Config{Rooms: RoomsConfig{Games: games}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer svc2.Stop()
	if _, err := svc2.Matchmaker.Join(RankedPong1v1, "SHA256:aaa", "ann", 1500); !errors.Is(err, ErrCooldown) {
		t.Fatalf("a restart forgave the leaver: %v", err)
	}
}
