package app_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/termarena/termarena/app"
	"github.com/termarena/termarena/games"
	"github.com/termarena/termarena/store"
)

// What main runs: every game of the catalogue, and every ranked queue it
// has, unless the config names the games.
func TestAssembleServesTheWholeCatalogue(t *testing.T) {
	c := app.DefaultConfig()
	c.Data = t.TempDir()
	a, err := app.Assemble(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := a.Close(); err != nil {
			t.Error(err)
		}
	})
	if got, want := a.Lobby.Rooms.Games().RankedQueues(), games.Catalog().RankedQueues(); !slices.Equal(got, want) || len(want) < 2 {
		t.Errorf("ranked queues = %v, want the catalogue's %v", got, want)
	}
	if got, want := a.Service.Modes(), games.Catalog().RankedQueues(); !slices.Equal(got, want) {
		t.Errorf("service modes = %v, want %v", got, want)
	}
	var queues []string
	for _, m := range a.Lobby.Matchmaker.Modes() {
		queues = append(queues, string(m))
	}
	if want := games.Catalog().RankedQueues(); !slices.Equal(queues, want) {
		t.Errorf("matchmaker queues = %v, want %v", queues, want)
	}
	if a.HostKey.Signer == nil || !a.HostKey.Created {
		t.Errorf("host key = %+v, want one created in the data dir", a.HostKey)
	}

	// A second server on the same data dir is refused, and leaves
	// nothing open behind it.
	c.StoreTimeout = -1
	if _, err := app.Assemble(c); !errors.Is(err, store.ErrInUse) {
		t.Errorf("second Assemble on the same data = %v, want ErrInUse", err)
	}
}

// Closing twice is harmless: the harness and a failed start may both.
func TestCloseTwice(t *testing.T) {
	c := app.DefaultConfig()
	c.Data, c.StoreTimeout = t.TempDir(), time.Second
	a, err := app.Assemble(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
}
