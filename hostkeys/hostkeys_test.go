package hostkeys

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCreatesOnceAndReuses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	k1, err := LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !k1.Created {
		t.Fatal("first start should create the key")
	}
	if !strings.HasPrefix(k1.Fingerprint(), "SHA256:") {
		t.Fatalf("fingerprint %q", k1.Fingerprint())
	}
	st, err := os.Stat(k1.Path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, want 0600", st.Mode().Perm())
	}
	dst, _ := os.Stat(dir)
	if dst.Mode().Perm() != 0o700 {
		t.Fatalf("data dir mode %v, want 0700", dst.Mode().Perm())
	}
	k2, err := LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	if k2.Created || k2.Fingerprint() != k1.Fingerprint() {
		t.Fatalf("second start: created=%v fp %s vs %s", k2.Created, k2.Fingerprint(), k1.Fingerprint())
	}
	if k1.Signer.PublicKey().Type() != "ssh-ed25519" {
		t.Fatalf("key type %s", k1.Signer.PublicKey().Type())
	}
}

func TestCorruptKeyIsAnErrorNotReplaced(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := LoadOrCreate(dir)
	if err == nil || !strings.Contains(err.Error(), "not a valid private key") {
		t.Fatalf("want a clear error, got %v", err)
	}
	data, _ := os.ReadFile(path)
	if string(data) != "not a key" {
		t.Fatal("corrupt key file was replaced")
	}
}

func TestUnreadableKeyIsAnError(t *testing.T) {
	if os.Geteuid() == 0 {
		// root reads 0000 files anyway; use a directory where the file
		// should be, which no user can read as a key.
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, FileName), 0o700); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadOrCreate(dir); err == nil {
			t.Fatal("want an error for an unreadable key path")
		}
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, []byte("x"), 0o000); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreate(dir); err == nil {
		t.Fatal("want an error for an unreadable key")
	}
}
