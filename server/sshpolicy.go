package server

import (
	"slices"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// The SSH algorithms the server offers, best first. x/crypto's defaults
// also offer key exchange on the NIST curves and with SHA-1, and
// encrypt-and-MAC or SHA-1 MACs, which audits (ssh-audit) fail or warn
// about. The clients players use share what is left: curve25519 (OpenSSH
// 6.5, Dropbear 2013.62, PuTTY 0.68 and later) and AES-CTR with an ETM MAC
// or an AEAD cipher, so no finite-field group is needed. The end-to-end
// tests log in with ssh, dbclient and plink.
//
// Strict key exchange (kex-strict-s-v00@openssh.com, the Terrapin fix) is
// not a setting: x/crypto always offers it and uses it when the client
// does too.
var (
	kexAlgorithms = []string{
		// Post-quantum hybrid (OpenSSH 9.9+), then its classical half.
		gossh.KeyExchangeMLKEM768X25519,
		gossh.KeyExchangeCurve25519,
		// The pre-RFC name of curve25519-sha256, for OpenSSH < 7.4 and
		// older Dropbear and PuTTY. x/crypto does not export the name (it
		// adds it by itself after KeyExchangeCurve25519); it is listed
		// so that the offer does not depend on that.
		"curve25519-sha256@libssh.org",
	}
	cipherAlgorithms = []string{
		gossh.CipherChaCha20Poly1305,
		gossh.CipherAES256GCM,
		gossh.CipherAES128GCM,
		gossh.CipherAES256CTR,
		gossh.CipherAES128CTR,
	}
	// Encrypt-then-MAC only: with the CTR ciphers an encrypt-and-MAC mode
	// would MAC the plaintext. The AEAD ciphers above use no MAC at all.
	macAlgorithms = []string{
		gossh.HMACSHA256ETM,
		gossh.HMACSHA512ETM,
	}
)

// sshConfig is charm.land/ssh's ServerConfigCallback: a fresh config per
// connection (charm.land/ssh adds the host key and handlers to it, and
// x/crypto fills its defaults in place), offering only the algorithms above.
func sshConfig(ssh.Context) *gossh.ServerConfig {
	return &gossh.ServerConfig{Config: gossh.Config{
		KeyExchanges: slices.Clone(kexAlgorithms),
		Ciphers:      slices.Clone(cipherAlgorithms),
		MACs:         slices.Clone(macAlgorithms),
	}}
}
