package admin

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"strings"
	"testing"

	"github.com/termarena/termarena/store/bolt"
)

// TestBackupOnAFullDisk: a store that cannot save (here opened read-only,
// as every write fails on a full disk) and a spool directory that cannot
// take the copy. The backup, the tool for that moment, still streams a
// whole data file, saying it went straight from the database and that the
// audit log could not record it; before, it failed on the audit entry.
func TestBackupOnAFullDisk(t *testing.T) {
	e := newEnv(t)
	if err := e.st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := bolt.Open(e.path, bolt.Options{Now: e.clock.Now, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	e.st = st
	e.tmp = filepath.Join(t.TempDir(), "no-such-dir") // the spool file cannot be made
	r := e.expect(ExitOK, "backup")
	if len(r.out) < 4096 || binary.NativeEndian.Uint32([]byte(r.out)[16:]) != 0xED0CDAED {
		t.Errorf("backup wrote %d bytes that are not a bbolt file", len(r.out))
	}
	for _, want := range []string{"streaming straight from the database", "not in the audit log"} {
		if !strings.Contains(r.errOut, want) {
			t.Errorf("stderr lacks %q: %q", want, r.errOut)
		}
	}
	if !bytes.Contains([]byte(r.out), []byte("alice")) {
		t.Error("the backup lacks the players")
	}
}
