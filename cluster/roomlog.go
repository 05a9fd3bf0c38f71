package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/spectator"
)

// Rooms survive their node: the owner of a room streams each match's
// start and, every lobby.JournalEvery ticks, the inputs and seat changes
// since with the game's hash to one JetStream stream, a subject per room,
// and holds the room's lease (a key per room in the KV bucket
// termarena_room_owner, living LogTiming.TTL after its last renewal;
// value: the owner's node name). When the owner dies its leases expire;
// each other node watches the bucket (every renewal, handover and
// release reaches it as it happens), notices a lease not renewed for
// its TTL, and the first to create the key again rebuilds the match from
// the log (re-simulating it, every batch's hash checked) and plays it
// on. A log that does not rebuild is recorded as an aborted match, no
// rating changed.
const (
	streamRoomLog   = "TERMARENA_ROOMLOG"
	subjectRoomLog  = "termarena.roomlog."
	bucketRoomOwner = "termarena_room_owner"
	// roomLogMaxAge bounds how long a log is kept: a match longer than
	// this loses its start and cannot be resumed (it is then recorded
	// aborted rather than lost).
	roomLogMaxAge = 3 * time.Hour
	// roomLogMaxBytes bounds the stream: about 300 B a room a second,
	// so a gigabyte is a thousand rooms for an hour each.
	roomLogMaxBytes = 1 << 30
)

// RoomKey is a room's key in termarena_room_owner and the last token of
// its log's subject: its id with '@' (not allowed in a key) and '.' (a
// subject's separator) replaced by '_'.
func RoomKey(id string) string { return roomKeys.Replace(id) }

// roomKeys is RoomKey's replacer, built once: building one a call cost
// 4.7 % of a clustered node's CPU at 500 players, when adopt asked it for
// every pair of logged and owned rooms four times a second.
var roomKeys = strings.NewReplacer("@", "_", ".", "_")

// LogTiming tunes the room leases.
type LogTiming struct {
	TTL   time.Duration // a lease lives this long unrenewed; default 2s
	Renew time.Duration // default TTL/4
	// Poll is how soon a node tries again to take a lapsed lease NATS
	// has not let go of yet, or to watch the leases again after the
	// watch failed; default TTL/8. Nothing is polled at rest.
	Poll time.Duration
}

func (t LogTiming) withDefaults() LogTiming {
	if t.TTL <= 0 {
		t.TTL = 2 * time.Second
	}
	if t.Renew <= 0 || t.Renew >= t.TTL {
		t.Renew = t.TTL / 4
	}
	if t.Poll <= 0 {
		t.Poll = t.TTL / 8
	}
	return t
}

// Resumer is what the room log hands matches to: *lobby.Services.
type Resumer interface {
	// Resume rebuilds a match from its log and plays it on here.
	Resume(start lobby.MatchLog, batches []lobby.LogBatch) error
	// RecordUnresumable records a match Resume refused as aborted.
	RecordUnresumable(start lobby.MatchLog, ticks uint64) error
	// Abandon stops this node's room whose lease another node holds now,
	// without recording its match (the other node plays it).
	Abandon(room string)
}

// RoomLog is this node's side of the room logs: it writes its rooms'
// (lobby.MatchJournal) and takes over those of dead nodes.
type RoomLog struct {
	n      *Node
	js     jetstream.JetStream
	stream jetstream.Stream
	kv     jetstream.KeyValue
	t      LogTiming

	in       chan logOp
	dropped  atomic.Uint64 // ops lost to a full queue (the room's log is then incomplete)
	draining atomic.Bool   // this node hands its rooms over and takes none
	// asked is closed when an admin asks this node to drain (AskDrain).
	asked     chan struct{}
	askedOnce sync.Once

	mu       sync.Mutex
	resumer  Resumer
	resumed  []Resumption // what this node took over (admin, tests)
	sentB    atomic.Uint64
	messages atomic.Uint64
}

// Resumption is one match this node took over: when it noticed the
// room's lease gone and how long rebuilding it took.
type Resumption struct {
	Room    string
	From    string // the node that owned it ("" unknown)
	Took    time.Time
	Rebuild time.Duration
	Ticks   uint64
	Err     error // non-nil: the match could not be resumed and was recorded aborted
}

type logOpKind uint8

const (
	opStart logOpKind = iota
	opBatch
	opOver
	opHandOff
)

type logOp struct {
	kind  logOpKind
	room  string
	start lobby.MatchLog
	batch lobby.LogBatch
}

// logMsg is one message of a room's log (version 1; fields are only
// added): the match's start, or a batch.
type logMsg struct {
	V     int             `json:"v"`
	Node  string          `json:"node"`
	Start *lobby.MatchLog `json:"start,omitempty"`
	Tick  uint64          `json:"tick,omitempty"`
	Hash  uint64          `json:"hash,omitempty"`
	// In is each input as [tick, slot, action, lag]; Ev each seat change
	// as [tick, slot, kind]: a batch is mostly these.
	In [][4]int64 `json:"in,omitempty"`
	Ev [][3]int64 `json:"ev,omitempty"`
}

func encodeBatch(node string, b lobby.LogBatch) []byte {
	m := logMsg{V: 1, Node: node, Tick: b.Tick, Hash: b.Hash}
	for _, in := range b.Inputs {
		m.In = append(m.In, [4]int64{int64(in.Tick), int64(in.Slot), int64(in.Action), int64(in.Lag)})
	}
	for _, ev := range b.Events {
		m.Ev = append(m.Ev, [3]int64{int64(ev.Tick), int64(ev.Slot), int64(ev.Kind)})
	}
	data, _ := json.Marshal(m) // numbers only: cannot fail
	return data
}

func decodeBatch(m logMsg) (lobby.LogBatch, error) {
	b := lobby.LogBatch{Tick: m.Tick, Hash: m.Hash}
	for _, in := range m.In {
		if in[0] < 1 || in[1] < 0 || in[1] >= spectator.MaxSlots || in[2] < -128 || in[2] > 127 || in[3] < 0 || in[3] > spectator.MaxLag {
			return b, fmt.Errorf("an input %v out of range", in)
		}
		b.Inputs = append(b.Inputs, spectator.InputChange{Tick: uint64(in[0]), Slot: uint8(in[1]), Action: int8(in[2]), Lag: uint16(in[3])})
	}
	for _, ev := range m.Ev {
		if ev[0] < 0 || ev[1] < 0 || ev[1] >= spectator.MaxSlots || (ev[2] != int64(spectator.SeatJoin) && ev[2] != int64(spectator.SeatLeave)) {
			return b, fmt.Errorf("a seat change %v out of range", ev)
		}
		b.Events = append(b.Events, spectator.SeatEvent{Tick: uint64(ev[0]), Slot: uint8(ev[1]), Kind: spectator.SeatEventKind(ev[2])})
	}
	return b, nil
}

// RoomLog opens the stream and the lease bucket (creating them the first
// time any node asks). Hand it to the rooms as their journal
// (lobby.RoomsConfig.Journal), then start it with Run once the lobby
// that resumes matches exists.
func (n *Node) RoomLog(t LogTiming) (*RoomLog, error) {
	t = t.withDefaults()
	js, err := jetstream.New(n.nc)
	if err != nil {
		return nil, fmt.Errorf("cluster: jetstream: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	stream, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        streamRoomLog,
		Description: "termarena: each live match's inputs and state hashes, a subject per room, so another node can resume it",
		Subjects:    []string{subjectRoomLog + ">"},
		Storage:     jetstream.FileStorage,
		MaxAge:      roomLogMaxAge,
		MaxBytes:    roomLogMaxBytes,
		Discard:     jetstream.DiscardOld,
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: the room log stream: %w", err)
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      bucketRoomOwner,
		Description: "termarena: which node owns each room (a key lives TTL after its owner's last renewal)",
		TTL:         t.TTL,
		History:     1,
		Storage:     jetstream.MemoryStorage,
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: the room owner bucket: %w", err)
	}
	return &RoomLog{n: n, js: js, stream: stream, kv: kv, t: t, in: make(chan logOp, 4096), asked: make(chan struct{})}, nil
}

// MatchStarted implements lobby.MatchJournal.
func (l *RoomLog) MatchStarted(start lobby.MatchLog) {
	l.send(logOp{kind: opStart, room: start.Room, start: start})
}

// MatchBatch implements lobby.MatchJournal.
func (l *RoomLog) MatchBatch(room string, b lobby.LogBatch) {
	l.send(logOp{kind: opBatch, room: room, batch: b})
}

// MatchOver implements lobby.MatchJournal.
func (l *RoomLog) MatchOver(room string) { l.send(logOp{kind: opOver, room: room}) }

// MatchHandedOff implements lobby.MatchJournal.
func (l *RoomLog) MatchHandedOff(room string) { l.send(logOp{kind: opHandOff, room: room}) }

// send never blocks a room: a full queue drops the op, which leaves that
// room's log short of a batch (a resume of it then fails its hash check
// and records the match aborted, never rates a wrong result).
func (l *RoomLog) send(op logOp) {
	select {
	case l.in <- op:
	default:
		if l.dropped.Add(1) == 1 {
			l.n.log.Warn("cluster: the room log's queue is full; a room's log misses a batch", "room", op.room)
		}
	}
}

// Resumed lists the matches this node took over, oldest first.
func (l *RoomLog) Resumed() []Resumption {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Resumption(nil), l.resumed...)
}

// Sent is the bytes and messages this node has written to room logs.
func (l *RoomLog) Sent() (bytes, messages uint64) { return l.sentB.Load(), l.messages.Load() }

// owned is a room whose lease this node holds.
type owned struct {
	rev     uint64
	renewed time.Time
}

// Run writes this node's room logs, renews their leases and takes over
// the rooms of nodes that died, until stop; stop returns once the
// goroutine has ended. The leases are not handed back at stop: a room
// still running when its node stops is recorded aborted there and its
// log ended (MatchOver), and a node killed leaves them to expire.
func (l *RoomLog) Run(r Resumer) (stop func()) {
	l.mu.Lock()
	l.resumer = r
	l.mu.Unlock()
	// Nodes that would take a room over answer who asks (Takers).
	sub, err := l.n.nc.Subscribe(subjectTakers, func(m *nats.Msg) {
		if !l.draining.Load() {
			_ = m.Respond([]byte(l.n.name))
		}
	})
	if err != nil {
		l.n.log.Warn("cluster: answering drains", "err", err)
	}
	// `admin drain NODE` on any node reaches this one here.
	asks, err := l.n.nc.Subscribe(drainSubject(l.n.name), func(m *nats.Msg) {
		if l.draining.Load() {
			_ = m.Respond([]byte(l.n.name + " is draining already"))
			return
		}
		_ = m.Respond([]byte(l.n.name + " drains: it takes no new sessions, hands its matches to the other nodes, tells its players to reconnect, and exits"))
		l.askedOnce.Do(func() { close(l.asked) })
	})
	if err != nil {
		l.n.log.Warn("cluster: answering admin drain", "err", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.loop(ctx)
	}()
	return func() {
		for _, s := range []*nats.Subscription{sub, asks} {
			if s != nil {
				_ = s.Unsubscribe()
			}
		}
		cancel()
		<-done
	}
}

// drainSubject is where node is asked to drain.
func drainSubject(node string) string {
	return "termarena.admin.drain." + strings.ToLower(node)
}

// DrainAsked is closed when an admin has asked this node to drain: main
// then stops it as a SIGTERM with --drain would.
func (l *RoomLog) DrainAsked() <-chan struct{} { return l.asked }

// AskDrain asks the node named node to drain and returns its answer; a
// name no node answers to is an error saying so.
func (l *RoomLog) AskDrain(ctx context.Context, node string) (string, error) {
	if node == "" || strings.ContainsAny(node, " \t\r\n*>") {
		return "", fmt.Errorf("%q is not a node's name", node)
	}
	c, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	m, err := l.n.nc.RequestWithContext(c, drainSubject(node), nil)
	if errors.Is(err, nats.ErrNoResponders) || errors.Is(err, context.DeadlineExceeded) {
		return "", fmt.Errorf("no node named %s is in the cluster", node)
	}
	if err != nil {
		return "", fmt.Errorf("asking %s: %w", node, err)
	}
	return string(m.Data), nil
}

// subjectTakers is where a draining node asks which nodes would take its
// rooms over; each node that is not draining answers with its name.
const subjectTakers = "termarena.nodes.takers"

// Drain makes this node take no more rooms over and answer no drain's
// question: it is going.
func (l *RoomLog) Drain() { l.draining.Store(true) }

// Takers names another node that would take a room over (the first to
// answer within wait), or none.
func (l *RoomLog) Takers(wait time.Duration) []string {
	inbox := l.n.nc.NewRespInbox()
	sub, err := l.n.nc.SubscribeSync(inbox)
	if err != nil {
		return nil
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := l.n.nc.PublishRequest(subjectTakers, inbox, nil); err != nil {
		return nil
	}
	var out []string
	deadline := time.Now().Add(wait)
	for {
		m, err := sub.NextMsg(time.Until(deadline))
		if err != nil {
			return out
		}
		if name := string(m.Data); name != l.n.name {
			// One is enough to hand rooms to: whoever looks first
			// takes each.
			return append(out, name)
		}
	}
}

// AwaitTaken waits until another node holds each of rooms' leases (it
// resumed the room) or ctx ends, and returns who took each ("" none yet).
func (l *RoomLog) AwaitTaken(ctx context.Context, rooms []string) map[string]string {
	out := map[string]string{}
	for {
		left := 0
		for _, room := range rooms {
			if out[room] != "" {
				continue
			}
			c, cancel := context.WithTimeout(ctx, time.Second)
			owner := l.Owner(c, room)
			cancel()
			if owner != "" && owner != l.n.name {
				out[room] = owner
				continue
			}
			left++
		}
		if left == 0 {
			return out
		}
		select {
		case <-ctx.Done():
			return out
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (l *RoomLog) loop(ctx context.Context) {
	rooms := map[string]*owned{}
	renew := time.NewTicker(l.t.Renew)
	defer renew.Stop()
	// The other nodes' leases are watched, not asked after: a KV
	// Get per logged room four times a second was a node's NATS
	// traffic at rest (and grew with every room of the cluster). An
	// expiry is not a message (the bucket keeps no markers, which older
	// nodes could not open), so each lease lapses here TTL after its
	// last renewal was seen, and deletes (a handover, a match's end)
	// come as they happen.
	w := leaseWatch{lapse: time.NewTimer(time.Hour), leases: map[string]time.Time{}}
	w.lapse.Stop()
	defer w.lapse.Stop()
	var rewatch <-chan time.Time
	watch := func() {
		kw, err := l.kv.WatchAll(ctx, jetstream.MetaOnly())
		if err != nil {
			l.n.log.Warn("cluster: watching the room leases; trying again", "err", err)
			rewatch = time.After(l.t.Poll)
			return
		}
		w.kw, w.updates = kw, kw.Updates()
	}
	watch()
	defer func() {
		if w.kw != nil {
			_ = w.kw.Stop()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			// What the rooms said last (their MatchOver at the stop)
			// is written before the node goes.
			for {
				select {
				case op := <-l.in:
					l.apply(ctx, rooms, op)
				default:
					return
				}
			}
		case op := <-l.in:
			l.apply(ctx, rooms, op)
		case <-renew.C:
			l.renew(ctx, rooms)
		case <-rewatch:
			rewatch = nil
			watch()
		case e, ok := <-w.updates:
			switch {
			case !ok: // the watch ended (NATS closed the connection)
				w.kw, w.updates = nil, nil
				rewatch = time.After(l.t.Poll)
			case e == nil:
				// Every lease held now has been seen: a log none of
				// them covers lost its node before this one looked.
				l.orphans(ctx, rooms, w.leases)
			case e.Operation() == jetstream.KeyValuePut:
				w.renewed(e.Key(), time.Now().Add(l.t.TTL))
			default: // deleted or purged: handed over, or its match ended
				delete(w.leases, e.Key())
				if !l.claim(ctx, rooms, e.Key(), 0) {
					w.renewed(e.Key(), time.Now().Add(l.t.Poll))
				}
			}
		case now := <-w.lapse.C:
			w.armed = false
			mine := l.mine(rooms)
			for key, at := range w.leases {
				if at.After(now) {
					continue
				}
				if mine[key] {
					// This node's own renewal is late: renew sees to
					// it (another node may take the room).
					w.leases[key] = now.Add(l.t.TTL)
					continue
				}
				delete(w.leases, key)
				if !l.claim(ctx, rooms, key, 0) {
					w.leases[key] = now.Add(l.t.Poll) // NATS lets go of it in a moment
				}
			}
			w.rearm(now)
		}
	}
}

// leaseWatch is the loop's view of the room leases it watches: when each
// lapses unless renewed, and one timer for the first to.
type leaseWatch struct {
	kw      jetstream.KeyWatcher
	updates <-chan jetstream.KeyValueEntry
	leases  map[string]time.Time
	lapse   *time.Timer
	armed   bool
}

// renewed moves key's lapse to at. A renewal only ever moves a lapse
// later, so an armed timer is early at worst and re-armed when it fires.
func (w *leaseWatch) renewed(key string, at time.Time) {
	w.leases[key] = at
	if !w.armed {
		w.lapse.Reset(time.Until(at))
		w.armed = true
	}
}

// rearm sets the timer for the first lapse after now, if any.
func (w *leaseWatch) rearm(now time.Time) {
	var first time.Time
	for _, at := range w.leases {
		if first.IsZero() || at.Before(first) {
			first = at
		}
	}
	if !first.IsZero() {
		w.lapse.Reset(first.Sub(now))
		w.armed = true
	}
}

// mine is the keys of the rooms this node holds.
func (l *RoomLog) mine(rooms map[string]*owned) map[string]bool {
	mine := make(map[string]bool, len(rooms))
	for room := range rooms {
		mine[RoomKey(room)] = true
	}
	return mine
}

func (l *RoomLog) op(ctx context.Context, f func(context.Context) error) error {
	if ctx.Err() != nil {
		ctx = context.Background() // the last writes at a stop still go
	}
	c, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return f(c)
}

func (l *RoomLog) publish(subject string, data []byte) {
	if _, err := l.js.PublishAsync(subject, data); err != nil {
		l.n.log.Warn("cluster: room log publish", "subject", subject, "err", err)
		return
	}
	l.sentB.Add(uint64(len(data)))
	l.messages.Add(1)
}

func (l *RoomLog) apply(ctx context.Context, rooms map[string]*owned, op logOp) {
	key := RoomKey(op.room)
	subject := subjectRoomLog + key
	switch op.kind {
	case opStart:
		// The lease first: a node that sees the log must find it held.
		var rev uint64
		err := l.op(ctx, func(c context.Context) (err error) {
			rev, err = l.kv.Put(c, key, []byte(l.n.name))
			return err
		})
		if err != nil {
			l.n.log.Warn("cluster: taking a room's lease; its match will not survive this node", "room", op.room, "err", err)
			return
		}
		rooms[op.room] = &owned{rev: rev, renewed: time.Now()}
		_ = l.op(ctx, func(c context.Context) error {
			return l.stream.Purge(c, jetstream.WithPurgeSubject(subject)) // a previous match's
		})
		start := op.start
		data, err := json.Marshal(logMsg{V: 1, Node: l.n.name, Start: &start})
		if err != nil {
			l.n.log.Error("cluster: encoding a match's start", "room", op.room, "err", err)
			return
		}
		l.publish(subject, data)
	case opBatch:
		if rooms[op.room] == nil {
			return // not ours (its start failed, or another node has it)
		}
		l.publish(subject, encodeBatch(l.n.name, op.batch))
	case opOver:
		o := rooms[op.room]
		if o == nil {
			return
		}
		delete(rooms, op.room)
		l.release(ctx, key, o.rev)
	case opHandOff:
		o := rooms[op.room]
		if o == nil {
			return
		}
		delete(rooms, op.room)
		// Every batch stored first, then the lease goes: the next node
		// to look finds the log whole and the room free.
		select {
		case <-l.js.PublishAsyncComplete():
		case <-time.After(2 * time.Second):
		}
		if err := l.op(ctx, func(c context.Context) error {
			return l.kv.Delete(c, key, jetstream.LastRevision(o.rev))
		}); err != nil {
			l.n.log.Warn("cluster: handing a room over; its lease expires instead", "room", op.room, "err", err)
		}
	}
}

// release ends a room's log and hands its lease back: the log goes
// first, once every batch published is stored, so that nobody who finds
// the lease free resumes a match already settled.
func (l *RoomLog) release(ctx context.Context, key string, rev uint64) {
	select {
	case <-l.js.PublishAsyncComplete():
	case <-time.After(2 * time.Second):
	}
	if err := l.op(ctx, func(c context.Context) error {
		return l.stream.Purge(c, jetstream.WithPurgeSubject(subjectRoomLog+key))
	}); err != nil {
		l.n.log.Warn("cluster: ending a room's log", "room", key, "err", err)
	}
	if err := l.op(ctx, func(c context.Context) error {
		return l.kv.Delete(c, key, jetstream.LastRevision(rev))
	}); err != nil {
		l.n.log.Warn("cluster: handing back a room's lease; it expires instead", "room", key, "err", err)
	}
}

func (l *RoomLog) renew(ctx context.Context, rooms map[string]*owned) {
	now := time.Now()
	for room, o := range rooms {
		key := RoomKey(room)
		err := l.op(ctx, func(c context.Context) error {
			rev, err := l.kv.Update(c, key, []byte(l.n.name), o.rev)
			if err == nil {
				o.rev, o.renewed = rev, now
			}
			return err
		})
		if err == nil {
			continue
		}
		if now.Sub(o.renewed) < l.t.TTL-l.t.Renew && !errors.Is(err, jetstream.ErrKeyExists) {
			continue // NATS slow or away: the lease holds till then
		}
		// Another node holds the room now (this one stalled past the
		// lease): it plays the match; this node stops its copy.
		delete(rooms, room)
		l.n.log.Error("cluster: lost a room's lease to another node; stopping it here", "room", room, "err", err)
		l.mu.Lock()
		r := l.resumer
		l.mu.Unlock()
		if r != nil {
			r.Abandon(room)
		}
	}
}

// orphans takes over the room logs no lease covers (held is every lease
// watched): their nodes died before this one started watching. Asked
// once, when the watch has delivered the leases held.
func (l *RoomLog) orphans(ctx context.Context, rooms map[string]*owned, held map[string]time.Time) {
	subjects, err := l.logged(ctx, subjectRoomLog+">")
	if err != nil {
		l.n.log.Warn("cluster: listing the room logs", "err", err)
		return
	}
	names := make([]string, 0, len(subjects))
	for s := range subjects {
		names = append(names, s)
	}
	sort.Strings(names)
	mine := l.mine(rooms)
	for _, subject := range names {
		key := strings.TrimPrefix(subject, subjectRoomLog)
		if _, ok := held[key]; ok || mine[key] {
			continue
		}
		l.claim(ctx, rooms, key, subjects[subject])
	}
}

// logged is the message count of each room log subject matching filter.
func (l *RoomLog) logged(ctx context.Context, filter string) (map[string]uint64, error) {
	var subjects map[string]uint64
	err := l.op(ctx, func(c context.Context) error {
		info, err := l.stream.Info(c, jetstream.WithSubjectFilter(filter))
		if err == nil {
			subjects = info.State.Subjects
		}
		return err
	})
	return subjects, err
}

// claim takes over the room whose lease key has lapsed or was let go, if
// its log holds a match (count messages; 0: look). It reports false when
// it should be tried again in a moment: NATS holds the lease still (its
// expiry is due) or did not answer. A key without a log (its match
// ended), one another node created first, or any key while this node
// drains is settled: true.
func (l *RoomLog) claim(ctx context.Context, rooms map[string]*owned, key string, count uint64) bool {
	l.mu.Lock()
	r := l.resumer
	l.mu.Unlock()
	if r == nil || l.draining.Load() {
		return true // a draining node takes nothing on
	}
	if count == 0 {
		subjects, err := l.logged(ctx, subjectRoomLog+key)
		if err != nil {
			return false
		}
		if count = subjects[subjectRoomLog+key]; count == 0 {
			return true // no match logged under it
		}
	}
	var rev uint64
	err := l.op(ctx, func(c context.Context) (err error) {
		rev, err = l.kv.Create(c, key, []byte(l.n.name))
		return err
	})
	if errors.Is(err, jetstream.ErrKeyExists) {
		// Another node was first (its lease reaches the watch), or
		// NATS has not let the lapsed one go yet.
		return false
	}
	if err != nil {
		return false
	}
	l.take(ctx, rooms, r, key, count, rev)
	return true
}

// take resumes the room whose lease this node has just created.
func (l *RoomLog) take(ctx context.Context, rooms map[string]*owned, r Resumer, key string, count uint64, rev uint64) {
	took := time.Now()
	start, batches, from, err := l.read(ctx, key, count)
	res := Resumption{Room: key, From: from, Took: took}
	if start != nil {
		res.Room = start.Room
	}
	if err == nil && start != nil {
		if err = r.Resume(*start, batches); err == nil {
			rooms[start.Room] = &owned{rev: rev, renewed: took}
			res.Rebuild = time.Since(took)
			if len(batches) > 0 {
				res.Ticks = batches[len(batches)-1].Tick
			}
			l.n.log.Info("cluster: resumed a room from its log", "room", start.Room, "from", from, "tick", res.Ticks, "rebuild", res.Rebuild)
		}
	}
	if err != nil || start == nil {
		if err == nil {
			err = errors.New("the log has no start")
		}
		res.Err = err
		if start != nil {
			var ticks uint64
			if len(batches) > 0 {
				ticks = batches[len(batches)-1].Tick
			}
			if rerr := r.RecordUnresumable(*start, ticks); rerr != nil {
				l.n.log.Error("cluster: recording an unresumable match as aborted", "room", start.Room, "err", rerr)
			}
			l.n.log.Error("cluster: a room whose node is gone could not be resumed; its match is recorded aborted", "room", start.Room, "from", from, "err", err)
		} else {
			l.n.log.Error("cluster: a room log without its start could not be resumed", "room", key, "err", err)
		}
		l.release(ctx, key, rev)
	}
	l.mu.Lock()
	l.resumed = append(l.resumed, res)
	l.mu.Unlock()
}

// read fetches a room's log: its start and batches, in order.
func (l *RoomLog) read(ctx context.Context, key string, count uint64) (start *lobby.MatchLog, batches []lobby.LogBatch, from string, err error) {
	c, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cons, err := l.stream.OrderedConsumer(c, jetstream.OrderedConsumerConfig{FilterSubjects: []string{subjectRoomLog + key}})
	if err != nil {
		return nil, nil, "", fmt.Errorf("read the log: %w", err)
	}
	var got uint64
	for got < count {
		mb, err := cons.Fetch(int(min(count-got, 1000)), jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			return start, batches, from, fmt.Errorf("read the log: %w", err)
		}
		n := 0
		last := false
		for msg := range mb.Messages() {
			n++
			got++
			var m logMsg
			if err := json.Unmarshal(msg.Data(), &m); err != nil || m.V < 1 {
				return start, batches, from, fmt.Errorf("message %d of the log does not read: %v", got, err)
			}
			from = m.Node
			switch {
			case m.Start != nil:
				if start != nil || len(batches) > 0 {
					return start, batches, from, errors.New("a second start in the log")
				}
				s := *m.Start
				start = &s
			case start == nil:
				return start, batches, from, errors.New("the log's first message is not its start")
			default:
				b, err := decodeBatch(m)
				if err != nil {
					return start, batches, from, fmt.Errorf("batch %d: %w", len(batches)+1, err)
				}
				batches = append(batches, b)
			}
			if md, err := msg.Metadata(); err == nil && md.NumPending == 0 {
				last = true
			}
		}
		if mb.Error() != nil && n == 0 {
			return start, batches, from, fmt.Errorf("read the log: %w", mb.Error())
		}
		if last || n == 0 {
			break
		}
	}
	return start, batches, from, nil
}

// Owner is the node holding room's lease, "" when none does (or NATS
// does not answer).
func (l *RoomLog) Owner(ctx context.Context, room string) string {
	e, err := l.kv.Get(ctx, RoomKey(room))
	if err != nil {
		return ""
	}
	return string(e.Value())
}
