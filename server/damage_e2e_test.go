package server_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
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
	var page, pageSize int64
	if err := h.Store.DB().View(func(tx *bbolt.Tx) error {
		page, pageSize = int64(tx.Bucket([]byte("players")).Root()), int64(tx.DB().Info().PageSize)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(h.Store.Path(), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	garbage := make([]byte, pageSize)
	for i := range garbage {
		garbage[i] = byte(i*7 + 3)
	}
	if _, err := f.WriteAt(garbage, page*pageSize); err != nil {
		t.Fatal(err)
	}
	f.Close()

	r := sshtest.Run(t, h.Addr, "alice", sshtest.NewKey(t), "whoami")
	if r.Code != 1 || !strings.Contains(r.Stderr, "the server's database is damaged") {
		t.Errorf("a keyed login on damaged player pages: %+v", r)
	}
	if r := sshtest.Run(t, h.Addr, "visitor", nil, "whoami"); r.Code != 0 || !strings.Contains(r.Stdout, "guest-") {
		t.Errorf("a guest after the damage: %+v", r)
	}
}
