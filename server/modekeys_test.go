package server_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/game/pong"
	"github.com/termarena/termarena/hostkeys"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/store/bolt"
)

// reKeyed is Pong with its free-for-all's menu key made the ranked
// picker's own "q".
type reKeyed struct{ pong.Kind }

func (k reKeyed) Modes() []game.Mode {
	ms := k.Kind.Modes()
	for i := range ms {
		if ms[i].Name == "ffa" {
			ms[i].Key = "q"
		}
	}
	return ms
}

// Issue 20 item 6: a game whose mode key a lobby menu keeps for itself
// stops the server at start, naming the game, the mode and the key.
func TestServerRefusesAModeKeyTheMenusTake(t *testing.T) {
	dir := t.TempDir()
	st, err := bolt.Open(filepath.Join(dir, "termarena.db"), bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	key, err := hostkeys.LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := lobby.Start(st, lobby.Config{Rooms: lobby.RoomsConfig{Games: game.Catalog{reKeyed{}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Stop()
	_, err = server.New(server.DefaultConfig(), server.Deps{Store: st, Hub: svc.Hub, Rooms: svc.Rooms, Matchmaker: svc.Matchmaker, HostKey: key.Signer})
	if err == nil || !strings.Contains(err.Error(), `game pong, mode ffa: ranked menu key "q"`) {
		t.Fatalf("server.New with pong ffa on the picker's q: %v", err)
	}
}
