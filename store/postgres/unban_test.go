package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/termarena/termarena/store"
	"github.com/termarena/termarena/store/postgres/pgtest"
)

// TestRemoveBanLiftsIt: an admin's unban lifts the player's ban, says
// how many it lifted, lets them in again and is in the audit log under
// the name the ban was taken with.
func TestRemoveBanLiftsIt(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, pgtest.URL(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const fp = "SHA256:bob"
	if _, _, err := st.Login(ctx, fp, "ssh-ed25519", "bob"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddBan(ctx, store.Ban{Fingerprint: fp, Reason: "spam", Actor: "cat", Expires: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	n, err := st.RemoveBan(ctx, "bob", store.By{Actor: "cat", Reason: "appeal"})
	if err != nil || n != 1 {
		t.Fatalf("RemoveBan: %d, %v; want 1 lifted", n, err)
	}
	if b, banned, err := st.ActiveBan(ctx, fp, nil); err != nil || banned {
		t.Errorf("still banned after the unban: %+v %v %v", b, banned, err)
	}
	log, err := st.AuditLog(ctx, time.Time{}, 1)
	if err != nil || len(log) != 1 || log[0].Action != store.ActionUnban || log[0].Target != "bob" {
		t.Errorf("audit after the unban: %+v, %v", log, err)
	}
}
