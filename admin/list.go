package admin

import (
	"cmp"
	"encoding/json"
	"fmt"
	"github.com/termarena/termarena/cmdargs"
	"github.com/termarena/termarena/moderation"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/sanitize"
	"github.com/termarena/termarena/store"
)

const (
	defaultAuditLimit = 50
	maxAuditLimit     = 1000

	// reasonCells is how much of a reason a table shows; --json has all.
	reasonCells = 40
)

// The --json shapes below are stable: every field is always present (null
// where the doc says so), and fields are only ever added. Times are RFC
// 3339 in UTC, durations whole seconds. Each listing is a JSON array, []
// when empty.

// banJSON is one element of `admin bans [--all] --json`, newest first:
//
//	{
//	  "id": 3,
//	  "name": "bob",                      // name when banned; "" for a key never seen
//	  "fingerprint": "SHA256:…",
//	  "cidr": "203.0.113.0/24",           // "" when the ban has no address range
//	  "reason": "spam",
//	  "actor": "alice",                   // the admin who banned
//	  "created": "2025-03-01T12:00:00Z",
//	  "expires": "2025-03-02T12:00:00Z",  // null: permanent
//	  "status": "active",                 // "active", "expired" or "lifted"
//	  "lifted": null,                     // when it was lifted; null if it was not
//	  "lifted_by": ""                     // who lifted it
//	}
type banJSON struct {
	ID          uint64  `json:"id"`
	Name        string  `json:"name"`
	Fingerprint string  `json:"fingerprint"`
	CIDR        string  `json:"cidr"`
	Reason      string  `json:"reason"`
	Actor       string  `json:"actor"`
	Created     string  `json:"created"`
	Expires     *string `json:"expires"`
	Status      string  `json:"status"`
	Lifted      *string `json:"lifted"`
	LiftedBy    string  `json:"lifted_by"`
}

// muteJSON is one element of `admin mutes --json`, newest first; only
// active mutes are listed:
//
//	{
//	  "name": "bob",
//	  "fingerprint": "SHA256:…",
//	  "reason": "flooding",
//	  "actor": "alice",                   // admin, moderator or the spam filter
//	  "auto": false,                      // true: the spam filter muted them
//	  "created": "2025-03-01T12:00:00Z",
//	  "expires": "2025-03-01T12:10:00Z"   // null: until lifted
//	}
type muteJSON struct {
	Name        string  `json:"name"`
	Fingerprint string  `json:"fingerprint"`
	Reason      string  `json:"reason"`
	Actor       string  `json:"actor"`
	Auto        bool    `json:"auto"`
	Created     string  `json:"created"`
	Expires     *string `json:"expires"`
}

// auditJSON is one element of `admin audit --json`, newest first:
//
//	{
//	  "id": 42,                           // increases with every entry
//	  "time": "2025-03-01T12:00:00Z",
//	  "actor": "alice",
//	  "action": "ban",                    // ban unban mute unmute kick warn announce promote demote backup
//	  "target": "bob",                    // name at the time (or fingerprint); "" for announce, backup
//	  "target_id": "SHA256:…",            // fingerprint, or a guest's session id; "" for none
//	  "cidr": "",                         // a ban's address range, if any
//	  "reason": "spam",                   // for warn and announce: the text sent
//	  "duration_seconds": 86400,          // ban or mute length; 0: permanent ban, or no duration
//	  "auto": false                       // true: done by the spam filter
//	}
type auditJSON struct {
	ID       uint64 `json:"id"`
	Time     string `json:"time"`
	Actor    string `json:"actor"`
	Action   string `json:"action"`
	Target   string `json:"target"`
	TargetID string `json:"target_id"`
	CIDR     string `json:"cidr"`
	Reason   string `json:"reason"`
	Duration int64  `json:"duration_seconds"`
	Auto     bool   `json:"auto"`
}

// sessionJSON is one element of `admin sessions --json`, by name:
//
//	{
//	  "name": "bob",
//	  "fingerprint": "SHA256:…",          // for a guest, its session id (kick and warn take it)
//	  "guest": false,
//	  "addr": "203.0.113.7:51234",
//	  "where": "room r7",
//	  "since": "2025-03-01T12:00:00Z",
//	  "online_seconds": 754,
//	  "node": "eu-1"                       // in a cluster only: the node the session is on
//	}
type sessionJSON struct {
	Name        string `json:"name"`
	Fingerprint string `json:"fingerprint"`
	Guest       bool   `json:"guest"`
	Addr        string `json:"addr"`
	Where       string `json:"where"`
	Since       string `json:"since"`
	Online      int64  `json:"online_seconds"`
	Node        string `json:"node,omitempty"`
}

// roomJSON is one element of `admin rooms --json`, by id:
//
//	{
//	  "id": "r7",
//	  "mode": "1v1",
//	  "phase": "playing",
//	  "ranked": false,
//	  "players": ["alice", "bob"],
//	  "watchers": 2
//	}
type roomJSON struct {
	ID       string   `json:"id"`
	Mode     string   `json:"mode"`
	Phase    string   `json:"phase"`
	Ranked   bool     `json:"ranked"`
	Players  []string `json:"players"`
	Watchers int      `json:"watchers"`
}

func runBans(r *runner, args []string) int {
	p, err := cmdargs.Parse(args, []string{"all", "json"}, nil)
	if err == nil && len(p.Pos) > 0 {
		err = fmt.Errorf("unexpected argument %q", sanitize.Arg(p.Pos[0]))
	}
	if err != nil {
		return r.usageErr("%v", err)
	}
	all := p.Bools["all"]
	bans, err := r.d.Store.Bans(r.ctx, all)
	if err != nil {
		return r.storeFail("read the bans", err)
	}
	now := r.d.Now()
	if p.Bools["json"] {
		out := make([]banJSON, 0, len(bans))
		for _, b := range bans {
			out = append(out, banJSON{ID: b.ID, Name: b.Name, Fingerprint: b.Fingerprint, CIDR: b.CIDR, Reason: b.Reason,
				Actor: b.Actor, Created: stamp(b.Created), Expires: optStamp(b.Expires), Status: banStatus(b, now),
				Lifted: optStamp(b.Lifted), LiftedBy: b.LiftedBy})
		}
		return r.writeJSON(out)
	}
	if len(bans) == 0 {
		if all {
			fmt.Fprintln(r.out, "no bans")
		} else {
			fmt.Fprintln(r.out, "no active bans")
		}
		return ExitOK
	}
	var t table
	head := []string{"ID", "PLAYER", "FINGERPRINT", "RANGE", "BANNED", "EXPIRES", "BY", "REASON"}
	if all {
		head = slices.Insert(head, 1, "STATUS")
	}
	t.row(head...)
	for _, b := range bans {
		expires := "never"
		if !b.Expires.IsZero() {
			expires = short(b.Expires)
		}
		row := []string{strconv.FormatUint(b.ID, 10), b.Name, b.Fingerprint, b.CIDR, short(b.Created), expires, b.Actor,
			sanitize.Truncate(b.Reason, reasonCells)}
		if all {
			row = slices.Insert(row, 1, banStatus(b, now))
		}
		t.row(row...)
	}
	t.write(r.out)
	return ExitOK
}

func banStatus(b store.Ban, now time.Time) string {
	switch {
	case !b.Lifted.IsZero():
		return "lifted"
	case b.ActiveAt(now):
		return "active"
	}
	return "expired"
}

func runMutes(r *runner, args []string) int {
	p, err := cmdargs.Parse(args, []string{"json"}, nil)
	if err == nil && len(p.Pos) > 0 {
		err = fmt.Errorf("unexpected argument %q", sanitize.Arg(p.Pos[0]))
	}
	if err != nil {
		return r.usageErr("%v", err)
	}
	mutes, err := r.d.Store.Mutes(r.ctx)
	if err != nil {
		return r.storeFail("read the mutes", err)
	}
	if p.Bools["json"] {
		out := make([]muteJSON, 0, len(mutes))
		for _, m := range mutes {
			out = append(out, muteJSON{Name: m.Name, Fingerprint: m.Fingerprint, Reason: m.Reason, Actor: m.Actor,
				Auto: m.Auto, Created: stamp(m.Created), Expires: optStamp(m.Expires)})
		}
		return r.writeJSON(out)
	}
	if len(mutes) == 0 {
		fmt.Fprintln(r.out, "no active mutes")
		return ExitOK
	}
	var t table
	t.row("PLAYER", "FINGERPRINT", "MUTED", "EXPIRES", "BY", "REASON")
	for _, m := range mutes {
		expires := "when lifted"
		if !m.Expires.IsZero() {
			expires = short(m.Expires)
		}
		by := m.Actor
		if m.Auto {
			by += " (auto)"
		}
		t.row(m.Name, m.Fingerprint, short(m.Created), expires, by, sanitize.Truncate(m.Reason, reasonCells))
	}
	t.write(r.out)
	return ExitOK
}

func runAudit(r *runner, args []string) int {
	p, err := cmdargs.Parse(args, []string{"json"}, []string{"since", "limit"})
	if err == nil && len(p.Pos) > 0 {
		err = fmt.Errorf("unexpected argument %q", sanitize.Arg(p.Pos[0]))
	}
	if err != nil {
		return r.usageErr("%v", err)
	}
	var since time.Time
	if v, ok := p.Vals["since"]; ok {
		d, err := moderation.ParseDuration(v)
		if err != nil {
			return r.usageErr("--since: %v", err)
		}
		since = r.d.Now().Add(-d)
	}
	limit := defaultAuditLimit
	if v, ok := p.Vals["limit"]; ok {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 || limit > maxAuditLimit {
			return r.usageErr("--limit %q: want a number from 1 to %d", sanitize.Arg(v), maxAuditLimit)
		}
	}
	log, err := r.d.Store.AuditLog(r.ctx, since, limit)
	if err != nil {
		return r.storeFail("read the audit log", err)
	}
	if p.Bools["json"] {
		out := make([]auditJSON, 0, len(log))
		for _, e := range log {
			out = append(out, auditJSON{ID: e.ID, Time: stamp(e.Time), Actor: e.Actor, Action: e.Action, Target: e.Target,
				TargetID: e.TargetID, CIDR: e.CIDR, Reason: e.Reason, Duration: int64(e.Duration / time.Second), Auto: e.Auto})
		}
		return r.writeJSON(out)
	}
	if len(log) == 0 {
		fmt.Fprintln(r.out, "no audit entries")
		return ExitOK
	}
	var t table
	t.row("ID", "TIME", "ACTOR", "ACTION", "TARGET", "FOR", "REASON")
	for _, e := range log {
		actor := e.Actor
		if e.Auto {
			actor += " (auto)"
		}
		target := e.Target
		if e.CIDR != "" {
			target += " + " + e.CIDR
		}
		length := ""
		switch {
		case e.Duration > 0:
			length = moderation.FormatDuration(e.Duration)
		case e.Action == store.ActionBan:
			length = "permanent"
		}
		t.row(strconv.FormatUint(e.ID, 10), short(e.Time), actor, e.Action, target, length, sanitize.Truncate(e.Reason, reasonCells))
	}
	t.write(r.out)
	return ExitOK
}

func runSessions(r *runner, args []string) int {
	p, err := cmdargs.Parse(args, []string{"json"}, nil)
	if err == nil && len(p.Pos) > 0 {
		err = fmt.Errorf("unexpected argument %q", sanitize.Arg(p.Pos[0]))
	}
	if err != nil {
		return r.usageErr("%v", err)
	}
	list := slices.Clone(r.d.Sessions.List())
	slices.SortFunc(list, func(a, b SessionInfo) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), a.Since.Compare(b.Since), strings.Compare(a.Addr, b.Addr))
	})
	now := r.d.Now()
	if p.Bools["json"] {
		out := make([]sessionJSON, 0, len(list))
		for _, s := range list {
			out = append(out, sessionJSON{Name: s.Name, Fingerprint: s.Fingerprint, Guest: s.Guest, Addr: s.Addr,
				Where: s.Where, Since: stamp(s.Since), Online: int64(max(0, now.Sub(s.Since)) / time.Second), Node: s.Node})
		}
		return r.writeJSON(out)
	}
	if len(list) == 0 {
		fmt.Fprintln(r.out, "nobody is online")
		return ExitOK
	}
	// A NODE column only in a cluster: a single node's table is as it was.
	clustered := slices.ContainsFunc(list, func(s SessionInfo) bool { return s.Node != "" })
	var t table
	head := []string{"NAME", "KIND", "FINGERPRINT", "ADDRESS", "WHERE", "ONLINE"}
	if clustered {
		head = append(head, "NODE")
	}
	t.row(head...)
	for _, s := range list {
		kind := "key"
		if s.Guest {
			kind = "guest"
		}
		row := []string{s.Name, kind, s.Fingerprint, s.Addr, s.Where, moderation.FormatDuration(now.Sub(s.Since))}
		if clustered {
			row = append(row, s.Node)
		}
		t.row(row...)
	}
	t.write(r.out)
	return ExitOK
}

func runRooms(r *runner, args []string) int {
	p, err := cmdargs.Parse(args, []string{"json"}, nil)
	if err == nil && len(p.Pos) > 0 {
		err = fmt.Errorf("unexpected argument %q", sanitize.Arg(p.Pos[0]))
	}
	if err != nil {
		return r.usageErr("%v", err)
	}
	rooms := slices.Clone(r.d.Sessions.Rooms())
	slices.SortFunc(rooms, func(a, b lobby.RoomInfo) int { return strings.Compare(a.ID, b.ID) })
	if p.Bools["json"] {
		out := make([]roomJSON, 0, len(rooms))
		for _, rm := range rooms {
			out = append(out, roomJSON{ID: rm.ID, Mode: rm.Filed(), Phase: rm.Phase.String(), Ranked: rm.Ranked, Players: rm.Names(), Watchers: rm.Watchers})
		}
		return r.writeJSON(out)
	}
	if len(rooms) == 0 {
		fmt.Fprintln(r.out, "no rooms")
		return ExitOK
	}
	var t table
	t.row("ROOM", "MODE", "PHASE", "RANKED", "WATCHERS", "PLAYERS")
	for _, rm := range rooms {
		ranked := "no"
		if rm.Ranked {
			ranked = "yes"
		}
		t.row(rm.ID, rm.Filed(), rm.Phase.String(), ranked, strconv.Itoa(rm.Watchers), strings.Join(rm.Names(), ", "))
	}
	t.write(r.out)
	return ExitOK
}

// writeJSON writes v indented, as every --json output of termarena is.
// encoding/json escapes control characters, so no cleaning is needed.
func (r *runner) writeJSON(v any) int {
	enc := json.NewEncoder(r.out)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return r.fail("write: %v", err)
	}
	return ExitOK
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func optStamp(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := stamp(t)
	return &s
}

// short is a table's timestamp: minutes are enough to read, and UTC so
// every admin sees the same time as the JSON.
func short(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") }

// table lays out rows in columns two spaces apart, measured in terminal
// cells. Every cell is sanitised as it is added: names, reasons, session
// addresses and room ids all come from somewhere an attacker can type.
type table struct {
	rows [][]string
}

func (t *table) row(cells ...string) {
	clean := make([]string, len(cells))
	for i, c := range cells {
		clean[i] = sanitize.Text(c, 0)
	}
	t.rows = append(t.rows, clean)
}

func (t *table) write(w io.Writer) {
	var widths []int
	for _, row := range t.rows {
		for i, c := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], sanitize.Width(c))
		}
	}
	var b strings.Builder
	for _, row := range t.rows {
		b.Reset()
		for i, c := range row {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(pad(c, widths[i]))
		}
		// Trimmed so an empty last column leaves no trailing blanks.
		_, _ = io.WriteString(w, strings.TrimRight(b.String(), " ")+"\n")
	}
}

// pad right-pads s with spaces to w cells.
func pad(s string, w int) string {
	if n := w - sanitize.Width(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}
