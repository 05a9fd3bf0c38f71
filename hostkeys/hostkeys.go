// Package hostkeys owns the server's SSH host key: it is created once in the
// data dir and reused on every start, so players never see a "host key
// changed" warning after a restart or an upgrade.
package hostkeys

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"
)

// FileName is the host key's name inside the data dir.
const FileName = "ssh_host_ed25519_key"

// Key is a loaded host key.
type Key struct {
	Signer  gossh.Signer
	Path    string
	Created bool // true when this start generated the key
}

// Fingerprint is the SHA256 fingerprint operators publish so players can
// verify the server on first connect.
func (k Key) Fingerprint() string { return gossh.FingerprintSHA256(k.Signer.PublicKey()) }

// LoadOrCreate returns the ed25519 host key in dir, creating dir (0700) and
// the key (0600) on first start. A key file that exists but cannot be read or
// parsed is an error: silently replacing it would make every player's client
// refuse the server as a possible man in the middle.
func LoadOrCreate(dir string) (Key, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Key{}, fmt.Errorf("hostkeys: create data dir %s: %w", dir, err)
	}
	path := filepath.Join(dir, FileName)
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		signer, perr := gossh.ParsePrivateKey(data)
		if perr != nil {
			return Key{}, fmt.Errorf("hostkeys: %s is not a valid private key (restore it from a backup or remove it to create a new one — players will then see a host key change): %w", path, perr)
		}
		return Key{Signer: signer, Path: path}, nil
	case errors.Is(err, fs.ErrNotExist):
		return create(path)
	default:
		return Key{}, fmt.Errorf("hostkeys: read %s: %w", path, err)
	}
}

func create(path string) (Key, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return Key{}, fmt.Errorf("hostkeys: generate ed25519 key: %w", err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "termarena host key")
	if err != nil {
		return Key{}, fmt.Errorf("hostkeys: encode key: %w", err)
	}
	// O_EXCL: two servers racing on a fresh data dir must not overwrite each
	// other's key; the loser reports the error instead.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return Key{}, fmt.Errorf("hostkeys: create %s: %w", path, err)
	}
	if err := pem.Encode(f, block); err != nil {
		f.Close()
		os.Remove(path)
		return Key{}, fmt.Errorf("hostkeys: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return Key{}, fmt.Errorf("hostkeys: write %s: %w", path, err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		return Key{}, fmt.Errorf("hostkeys: signer: %w", err)
	}
	return Key{Signer: signer, Path: path, Created: true}, nil
}
