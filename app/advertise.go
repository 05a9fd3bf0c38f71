package app

// Advertise sets the address (host:port) players reach this server at
// over SSH — main's --advertise, or what it derives from the listener —
// once the listener is open, before sessions are served: the web pages
// print it in their ssh commands, and in a cluster this node's sessions
// and rooms carry it to the other nodes, which name it when they send a
// player here ("connect to n2: ssh -p 2222 n2.example.com").
func (a *App) Advertise(addr string) {
	a.Web.Advertise(addr)
	if a.Node != nil {
		a.Node.Advertise(addr)
		a.Lobby.Hub.SetSSH(addr)
	}
}
