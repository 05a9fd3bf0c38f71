package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// Login storm (--mode storm): every bot logs in, runs `whoami` without a
// PTY, checks the answer, disconnects, and does it again at once, until
// the duration ends. The figures are sessions completed per second, the
// connect→exit latency, and failures by kind.

// stormKey is one identity: a key, the SSH user name it logs in with,
// and the fingerprint the server must report back.
type stormKey struct {
	signer gossh.Signer
	name   string
	fp     string
}

func newStormKey(name string) (*stormKey, error) {
	s, err := newSigner()
	if err != nil {
		return nil, err
	}
	return &stormKey{signer: s, name: name, fp: gossh.FingerprintSHA256(s.PublicKey())}, nil
}

// keyPool hands out pre-generated keys, each once (--storm-fresh).
type keyPool struct {
	keys []*stormKey
	next atomic.Int64
}

func (p *keyPool) take() (*stormKey, bool) {
	i := p.next.Add(1) - 1
	if i >= int64(len(p.keys)) {
		return nil, false
	}
	return p.keys[i], true
}

func (p *keyPool) used() int { return int(min(p.next.Load(), int64(len(p.keys)))) }

// Fresh-key pool sizing: enough for every bot to log in at stormKeyRate
// sessions a second each (at most stormKeyTotalRate for all of them) for
// the whole duration, capped at maxStormKeys.
const (
	stormKeyRate      = 100
	stormKeyTotalRate = 1000
	maxStormKeys      = 200000
)

func autoStormKeys(players int, d time.Duration) int {
	rate := min(players*stormKeyRate, stormKeyTotalRate)
	n := int(math.Ceil(d.Seconds())) * rate
	return min(max(n, players), maxStormKeys)
}

// makeKeyPool generates n keys on every CPU. Names are prefix, "n" and a
// counter, unique per key so every login is a new player.
func makeKeyPool(prefix string, n int) (*keyPool, error) {
	p := &keyPool{keys: make([]*stormKey, n)}
	workers := max(runtime.GOMAXPROCS(0), 1)
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				k, err := newStormKey(fmt.Sprintf("%sn%06d", prefix, i))
				if err != nil {
					errs[w] = err
					return
				}
				p.keys[i] = k
			}
		})
	}
	wg.Wait()
	return p, errors.Join(errs...)
}

// failKind sorts what went wrong with one storm session.
type failKind int

const (
	failPerIPCap  failKind = iota // the server's per-address cap refused the connection
	failDial                      // no TCP connection (refused, no local port, timeout)
	failHandshake                 // key exchange or authentication failed
	failSession                   // no session channel, exec refused, no exit status, timeout
	failExit                      // the command exited non-zero
	failOutput                    // exit 0 but the output did not name the bot
	numFailKinds
)

// failCounts are failures by kind, cumulative.
type failCounts struct {
	PerIPCap   uint64 `json:"per_ip_cap"`
	Dial       uint64 `json:"dial"`
	Handshake  uint64 `json:"handshake"`
	Session    uint64 `json:"session"`
	ExitStatus uint64 `json:"exit_status"`
	Output     uint64 `json:"output"`
}

func (f failCounts) total() uint64 {
	return f.PerIPCap + f.Dial + f.Handshake + f.Session + f.ExitStatus + f.Output
}

// other is everything but the cap and handshake failures.
func (f failCounts) other() uint64 { return f.Dial + f.Session + f.ExitStatus + f.Output }

// latHist is a log-linear histogram of durations: bucket i holds
// [latBase·latGrowth^i, latBase·latGrowth^(i+1)), so quantiles read from
// it are within 1 % of the true value, in bounded memory however long
// the run. Bots add to it with atomics.
const (
	latBase    = 10 * time.Microsecond
	latGrowth  = 1.02
	latBuckets = 840 // up to ≈ 10 µs·1.02^840 ≈ 170 s
)

type latHist struct {
	n     [latBuckets]atomic.Uint64
	sumNs atomic.Uint64
	maxNs atomic.Int64
}

func latBucket(d time.Duration) int {
	if d <= latBase {
		return 0
	}
	i := int(math.Log(float64(d)/float64(latBase)) / math.Log(latGrowth))
	return min(max(i, 0), latBuckets-1)
}

func (h *latHist) observe(d time.Duration) {
	h.n[latBucket(d)].Add(1)
	h.sumNs.Add(uint64(d))
	for {
		m := h.maxNs.Load()
		if int64(d) <= m || h.maxNs.CompareAndSwap(m, int64(d)) {
			return
		}
	}
}

// latSnap is a copy of a latHist's counts, for differences.
type latSnap struct {
	n     []uint64
	sumNs uint64
	maxNs int64
}

func (h *latHist) snapshot() latSnap {
	s := latSnap{n: make([]uint64, latBuckets), sumNs: h.sumNs.Load(), maxNs: h.maxNs.Load()}
	for i := range s.n {
		s.n[i] = h.n[i].Load()
	}
	return s
}

// minus is s − old (old may be the zero latSnap). The max is s's own.
func (s latSnap) minus(old latSnap) latSnap {
	d := latSnap{n: make([]uint64, len(s.n)), sumNs: s.sumNs - old.sumNs, maxNs: s.maxNs}
	for i := range s.n {
		d.n[i] = s.n[i]
		if i < len(old.n) {
			d.n[i] -= old.n[i]
		}
	}
	return d
}

func (s latSnap) count() uint64 {
	var c uint64
	for _, v := range s.n {
		c += v
	}
	return c
}

// quantile is the nearest-rank q-quantile, as the geometric middle of its
// bucket.
func (s latSnap) quantile(q float64) (time.Duration, bool) {
	total := s.count()
	if total == 0 {
		return 0, false
	}
	rank := uint64(math.Ceil(q * float64(total)))
	rank = min(max(rank, 1), total)
	var cum uint64
	for i, v := range s.n {
		cum += v
		if cum >= rank {
			return time.Duration(float64(latBase) * math.Pow(latGrowth, float64(i)+0.5)), true
		}
	}
	return 0, false
}

// latStats is a latency distribution in milliseconds.
type latStats struct {
	Count uint64  `json:"count"`
	Mean  float64 `json:"mean_ms"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms,omitempty"` // whole run only
}

func (s latSnap) stats(withMax bool) latStats {
	st := latStats{Count: s.count()}
	if st.Count == 0 {
		return st
	}
	msOf := func(q float64) float64 {
		d, _ := s.quantile(q)
		return float64(d) / 1e6
	}
	st.Mean = float64(s.sumNs) / float64(st.Count) / 1e6
	st.P50, st.P90, st.P99 = msOf(0.5), msOf(0.9), msOf(0.99)
	if withMax {
		st.Max = float64(s.maxNs) / 1e6
	}
	return st
}

// stormState is what the bots of one storm run share.
type stormState struct {
	done     atomic.Uint64 // sessions completed and checked
	fails    [numFailKinds]atomic.Uint64
	lat      latHist
	pool     *keyPool // --storm-fresh; nil: each bot reuses its own key
	ranOut   atomic.Int64
	stopAt   time.Time // no session starts after this
	failWait time.Duration
}

func (st *stormState) failures() failCounts {
	l := func(k failKind) uint64 { return st.fails[k].Load() }
	return failCounts{PerIPCap: l(failPerIPCap), Dial: l(failDial), Handshake: l(failHandshake),
		Session: l(failSession), ExitStatus: l(failExit), Output: l(failOutput)}
}

// storm logs in over and over until the duration ends.
func (b *bot) storm(ctx context.Context, r *runner, local net.IP) {
	st := r.storm
	own := &stormKey{signer: b.signer, name: b.name, fp: gossh.FingerprintSHA256(b.signer.PublicKey())}
	for ctx.Err() == nil && time.Now().Before(st.stopAt) {
		k := own
		if st.pool != nil {
			var ok bool
			if k, ok = st.pool.take(); !ok {
				st.ranOut.CompareAndSwap(0, time.Now().UnixNano())
				return
			}
		}
		b.connected.Store(true)
		lat, kind, err := stormSession(ctx, r.addr, local, k)
		b.connected.Store(false)
		if ctx.Err() != nil {
			return // cut by the end of the run: neither a success nor a failure
		}
		if err == nil {
			st.lat.observe(lat)
			st.done.Add(1)
			continue
		}
		st.fails[kind].Add(1)
		r.errs.add(err)
		// Do not spin on a server that refuses at once.
		t := time.NewTimer(st.failWait)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
}

// stormSessionTimeout bounds one session, connect to exit.
const stormSessionTimeout = 30 * time.Second

// stormSession is one login: connect, authenticate, run whoami without a
// PTY, read its output to EOF and its exit status, check them. It returns
// the connect→exit latency; closing the connection is not timed.
func stormSession(ctx context.Context, addr string, local net.IP, k *stormKey) (time.Duration, failKind, error) {
	t0 := time.Now()
	d := net.Dialer{Timeout: 10 * time.Second}
	if local != nil {
		d.LocalAddr = &net.TCPAddr{IP: local}
	}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return 0, failDial, fmt.Errorf("dial: %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	_ = conn.SetDeadline(t0.Add(stormSessionTimeout))
	pc := &peekConn{Conn: conn}
	cc, chans, reqs, err := gossh.NewClientConn(pc, addr, &gossh.ClientConfig{
		User:            k.name,
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(k.signer)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), // loopback load testing, nothing secret sent
	})
	if err != nil {
		if msg, ok := pc.capMessage(); ok {
			return 0, failPerIPCap, fmt.Errorf("refused: %s", msg)
		}
		return 0, failHandshake, fmt.Errorf("handshake: %w", err)
	}
	client := gossh.NewClient(cc, chans, reqs)
	defer client.Close()
	s, err := client.NewSession()
	if err != nil {
		return 0, failSession, fmt.Errorf("session: %w", err)
	}
	var out, errOut limitedBuffer
	s.Stdout, s.Stderr = &out, &errOut
	err = s.Run("whoami")
	lat := time.Since(t0)
	if err != nil {
		var ee *gossh.ExitError
		if errors.As(err, &ee) {
			return lat, failExit, fmt.Errorf("whoami: exit %d: %s", ee.ExitStatus(), firstLine(errOut.String()))
		}
		return lat, failSession, fmt.Errorf("whoami: %w", err)
	}
	if why := checkWhoami(out.String(), k.name, k.fp); why != "" {
		return lat, failOutput, fmt.Errorf("whoami: %s", why)
	}
	return lat, 0, nil
}

// checkWhoami checks that whoami's plain-text answer names this bot: the
// fingerprint line must be its key's, and the name its user name (or,
// when that name was taken by another key, the server's derived
// name-N). It returns what is wrong, or "".
func checkWhoami(out, name, fp string) string {
	var gotName, gotFP string
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		switch f[0] {
		case "name":
			gotName = f[1]
		case "fingerprint":
			gotFP = f[1]
		}
	}
	switch {
	case gotFP != fp:
		return fmt.Sprintf("fingerprint %q, want %q (output %q)", gotFP, fp, firstLine(out))
	case gotName != name && !strings.HasPrefix(gotName, name+"-"):
		return fmt.Sprintf("name %q, want %q", gotName, name)
	}
	return ""
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// limitedBuffer keeps the first 64 KiB written to it and drops the rest,
// so a misbehaving server cannot make the tool grow without bound.
type limitedBuffer struct{ b bytes.Buffer }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := 64<<10 - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string { return l.b.String() }

// peekConn keeps the first bytes the server sends: termarena's per-IP cap
// answers with a line of text instead of an SSH banner, then closes.
// The handshake reads from its own goroutine, which may still be running
// when the caller looks, hence the lock.
type peekConn struct {
	net.Conn
	mu   sync.Mutex
	head []byte
}

func (p *peekConn) Read(b []byte) (int, error) {
	n, err := p.Conn.Read(b)
	if n > 0 {
		p.mu.Lock()
		if room := 512 - len(p.head); room > 0 {
			p.head = append(p.head, b[:min(n, room)]...)
		}
		p.mu.Unlock()
	}
	return n, err
}

// capMessage reports the per-IP cap's refusal line, if that is what the
// server sent.
func (p *peekConn) capMessage() (string, bool) {
	p.mu.Lock()
	s := string(p.head)
	p.mu.Unlock()
	i := strings.Index(s, "too many connections")
	if i < 0 {
		return "", false
	}
	start := strings.LastIndexByte(s[:i], '\n') + 1
	return strings.TrimSpace(firstLine(s[start:])), true
}
