package chat

import (
	"testing"
	"time"
)

func TestKindStrings(t *testing.T) {
	if Say.String() != "say" || Notice.String() != "notice" || Kind(99).String() != "kind(99)" {
		t.Error("Kind.String")
	}
	if Ban.String() != "ban" || ModKind(0).String() != "modkind(0)" {
		t.Error("ModKind.String")
	}
	if Admin.String() != "admin" || Role(9).String() != "role(9)" {
		t.Error("Role.String")
	}
	if TeamChannel("r1", 1) != "team:r1:1" || WatchChannel("r1") != "watch:r1" || RoomChannel("r1") != "room:r1" {
		t.Error("channel keys")
	}
}

// TestLiftMuteTellsTheMember: lifting a mute in force tells every session
// of the member; lifting none, or one that already ran out, says nothing.
func TestLiftMuteTellsTheMember(t *testing.T) {
	e := newEnv(t, Config{Filter: noFilter(t)})
	bob, carol := player("bob"), player("carol")
	b1, b2 := e.c.Join(bob, LobbyChannel), e.c.Join(bob, RoomChannel("r1"))
	cs := e.c.Join(carol, LobbyChannel)
	e.c.SetMuted(bob.ID, e.now.Add(time.Minute), "spam")
	e.refused(bob, LobbyChannel, "hi", "you are muted")

	e.c.LiftMute(bob.ID, e.now)
	for i, s := range []*Sub{b1, b2} {
		got := s.Drain()
		if len(got) != 1 || got[0].Kind != Notice || got[0].Text != UnmutedText || !got[0].Time.Equal(e.now) {
			t.Fatalf("session %d of bob got %+v", i, got)
		}
	}
	if got := cs.Drain(); len(got) != 0 {
		t.Fatalf("carol was told about bob's mute: %+v", got)
	}
	e.mustSend(bob, LobbyChannel, "thanks")
	b1.Drain()

	e.c.LiftMute(bob.ID, e.now) // not muted
	e.c.SetMuted(bob.ID, e.now.Add(time.Minute), "")
	e.advance(2 * time.Minute)
	e.c.LiftMute(bob.ID, e.now) // ran out already
	if got := b1.Drain(); len(got) != 0 {
		t.Fatalf("bob was told of a mute not in force: %+v", got)
	}
}
