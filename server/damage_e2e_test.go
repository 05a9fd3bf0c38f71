package server_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
	"github.com/termarena/termarena/store"
)

// TestDamagedPlayerPagesAreSaidSo garbles the root page of the players
// bucket under a serving server, as a bad sector would. A keyed login can
// no longer read its record: it is told the database is damaged (not
// "please try again", which cannot help) and exits 1; the server plays on
// for guests.
func TestDamagedPlayerPagesAreSaidSo(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	var wg sync.WaitGroup
	for i := range 2000 {
		wg.Go(func() {
			if _, _, err := h.Store.Login(context.Background(), fmt.Sprintf("SHA256:k%04d", i), "ssh-ed25519", fmt.Sprintf("p%04d", i)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	garbleRoot(t, h, "players")

	r := sshtest.Run(t, h.Addr, "alice", sshtest.NewKey(t), "whoami")
	if r.Code != 1 || !strings.Contains(r.Stderr, "the server's database is damaged") {
		t.Errorf("a keyed login on damaged player pages: %+v", r)
	}
	if r := sshtest.Run(t, h.Addr, "visitor", nil, "whoami"); r.Code != 0 || !strings.Contains(r.Stdout, "guest-") {
		t.Errorf("a guest after the damage: %+v", r)
	}
}

// TestDamagedReplaysAreSaidSo: `replay N` on a damaged replays bucket says
// the database is damaged, not "please try again", which cannot help.
func TestDamagedReplaysAreSaidSo(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	ctx := context.Background()
	var last uint64
	for range 40 {
		m, err := h.Store.RecordMatch(ctx, store.MatchEnd{Match: store.MatchRecord{Mode: "pong-1v1", Room: "r1", Start: time.Now(), Duration: time.Minute,
			Players: []store.MatchPlayer{{Name: "a", Slot: 0, Place: 1, Score: 5}, {Name: "b", Slot: 1, Place: 2}}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Store.PutReplay(ctx, m.ID, bytes.Repeat([]byte{'r'}, 2000)); err != nil {
			t.Fatal(err)
		}
		last = m.ID
	}
	garbleRoot(t, h, "replays")
	r := sshtest.Run(t, h.Addr, "visitor", nil, fmt.Sprintf("replay %d --cast", last))
	if r.Code != 1 || !strings.Contains(r.Stderr, "the server's database is damaged") || strings.Contains(r.Stderr, "try again") {
		t.Errorf("replay on a damaged replays bucket: %+v", r)
	}
}

// garbleRoot overwrites the root page of bucket with garbage, as a bad
// sector would, under the serving server.
func garbleRoot(t *testing.T, h *harness, bucket string) {
	t.Helper()
	var page, pageSize int64
	if err := h.Store.DB().View(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(bucket))
		if b == nil || b.Root() == 0 {
			return fmt.Errorf("bucket %s has no page of its own", bucket)
		}
		page, pageSize = int64(b.Root()), int64(tx.DB().Info().PageSize)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(h.Store.Path(), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	garbage := make([]byte, pageSize)
	for i := range garbage {
		garbage[i] = byte(i*7 + 3)
	}
	if _, err := f.WriteAt(garbage, page*pageSize); err != nil {
		t.Fatal(err)
	}
}
