package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// bot is one player: one SSH connection, one PTY session. Its reader
// goroutine owns the stream tracker and the verifier; everything other
// goroutines read is published through atomics.
type bot struct {
	id     int
	name   string
	signer gossh.Signer
	verify bool
	// In rooms mode bots come in groups of --room-size: the creator sends
	// the room id on pair once for every other member, each joiner waits
	// for it. Nil in queue mode.
	pair    chan string
	creator bool
	joiners int // the creator's: how many wait on pair
	// --mode watch: the room a creator publishes and a watcher spectates.
	room    *roomRef
	watcher bool

	bytes      atomic.Uint64
	frames     atomic.Uint64
	frameBytes atomic.Uint64
	phase      atomic.Int32
	horizontal atomic.Bool
	ready      atomic.Int32
	seated     atomic.Int32 // waiting room: seats taken
	roomMode   atomic.Pointer[string]
	steer      atomic.Int32 // light cycles: the turn to press (dirUp…), 0 none
	lastFrame  atomic.Int64 // light cycles: UnixNano of the last frame received
	frozen     atomic.Bool  // light cycles: live was cut by a pause without frames
	playSince  atomic.Int64 // UnixNano when the board appeared; 0 when not on it
	liveFrom   atomic.Int64 // UnixNano from which the ball is in play; 0 while an overlay shows
	chase      atomic.Int32 // direction toward the ball: -1, 0, +1, or 2 when unknown
	connected  atomic.Bool
	reached    atomic.Bool // has been on the board at least once
	dropped    atomic.Bool
	verifyOK   atomic.Uint64
	verifyBad  atomic.Uint64
	roomID     atomic.Pointer[string]
	failScreen atomic.Pointer[string] // the first failed check's screen
	matches    atomic.Uint32          // times the screen became a match's board
	finished   atomic.Uint32          // times it became the results

	changed chan struct{} // capacity 1: the reader saw the screen change

	// Owned by the reporter.
	lastFrames     uint64
	lastFrameBytes uint64
	lastBytes      uint64
}

// newSigner makes a fresh ed25519 key: every bot is its own account.
func newSigner() (gossh.Signer, error) {
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		return nil, err
	}
	return gossh.NewSignerFromKey(priv)
}

func newBot(id int, name string, verify bool) (*bot, error) {
	s, err := newSigner()
	if err != nil {
		return nil, err
	}
	return &bot{id: id, name: name, signer: s, verify: verify, changed: make(chan struct{}, 1)}, nil
}

// roomRef is a room id published once to any number of waiters.
type roomRef struct {
	once  sync.Once
	ready chan struct{} // closed once id is set
	id    string
}

func newRoomRef() *roomRef { return &roomRef{ready: make(chan struct{})} }

func (r *roomRef) set(id string) {
	r.once.Do(func() {
		r.id = id
		close(r.ready)
	})
}

// session is what a started bot holds while it plays: the connection and
// one session channel, opened by hand rather than through gossh.Client and
// gossh.Session. Those start five goroutines a bot (global requests,
// channel opens, the client's Wait, the session's requests, a stderr copy)
// that a load bot has no use for; control below does their work in one,
// and the tool's per-session cost is what decides how many sessions one
// core can drive.
type session struct {
	conn gossh.Conn
	ch   gossh.Channel
	in   io.Writer
	out  io.Reader
}

func (s *session) Close() error { return s.conn.Close() }

// control answers what the server sends besides data until the connection
// ends: global requests and channel opens are refused (a bot forwards
// nothing), the session's requests (exit-status, keepalives) are answered
// no or dropped. One goroutine per bot, ending with the connection.
func control(reqs <-chan *gossh.Request, chans <-chan gossh.NewChannel, sreqs <-chan *gossh.Request) {
	for reqs != nil || chans != nil || sreqs != nil {
		select {
		case r, ok := <-reqs:
			if !ok {
				reqs = nil
				continue
			}
			if r.WantReply {
				_ = r.Reply(false, nil)
			}
		case nc, ok := <-chans:
			if !ok {
				chans = nil
				continue
			}
			_ = nc.Reject(gossh.Prohibited, "a load bot opens no channels")
		case r, ok := <-sreqs:
			if !ok {
				sreqs = nil
				continue
			}
			if r.WantReply {
				_ = r.Reply(false, nil)
			}
		}
	}
}

// dial opens the bot's connection and a PTY session, without starting a
// command. Every step is bounded: the dial and handshake by a deadline,
// the rest by the connection closing when ctx ends.
func (b *bot) dial(ctx context.Context, addr string, local net.IP, cols, rows int) (*session, error) {
	d := net.Dialer{Timeout: 10 * time.Second}
	if local != nil {
		d.LocalAddr = &net.TCPAddr{IP: local}
	}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	_ = conn.SetDeadline(time.Now().Add(15 * time.Second))
	cc, chans, reqs, err := gossh.NewClientConn(conn, addr, &gossh.ClientConfig{
		User: b.name,
		Auth: []gossh.AuthMethod{gossh.PublicKeys(b.signer)},
		// Loopback load testing: there is no host key to pin, and the
		// tool never sends anything secret.
		HostKeyCallback: gossh.InsecureIgnoreHostKey(),
	})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("handshake: %w", err)
	}
	_ = conn.SetDeadline(time.Time{})
	ch, sreqs, err := cc.OpenChannel("session", nil)
	if err != nil {
		cc.Close()
		go control(reqs, chans, nil)
		return nil, fmt.Errorf("session: %w", err)
	}
	go control(reqs, chans, sreqs)
	// The pty-req message of RFC 4254 6.2, no terminal modes.
	pty := struct {
		Term             string
		Cols, Rows, W, H uint32
		Modes            string
	}{"xterm-256color", uint32(cols), uint32(rows), uint32(cols * 8), uint32(rows * 8), "\x00"}
	if ok, err := ch.SendRequest("pty-req", true, gossh.Marshal(&pty)); err != nil || !ok {
		cc.Close()
		return nil, fmt.Errorf("pty: refused (%v)", err)
	}
	return &session{conn: cc, ch: ch, in: ch, out: ch}, nil
}

// start runs cmd (the login shell when empty) on the session.
func (s *session) start(cmd string) error {
	name, payload := "shell", []byte(nil)
	if cmd != "" {
		name, payload = "exec", gossh.Marshal(&struct{ Command string }{cmd})
	}
	ok, err := s.ch.SendRequest(name, true, payload)
	if err == nil && !ok {
		err = errors.New("refused")
	}
	return err
}

// stderr is what the server wrote to the session's stderr (its error
// messages, such as a refused spectate), once the session has ended.
func (s *session) stderr() string {
	b, _ := io.ReadAll(io.LimitReader(s.ch.Stderr(), 512))
	return strings.TrimSpace(string(b))
}

// run plays until ctx ends or the server ends the session. It returns an
// error only when the session could not be started.
func (b *bot) run(ctx context.Context, r *runner, local net.IP) error {
	cfg := r.cfg
	if r.storm != nil {
		b.storm(ctx, r, local)
		return nil
	}
	s, err := b.dial(ctx, r.addr, local, cfg.cols, cfg.rows)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer s.Close()
	// Closing the connection is what ends a blocked read or key write.
	stop := context.AfterFunc(ctx, func() { s.Close() })
	defer stop()

	cmd := ""
	switch {
	case r.baseline:
		cmd = "baseline"
	case b.watcher:
		select {
		case <-b.room.ready:
			cmd = "spectate " + b.room.id
		case <-ctx.Done():
			return nil
		}
	case cfg.mode == modeQueue:
		cmd = "play " + cfg.queue
	case cfg.mode == modeLobby:
		// The interactive lobby, as a player who just logged in sees it.
	case !b.creator:
		select {
		case id := <-b.pair:
			cmd = "join " + id
		case <-ctx.Done():
			return nil
		}
	}
	if err := s.start(cmd); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("start %q: %w", cmd, err)
	}
	b.connected.Store(true)
	defer b.connected.Store(false)

	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		b.read(s.out, cfg, r.start, r.baseline, r.seed)
		if ctx.Err() == nil {
			b.dropped.Store(true)
		}
	}()
	rng := rand.New(rand.NewPCG(r.seed, uint64(b.id)))
	if b.watcher || cfg.mode == modeLobby {
		// A watcher types nothing: it receives what the room shows; nor
		// does a lobby sitter, whose cost between events is the measure.
		select {
		case <-readerDone:
		case <-ctx.Done():
		}
	} else {
		// Baseline bots type too: reading keys is part of the bare SSH cost.
		b.drive(ctx, s.in, rng, cfg, readerDone)
	}
	select {
	case <-readerDone:
		if b.watcher && b.frames.Load() == 0 && ctx.Err() == nil {
			// Refused (the room's watcher limit, say): the server said why.
			return fmt.Errorf("%s: %s", cmd, s.stderr())
		}
	case <-ctx.Done():
		s.Close()
		<-readerDone
	}
	return nil
}

// read consumes everything the server sends, with one buffer for the
// session's lifetime, and publishes counts and screen changes.
func (b *bot) read(out io.Reader, cfg *config, start time.Time, baseline bool, seed uint64) {
	buf := make([]byte, 16<<10)
	tr := newTracker(cfg.cols, cfg.rows)
	tr.menusFramed = !baseline
	tr.anyFrameIsPlay = baseline
	tr.watcher = b.watcher
	if cfg.game == gameTron && !baseline {
		// A random turn now and then: keysPerSec/2 a second at 20 moves
		// a second, on top of the turns away from trails.
		tr.withTron(rand.New(rand.NewPCG(seed^0x7472, uint64(b.id))), min(cfg.keysPerSec/40, 1))
	}
	var v *verifier
	var nextCheck time.Time
	if b.verify {
		v = newVerifier(cfg.cols, cfg.rows, b.name)
		v.tron = cfg.game == gameTron
		v.watcher = b.watcher
	}
	for {
		n, err := out.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			b.bytes.Add(uint64(n))
			was, frames := tr.phase, tr.frames
			if tr.Write(chunk) {
				b.publish(tr)
			}
			if tr.cyc != nil && tr.frames != frames {
				now := time.Now()
				b.lastFrame.Store(now.UnixNano())
				if tr.live && b.frozen.Load() {
					// The first frame after a round's pause: the next
					// round holds still for a second first.
					b.frozen.Store(false)
					b.liveFrom.Store(now.Add(1050 * time.Millisecond).UnixNano())
				}
			}
			if v != nil && tr.phase == phasePlay && was != phasePlay {
				// The first check a second into the match, for either
				// game. At the start of a queued match a server built
				// before the menus' hand-over was a switch (c634f50 and
				// older) could land Bubble Tea's last menu write after
				// the game screen's first frames, shown until the game
				// screen repainted at its next beat: a flash of at
				// most one frame, caught by checks at 0.2-0.5 s now and
				// then (light cycles once in a dozen; Pong's
				// TestQueueModeAgainstRealServer twice in about ten runs).
				nextCheck = time.Now().Add(time.Second)
			}
			b.frames.Store(tr.frames)
			b.frameBytes.Store(tr.frameBytes)
			if dir, ok := tr.chase(); ok {
				b.chase.Store(int32(dir))
			} else {
				b.chase.Store(2)
			}
			if v != nil {
				v.Write(chunk)
				// Only between frames: mid-frame the screen is half drawn.
				if now := time.Now(); tr.phase == phasePlay && !tr.inFrame() && !now.Before(nextCheck) {
					nextCheck = now.Add(time.Second)
					if ok, why := v.check(); ok {
						b.verifyOK.Add(1)
					} else {
						b.verifyBad.Add(1)
						scr := fmt.Sprintf("%s at %.1fs: %s\n%s", b.name, now.Sub(start).Seconds(), why, v.Screen())
						b.failScreen.CompareAndSwap(nil, &scr)
					}
				}
			}
		}
		if err != nil {
			b.setPhase(phaseNone)
			b.liveFrom.Store(0)
			return
		}
	}
}

func (b *bot) publish(tr *tracker) {
	b.horizontal.Store(tr.horizontal)
	b.ready.Store(int32(tr.ready))
	b.seated.Store(int32(tr.seated))
	if c := tr.cyc; c != nil && c.steerNew {
		c.steerNew = false
		b.steer.Store(int32(c.steer))
	}
	if tr.roomMode != "" {
		if old := b.roomMode.Load(); old == nil || *old != tr.roomMode {
			m := tr.roomMode
			b.roomMode.Store(&m)
		}
	}
	if tr.roomID != "" {
		if old := b.roomID.Load(); old == nil || *old != tr.roomID {
			id := tr.roomID
			b.roomID.Store(&id)
		}
	}
	b.setPhase(tr.phase)
	switch live := b.liveFrom.Load() != 0; {
	case tr.live && !live:
		// The overlay is gone but the serve may not have happened yet:
		// a point's notice leaves the board 15 ticks (0.25 s) before the
		// serve, the countdown a whole serve delay (60 ticks, 1 s) before.
		settle := 300 * time.Millisecond
		if tr.countdown {
			settle = 1050 * time.Millisecond
		}
		b.liveFrom.Store(time.Now().Add(settle).UnixNano())
	case !tr.live && live:
		b.liveFrom.Store(0)
	}
	select {
	case b.changed <- struct{}{}:
	default:
	}
}

func (b *bot) setPhase(p phase) {
	if phase(b.phase.Swap(int32(p))) == p {
		return
	}
	switch p {
	case phaseFinished:
		b.finished.Add(1)
	case phasePlay:
		b.matches.Add(1)
	}
	if p == phasePlay {
		b.reached.Store(true)
		b.playSince.Store(time.Now().UnixNano())
	} else {
		b.playSince.Store(0)
	}
}

// drive types like a player until ctx ends or the reader stops: sets the
// room up (rooms mode), readies, plays, and after a match goes back to the
// queue or asks for a rematch.
func (b *bot) drive(ctx context.Context, in io.Writer, rng *rand.Rand, cfg *config, readerDone <-chan struct{}) {
	keys := keyboard{ctx: ctx, in: in}
	if b.pair != nil && b.creator {
		if !b.createRoom(&keys, readerDone, cfg.roomMode, cfg.gamePresses) {
			return
		}
	}
	var readyAt, finishedAt, answeredAt, waitingSince time.Time
	for keys.ok() {
		if p := phase(b.phase.Load()); p != phaseWaiting {
			waitingSince = time.Time{}
		} else if waitingSince.IsZero() {
			waitingSince = time.Now()
		}
		switch phase(b.phase.Load()) {
		case phasePlay:
			finishedAt = time.Time{}
			select {
			case <-readerDone:
				return
			default:
			}
			if cfg.game == gameTron {
				// A round ends frozen (1.5 s, then 1 s holding still)
				// without a frame; the match line that says so gives way
				// to the names at 80 columns. Half a second without a
				// frame ends a live stretch: the rider that survived
				// the round is not owed frames for it.
				// (Baseline bots have no light-cycle screen: lastFrame 0.)
				if last := b.lastFrame.Load(); last != 0 && b.liveFrom.Load() != 0 && time.Since(time.Unix(0, last)) > 500*time.Millisecond {
					b.liveFrom.Store(0)
					b.frozen.Store(true)
				}
				// The reader decides the turns as frames come.
				if d := b.steer.Swap(0); d != 0 {
					keys.press(dirKey[d])
				}
				select {
				case <-ctx.Done():
				case <-readerDone:
					return
				case <-b.changed:
				case <-time.After(100 * time.Millisecond):
				}
				continue
			}
			typeBurst(&keys, rng, cfg.keysPerSec, b.horizontal.Load(), &b.chase)
			continue
		case phaseWaiting:
			// r toggles: press only while the screen says "not ready",
			// and give the server a moment to redraw before pressing again.
			// A room of more than two waits until it is full (or 10 s)
			// so that a match does not start with the first two.
			full := cfg.roomSize <= 2 || int(b.seated.Load()) >= cfg.roomSize || time.Since(waitingSince) > 10*time.Second
			if full && b.ready.Load() < 0 && time.Since(readyAt) > 2*time.Second {
				readyAt = time.Now()
				keys.press("r")
			}
		case phaseFinished:
			now := time.Now()
			if finishedAt.IsZero() {
				// A person reads the results for a moment.
				finishedAt = now.Add(time.Duration(1000+rng.IntN(2000)) * time.Millisecond)
				answeredAt = time.Time{}
			}
			if now.After(finishedAt) && answeredAt.IsZero() {
				answeredAt = now
				if cfg.mode == modeQueue {
					keys.press("n") // back to the queue
				} else {
					keys.press("r") // rematch
				}
			}
		}
		select {
		case <-ctx.Done():
		case <-readerDone:
			return
		case <-b.changed:
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// createRoom creates a casual room of the game from the lobby (g switches
// the create dialog's game: pressed until the room's title names the
// wanted mode) and hands its id to the other members of the group. It
// reports false if that did not happen before ctx ended.
func (b *bot) createRoom(keys *keyboard, readerDone <-chan struct{}, want string, games int) bool {
	// The lobby reads keys once its program runs; its first output says
	// it does. Key presses are retried a few times in case one arrived
	// before the lobby was listening.
	for range 50 {
		if b.bytes.Load() > 0 || !keys.ok() {
			break
		}
		keys.sleep(100 * time.Millisecond)
	}
	skip := "" // a room of another game, left
	for attempt := 0; attempt < 5 && keys.ok(); attempt++ {
		keys.sleep(300 * time.Millisecond)
		keys.press("c")
		for range games {
			keys.sleep(150 * time.Millisecond)
			keys.press("g")
		}
		keys.sleep(300 * time.Millisecond)
		keys.press("\r")
		for range 30 {
			if id := b.roomID.Load(); id != nil && *id != skip {
				if m := b.roomMode.Load(); want != "" && (m == nil || *m != want) {
					// Another game's room: leave it, switch once more.
					skip = *id
					keys.press("q")
					games++
					break
				}
				for range b.joiners {
					select {
					case b.pair <- *id:
					default:
					}
				}
				if b.room != nil {
					b.room.set(*id)
				}
				return true
			}
			select {
			case <-readerDone:
				return false
			case <-b.changed:
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	return false
}

// keyboard writes key presses to a session, one write per key (a terminal
// sends each key as it is pressed), and stops at the first error.
type keyboard struct {
	ctx context.Context
	in  io.Writer
	err error
}

func (k *keyboard) ok() bool { return k.err == nil && k.ctx.Err() == nil }

func (k *keyboard) press(s string) {
	if k.ok() {
		_, k.err = io.WriteString(k.in, s)
	}
}

// sleep waits for d or until ctx ends.
func (k *keyboard) sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-k.ctx.Done():
	case <-t.C:
	}
}

// typeBurst types one burst and the pause after it. Players tap a key
// (one press, the paddle moves one cell) or hold it: one press, the
// terminal's auto-repeat delay, then repeats at its rate. The pause after
// a burst of n keys averages n/keysPerSec, so the long-run rate is
// keysPerSec whatever the mix. Holds repeat at 30 Hz after 250–500 ms, as
// common keyboard settings do.
//
// Like a person, the bot mostly moves toward the ball (chase, when the
// screen shows where it is) and lets go of a held key once level with it;
// one burst in five goes a random way. Rallies then last, and the server
// spends most of the run drawing live play rather than serve pauses.
func typeBurst(k *keyboard, rng *rand.Rand, keysPerSec float64, horizontal bool, chase *atomic.Int32) {
	if keysPerSec <= 0 {
		k.sleep(500 * time.Millisecond)
		return
	}
	up, down := "w", "s"
	if horizontal {
		up, down = "a", "d"
	}
	dir := 1 - 2*rng.IntN(2)
	aim := rng.IntN(5) > 0 && !horizontal
	if c := chase.Load(); aim && c != 0 && c != 2 {
		dir = int(c)
	}
	key := up
	if dir > 0 {
		key = down
	}
	start := time.Now()
	n := 1
	k.press(key)
	if rng.Float64() < 0.45 {
		k.sleep(time.Duration(250+rng.IntN(250)) * time.Millisecond)
		repeats := 3 + rng.IntN(13)
		for range repeats {
			if !k.ok() || (aim && chase.Load() != int32(dir)) {
				break
			}
			k.press(key)
			n++
			k.sleep(time.Second / 30)
		}
	}
	gap := time.Duration(rng.ExpFloat64() * float64(n) / keysPerSec * float64(time.Second))
	gap = min(max(gap-time.Since(start), 30*time.Millisecond), 5*time.Second)
	k.sleep(gap)
}

// errorLog keeps the first distinct errors for the report; a thousand
// bots failing the same way must not print a thousand lines.
type errorLog struct {
	mu    sync.Mutex
	count map[string]int
	order []string
	other int
}

// addrRE matches host:port pairs, which make every connection's error
// text unique (the ephemeral port) and would defeat the grouping.
var addrRE = regexp.MustCompile(`(\[[0-9a-fA-F:.]+\]|[0-9]{1,3}(\.[0-9]{1,3}){3}):[0-9]+(->)?`)

func (l *errorLog) add(err error) {
	msg := addrRE.ReplaceAllStringFunc(err.Error(), func(m string) string {
		if strings.HasSuffix(m, "->") {
			return "" // the local end: only the server's address stays
		}
		return m
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.count == nil {
		l.count = map[string]int{}
	}
	if _, ok := l.count[msg]; !ok && len(l.order) >= 10 {
		l.other++
		return
	}
	if _, ok := l.count[msg]; !ok {
		l.order = append(l.order, msg)
	}
	l.count[msg]++
}

func (l *errorLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, 0, len(l.order)+1)
	for _, m := range l.order {
		out = append(out, fmt.Sprintf("%d× %s", l.count[m], m))
	}
	if l.other > 0 {
		out = append(out, fmt.Sprintf("%d× other errors", l.other))
	}
	return out
}
