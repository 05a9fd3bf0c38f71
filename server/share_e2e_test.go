package server_test

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/termarena/termarena/server"
	"github.com/termarena/termarena/sshtest"
)

// `share ROOM` prints the room's web link, and the link opens the room's
// live page on the server's web face; a private room is shared by its
// code only.
func TestShareGivesARoomsWebLink(t *testing.T) {
	webLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.WebURL = "http://" + webLn.Addr().String()
	h := start(t, t.TempDir(), cfg, nil)
	go h.App.Web.Serve(webLn)
	t.Cleanup(func() { h.App.Web.Close(); webLn.Close() })
	if _, err := h.Rooms.Create("pong", "1v1", false); err != nil {
		t.Fatal(err)
	}
	priv, err := h.Rooms.Create("pong", "1v1", true)
	if err != nil {
		t.Fatal(err)
	}
	key := sshtest.NewKey(t)
	r := sshtest.Run(t, h.Addr, "ann", key, "share r1")
	if r.Code != 0 || r.Stdout != cfg.WebURL+"/r/r1\n" {
		t.Fatalf("share r1: %+v", r)
	}
	resp, err := http.Get(strings.TrimSpace(r.Stdout))
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), "Room r1") {
		t.Errorf("the shared link: %d\n%s", resp.StatusCode, page)
	}
	if r := sshtest.Run(t, h.Addr, "ann", key, "share "+strings.ToUpper(priv.Code)); r.Code != 0 || r.Stdout != cfg.WebURL+"/r/"+priv.Code+"\n" {
		t.Errorf("share CODE: %+v", r)
	}
	if r := sshtest.Run(t, h.Addr, "ann", key, "share "+priv.ID()); r.Code != 1 || !strings.Contains(r.Stderr, "no live room") {
		t.Errorf("share of a private room by id: %+v", r)
	}
	if r := sshtest.Run(t, h.Addr, "ann", key, "share"); r.Code != 2 {
		t.Errorf("share without a room: %+v", r)
	}

	// In a room, L shows its link over the board; ? lists the key.
	tm := sshtest.Open(t, sshtest.Dial(t, h.Addr, sshtest.Config("ben", sshtest.NewKey(t))), 80, 24, "")
	tm.WaitFor(wait, "Welcome, ben!")
	tm.Type("c")
	tm.WaitFor(wait, "New room")
	tm.Type("\r")
	tm.WaitFor(wait, "r3 · 1v1 · casual")
	tm.Type("L")
	tm.WaitFor(wait, "Watch this room in a browser:", cfg.WebURL+"/r/r3")
	tm.Type("?")
	tm.WaitFor(wait, "L  this room's web link")

	off := start(t, t.TempDir(), server.DefaultConfig(), nil)
	if _, err := off.Rooms.Create("pong", "1v1", false); err != nil {
		t.Fatal(err)
	}
	if r := sshtest.Run(t, off.Addr, "ann", key, "share r1"); r.Code != 1 || !strings.Contains(r.Stderr, "no web face") {
		t.Errorf("share without a web face: %+v", r)
	}
}
