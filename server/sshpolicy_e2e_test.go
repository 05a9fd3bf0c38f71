package server_test

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// TestSSHAlgorithmPolicy connects with a client restricted to one algorithm
// at a time: what the policy offers logs in, what audits flag (NIST-curve
// and SHA-1 key exchange, encrypt-and-MAC and SHA-1 MACs, CBC) is refused.
func TestSSHAlgorithmPolicy(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	key := sshtest.NewKey(t)
	dial := func(alg gossh.Config) (*gossh.Client, error) {
		cfg := sshtest.Config("algo", key)
		cfg.Config = alg
		return gossh.Dial("tcp", h.Addr, cfg)
	}

	c, err := dial(gossh.Config{})
	if err != nil {
		t.Fatalf("default client: %v", err)
	}
	if m, ok := c.Conn.(gossh.AlgorithmsConnMetadata); !ok {
		t.Error("client connection does not report its algorithms")
	} else if kex := m.Algorithms().KeyExchange; kex != gossh.KeyExchangeMLKEM768X25519 {
		t.Errorf("a client offering everything got key exchange %s, want the post-quantum %s first", kex, gossh.KeyExchangeMLKEM768X25519)
	}
	c.Close()

	ctr := []string{gossh.CipherAES128CTR} // a cipher that needs a MAC
	for _, tc := range []struct {
		name string
		alg  gossh.Config
		ok   bool
	}{
		{"kex mlkem768x25519-sha256", gossh.Config{KeyExchanges: []string{gossh.KeyExchangeMLKEM768X25519}}, true},
		{"kex curve25519-sha256", gossh.Config{KeyExchanges: []string{gossh.KeyExchangeCurve25519}}, true},
		{"kex curve25519-sha256@libssh.org", gossh.Config{KeyExchanges: []string{"curve25519-sha256@libssh.org"}}, true},
		{"kex ecdh-sha2-nistp256", gossh.Config{KeyExchanges: []string{gossh.KeyExchangeECDHP256}}, false},
		{"kex ecdh-sha2-nistp384", gossh.Config{KeyExchanges: []string{gossh.KeyExchangeECDHP384}}, false},
		{"kex ecdh-sha2-nistp521", gossh.Config{KeyExchanges: []string{gossh.KeyExchangeECDHP521}}, false},
		{"kex diffie-hellman-group14-sha1", gossh.Config{KeyExchanges: []string{gossh.InsecureKeyExchangeDH14SHA1}}, false},
		{"kex diffie-hellman-group1-sha1", gossh.Config{KeyExchanges: []string{gossh.InsecureKeyExchangeDH1SHA1}}, false},
		{"cipher chacha20-poly1305", gossh.Config{Ciphers: []string{gossh.CipherChaCha20Poly1305}}, true},
		{"cipher aes256-gcm", gossh.Config{Ciphers: []string{gossh.CipherAES256GCM}}, true},
		{"cipher aes128-gcm", gossh.Config{Ciphers: []string{gossh.CipherAES128GCM}}, true},
		{"cipher aes256-ctr", gossh.Config{Ciphers: []string{gossh.CipherAES256CTR}}, true},
		{"cipher aes128-ctr", gossh.Config{Ciphers: []string{gossh.CipherAES128CTR}}, true},
		{"cipher aes128-cbc", gossh.Config{Ciphers: []string{gossh.InsecureCipherAES128CBC}}, false},
		{"cipher 3des-cbc", gossh.Config{Ciphers: []string{gossh.InsecureCipherTripleDESCBC}}, false},
		{"mac hmac-sha2-256-etm", gossh.Config{Ciphers: ctr, MACs: []string{gossh.HMACSHA256ETM}}, true},
		{"mac hmac-sha2-512-etm", gossh.Config{Ciphers: ctr, MACs: []string{gossh.HMACSHA512ETM}}, true},
		{"mac hmac-sha2-256", gossh.Config{Ciphers: ctr, MACs: []string{gossh.HMACSHA256}}, false},
		{"mac hmac-sha2-512", gossh.Config{Ciphers: ctr, MACs: []string{gossh.HMACSHA512}}, false},
		{"mac hmac-sha1", gossh.Config{Ciphers: ctr, MACs: []string{gossh.HMACSHA1}}, false},
		{"mac hmac-sha1-96", gossh.Config{Ciphers: ctr, MACs: []string{gossh.InsecureHMACSHA196}}, false},
	} {
		c, err := dial(tc.alg)
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case !tc.ok && err == nil:
			t.Errorf("%s: offered, but audits flag it", tc.name)
		case !tc.ok && !strings.Contains(err.Error(), "no common algorithm"):
			t.Errorf("%s: refused for the wrong reason: %v", tc.name, err)
		}
		if c != nil {
			if r := sshtest.RunOn(t, c, "whoami"); r.Code != 0 {
				t.Errorf("%s: whoami %+v", tc.name, r)
			}
			c.Close()
		}
	}
}

// TestServerKexInitIsThePolicy reads the server's first key exchange
// message off the wire, as an auditing tool does: it offers exactly the
// policy's algorithms, in its order, and strict key exchange (the Terrapin
// countermeasure).
func TestServerKexInitIsThePolicy(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	conn, err := net.DialTimeout("tcp", h.Addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write([]byte("SSH-2.0-kexinit_probe\r\n")); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	if line, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(line, "SSH-2.0-termarena") {
		t.Fatalf("identification %q: %v", line, err)
	}
	var hdr [5]byte // packet length, padding length
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		t.Fatal(err)
	}
	n := binary.BigEndian.Uint32(hdr[:4])
	if n > 35000 {
		t.Fatalf("packet length %d", n)
	}
	payload := make([]byte, n-1)
	if _, err := io.ReadFull(r, payload); err != nil {
		t.Fatal(err)
	}
	payload = payload[:len(payload)-int(hdr[4])]
	const msgKexInit = 20
	if payload[0] != msgKexInit {
		t.Fatalf("first message %d, want KEXINIT", payload[0])
	}
	rest := payload[17:] // message type, 16 bytes of cookie
	var lists [][]string
	for range 6 { // kex, host key, ciphers c→s and s→c, MACs c→s and s→c
		l := binary.BigEndian.Uint32(rest)
		lists = append(lists, strings.Split(string(rest[4:4+l]), ","))
		rest = rest[4+l:]
	}
	want := [][]string{
		{"mlkem768x25519-sha256", "curve25519-sha256", "curve25519-sha256@libssh.org", "kex-strict-s-v00@openssh.com"},
		{"ssh-ed25519"},
		{"chacha20-poly1305@openssh.com", "aes256-gcm@openssh.com", "aes128-gcm@openssh.com", "aes256-ctr", "aes128-ctr"},
		{"chacha20-poly1305@openssh.com", "aes256-gcm@openssh.com", "aes128-gcm@openssh.com", "aes256-ctr", "aes128-ctr"},
		{"hmac-sha2-256-etm@openssh.com", "hmac-sha2-512-etm@openssh.com"},
		{"hmac-sha2-256-etm@openssh.com", "hmac-sha2-512-etm@openssh.com"},
	}
	for i, name := range []string{"key exchange", "host key", "ciphers c→s", "ciphers s→c", "MACs c→s", "MACs s→c"} {
		if !slices.Equal(lists[i], want[i]) {
			t.Errorf("%s offered: %v, want %v", name, lists[i], want[i])
		}
	}
}

// TestRealClientsLogIn runs a command with the SSH clients players use:
// OpenSSH, Dropbear and PuTTY, each with a key, against the real server.
// Each must have been authenticated by its key (whoami prints it), which
// proves key exchange, cipher and MAC were agreed under the policy.
func TestRealClientsLogIn(t *testing.T) {
	h := start(t, t.TempDir(), server.DefaultConfig(), nil)
	_, port, _ := strings.Cut(h.Addr, ":")
	dir := t.TempDir()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "id_ed25519")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	wantFP := gossh.FingerprintSHA256(signer.PublicKey())

	// Each client gets an empty HOME so nothing of the machine's own
	// configuration or known hosts plays a part, and nothing is left there.
	runClient := func(t *testing.T, name string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	check := func(t *testing.T, out string) {
		t.Helper()
		if !strings.Contains(out, "fingerprint  "+wantFP) {
			t.Fatalf("whoami did not report the client's key %s:\n%s", wantFP, out)
		}
	}

	t.Run("openssh", func(t *testing.T) {
		needTool(t, "ssh", "openssh-client")
		knownHosts := filepath.Join(t.TempDir(), "known_hosts")
		line := fmt.Sprintf("[127.0.0.1]:%s %s", port, gossh.MarshalAuthorizedKey(h.HostKey.Signer.PublicKey()))
		if err := os.WriteFile(knownHosts, []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
		check(t, runClient(t, "ssh", "-F", "/dev/null", "-p", port, "-i", keyFile,
			"-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
			"-o", "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile="+knownHosts,
			"alice@127.0.0.1", "whoami"))
	})
	t.Run("dropbear", func(t *testing.T) {
		needTool(t, "dbclient", "dropbear-bin")
		needTool(t, "dropbearconvert", "dropbear-bin")
		dbKey := filepath.Join(t.TempDir(), "id_dropbear")
		runClient(t, "dropbearconvert", "openssh", "dropbear", keyFile, dbKey)
		// -y -y: this throwaway HOME has no known_hosts to check against.
		check(t, runClient(t, "dbclient", "-y", "-y", "-p", port, "-i", dbKey, "bob@127.0.0.1", "whoami"))
	})
	t.Run("putty", func(t *testing.T) {
		needTool(t, "plink", "putty-tools")
		needTool(t, "puttygen", "putty-tools")
		ppk := filepath.Join(t.TempDir(), "id.ppk")
		runClient(t, "puttygen", keyFile, "-O", "private", "-o", ppk)
		check(t, runClient(t, "plink", "-ssh", "-batch", "-P", port, "-i", ppk,
			"-hostkey", h.HostKey.Fingerprint(), "carol@127.0.0.1", "whoami"))
	})
}

// needTool skips a test whose client is not installed, except under CI,
// where .ci/run installs it and a missing client must not pass silently.
func needTool(t *testing.T, name, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(name); err == nil {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not installed (Debian package %s; .ci/run installs it)", name, pkg)
	}
	t.Skipf("%s is not installed (Debian package %s)", name, pkg)
}
