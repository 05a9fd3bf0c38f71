package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// runner is one run: a set of bots against one server.
type runner struct {
	cfg      *config
	label    string
	addr     string
	baseline bool
	pid      int // the server's PID for CPU figures; 0 = unknown
	seed     uint64
	start    time.Time
	bots     []*bot
	started  atomic.Int64
	connErrs atomic.Uint64
	errs     errorLog
	storm    *stormState // --mode storm
}

// runAll runs what the flags ask for: termarena, the baseline, or both.
func runAll(ctx context.Context, c *config, lines, errOut io.Writer) (*report, error) {
	rep := &report{}
	if !c.baseline {
		res, err := runTarget(ctx, c, lines, errOut)
		if err != nil {
			return nil, err
		}
		rep.Termarena = res
	}
	// An interrupted termarena run still gets its summary, without a
	// baseline to compare it with.
	if (c.baseline || c.compare) && ctx.Err() == nil {
		res, err := runBaseline(ctx, c, lines, errOut)
		if err != nil {
			return nil, err
		}
		rep.Baseline = res
	}
	printSummary(lines, rep)
	return rep, nil
}

// sessions is how many bots a run starts: in watch mode the watchers
// (--players) and the rooms' players; else --players.
func (c *config) sessions(baseline bool) int {
	if c.mode == modeWatch && !baseline {
		return c.players + c.watchRooms*c.roomSize
	}
	return c.players
}

func runTarget(ctx context.Context, c *config, lines, errOut io.Writer) (*result, error) {
	if c.mode == modeWatch {
		if per := (c.players + c.watchRooms - 1) / c.watchRooms; per > 200 {
			fmt.Fprintf(errOut, "note: up to %d watchers per room; termarena takes 200 per room by default: start it with --max-watchers-per-room 0, or pass more --watch-rooms\n", per)
		}
	}
	if perAddr := (c.sessions(false) + len(c.sourceAddrs) - 1) / max(len(c.sourceAddrs), 1); perAddr > 16 {
		fmt.Fprintf(errOut, "note: up to %d sessions per source address; termarena allows 16 per address by default: start it with --max-conns-per-ip 0, or pass more --source-addrs\n", perAddr)
	}
	r := &runner{cfg: c, label: "termarena", addr: c.addr, pid: c.serverPID}
	return r.run(ctx, lines)
}

func runBaseline(ctx context.Context, c *config, lines, errOut io.Writer) (*result, error) {
	bs, err := startBaseline(ctx, c, errOut)
	if err != nil {
		return nil, err
	}
	defer bs.stop()
	r := &runner{cfg: c, label: "baseline", addr: bs.addr, baseline: true, pid: bs.pid}
	return r.run(ctx, lines)
}

// run starts the bots at the ramp rate, reports every second, and stops
// everything after the duration.
func (r *runner) run(parent context.Context, lines io.Writer) (*result, error) {
	c := r.cfg
	var seed [8]byte
	_, _ = rand.Read(seed[:])
	r.seed = binary.LittleEndian.Uint64(seed[:])
	prefix := c.namePrefix
	if prefix == "" {
		prefix = "lt" + randomTag(r.seed)
	}
	verifyEvery := 0
	if c.verify > 0 && !r.baseline && c.mode != modeStorm {
		verifyEvery = max(c.players/c.verify, 1)
	}
	// Keys are made before the clock starts, so that key generation never
	// shapes the ramp.
	r.bots = make([]*bot, c.sessions(r.baseline))
	// --mode watch: the first watchRooms×roomSize bots play the rooms
	// (as in rooms mode), the rest watch them, spread evenly.
	players, rooms := len(r.bots), []*roomRef(nil)
	if c.mode == modeWatch && !r.baseline {
		players = c.watchRooms * c.roomSize
		for range c.watchRooms {
			rooms = append(rooms, newRoomRef())
		}
	}
	if verifyEvery > 0 {
		verifyEvery = max(len(r.bots)/c.verify, 1)
	}
	verified := 0
	for i := range r.bots {
		v := verifyEvery > 0 && i%verifyEvery == 0 && verified < c.verify
		if v {
			verified++
		}
		b, err := newBot(i, fmt.Sprintf("%s%04d", prefix, i), v)
		if err != nil {
			return nil, err
		}
		switch {
		case i >= players:
			b.watcher, b.room = true, rooms[(i-players)%len(rooms)]
		case (c.mode == modeRooms || c.mode == modeWatch) && !r.baseline:
			if first := i - i%c.roomSize; i == first {
				n := min(c.roomSize, players-i) - 1
				b.creator, b.pair, b.joiners = true, make(chan string, max(n, 1)), n
				if rooms != nil {
					b.room = rooms[i/c.roomSize]
				}
			} else {
				b.pair = r.bots[first].pair
			}
		}
		r.bots[i] = b
	}
	if c.mode == modeStorm {
		r.storm = &stormState{failWait: stormFailWait}
		if c.stormFresh {
			n := c.stormKeys
			if n == 0 {
				n = autoStormKeys(c.players, c.duration)
			}
			fmt.Fprintf(lines, "# storm-fresh: making %d keys before the clock starts%s\n", n, stormKeysNote(c))
			pool, err := makeKeyPool(prefix, n)
			if err != nil {
				return nil, err
			}
			r.storm.pool = pool
		}
	}

	// The recorder takes its "before" readings (and first scrape) before
	// the clock starts.
	rec := newRecorder(parent, r)
	defer rec.close()
	// The bots' context outlives the last report by a moment, so the final
	// second is measured with every session still up.
	ctx, cancel := context.WithTimeout(parent, c.duration+time.Second)
	defer cancel()
	r.start = time.Now()
	rec.last = r.start
	if r.storm != nil {
		r.storm.stopAt = r.start.Add(c.duration)
	}
	end := time.NewTimer(c.duration)
	defer end.Stop()
	rec.header(lines)

	var wg sync.WaitGroup
	spawned := make(chan struct{})
	go func() {
		defer close(spawned)
		interval := time.Duration(float64(time.Second) / c.ramp)
		for i, b := range r.bots {
			if !sleepUntil(ctx, r.start.Add(time.Duration(i)*interval)) {
				return
			}
			var local net.IP
			if n := len(c.sourceAddrs); n > 0 {
				local = c.sourceAddrs[i%n]
			}
			r.started.Add(1)
			wg.Go(func() {
				if err := b.run(ctx, r, local); err != nil {
					r.connErrs.Add(1)
					r.errs.add(err)
				}
			})
		}
		rec.spawnedAt.Store(time.Now().UnixNano())
	}()

	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case now := <-tick.C:
			rec.sample(now, lines)
		case now := <-end.C:
			// The last window may be short (a duration of 2.5 s) or
			// already taken by a tick that fired at the same moment.
			if now.Sub(rec.last) > 100*time.Millisecond {
				rec.sample(now, lines)
			}
			done = true
		}
	}
	cancel()
	<-spawned
	// Sessions end when their connections close (ctx); bound the wait in
	// case a server never answers a close.
	waited := make(chan struct{})
	go func() { wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		fmt.Fprintln(lines, "warning: some sessions did not end within 10 s")
	}
	return rec.result(), nil
}

// stormFailWait is how long a storm bot waits after a failed session
// before the next, so that a server refusing at once is not spun on.
const stormFailWait = 100 * time.Millisecond

func stormKeysNote(c *config) string {
	if c.stormKeys != 0 {
		return " (--storm-keys)"
	}
	return fmt.Sprintf(" (duration × min(%d/s per bot, %d/s), at most %d; a storm that uses them all stops early: raise --storm-keys)",
		stormKeyRate, stormKeyTotalRate, maxStormKeys)
}

func sleepUntil(ctx context.Context, at time.Time) bool {
	d := time.Until(at)
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func randomTag(seed uint64) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 4)
	for i := range b {
		b[i] = alphabet[seed%uint64(len(alphabet))]
		seed /= uint64(len(alphabet))
	}
	return string(b)
}

// percentile of sorted values, nearest rank.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p/100*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
