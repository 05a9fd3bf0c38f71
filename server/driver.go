package server

import (
	"context"
	"reflect"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/termarena/termarena/inputguard"
	"github.com/termarena/termarena/termkey"
	"github.com/termarena/termarena/tui"
)

// A session's terminal has one reader, one key decoder and one writer, and
// one driver at a time, both on the session's goroutine: the menus loop
// (menus) runs the model's Update and draws its view with a cell renderer
// of its own (menuScreen), only after messages and only what changed;
// while a game screen is up (a seat, a watcher, a replay) the play loop
// (play) drives the same model and the game screen draws. Handing over is
// a switch of who draws (takeTerminal, giveTerminal): no Bubble Tea
// program, renderer ticker or event loop runs at any time.
//
// The model's commands run in the session's own runner, so a command
// waiting for something (the chat's next line, a room's end) outlives the
// loop it was started in and its message reaches whichever loop runs
// when it comes.
type driver struct {
	ctx    context.Context
	sess   *Session
	term   *terminal
	out    *lockedWriter
	input  *inputguard.SessionReader
	events chan []termkey.Event // decoded keys, from the reader goroutine
	run    cmdRunner
	gm     guardedModel
	notes  *msgQueue
	win    Window // the latest size (owned by the driver running)
	// wake is poked by everything rare the driver waits for (next): the
	// session's end, window sizes, notices, commands' messages, a screen
	// handed over or left, and its timer.
	wake wake
	idle *lobbyIdle

	scr *menuScreen // the menus' renderer
	// carry is what a loop took but did not run before it handed over,
	// for the next one.
	carry []tea.Msg
	// playing: the play loop has the terminal (kitty keyboard, game
	// frames); the session's end must restore the terminal itself.
	playing bool
	// waits are the model's commands that only wait (tui.WaitMsg): the
	// driver running waits for them with its other inputs, so they cost
	// no goroutine; cases is next's scratch.
	waits []tui.WaitMsg
	cases []reflect.SelectCase
	// held are waits whose channel fired before their NotBefore: their
	// Then runs once the earliest is due, so a burst of changes is one
	// read.
	held []heldWait
	// idleDue is when the idle check is next due (zero: not set).
	idleDue time.Time
	// screen is the player's room screen the driver runs (the lobby
	// handed it over: terminal.Drive) until screenCtx ends (screenStop
	// undoes the wake it then gives); nil: none.
	screen     *tui.RoomView
	screenCtx  context.Context
	screenStop func() bool
	// restDue is when the menus will have shown the same view for
	// restAfter (zero: not set): their cells are let go until the next
	// draw (menuScreen.rest). restAfter 0: never.
	restDue   time.Time
	restAfter time.Duration
	// timer pokes wake at the earliest of idleDue, restDue and the held
	// waits' (armTimer): one timer for the three, and no channel of its
	// own in next's select.
	timer *time.Timer
}

// wake is a capacity-1 channel that tells the session's driver to look at
// its rare sources (driver.woken); a poke never blocks, and pokes that
// come before the driver looks are one.
type wake chan struct{}

func (w wake) poke() {
	select {
	case w <- struct{}{}:
	default:
	}
}

// heldWait is a fired wait waiting for its NotBefore.
type heldWait struct {
	w  tui.WaitMsg
	ok bool
}

// gameScreen reports whether the model shows a game screen, which the play
// loop drives.
func (d *driver) gameScreen() bool {
	g, ok := d.gm.programModel.(interface{ GameScreen() bool })
	return ok && g.GameScreen()
}

// readKeys is the session's one input reader: inputguard's bounded bytes,
// decoded by the session's one decoder, handed to the driver running. It
// ends when the channel's input does (the session's end closes it).
//
// It decodes into two batches in turn, not a new one a read: the driver is
// done with a batch (next keeps nothing of it) before it takes the next,
// and the reader fills the other meanwhile.
func (d *driver) readKeys() {
	var dec termkey.Decoder
	buf := make([]byte, 1024)
	var batches [2][]termkey.Event
	cur := &batches[0]
	emit := func(e termkey.Event) { *cur = append(*cur, e) }
	k := 0 // the batch to fill: not the one the driver took last
	for {
		n, err := d.input.Read(buf)
		if n > 0 {
			cur = &batches[k]
			if cap(*cur) > maxKeptBatch {
				*cur = nil // a paste's: not kept for the session's life
			}
			*cur = (*cur)[:0]
			dec.Decode(buf[:n], emit)
			if len(*cur) > 0 {
				select {
				case d.events <- *cur:
					k ^= 1
				case <-d.ctx.Done():
					return
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// maxKeptBatch is the most decoded keys a batch of readKeys keeps room for
// between reads; a person's keys come a few at a time.
const maxKeptBatch = 16

func eventMsgs(evs []termkey.Event) []tea.Msg {
	msgs := make([]tea.Msg, len(evs))
	for i, e := range evs {
		msgs[i] = e.Msg()
	}
	return msgs
}

// keyMsgs is the model's messages for a batch of keys. The room screen
// takes its keys first (terminal.filter): it is offered them here, before
// they become messages, up to the first it does not take; that key and
// every one after it become messages, each offered again after the
// Updates before it (the loops' filter), so a key after one that opens the
// chat line is typed into it. A batch the screen takes whole costs no
// message.
func (d *driver) keyMsgs(evs []termkey.Event) []tea.Msg {
	i := 0
	for i < len(evs) && d.term.takeEvent(d.ctx, &evs[i]) {
		i++
	}
	if i == len(evs) {
		return nil
	}
	return eventMsgs(evs[i:])
}

// update runs one message through the model (under the guard) and its
// command through the runner.
func (d *driver) update(msg tea.Msg) {
	next, cmd := d.gm.Update(msg)
	d.gm = next.(guardedModel)
	d.run.start(cmd)
}

// armIdle sets the idle check for when it is next due (none when the
// check is off or has nothing to wait for).
func (d *driver) armIdle() {
	d.idleDue = time.Time{}
	if d.idle != nil {
		if due := d.idle.due(d.input.LastRead()); !due.IsZero() {
			// Not sooner than a tenth of a second: a clock that says
			// "now" again must not spin the loop.
			d.idleDue = time.Now().Add(max(time.Until(due), 100*time.Millisecond))
		}
	}
	d.armTimer()
}

// armTimer sets the driver's one timer for the earliest of what it waits
// for by time: the idle check, the held waits, the menus' rest.
func (d *driver) armTimer() {
	var first time.Time
	for _, t := range [...]time.Time{d.idleDue, d.heldDue(), d.restDue} {
		if !t.IsZero() && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	switch {
	case first.IsZero():
		if d.timer != nil {
			d.timer.Stop()
		}
	case d.timer == nil:
		d.timer = time.AfterFunc(time.Until(first), d.wake.poke)
	default:
		// A fire of the old setting that is under way only pokes: what
		// is due is read from the clock (woken).
		d.timer.Reset(time.Until(first))
	}
}

// stopTimer stops the timer as the session ends.
func (d *driver) stopTimer() {
	if d.timer != nil {
		d.timer.Stop()
	}
}

// checkIdle runs the idle check now and sets its timer again.
func (d *driver) checkIdle() (tea.Msg, bool) {
	msg, isMsg := d.idle.check(time.Now(), d.input.LastRead())
	d.armIdle()
	return msg, isMsg
}

// next waits for the next messages for the model: keys, a command's
// message, notices, a new window size or the idle check's; nil when the
// session ends.
//
// While a game screen runs it wakes for every frame (its beat), so its
// select has few cases: Go's select locks and queues on every channel it
// waits on, each time. The keys, the driver's wake, the screen's beat and
// events, and each wait's Until are all it waits on; everything rare (the
// session's end, a window size, notices, commands' messages, a screen
// handed over or left, the idle, held and rest timers) pokes the one wake
// channel (wake) and is looked at only then (woken), and a wait's Stop is
// looked at only when its Until fires or another wait comes (pruneWaits).
func (d *driver) next() []tea.Msg {
	for {
		d.syncScreen()
		// The room screen's, when the driver runs one: its clock's beat
		// and its keys (nil channels, never ready, when not).
		var beat <-chan struct{}
		var screenEvents <-chan tui.ScreenEvent
		if d.screen != nil {
			beat, screenEvents = d.screen.Wakes()
		}
		var i int
		var ok bool
		var got received
		if len(d.waits) <= typedWaits {
			i, ok = d.selectTyped(beat, screenEvents, &got)
		} else {
			i, ok = d.selectReflect(beat, screenEvents, &got)
		}
		switch i {
		case caseKeys:
			msgs := d.keyMsgs(got.events)
			if d.idle != nil && d.idle.warned {
				// The player is back: the warning goes now.
				if msg, isMsg := d.checkIdle(); isMsg {
					msgs = append(msgs, msg)
				}
			}
			if len(msgs) > 0 {
				return msgs
			}
		case caseWake:
			msgs, end := d.woken()
			if end {
				return nil
			}
			if len(msgs) > 0 {
				return msgs
			}
		case caseBeat:
			d.screenCall(d.screen.Beat)
		case caseScreen:
			ev := got.screen
			d.screenCall(func() { d.screen.Handle(ev) })
		default:
			k := i - waitCases
			w := d.waits[k]
			d.waits = append(d.waits[:k], d.waits[k+1:]...)
			switch {
			case stopped(w.Stop):
			case time.Now().Before(w.NotBefore):
				d.hold(heldWait{w, ok})
			default:
				d.then(w, ok)
			}
		}
	}
}

// woken looks at everything that pokes the wake channel: the session's
// end (end), a new window size, the commands' messages and the notices
// (msgs, in that order), a screen handed over or left, and the timers that
// are due. A command's message that only waits joins the waits.
func (d *driver) woken() (msgs []tea.Msg, end bool) {
	if d.ctx.Err() != nil {
		return nil, true
	}
	d.pruneWaits()
	select {
	case w := <-d.sess.winch:
		d.win = w
		msgs = append(msgs, tea.WindowSizeMsg{Width: w.Width, Height: w.Height})
	default:
	}
	for _, msg := range d.run.out.take() {
		if w, isWait := msg.(tui.WaitMsg); isWait {
			d.addWait(w)
			continue
		}
		msgs = append(msgs, msg)
	}
	msgs = append(msgs, d.notes.take()...)
	now := time.Now()
	if due(d.idleDue, now) {
		d.idleDue = time.Time{}
		if msg, isMsg := d.checkIdle(); isMsg {
			msgs = append(msgs, msg)
		}
	}
	if len(d.held) > 0 && due(d.heldDue(), now) {
		d.runHeld(now)
	}
	if due(d.restDue, now) {
		d.restDue = time.Time{}
		d.scr.rest()
	}
	d.armTimer()
	return msgs, false
}

// due reports whether a deadline (zero: none) has come.
func due(at, now time.Time) bool { return !at.IsZero() && !now.Before(at) }

// addWait waits for w from now on.
func (d *driver) addWait(w tui.WaitMsg) {
	d.pruneWaits()
	d.waits = append(d.waits, w)
}

// pruneWaits drops the waits whose Stop has fired: the select does not
// wait on Stop, so a stopped wait whose Until never fires would otherwise
// stay. It runs on every wake (a room left pokes it) and new wait.
func (d *driver) pruneWaits() {
	kept := d.waits[:0]
	for _, w := range d.waits {
		if !stopped(w.Stop) {
			kept = append(kept, w)
		}
	}
	clear(d.waits[len(kept):])
	d.waits = kept
}

// next's select cases, in order: the reader's keys, the wake, the room
// screen's beat and events, then each wait's Until.
const (
	caseKeys = iota
	caseWake
	caseBeat
	caseScreen
	waitCases
)

// received is what next's select received, by case.
type received struct {
	events []termkey.Event
	screen tui.ScreenEvent
}

// typedWaits is how many of the model's waits next selects on with a
// select statement; beyond that, reflect.Select, which costs several
// times as much a wake: while a game screen runs in the play loop, next
// wakes for every frame.
const typedWaits = 6

// selectTyped is next's select for up to typedWaits waits, its cases
// numbered as in next.
func (d *driver) selectTyped(beat <-chan struct{}, screenEvents <-chan tui.ScreenEvent, got *received) (i int, ok bool) {
	var until [typedWaits]<-chan struct{} // nil: never ready
	for k, w := range d.waits {
		until[k] = w.Until
	}
	select {
	case got.events = <-d.events:
		return caseKeys, true
	case <-d.wake:
		return caseWake, true
	case <-beat:
		return caseBeat, true
	case got.screen = <-screenEvents:
		return caseScreen, true
	case _, ok = <-until[0]:
		return waitCases, ok
	case _, ok = <-until[1]:
		return waitCases + 1, ok
	case _, ok = <-until[2]:
		return waitCases + 2, ok
	case _, ok = <-until[3]:
		return waitCases + 3, ok
	case _, ok = <-until[4]:
		return waitCases + 4, ok
	case _, ok = <-until[5]:
		return waitCases + 5, ok
	}
}

// selectReflect is next's select for any number of waits.
func (d *driver) selectReflect(beat <-chan struct{}, screenEvents <-chan tui.ScreenEvent, got *received) (int, bool) {
	cases := append(d.cases[:0],
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(d.events)},
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(d.wake)},
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(beat)},
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(screenEvents)})
	for _, w := range d.waits {
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(w.Until)})
	}
	d.cases = cases
	i, v, ok := reflect.Select(cases)
	switch i {
	case caseKeys:
		got.events = v.Interface().([]termkey.Event)
	case caseScreen:
		got.screen = v.Interface().(tui.ScreenEvent)
	}
	return i, ok
}

// then runs what a wait stood for as a command: reading the new state may
// take a lock or the store.
func (d *driver) then(w tui.WaitMsg, ok bool) {
	d.run.start(func() tea.Msg { return w.Then(ok) })
}

// hold keeps a fired wait until its NotBefore, on the one timer.
func (d *driver) hold(h heldWait) {
	d.held = append(d.held, h)
	d.armTimer()
}

// runHeld runs the held waits that are due (and not stopped meanwhile)
// and sets the timer for the rest.
func (d *driver) runHeld(now time.Time) {
	kept := d.held[:0]
	for _, h := range d.held {
		switch {
		case stopped(h.w.Stop):
		case !now.Before(h.w.NotBefore):
			d.then(h.w, h.ok)
		default:
			kept = append(kept, h)
		}
	}
	clear(d.held[len(kept):])
	d.held = kept
	d.armTimer()
}

// heldDue is the earliest held wait's NotBefore (zero: none held).
func (d *driver) heldDue() time.Time {
	var first time.Time
	for _, h := range d.held {
		if first.IsZero() || h.w.NotBefore.Before(first) {
			first = h.w.NotBefore
		}
	}
	return first
}

// stopped reports whether a wait's Stop has fired.
func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// menus drives the model while it shows the menus, on the session's
// goroutine: it runs each message through Update and, once a batch of
// messages is done, draws the view if it changed. Nothing runs between
// messages: no frame ticker. It reports whether the session is to end;
// false: the model went to a game screen, which the play loop drives.
func (d *driver) menus() (quit bool) {
	// What a Bubble Tea program told its model as it started, each time
	// the menus take the terminal: its colour profile and size.
	pending := append([]tea.Msg{tea.ColorProfileMsg{Profile: d.scr.profile},
		tea.WindowSizeMsg{Width: d.win.Width, Height: d.win.Height}}, d.carry...)
	d.carry = nil
	for {
		for len(pending) > 0 {
			msg := pending[0]
			pending = pending[1:]
			switch m := msg.(type) {
			case tea.QuitMsg:
				d.draw() // the model's last view, as Bubble Tea ends
				return true
			case tea.SuspendMsg:
				// A client cannot suspend a server-side program (^Z would
				// stop it for good); carry on instead.
				msg = tea.ResumeMsg{}
			case tea.WindowSizeMsg:
				d.scr.resize(m.Width, m.Height)
			case tea.ColorProfileMsg:
				d.scr.setProfile(m.Profile)
			}
			if reflect.TypeOf(msg) == clearScreenType {
				d.scr.clear()
			}
			// A player's room screen takes the game's keys first.
			if msg = d.term.filter(d.ctx, msg); msg != nil {
				d.update(msg)
			}
			if d.gameScreen() {
				// The game screen draws from now on: the menus' view
				// is not drawn (it would flash under the board).
				d.stopRest()
				d.carry = pending
				return false
			}
		}
		d.draw()
		// A room screen the Updates handed over or left is seen now, as
		// the loop waits (in play, after each Update).
		d.resyncScreen()
		if pending = d.next(); pending == nil {
			return true
		}
	}
}

// clearScreenType is Bubble Tea's (unexported) message for tea.ClearScreen.
var clearScreenType = reflect.TypeOf(tea.ClearScreen())

// draw shows the menus' view; a failed write ends nothing here (the
// connection's own watch ends a session whose client is gone). The rest
// timer starts again: the cells are let go once the view has stood still
// for restAfter.
func (d *driver) draw() {
	_ = d.scr.draw(d.gm.View())
	if d.restAfter <= 0 {
		return
	}
	d.restDue = time.Now().Add(d.restAfter)
	d.armTimer()
}

// stopRest stops the rest timer: the game screen has the terminal, and
// the menus let their cells go as they hand it over (menuScreen.lent).
func (d *driver) stopRest() {
	if !d.restDue.IsZero() {
		d.restDue = time.Time{}
		d.armTimer()
	}
}

// play drives the model while it shows a game screen, on the session's
// goroutine. It reports whether the session is to end (the model quit or
// the session ended); false: the model is back in the menus.
func (d *driver) play() (quit bool) {
	d.takeTerminal()
	pending := d.carry
	d.carry = nil
	for {
		d.syncScreen()
		for len(pending) > 0 {
			if !d.gameScreen() {
				d.resyncScreen()
				d.carry = pending
				d.giveTerminal()
				return false
			}
			msg := pending[0]
			pending = pending[1:]
			if _, ok := msg.(tea.QuitMsg); ok {
				return true
			}
			if msg = d.term.filter(d.ctx, msg); msg != nil {
				d.update(msg)
				d.resyncScreen()
			}
		}
		if !d.gameScreen() {
			d.giveTerminal()
			return false
		}
		if pending = d.next(); pending == nil {
			return true
		}
	}
}

// syncScreen is resyncScreen once a screen was handed over or its room
// left since it last ran (terminal.resync): next runs it every wake, so it
// is one atomic load the rest of the time.
func (d *driver) syncScreen() {
	if d.term.resync.Load() {
		d.resyncScreen()
	}
}

// resyncScreen keeps the room screen the driver runs (in the play loop, or
// in the menus' loop under a model that shows no game screen) in step with
// the lobby: it ends the one whose room the player left (its ctx ended)
// and begins the one the lobby handed over since (terminal.Drive). A
// screen handed over and left before the driver got to it is ended
// unbegun, so that whoever waits for it to stop drawing is not left
// waiting. The loops run it after Updates, which is where a room is
// left or a screen handed over on the session's own goroutine.
func (d *driver) resyncScreen() {
	d.term.resync.Store(false)
	if d.screen != nil && d.screenCtx.Err() != nil {
		d.endScreen()
	}
	for _, s := range d.term.takeScreens() {
		d.endScreen() // a newer screen replaces it
		if s.ctx.Err() != nil || d.ctx.Err() != nil {
			s.v.End()
			continue
		}
		d.screen, d.screenCtx = s.v, s.ctx
		// Its room left from elsewhere (the room closed, the session
		// moved on): the driver hears of it through its wake.
		d.screenStop = context.AfterFunc(s.ctx, d.term.flagResync)
		d.screenCall(s.v.Begin)
	}
}

// endScreen ends the room screen the driver runs, if any.
func (d *driver) endScreen() {
	if v := d.screen; v != nil {
		d.screen, d.screenCtx = nil, nil
		d.screenStop()
		d.screenStop = nil
		v.End()
	}
}

// endScreens ends the room screen and any handed over but never begun, as
// the session ends.
func (d *driver) endScreens() {
	d.endScreen()
	for _, s := range d.term.takeScreens() {
		s.v.End()
	}
}

// screenCall runs a step of the room screen on the driver's goroutine: a
// panic in it ends the session (as it did on the screen's own goroutine),
// not the server, and the screen with it.
func (d *driver) screenCall(f func()) {
	defer func() {
		if r := recover(); r != nil {
			d.gm.g.recovered(r, "room view")
			d.endScreen()
		}
	}()
	f()
}

// The kitty keyboard protocol's flags the play screen asks for:
// disambiguated keys (1) and key releases (2), so a held paddle key stops
// when let go. The menus ask for none.
const (
	kittyPush = "\x1b[>3u"
	kittyPop  = "\x1b[<u"
	// restoreTerm is what the play loop writes when the session ends on a
	// game screen: what the menus write when they end (bracketed paste
	// off, cursor shown, the main screen back).
	restoreTerm = "\x1b[?2004l\x1b[?25h\x1b[?1049l"
)

// takeTerminal hands the terminal to the game screen: the alternate
// screen (a session that went to a game at once may not have drawn a menu
// yet), the kitty keyboard protocol, and the game's frames written from
// now on; the game screen is told to paint it whole.
func (d *driver) takeTerminal() {
	seq := kittyPush
	if !d.scr.alt {
		seq = "\x1b[?1049h\x1b[?25l\x1b[2J" + seq
	}
	d.scr.lent()
	d.out.handTo(true, seq)
	d.playing = true
}

// giveTerminal hands the terminal back to the menus: no game frame is
// written from now on, the keyboard mode is undone, and the menus repaint
// whole when they draw next (lent).
func (d *driver) giveTerminal() {
	d.out.handTo(false, kittyPop)
	d.playing = false
}

// restore gives the terminal back to the player as the session ends.
func (d *driver) restore() {
	if d.playing {
		d.out.handTo(false, kittyPop+restoreTerm)
		d.playing = false
		return
	}
	_ = d.scr.close()
}

// msgQueue holds messages for the session's model until the driver
// running takes them, and pokes its wake: notices (whispers,
// announcements, a kick) and commands' results. It never blocks the
// sender.
type msgQueue struct {
	mu   sync.Mutex
	msgs []tea.Msg
	wake wake // the driver's
}

func (q *msgQueue) put(msg tea.Msg) {
	q.mu.Lock()
	q.msgs = append(q.msgs, msg)
	q.mu.Unlock()
	q.wake.poke()
}

// take is the messages queued since the last call, in order.
func (q *msgQueue) take() []tea.Msg {
	q.mu.Lock()
	defer q.mu.Unlock()
	ms := q.msgs
	q.msgs = nil
	return ms
}

// cmdRunner runs a session's commands, each on a goroutine that ends once
// its message is queued for the driver (or the session has ended), and
// expands batches and sequences as Bubble Tea does. The messages wait in
// a queue that pokes the driver's wake, rather than on a channel of their
// own in its select.
type cmdRunner struct {
	ctx   context.Context
	guard func(tea.Cmd) tea.Cmd // a panicking command ends the session, not the server
	out   msgQueue              // its wake is the driver's
}

func (r *cmdRunner) start(cmd tea.Cmd) {
	if cmd != nil {
		go r.exec(r.guard(cmd))
	}
}

func (r *cmdRunner) exec(cmd tea.Cmd) {
	r.deliver(cmd(), false)
}

// sequenceType is Bubble Tea's (unexported) message for tea.Sequence.
var sequenceType = reflect.TypeOf(tea.Sequence(func() tea.Msg { return nil }, func() tea.Msg { return nil })())

var cmdsType = reflect.TypeOf([]tea.Cmd(nil))

// deliver hands msg on; inSeq: a batch in a sequence ends before the
// sequence's next command runs, as in Bubble Tea.
func (r *cmdRunner) deliver(msg tea.Msg, inSeq bool) {
	switch m := msg.(type) {
	case nil:
		return
	case tea.BatchMsg:
		if !inSeq {
			for _, c := range m {
				r.start(c)
			}
			return
		}
		var wg sync.WaitGroup
		for _, c := range m {
			if c != nil {
				wg.Go(func() { r.deliver(r.guard(c)(), true) })
			}
		}
		wg.Wait()
		return
	}
	if reflect.TypeOf(msg) == sequenceType {
		// In order: each command's message is queued before the next runs.
		for _, c := range reflect.ValueOf(msg).Convert(cmdsType).Interface().([]tea.Cmd) {
			if c != nil {
				r.deliver(r.guard(c)(), true)
			}
		}
		return
	}
	if r.ctx.Err() != nil {
		return
	}
	r.out.put(msg)
}
