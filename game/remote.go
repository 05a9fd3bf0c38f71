package game

import (
	"context"
)

// RemoteLink is the way to a room that runs on another node of a cluster:
// the owner node applies the control calls and inputs it carries, and its
// frames come back through Room.PublishRemote.
type RemoteLink interface {
	// Control makes one control call on the owner's room and returns its
	// answer (the slot for OpJoin), with the room's own errors (ErrClosed,
	// a *SlotTakenError, ...) as the local room would return them.
	Control(ctx context.Context, c Control) (slot int, err error)
	// Submit queues an input for the owner without ever blocking, as
	// Room.Submit does.
	Submit(id PlayerID, in Input) bool
}

// Control is one control call on its way to the room's owner.
type Control struct {
	Op     ControlOp
	Player Player // only the ID but for OpJoin
	Slot   int    // OpJoin: the slot asked for, -1 for any
	Ready  bool   // OpReady
}

// NewRemoteRoom is the handle of a room run by another node: sessions here
// hold it as they hold a local room (Join, Leave, SetReady, Submit,
// Latest, Done), and each still draws its own frames with its own
// prediction. Its control calls and inputs go through link; its frames
// are the owner's, handed to PublishRemote by whoever receives them,
// starting with first. It has no loop of its own: Run refuses, and Done
// closes once a Closed frame arrives or EndRemote is called.
func NewRemoteRoom(id string, link RemoteLink, first *Frame) *Room {
	r := &Room{id: id, remote: link, done: make(chan struct{}), clock: SystemClock()}
	r.ran.Store(true)
	r.mail.publish(&published{frame: *first})
	if first.Phase == Closed {
		r.closeOnce.Do(func() { close(r.done) })
	}
	return r
}

// PublishRemote makes f, a frame from the room's owner, the room's newest
// (latest wins, as a local room's frames). Call it from one goroutine; a
// frame older than the newest one (a lower Seq) is dropped, and nothing is
// published after the Closed frame.
func (r *Room) PublishRemote(f *Frame) {
	select {
	case <-r.done:
		return
	default:
	}
	if cur, _ := r.mail.latest(); f.Seq < cur.Seq && f.Phase != Closed {
		return
	}
	r.mail.publish(&published{frame: *f})
	if f.Phase == Closed {
		r.closeOnce.Do(func() { close(r.done) })
	}
}

// ReplaceRemote makes f the room's newest frame whatever its Seq: the
// room's owner changed (another node resumed it after its owner died)
// and numbers its frames anew. Call it from PublishRemote's goroutine.
func (r *Room) ReplaceRemote(f *Frame) {
	select {
	case <-r.done:
		return
	default:
	}
	r.mail.publish(&published{frame: *f})
	if f.Phase == Closed {
		r.closeOnce.Do(func() { close(r.done) })
	}
}

// EndRemote ends a remote room's handle when its owner can no longer be
// reached: a Closed frame marked Failed is published (screens tell their
// players the room failed) and Done closes. It does nothing after a Closed
// frame.
func (r *Room) EndRemote() {
	cur, _ := r.mail.latest()
	f := *cur
	f.Seq++
	f.Phase, f.Left, f.Failed = Closed, 0, true
	r.PublishRemote(&f)
}

// Remote reports whether the room runs on another node.
func (r *Room) Remote() bool { return r.remote != nil }

// callRemote carries a control call to the owner.
func (r *Room) callRemote(ctx context.Context, req ctlReq) ctlResp {
	select {
	case <-r.done:
		return ctlResp{slot: -1, err: ErrClosed}
	default:
	}
	slot, err := r.remote.Control(ctx, Control{Op: req.kind, Player: req.player, Slot: req.slot, Ready: req.ready})
	return ctlResp{slot: slot, err: err}
}
