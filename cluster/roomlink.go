package cluster

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/termarena/termarena/game"
	"github.com/termarena/termarena/lobby"
)

// A room is played from any node through three subjects named by the
// room's id, never by a node, so whichever node owns the room serves them
// and a remote session need not know which (the contract resume shares):
//
//	termarena.room.<id>.ctl    request/reply: attach, detach, join, leave, disconnect, ready, evict, holding
//	termarena.room.<id>.in     inputs from remote seats, in small batches
//	termarena.room.<id>.frame  frames the owner publishes (game.AppendFrame)
//
// The owner publishes frames only while some node is attached, at most
// one per frameGap, latest wins, as for a local session: a room waking 30
// times a second (lobby.DefaultTicksPerWake) has each frame sent the
// moment it is published, one ticking at 60 Hz every other, the rate
// views draw at. (A 33 ms pace instead held a frame up to a whole wake
// whenever the two clocks drifted apart: 41 ms input → frame p50 across
// nodes in BenchmarkRemoteInputToFrame, against 16 ms on the owner.) An attached node renews its
// attachment every attachRenew; one not heard from for attachExpire is
// dropped and the players it seated are disconnected (their grace runs),
// as if their connections had dropped.
const (
	subjectRoomPrefix = "termarena.room."
	frameGap          = 25 * time.Millisecond
	attachRenew       = 2 * time.Second
	attachExpire      = 3 * attachRenew
	ctlTimeout        = 3 * time.Second
	// maxInputBatch bounds the inputs one message carries (and the bytes a
	// hostile one may make the owner read).
	maxInputBatch = 64
)

func roomSubject(id, kind string) string { return subjectRoomPrefix + id + "." + kind }

// ctlMsg is a control request on the wire (version 1, JSON: rare and
// small).
type ctlMsg struct {
	V      int    `json:"v"`
	Op     string `json:"op"`
	Node   string `json:"node"`
	Player string `json:"player,omitempty"`
	Name   string `json:"name,omitempty"`
	Guest  bool   `json:"guest,omitempty"`
	Slot   int    `json:"slot"`
	Ready  bool   `json:"ready,omitempty"`
	Seed   uint64 `json:"seed,omitempty"` // outcome: the match's
	// Watchers is, in an attach renewal, how many watch the room on the
	// asking node.
	Watchers int `json:"watchers,omitempty"`
}

// ctlReply answers a ctlMsg. Err is a code the asking node turns back
// into the room's own error (Free for a taken slot); attach carries the
// room's description and its newest frame.
type ctlReply struct {
	Slot    int            `json:"slot"`
	Err     string         `json:"err,omitempty"`
	Msg     string         `json:"msg,omitempty"`
	Free    []int          `json:"free,omitempty"`
	Room    *roomDesc      `json:"room,omitempty"`
	Frame   []byte         `json:"frame,omitempty"`
	Outcome *lobby.Outcome `json:"outcome,omitempty"`
	// Node is the owner answering an attach: another node's name than
	// before means the room was resumed there (roomlog.go).
	Node string `json:"node,omitempty"`
}

type roomDesc struct {
	Game     string `json:"game"`
	Mode     string `json:"mode"`
	Queue    string `json:"queue,omitempty"`
	Private  bool   `json:"private,omitempty"`
	Practice int    `json:"practice,omitempty"`
	// Code is a private room's join code: its players elsewhere are shown
	// it, as on its node (an older owner sends none).
	Code    string         `json:"code,omitempty"`
	Seats   map[string]int `json:"seats,omitempty"`
	DelayMS int64          `json:"delay_ms,omitempty"`
}

var ctlOps = [...]string{game.OpJoin: "join", game.OpLeave: "leave", game.OpDisconnect: "disconnect", game.OpReady: "ready", game.OpEvict: "evict"}

// Error codes on the wire, each one of the room's errors.
var ctlErrors = map[string]error{
	"slot_taken": game.ErrSlotTaken, "full": game.ErrRoomFull, "closed": game.ErrClosed, "started": game.ErrStarted,
	"not_seated": game.ErrNotSeated, "not_expected": game.ErrNotExpected, "invalid_slot": game.ErrInvalidSlot,
	"empty_id": game.ErrEmptyID, "no_room": lobby.ErrNoRoom,
}

func replyErr(err error) ctlReply {
	var taken *game.SlotTakenError
	if errors.As(err, &taken) {
		return ctlReply{Slot: -1, Err: "slot_taken", Free: taken.Free, Msg: err.Error()}
	}
	for code, e := range ctlErrors {
		if errors.Is(err, e) && code != "slot_taken" {
			return ctlReply{Slot: -1, Err: code, Msg: err.Error()}
		}
	}
	return ctlReply{Slot: -1, Err: "other", Msg: err.Error()}
}

// err is the reply's error as the room would have returned it.
func (r ctlReply) err(req ctlMsg) error {
	switch r.Err {
	case "":
		return nil
	case "slot_taken":
		return &game.SlotTakenError{Slot: req.Slot, Free: r.Free}
	}
	if e, ok := ctlErrors[r.Err]; ok {
		return e
	}
	return errors.New(r.Msg)
}

// LocalRooms is this node's rooms as other nodes' sessions reach them:
// *lobby.Rooms implements it.
type LocalRooms interface {
	Owned(id string) (*lobby.Room, bool)
	// HoldingHere is this node's room where a player holds a dropped
	// seat in grace, private rooms included.
	HoldingHere(id game.PlayerID) (*lobby.Room, bool)
}

// subjectFindHeld asks every node at once for the rooms it runs where a
// player holds a dropped seat in grace (findHeldMsg): a player
// reconnecting to a node the directory does not tell where his seat is
// (a private room, which the directory does not list; a node that has
// not yet heard the others' rooms). Every node that serves rooms answers
// (findHeldReply), with no room when it holds none, so the asker stops
// once every live node has.
const subjectFindHeld = "termarena.holding"

// findHeldMsg and findHeldReply are version 1; fields are only added.
type findHeldMsg struct {
	V      int    `json:"v"`
	Node   string `json:"node"`
	Player string `json:"player"`
}

type findHeldReply struct {
	V    int    `json:"v"`
	Node string `json:"node"`
	Room string `json:"room,omitempty"`
}

// RoomLinks serves this node's rooms to sessions on other nodes and
// reaches the other nodes' rooms for sessions here (lobby.RemoteRooms).
type RoomLinks struct {
	n     *Node
	local LocalRooms
	games game.Catalog
	ctx   context.Context
	t     linkTiming

	mu     sync.Mutex
	served map[string]*served // by room id, while some node is attached
	wg     sync.WaitGroup
}

// served is one of this node's rooms that other nodes attached to.
type served struct {
	room *lobby.Room
	// edges: when each attached node last renewed; seats: the players
	// each one seated, with how many sessions of theirs (Join minus
	// Leave and Disconnect), for when the node is lost.
	edges map[string]time.Time
	seats map[string]map[game.PlayerID]int
	// watchers: how many watch the room on each attached node, as its
	// last renewal said.
	watchers map[string]int
}

// countWatchers tells the room how many watch it from other nodes; with
// RoomLinks.mu held.
func (s *served) countWatchers() {
	n := 0
	for _, w := range s.watchers {
		n += w
	}
	s.room.SetWatchersElsewhere(n)
}

// linkTiming is how an edge renews its handles, and a test's hook into
// the owner's control requests; ServeRooms uses the defaults.
type linkTiming struct {
	renew     time.Duration // an edge renews its attachment this often (attachRenew)
	renewWait time.Duration // and waits this long for the answer (attachRenew)
	// control, when set, sees each control request before the owner
	// answers it, on the goroutine that answers (tests slow the owner).
	control func(ctlMsg)
}

func (t linkTiming) withDefaults() linkTiming {
	if t.renew <= 0 {
		t.renew = attachRenew
	}
	if t.renewWait <= 0 {
		t.renewWait = attachRenew
	}
	return t
}

// ServeRooms starts serving this node's rooms to the others and returns
// the links for sessions here to reach theirs (hand it to
// lobby.Rooms.SetRemoteRooms). stop ends every link and returns once the
// goroutines have.
func (n *Node) ServeRooms(local LocalRooms, games game.Catalog) (links *RoomLinks, stop func(), err error) {
	return n.serveRooms(local, games, linkTiming{})
}

func (n *Node) serveRooms(local LocalRooms, games game.Catalog, t linkTiming) (links *RoomLinks, stop func(), err error) {
	ctx, cancel := context.WithCancel(context.Background())
	l := &RoomLinks{n: n, local: local, games: games, ctx: ctx, t: t.withDefaults(), served: map[string]*served{}}
	in := make(chan *nats.Msg, 256)
	sub, err := n.nc.ChanSubscribe(subjectRoomPrefix+"*.ctl", in)
	if err != nil {
		cancel()
		return nil, nil, fmt.Errorf("cluster: serve rooms: %w", err)
	}
	finds := make(chan *nats.Msg, 64)
	findSub, err := n.nc.ChanSubscribe(subjectFindHeld, finds)
	if err != nil {
		_ = sub.Unsubscribe()
		cancel()
		return nil, nil, fmt.Errorf("cluster: serve rooms: %w", err)
	}
	// The node's name says from now on that it answers (names.go).
	n.servesSeats.Store(true)
	select {
	case n.readvertise <- struct{}{}: // rewritten now, not a renewal later
	default:
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		defer func() { _ = sub.Unsubscribe(); _ = findSub.Unsubscribe() }()
		for {
			select {
			case <-ctx.Done():
				return
			case msg := <-in:
				l.control(msg)
			case msg := <-finds:
				l.answerFindHeld(msg)
			}
		}
	}()
	return l, func() { cancel(); l.wg.Wait() }, nil
}

// answerFindHeld tells a node asking which room here holds a player's
// dropped seat (none: an empty answer). The newest frames say, without
// waiting on any room.
func (l *RoomLinks) answerFindHeld(msg *nats.Msg) {
	var req findHeldMsg
	if err := json.Unmarshal(msg.Data, &req); err != nil || req.V != 1 || req.Node == "" || req.Player == "" {
		l.n.log.Warn("cluster: a request for a dropped seat that does not read", "err", err)
		return
	}
	if req.Node == l.n.name || msg.Reply == "" {
		return // our own: the asker looked at its rooms first
	}
	rep := findHeldReply{V: 1, Node: l.n.name}
	if r, ok := l.local.HoldingHere(game.PlayerID(req.Player)); ok {
		rep.Room = r.ID()
	}
	b, _ := json.Marshal(rep)
	if err := msg.Respond(b); err != nil {
		l.n.log.Warn("cluster: answer a request for a dropped seat", "err", err)
	}
}

// FindHeld asks every other node which of its rooms holds player's
// dropped seat in grace (lobby.SeatFinders), and returns the first room
// named; none once every live node has answered, or ctx ends. Before
// ClaimName it cannot know which nodes live, and waits for ctx.
func (l *RoomLinks) FindHeld(ctx context.Context, p game.PlayerID) ([]string, error) {
	nodes, known := l.n.seatNodes()
	if known && len(nodes) == 0 {
		return nil, nil
	}
	inbox := l.n.nc.NewRespInbox()
	replies := make(chan *nats.Msg, 64)
	sub, err := l.n.nc.ChanSubscribe(inbox, replies)
	if err != nil {
		return nil, fmt.Errorf("cluster: ask for a dropped seat: %w", err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	b, _ := json.Marshal(findHeldMsg{V: 1, Node: l.n.name, Player: string(p)})
	if err := l.n.nc.PublishRequest(subjectFindHeld, inbox, b); err != nil {
		return nil, fmt.Errorf("cluster: ask for a dropped seat: %w", err)
	}
	pending := map[string]bool{}
	for _, node := range nodes {
		pending[node] = true
	}
	for !known || len(pending) > 0 {
		select {
		case <-ctx.Done():
			return nil, nil // a node that does not answer in time holds nothing we can reach
		case msg := <-replies:
			var rep findHeldReply
			if err := json.Unmarshal(msg.Data, &rep); err != nil || rep.Node == "" {
				l.n.log.Warn("cluster: an answer for a dropped seat that does not read", "err", err)
				continue
			}
			if rep.Room != "" {
				return []string{rep.Room}, nil
			}
			delete(pending, nameKey(rep.Node))
		}
	}
	return nil, nil
}

// control answers one control request for a room this node owns; other
// nodes' rooms are theirs to answer. A call that waits on the room runs
// on its own goroutine, so one room never holds up another's.
func (l *RoomLinks) control(msg *nats.Msg) {
	id := strings.TrimSuffix(strings.TrimPrefix(msg.Subject, subjectRoomPrefix), ".ctl")
	r, ok := l.local.Owned(id)
	if !ok {
		return
	}
	var req ctlMsg
	if err := json.Unmarshal(msg.Data, &req); err != nil || req.V != 1 || req.Node == "" {
		l.n.log.Warn("cluster: a room control message that does not read", "room", id, "err", err)
		return
	}
	if l.t.control != nil {
		l.t.control(req)
	}
	switch req.Op {
	case "attach":
		l.respond(msg, l.attach(r, req.Node, req.Watchers))
		return
	case "holding":
		// Whether player holds a seat here he dropped (grace running):
		// the newest frame says, without waiting on the room.
		l.respond(msg, holdingReply(r, game.PlayerID(req.Player)))
		return
	case "detach":
		l.detach(id, req.Node)
		l.respond(msg, ctlReply{})
		return
	case "outcome":
		// A rated match's outcome (its rating changes) is written a
		// moment after the room publishes the result: wait for it on a
		// goroutine of its own.
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			ctx, cancel := context.WithTimeout(l.ctx, ctlTimeout)
			defer cancel()
			if o := r.AwaitOutcome(ctx, req.Seed); o != nil {
				l.respond(msg, ctlReply{Slot: -1, Outcome: o})
				return
			}
			l.respond(msg, ctlReply{Slot: -1, Err: "other", Msg: "no outcome yet"})
		}()
		return
	}
	op := -1
	for i, name := range ctlOps {
		if name == req.Op {
			op = i
		}
	}
	if op < 0 {
		l.respond(msg, ctlReply{Slot: -1, Err: "other", Msg: "unknown control " + req.Op})
		return
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		ctx, cancel := context.WithTimeout(l.ctx, ctlTimeout)
		defer cancel()
		p := game.Player{ID: game.PlayerID(req.Player), Name: req.Name, Guest: req.Guest}
		var (
			slot int
			err  error
		)
		switch game.ControlOp(op) {
		case game.OpJoin:
			slot, err = r.Join(ctx, p, req.Slot)
		case game.OpLeave:
			err = r.Leave(ctx, p.ID)
		case game.OpDisconnect:
			err = r.Disconnect(ctx, p.ID)
		case game.OpReady:
			err = r.SetReady(ctx, p.ID, req.Ready)
		case game.OpEvict:
			err = r.Evict(ctx, p.ID)
		}
		if err == nil {
			l.seated(id, req.Node, p.ID, game.ControlOp(op))
			l.respond(msg, ctlReply{Slot: slot})
			return
		}
		l.respond(msg, replyErr(err))
	}()
}

// holdingReply answers "holding": the slot player holds in grace, or
// not_seated.
func holdingReply(r *lobby.Room, p game.PlayerID) ctlReply {
	if fr, _ := r.Latest(); fr != nil {
		for slot, s := range fr.Seats {
			if s.Taken && !s.Connected && s.Player.ID == p {
				return ctlReply{Slot: slot}
			}
		}
	}
	return ctlReply{Slot: -1, Err: "not_seated"}
}

// Holds asks room id's owner whether player holds a seat there in grace
// (lobby.SeatHolders): a player reconnecting here after his connection
// dropped on another node, or after the room's owner died, goes back to
// it. An owner of an older build answers "unknown control": not held.
func (l *RoomLinks) Holds(ctx context.Context, id string, p game.PlayerID) (bool, error) {
	rep, err := l.request(ctx, id, ctlMsg{Op: "holding", Player: string(p), Slot: -1})
	if err != nil {
		return false, fmt.Errorf("cluster: room %s: %w", id, err)
	}
	return rep.Err == "", nil
}

func (l *RoomLinks) respond(msg *nats.Msg, rep ctlReply) {
	b, _ := json.Marshal(rep) // numbers, strings and bytes: cannot fail
	if err := msg.Respond(b); err != nil {
		l.n.log.Warn("cluster: answer a room control request", "subject", msg.Subject, "err", err)
	}
}

// seated keeps count of the sessions node attached to player's seat.
func (l *RoomLinks) seated(id, node string, p game.PlayerID, op game.ControlOp) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.served[id]
	if s == nil {
		return
	}
	seats := s.seats[node]
	if seats == nil {
		seats = map[game.PlayerID]int{}
		s.seats[node] = seats
	}
	switch op {
	case game.OpJoin:
		seats[p]++
	case game.OpDisconnect:
		if seats[p]--; seats[p] <= 0 {
			delete(seats, p)
		}
	case game.OpLeave, game.OpEvict:
		delete(seats, p)
	}
}

// attach records node's attachment (a first one or a renewal) and starts
// serving the room's frames and inputs if nobody was attached.
func (l *RoomLinks) attach(r *lobby.Room, node string, watchers int) ctlReply {
	id := r.ID()
	l.mu.Lock()
	s := l.served[id]
	start := s == nil
	if start {
		s = &served{room: r, edges: map[string]time.Time{}, seats: map[string]map[game.PlayerID]int{}, watchers: map[string]int{}}
		l.served[id] = s
	}
	s.edges[node] = time.Now()
	s.watchers[node] = watchers
	s.countWatchers()
	l.mu.Unlock()
	if start {
		if err := l.serve(s); err != nil {
			l.mu.Lock()
			delete(l.served, id)
			l.mu.Unlock()
			return replyErr(err)
		}
	}
	codec, _ := r.Game.(game.SnapshotCodec)
	fr, _ := r.Latest()
	b, err := game.AppendFrame(nil, codec, fr)
	if err != nil {
		return replyErr(err)
	}
	desc := &roomDesc{Game: r.Game.Name(), Mode: r.Mode.Name, Queue: string(r.Ranked), Private: r.Private, Practice: r.Practice,
		Code: r.Code, DelayMS: r.SpectateDelay().Milliseconds()}
	if len(r.Seats) > 0 {
		desc.Seats = map[string]int{}
		for p, slot := range r.Seats {
			desc.Seats[string(p)] = slot
		}
	}
	return ctlReply{Slot: -1, Room: desc, Frame: b, Node: l.n.name}
}

func (l *RoomLinks) detach(id, node string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := l.served[id]; s != nil {
		delete(s.edges, node)
	}
}

// serve starts the room's goroutine that publishes its frames and applies
// remote inputs while some node is attached.
func (l *RoomLinks) serve(s *served) error {
	id := s.room.ID()
	in := make(chan *nats.Msg, 256)
	sub, err := l.n.nc.ChanSubscribe(roomSubject(id, "in"), in)
	if err != nil {
		return fmt.Errorf("cluster: serve room %s: %w", id, err)
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		defer func() { _ = sub.Unsubscribe() }()
		defer func() {
			l.mu.Lock()
			delete(l.served, id)
			l.mu.Unlock()
		}()
		l.serveLoop(s, in)
	}()
	return nil
}

func (l *RoomLinks) serveLoop(s *served, in <-chan *nats.Msg) {
	r := s.room
	codec, _ := r.Game.(game.SnapshotCodec)
	subject := roomSubject(r.ID(), "frame")
	var (
		sent    uint64 // Seq of the last frame published
		buf     []byte
		pending bool
	)
	pace := time.NewTimer(0)
	<-pace.C
	pacing := false
	expire := time.NewTicker(attachRenew)
	defer expire.Stop()
	defer pace.Stop()
	var changed <-chan struct{}
	publish := func() {
		fr, ch := r.Latest()
		changed = ch
		if fr.Seq == sent && sent != 0 {
			return
		}
		if fr.Phase == game.Closed && r.HandedOff() {
			// The room was handed to another node (a drain), not
			// closed: the nodes attached follow it to the new owner
			// (edge.newOwner) and their players play on there. A
			// Closed frame would end their handles and put those
			// players back in the lobby, their seats left in grace.
			return
		}
		var err error
		if buf, err = game.AppendFrame(buf[:0], codec, fr); err != nil {
			l.n.log.Warn("cluster: encode a room's frame", "room", r.ID(), "err", err)
			return
		}
		sent = fr.Seq
		if err := l.n.nc.Publish(subject, buf); err != nil {
			l.n.log.Warn("cluster: publish a room's frame", "room", r.ID(), "err", err)
		}
		pace.Reset(frameGap)
		pacing = true
	}
	publish()
	for {
		select {
		case <-l.ctx.Done():
			return
		case <-r.Done():
			publish() // the Closed frame
			return
		case <-changed:
			changed = nil
			if pacing {
				pending = true
			} else {
				publish()
			}
		case <-pace.C:
			pacing = false
			if pending {
				pending = false
				publish()
			}
		case msg := <-in:
			batch, err := decodeInputs(msg.Data)
			if err != nil {
				l.n.log.Warn("cluster: a room's inputs that do not read", "room", r.ID(), "err", err)
				continue
			}
			for _, b := range batch {
				r.Submit(b.id, b.in)
			}
		case now := <-expire.C:
			if !l.expire(s, now) {
				return // nobody attached any more
			}
		}
	}
}

// expire drops attachments not renewed in time, disconnecting the players
// their nodes seated, and reports whether any node is still attached.
func (l *RoomLinks) expire(s *served, now time.Time) bool {
	var lost []game.PlayerID
	l.mu.Lock()
	for node, at := range s.edges {
		if now.Sub(at) > attachExpire {
			delete(s.edges, node)
			for p, n := range s.seats[node] {
				for range n {
					lost = append(lost, p)
				}
			}
			delete(s.seats, node)
			delete(s.watchers, node)
		}
	}
	s.countWatchers()
	attached := len(s.edges) > 0
	if !attached {
		delete(l.served, s.room.ID())
	}
	l.mu.Unlock()
	for _, p := range lost {
		ctx, cancel := context.WithTimeout(l.ctx, ctlTimeout)
		_ = s.room.Disconnect(ctx, p)
		cancel()
	}
	return attached
}

// remoteInput is one input of a batch on the wire.
type remoteInput struct {
	id game.PlayerID
	in game.Input
}

// encodeInputs: a count, then per input the player id, slot, sequence,
// action and the tick its screen showed. Lag is the owner's to set.
func encodeInputs(b []byte, batch []remoteInput) []byte {
	b = append(b, 1) // version
	b = binary.AppendUvarint(b, uint64(len(batch)))
	for _, x := range batch {
		b = binary.AppendUvarint(b, uint64(len(x.id)))
		b = append(b, x.id...)
		b = binary.AppendUvarint(b, uint64(max(x.in.Slot, 0)))
		b = binary.AppendUvarint(b, uint64(x.in.Seq))
		b = append(b, byte(x.in.Action))
		b = binary.AppendUvarint(b, x.in.Seen)
	}
	return b
}

var errInputs = errors.New("cluster: bad input batch")

func decodeInputs(data []byte) ([]remoteInput, error) {
	if len(data) < 2 || data[0] != 1 {
		return nil, errInputs
	}
	data = data[1:]
	uv := func(limit uint64) (uint64, bool) {
		v, n := binary.Uvarint(data)
		if n <= 0 || v > limit {
			return 0, false
		}
		data = data[n:]
		return v, true
	}
	count, ok := uv(maxInputBatch)
	if !ok {
		return nil, errInputs
	}
	out := make([]remoteInput, 0, count)
	for range count {
		size, ok := uv(128)
		if !ok || int(size) > len(data) {
			return nil, errInputs
		}
		id := game.PlayerID(data[:size])
		data = data[size:]
		slot, ok1 := uv(game.MaxWireSeats)
		seq, ok2 := uv(1<<32 - 1)
		if !ok1 || !ok2 || len(data) < 1 {
			return nil, errInputs
		}
		action := int8(data[0])
		data = data[1:]
		seen, ok3 := uv(1<<64 - 1)
		if !ok3 {
			return nil, errInputs
		}
		out = append(out, remoteInput{id: id, in: game.Input{Slot: int(slot), Seq: uint32(seq), Action: action, Seen: seen}})
	}
	if len(data) != 0 {
		return nil, errInputs
	}
	return out, nil
}

// Attach reaches room id on whichever node owns it (lobby.RemoteRooms):
// it subscribes to the room's frames, asks the owner to publish them and
// returns the handle sessions here hold. One goroutine per attached room
// receives frames and sends inputs in batches; another renews the
// attachment (renew); a room whose owner stops answering ends (a Closed
// frame, Failed).
func (l *RoomLinks) Attach(ctx context.Context, id string) (*lobby.RemoteRoom, error) {
	if l.ctx.Err() != nil {
		return nil, fmt.Errorf("cluster: attach to room %s: the node is stopping", id)
	}
	frames := make(chan *nats.Msg, 64)
	sub, err := l.n.nc.ChanSubscribe(roomSubject(id, "frame"), frames)
	if err != nil {
		return nil, fmt.Errorf("cluster: attach to room %s: %w", id, err)
	}
	rep, err := l.request(ctx, id, ctlMsg{Op: "attach", Slot: -1})
	if err == nil && rep.Err != "" {
		err = rep.err(ctlMsg{})
	}
	if err == nil && rep.Room == nil {
		err = errors.New("the owner did not describe the room")
	}
	var (
		k     game.Kind
		codec game.SnapshotCodec
		first *game.Frame
	)
	if err == nil {
		var ok bool
		if k, ok = l.games.Kind(rep.Room.Game); !ok {
			err = fmt.Errorf("this node does not run %q", rep.Room.Game)
		}
	}
	if err == nil {
		codec, _ = k.(game.SnapshotCodec)
		first, err = game.DecodeFrame(codec, rep.Frame)
	}
	if err != nil {
		_ = sub.Unsubscribe()
		return nil, fmt.Errorf("cluster: attach to room %s: %w", id, err)
	}
	lctx, cancel := context.WithCancel(l.ctx)
	e := &edge{l: l, id: id, codec: codec, inputs: make(chan remoteInput, 256), owner: rep.Node,
		ranked: rep.Room.Queue != "", outcomes: make(chan *lobby.Outcome, 1)}
	e.room = game.NewRemoteRoom(id, e, first)
	rr := &lobby.RemoteRoom{Room: e.room, Seated: func() int { return int(e.seated.Load()) }, Game: rep.Room.Game, Mode: rep.Room.Mode, Ranked: lobby.RankedMode(rep.Room.Queue),
		Private: rep.Room.Private, Code: rep.Room.Code, Practice: rep.Room.Practice, Delay: time.Duration(rep.Room.DelayMS) * time.Millisecond, Detach: cancel,
		Outcomes: e.outcomes, CountWatchers: func(w func() int) { e.watchers.Store(&w) }}
	if len(rep.Room.Seats) > 0 {
		rr.Seats = map[game.PlayerID]int{}
		for p, slot := range rep.Room.Seats {
			rr.Seats[game.PlayerID(p)] = slot
		}
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		defer func() { _ = sub.Unsubscribe() }()
		e.run(lctx, frames)
	}()
	return rr, nil
}

// request sends a control request for room id and reads its answer.
func (l *RoomLinks) request(ctx context.Context, id string, m ctlMsg) (ctlReply, error) {
	m.V, m.Node = 1, l.n.name
	b, _ := json.Marshal(m)
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, ctlTimeout)
		defer cancel()
	}
	msg, err := l.n.nc.RequestWithContext(ctx, roomSubject(id, "ctl"), b)
	if err != nil {
		if errors.Is(err, nats.ErrNoResponders) || errors.Is(err, context.DeadlineExceeded) {
			return ctlReply{}, fmt.Errorf("no node answers for room %s (%w)", id, err)
		}
		return ctlReply{}, err
	}
	var rep ctlReply
	if err := json.Unmarshal(msg.Data, &rep); err != nil {
		return ctlReply{}, fmt.Errorf("an answer for room %s that does not read: %w", id, err)
	}
	return rep, nil
}

// edge is this node's side of a room another node owns: the
// game.RemoteLink its handle calls.
type edge struct {
	l      *RoomLinks
	id     string
	codec  game.SnapshotCodec
	room   *game.Room
	inputs chan remoteInput
	// seated counts the sessions here the room seated (lobby.RemoteRoom.Seated).
	seated atomic.Int32
	// watchers counts the mirror's watchers here (lobby.RemoteRoom.CountWatchers),
	// told the owner with each renewal.
	watchers atomic.Pointer[func() int]
	// owner is the node that answered the last attach (the renew
	// goroutine's); players, who this node seated with how many
	// sessions, to seat again on a new owner.
	owner   string
	mu      sync.Mutex
	players map[game.PlayerID]seatedHere
	// ranked rooms' outcomes are fetched once a match finishes
	// (lobby.RemoteRoom.Outcomes); asked is the seed last asked for.
	ranked   bool
	asked    uint64
	outcomes chan *lobby.Outcome
}

type seatedHere struct {
	p game.Player
	n int
}

// fetchOutcome asks the owner for the outcome of the match seed, on a
// goroutine of its own so frames keep coming, and hands it on.
func (e *edge) fetchOutcome(ctx context.Context, seed uint64) {
	e.l.wg.Add(1)
	go func() {
		defer e.l.wg.Done()
		for range 3 {
			rep, err := e.l.request(ctx, e.id, ctlMsg{Op: "outcome", Slot: -1, Seed: seed})
			if err == nil && rep.Outcome != nil {
				select {
				case e.outcomes <- rep.Outcome:
				default: // a newer one waits: the lobby takes that
				}
				return
			}
			if ctx.Err() != nil {
				return
			}
		}
	}()
}

// Control carries a control call to the owner (game.RemoteLink).
func (e *edge) Control(ctx context.Context, c game.Control) (int, error) {
	req := ctlMsg{Op: ctlOps[c.Op], Player: string(c.Player.ID), Name: c.Player.Name, Guest: c.Player.Guest, Slot: c.Slot, Ready: c.Ready}
	rep, err := e.l.request(ctx, e.id, req)
	if err != nil {
		return -1, fmt.Errorf("cluster: room %s: %w", e.id, err)
	}
	if err := rep.err(req); err != nil {
		return rep.Slot, err
	}
	switch c.Op {
	case game.OpJoin:
		e.seated.Add(1)
	case game.OpLeave, game.OpDisconnect, game.OpEvict:
		if e.seated.Add(-1) < 0 {
			e.seated.Store(0)
		}
	}
	e.mu.Lock()
	if e.players == nil {
		e.players = map[game.PlayerID]seatedHere{}
	}
	sh := e.players[c.Player.ID]
	switch c.Op {
	case game.OpJoin:
		e.players[c.Player.ID] = seatedHere{p: c.Player, n: sh.n + 1}
	case game.OpDisconnect, game.OpLeave:
		if sh.n <= 1 {
			delete(e.players, c.Player.ID)
		} else {
			e.players[c.Player.ID] = seatedHere{p: sh.p, n: sh.n - 1}
		}
	case game.OpEvict:
		delete(e.players, c.Player.ID)
	}
	e.mu.Unlock()
	return rep.Slot, nil
}

// Submit queues an input for the next batch to the owner; it never blocks
// (game.RemoteLink).
func (e *edge) Submit(id game.PlayerID, in game.Input) bool {
	select {
	case e.inputs <- remoteInput{id: id, in: in}:
		return true
	default:
		return false
	}
}

func (e *edge) run(ctx context.Context, frames <-chan *nats.Msg) {
	defer e.room.EndRemote() // nothing after the owner's Closed frame
	// The renewal is a request the owner may be slow to answer (a
	// busy or dying node, NATS away): it runs on a goroutine of its own,
	// so the player's inputs and the room's frames never wait on it, and
	// it ends with the handle.
	var (
		moved  = make(chan *game.Frame, 1)
		lost   = make(chan struct{})
		rctx   context.Context
		cancel context.CancelFunc
		done   = make(chan struct{})
	)
	rctx, cancel = context.WithCancel(ctx)
	go func() {
		defer close(done)
		e.renew(rctx, moved, lost)
	}()
	defer func() { cancel(); <-done }()
	var (
		batch []remoteInput
		buf   []byte
	)
	inSubject := roomSubject(e.id, "in")
	for {
		select {
		case <-ctx.Done():
			e.detach()
			return
		case <-e.room.Done():
			e.detach()
			return
		case <-lost:
			return
		case f := <-moved:
			// The room moved to another owner (renew): its frames are
			// numbered anew from this one. Applied here, where frames
			// are, so the two never race.
			e.room.ReplaceRemote(f)
		case msg := <-frames:
			f, err := game.DecodeFrame(e.codec, msg.Data)
			if err != nil {
				e.l.n.log.Warn("cluster: a room's frame that does not read", "room", e.id, "err", err)
				continue
			}
			e.room.PublishRemote(f)
			if e.ranked && f.Phase == game.Finished && f.Result != nil && f.Seed != e.asked {
				e.asked = f.Seed
				e.fetchOutcome(ctx, f.Seed)
			}
		case x := <-e.inputs:
			// Whatever else is queued goes in the same message.
			batch = append(batch[:0], x)
			for len(batch) < maxInputBatch {
				select {
				case y := <-e.inputs:
					batch = append(batch, y)
					continue
				default:
				}
				break
			}
			buf = encodeInputs(buf[:0], batch)
			if err := e.l.n.nc.Publish(inSubject, buf); err != nil {
				e.l.n.log.Warn("cluster: send a room's inputs", "room", e.id, "err", err)
			}
		}
	}
}

// renew renews the handle's attachment every linkTiming.renew, one
// request at a time, until ctx ends. The renewal is a request: an owner
// that no longer answers (its node died, the room is gone) ends the
// handle after a few tries (lost is closed; the screens say the room
// failed). An answer from another owner than before (the room was
// resumed there) hands its first frame to run through moved and seats
// this node's players again.
func (e *edge) renew(ctx context.Context, moved chan<- *game.Frame, lost chan<- struct{}) {
	t := time.NewTicker(e.l.t.renew)
	defer t.Stop()
	missed := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, e.l.t.renewWait)
		msg := ctlMsg{Op: "attach", Slot: -1}
		if w := e.watchers.Load(); w != nil {
			msg.Watchers = (*w)()
		}
		rep, err := e.l.request(rctx, e.id, msg)
		cancel()
		if err == nil && rep.Err == "" {
			missed = 0
			if rep.Node != "" && e.owner != "" && rep.Node != e.owner {
				e.newOwner(ctx, rep, moved)
			}
			if rep.Node != "" {
				e.owner = rep.Node
			}
			continue
		}
		if ctx.Err() != nil {
			return
		}
		if missed++; missed >= 3 {
			e.l.n.log.Warn("cluster: lost the owner of a room played here", "room", e.id, "err", err)
			close(lost)
			return
		}
	}
}

// newOwner follows the room to the node that resumed it after its owner
// died (roomlog.go): the new owner numbers its frames anew, so its first
// replaces whatever was newest here, and it holds every seat in grace, so
// the players this node seated sit again (as many sessions as each had).
func (e *edge) newOwner(ctx context.Context, rep ctlReply, moved chan<- *game.Frame) {
	e.l.n.log.Info("cluster: a room played here was resumed on another node; following it", "room", e.id, "from", e.owner, "to", rep.Node)
	if f, err := game.DecodeFrame(e.codec, rep.Frame); err == nil {
		select {
		case moved <- f:
		case <-ctx.Done():
			return
		}
	}
	e.mu.Lock()
	again := make([]seatedHere, 0, len(e.players))
	for _, sh := range e.players {
		again = append(again, sh)
	}
	e.mu.Unlock()
	for _, sh := range again {
		for range sh.n {
			req := ctlMsg{Op: ctlOps[game.OpJoin], Player: string(sh.p.ID), Name: sh.p.Name, Guest: sh.p.Guest, Slot: -1}
			if rep, err := e.l.request(ctx, e.id, req); err != nil || rep.Err != "" {
				e.l.n.log.Warn("cluster: seating a player again in a resumed room", "room", e.id, "player", sh.p.Name, "err", err, "refused", rep.Msg)
			}
		}
	}
}

// detach tells the owner to stop publishing for this node, best effort:
// an owner that does not hear it expires the attachment.
func (e *edge) detach() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, _ = e.l.request(ctx, e.id, ctlMsg{Op: "detach", Slot: -1})
}
