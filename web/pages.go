package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/termarena/termarena/asciicast"
	"github.com/termarena/termarena/lobby"
	"github.com/termarena/termarena/service"
)

// pages are the parsed templates, one set per page (each with the shared
// layout), so page blocks cannot collide.
type pages struct {
	byName map[string]*template.Template
}

var funcs = template.FuncMap{
	"day": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
	"delta": func(before, after int) string {
		d := after - before
		if d > 0 {
			return fmt.Sprintf("+%d", d)
		}
		return strconv.Itoa(d)
	},
	"minsec": func(sec float64) string {
		s := int(sec + 0.5)
		return fmt.Sprintf("%d:%02d", s/60, s%60)
	},
	"add": func(a, b int) int { return a + b },
}

func parsePages() (*pages, error) {
	layout, err := fs.ReadFile(assets, "templates/layout.html")
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(assets, "templates/*.html")
	if err != nil {
		return nil, err
	}
	p := &pages{byName: map[string]*template.Template{}}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" {
			continue
		}
		body, err := fs.ReadFile(assets, n)
		if err != nil {
			return nil, err
		}
		t, err := template.New("layout").Funcs(funcs).Parse(string(layout))
		if err != nil {
			return nil, err
		}
		if _, err := t.New(name).Parse(string(body)); err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		p.byName[name] = t
	}
	return p, nil
}

// page is what the layout needs besides the page's own data.
type page struct {
	Title string
	Modes []string
	Data  any
}

// render writes a page with status code, or its data as JSON when the
// request asked for PATH.json.
func (s *Server) render(w http.ResponseWriter, r *http.Request, code int, name, title string, data, jsonData any) {
	if wantsJSON(r) {
		writeJSON(w, code, jsonData)
		return
	}
	var buf bytes.Buffer
	t := s.pages.byName[name]
	if err := t.ExecuteTemplate(&buf, "layout", page{Title: title, Modes: s.d.Queries.Modes(), Data: data}); err != nil {
		s.log.Error("web page", "page", name, "err", err)
		http.Error(w, "500 internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}

func wantsJSON(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, ".json") }

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		code, b = http.StatusInternalServerError, []byte(`{"error":"internal error"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}

// jsonError is the JSON body of every error: {"error": "no player named \"x\""}.
type jsonError struct {
	Error string `json:"error"`
}

// fail answers an error: 404 with the reason for something that does not
// exist, else 500 with a generic text (the cause goes to the log).
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error, what string) {
	code, msg := http.StatusNotFound, what
	switch {
	case errors.Is(err, service.ErrNoPlayer), errors.Is(err, service.ErrNoMatch), errors.Is(err, service.ErrNoReplay), errors.Is(err, errNoRoom):
	case errors.Is(err, service.ErrUnknownMode):
		msg = err.Error()
		if i := strings.Index(msg, "unknown mode"); i >= 0 {
			msg = msg[i:]
		}
	default:
		s.log.Error("web request", "path", r.URL.Path, "err", err)
		code, msg = http.StatusInternalServerError, "the server could not read that now; please try again"
	}
	s.render(w, r, code, "error", fmt.Sprintf("%d", code), errorPage{Code: code, Message: msg}, jsonError{msg})
}

type errorPage struct {
	Code    int
	Message string
}

var errNoRoom = errors.New("no such room")

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.fail(w, r, errNoRoom, "no page at "+strconv.Quote(r.URL.Path))
}

// trimExt takes ".json" (or ext) off a path value.
func trimExt(v string, exts ...string) string {
	for _, e := range exts {
		if t, ok := strings.CutSuffix(v, e); ok {
			return t
		}
	}
	return v
}

// Home is the JSON of `/` (index.json).
type Home struct {
	PlayersOnline int                   `json:"players_online"`
	Rooms         []service.Room        `json:"rooms"`
	Leaderboards  []service.Leaderboard `json:"leaderboards"`
}

// homeTop is how many players each leaderboard shows on the front page.
const homeTop = 5

func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	h := Home{Rooms: []service.Room{}, Leaderboards: []service.Leaderboard{}}
	if s.d.Online != nil {
		h.PlayersOnline = s.d.Online()
	}
	infos, err := s.d.Queries.RoomInfos(ctx, lobby.Watchable)
	if err != nil {
		s.fail(w, r, err, "")
		return
	}
	for _, ri := range infos {
		if !ri.Private || ri.Ranked { // ranked rooms are watchable by id
			h.Rooms = append(h.Rooms, service.RoomOf(ri))
		}
	}
	for _, m := range s.d.Queries.Modes() {
		lb, err := s.d.Queries.Leaderboard(ctx, m, homeTop)
		if err != nil {
			s.fail(w, r, err, "")
			return
		}
		h.Leaderboards = append(h.Leaderboards, lb)
	}
	s.render(w, r, http.StatusOK, "home", "termarena", h, h)
}

// leaderboardLimit is how many players a leaderboard page lists.
const leaderboardLimit = 100

func (s *Server) leaderboard(w http.ResponseWriter, r *http.Request) {
	name := trimExt(r.PathValue("mode"), ".json")
	mode, err := s.d.Queries.ParseMode(name)
	if err != nil || name == "" {
		if err == nil {
			err = service.ErrUnknownMode
		}
		s.fail(w, r, err, "no leaderboard "+strconv.Quote(name))
		return
	}
	if mode != name {
		// One address per leaderboard: a short form goes to the full name.
		http.Redirect(w, r, "/leaderboard/"+mode+strings.TrimPrefix(r.URL.Path, "/leaderboard/"+name), http.StatusMovedPermanently)
		return
	}
	lb, err := s.d.Queries.Leaderboard(r.Context(), mode, leaderboardLimit)
	if err != nil {
		s.fail(w, r, err, "")
		return
	}
	s.render(w, r, http.StatusOK, "leaderboard", mode+" leaderboard", lb, lb)
}

// profileView is a profile page: the profile and a chart per mode.
type profileView struct {
	service.Profile
	Charts []chart
}

// historyLimit is how many of a player's matches the rating charts read.
const historyLimit = 200

func (s *Server) profile(w http.ResponseWriter, r *http.Request) {
	name := trimExt(r.PathValue("name"), ".json")
	pr, err := s.d.Queries.ProfileNamed(r.Context(), name)
	if err != nil {
		s.fail(w, r, err, "no player named "+strconv.Quote(name))
		return
	}
	if wantsJSON(r) {
		writeJSON(w, http.StatusOK, pr)
		return
	}
	ms, err := s.d.Queries.Matches(r.Context(), pr.Player.Fingerprint, historyLimit)
	if err != nil {
		s.fail(w, r, err, "")
		return
	}
	v := profileView{Profile: pr}
	for _, mr := range pr.Ratings {
		v.Charts = append(v.Charts, ratingChart(mr.Mode, pr.Player.Fingerprint, ms))
	}
	s.render(w, r, http.StatusOK, "profile", pr.Name, v, pr)
}

func (s *Server) match(w http.ResponseWriter, r *http.Request) {
	if raw, ok := strings.CutSuffix(r.PathValue("id"), ".cast"); ok {
		s.cast(w, r, raw)
		return
	}
	raw := trimExt(r.PathValue("id"), ".json")
	id, err := strconv.ParseUint(raw, 10, 64)
	if err != nil || id == 0 {
		s.fail(w, r, service.ErrNoMatch, "no match "+strconv.Quote(raw))
		return
	}
	m, err := s.d.Queries.Match(r.Context(), id)
	if err != nil {
		s.fail(w, r, err, fmt.Sprintf("no match %d", id))
		return
	}
	v := matchView{Match: m, Command: s.sshCommand("replay", strconv.FormatUint(id, 10))}
	s.render(w, r, http.StatusOK, "match", fmt.Sprintf("match %d", id), v, m)
}

// matchView is a match's page: the match, and the command that replays
// it in a terminal.
type matchView struct {
	service.Match
	Command string
}

// cast serves match raw's replay as an asciicast v2 download, streamed as
// it is painted.
func (s *Server) cast(w http.ResponseWriter, r *http.Request, raw string) {
	id, err := strconv.ParseUint(raw, 10, 64)
	if err != nil || id == 0 || s.d.Casts == nil {
		s.fail(w, r, service.ErrNoReplay, "no replay of match "+strconv.Quote(raw))
		return
	}
	lw := &lazyHeader{w: w, set: func(h http.Header) {
		h.Set("Content-Type", "application/x-asciicast")
		h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="termarena-match-%d.cast"`, id))
		h.Set("Cache-Control", "public, max-age=3600")
	}}
	err = s.d.Casts.Export(r.Context(), id, lw)
	switch {
	case err == nil:
	case lw.wrote:
		// Mid-stream: the status is sent; the download ends short.
		s.log.Warn("web cast cut short", "match", id, "err", err)
	case errors.Is(err, asciicast.ErrNoReplay):
		s.fail(w, r, service.ErrNoReplay, fmt.Sprintf("no replay of match %d (unknown match, or pruned)", id))
	default:
		s.fail(w, r, err, "")
	}
}

// lazyHeader sets a download's headers at its first byte, so a failure
// before it can still be answered with an error page.
type lazyHeader struct {
	w     http.ResponseWriter
	set   func(http.Header)
	wrote bool
}

func (l *lazyHeader) Write(p []byte) (int, error) {
	if !l.wrote {
		l.wrote = true
		l.set(l.w.Header())
	}
	return l.w.Write(p)
}

// elsewhereView is the page of a room another node runs.
type elsewhereView struct {
	Room    service.Room
	Command string // ssh … spectate ROOM, on its node
}

// sshCommand is the command line that reaches this server to run
// command: its advertised address, or HOST when that is not known.
func (s *Server) sshCommand(command ...string) string {
	addr := s.ssh.Load()
	if addr == nil || *addr == "" {
		return strings.Join(append([]string{"ssh -t HOST"}, command...), " ")
	}
	return lobby.SSHCommand(*addr, command...)
}

// Advertise sets the address (host:port) players reach this server at
// over SSH, for the ssh commands the pages print (HOST until it is set).
func (s *Server) Advertise(addr string) { s.ssh.Store(&addr) }

// roomView is a live room's page.
type roomView struct {
	service.Room
	Command  string // ssh … spectate REF, to watch it in a terminal
	Ref      string
	Label    string
	Watchers int
	Delay    int // seconds behind, for ranked matches
	Line     string
}

func (s *Server) roomPage(w http.ResponseWriter, r *http.Request) {
	ref := trimExt(r.PathValue("ref"), ".json")
	room, err := s.findRoom(ref)
	var elsewhere *lobby.ElsewhereError
	if errors.As(err, &elsewhere) {
		// Another node of the cluster runs it: say which, and how to
		// watch it there.
		sr := service.Room{ID: elsewhere.Room, Node: elsewhere.Node, Remote: true, SSH: lobby.SSHCommand(elsewhere.SSH)}
		v := elsewhereView{Room: sr, Command: lobby.SSHCommand(elsewhere.SSH, "spectate", elsewhere.Room)}
		s.render(w, r, http.StatusOK, "elsewhere", "room "+sr.ID, v, sr)
		return
	}
	if err != nil {
		s.fail(w, r, err, "no live room "+strconv.Quote(ref))
		return
	}
	v := s.roomView(room, ref)
	s.render(w, r, http.StatusOK, "room", "room "+v.ID, v, v.Room)
}

// roomView summarises a live room for its page; ref is how it was asked
// for (its id, or a private room's code).
func (s *Server) roomView(room *lobby.Room, ref string) roomView {
	ri := room.Info()
	sr := service.RoomOf(ri)
	v := roomView{Room: sr, Ref: strings.ToLower(ref), Command: s.sshCommand("spectate", strings.ToLower(ref)), Label: ri.Label, Watchers: ri.Watchers, Delay: int(room.SpectateDelay().Seconds())}
	var parts []string
	for _, p := range ri.Players {
		t := p.Name
		if p.Slot < len(ri.Standing) {
			t += fmt.Sprintf(" %d", ri.Standing[p.Slot])
		}
		parts = append(parts, t)
	}
	v.Line = strings.Join(parts, ", ") + " · " + sr.Phase
	return v
}
