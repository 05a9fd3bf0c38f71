package server_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
	"github.com/termarena/termarena/store/bolt"
	"github.com/termarena/termarena/store/dump"
	"github.com/termarena/termarena/store/postgres/pgtest"
)

// TestPostgresAdminBackupRestoresIntoBolt: on PostgreSQL, `admin backup`
// streams the portable export; read back into a bbolt data dir (what
// `termarena migrate --from BACKUP --to DIR` does), it starts a
// single-node server with the same names, ratings, match, replay and ban.
func TestPostgresAdminBackupRestoresIntoBolt(t *testing.T) {
	url := pgtest.URL(t)
	adminKey, annKey, benKey := sshtest.NewKey(t), sshtest.NewKey(t), sshtest.NewKey(t)
	admins := map[string]bool{gossh.FingerprintSHA256(adminKey.PublicKey()): true}
	h := startOnStore(t, t.TempDir(), url, admins, onePointPong(time.Second))

	if r := sshtest.Run(t, h.Addr, "ann", annKey, "rename annie"); r.Code != 0 {
		t.Fatalf("rename: %+v", r)
	}
	ann := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ann", annKey)), 80, 24, "play pong-1v1")
	ann.WaitFor(wait, "Looking for a pong-1v1 match")
	ben := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ben", benKey)), 80, 24, "play 1v1")
	for _, tm := range []*sshtest.Term{ann, ben} {
		tm.WaitFor(30*time.Second, "game over")
		tm.WaitFor(wait, "+241", "-241")
	}
	ann.Close()
	ben.Close()
	if r := sshtest.Run(t, h.Addr, "root", adminKey, "admin ban ben 1h cheating"); r.Code != 0 {
		t.Fatalf("admin ban: %+v", r)
	}
	before := profileJSON(t, h.Addr, "annie")
	if len(before.Matches) != 1 {
		t.Fatalf("annie's profile: %+v", before)
	}

	backup := sshtest.Run(t, h.Addr, "root", adminKey, "admin backup")
	if backup.Code != 0 || !strings.HasPrefix(backup.Stdout, `{"format":"termarena-dump","v":1,`) {
		t.Fatalf("admin backup on PostgreSQL: exit %d, stderr %q, starts %.80q", backup.Code, backup.Stderr, backup.Stdout)
	}
	h.Stop()

	dir := t.TempDir()
	st, err := bolt.Open(filepath.Join(dir, "termarena.db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	counts, err := st.Import(context.Background(), func(emit func(dump.Record) error) error {
		_, err := dump.Read(bytes.NewReader([]byte(backup.Stdout)), emit)
		return err
	})
	st.Close()
	if err != nil {
		t.Fatalf("reading the backup into bbolt: %v", err)
	}
	if counts.Copied[dump.KindMatch] != 1 || counts.Copied[dump.KindReplay] != 1 || counts.Copied[dump.KindBan] != 1 {
		t.Fatalf("the backup held %+v", counts)
	}

	h2 := start(t, dir, server.DefaultConfig(), admins)
	after := profileJSON(t, h2.Addr, "annie")
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("annie on the bbolt copy: %+v\non PostgreSQL: %+v", after, before)
	}
	if r := sshtest.Run(t, h2.Addr, "ben", benKey, "whoami"); r.Code != server.ExitDenied || !strings.Contains(r.Stderr, "cheating") {
		t.Errorf("ben on the bbolt copy: %+v, want refused (77) with the ban's reason", r)
	}
	cast := sshtest.Run(t, h2.Addr, "x", sshtest.NewKey(t), fmt.Sprintf("replay %d --cast", after.Matches[0].ID))
	if cast.Code != 0 || !strings.Contains(cast.Stdout, "annie") || !strings.Contains(cast.Stdout, "game over") {
		t.Errorf("the replay on the bbolt copy: exit %d, stderr %q", cast.Code, cast.Stderr)
	}
}
