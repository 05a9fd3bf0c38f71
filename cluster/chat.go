package cluster

import (
	"encoding/json"

	"github.com/nats-io/nats.go"

	"github.com/termarena/termarena/chat"
)

// subjectLobbyChat carries every node's lobby chat, and whispers: the
// nodes holding the recipient's (or the sender's other) sessions show
// them.
const subjectLobbyChat = "termarena.chat.lobby"

// chatMsg is a lobby line on the wire (version 1; fields are only added).
type chatMsg struct {
	V    int          `json:"v"`
	From string       `json:"node"`
	Msg  chat.Message `json:"msg"`
}

// Lobby is where other nodes' lobby chat and whispers are shown:
// *chat.Chat implements it.
type Lobby interface {
	Deliver(chat.Message)
}

// RelayChat is chat.Config.Relay for this node: each lobby line said (or
// whisper sent) here is published for the other nodes. It never blocks
// (NATS buffers; a line said while NATS is away is logged and not sent).
func (n *Node) RelayChat() func(chat.Message) {
	return func(m chat.Message) {
		b, _ := json.Marshal(chatMsg{V: 1, From: n.name, Msg: m})
		if err := n.nc.Publish(subjectLobbyChat, b); err != nil {
			n.log.Warn("cluster: a lobby line not sent to the other nodes", "err", err)
		}
	}
}

// ShareChat shows the other nodes' lobby chat and whispers in lobby until
// stop.
func (n *Node) ShareChat(lobby Lobby) (stop func(), err error) {
	sub, err := n.nc.Subscribe(subjectLobbyChat, func(msg *nats.Msg) {
		var m chatMsg
		if err := json.Unmarshal(msg.Data, &m); err != nil {
			n.log.Warn("cluster: a lobby line that does not read", "err", err)
			return
		}
		if m.From == n.name {
			return
		}
		lobby.Deliver(m.Msg)
	})
	if err != nil {
		return nil, err
	}
	return func() { _ = sub.Unsubscribe() }, nil
}
