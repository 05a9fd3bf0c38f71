#!/usr/bin/env bash
# netns-drop.sh: a player's network dies silently mid-match, seen with the
# real OpenSSH client. Root only (network namespaces).
#
# Two namespaces joined by a veth pair: the server and ben live in one,
# ann in the other. Ann and ben play a ranked pong-1v1 in tmux; the script
# sets ann's link down (no FIN, no RST: what a Wi-Fi drop looks like to the
# server) and measures how long the server takes to put the grace notice on
# ben's screen. 1: the link comes back within the grace, ann reconnects
# with the same key, takes her seat back and the match plays to its end:
# it is rated once, as a finished match, not a forfeit. 2: a new match, and
# the link stays down past the grace: ann forfeits. It prints what each
# screen shows at every step, the times to detect and the ratings, and
# exits non-zero when a check fails (a grace notice later than 12 s
# counts as one).
#
#   sudo scripts/netns-drop.sh [path/to/termarena]   (default: go build)
#
# Environment: PREFIX names the namespaces, interfaces and tmux sessions
# (default tadrop), PORT the server's port (default 2222), KEEP=1 leaves
# everything running at the end for a look around. The server takes its
# settings from the environment as always (TERMARENA_CLIENT_TIMEOUT=15s:
# the detection check fails, as it should). The ssh commands use
# -F /dev/null: a ~/.ssh/config of yours plays no part.
set -euo pipefail

PREFIX=${PREFIX:-tadrop}
PORT=${PORT:-2222}
GRACE=30 # the room's grace period (game.DefaultGrace)
SRV_NS=$PREFIX-srv CLI_NS=$PREFIX-cli
SRV_IF=${PREFIX:0:8}-s CLI_IF=${PREFIX:0:8}-c
SRV_IP=10.77.0.1 CLI_IP=10.77.0.2

[ "$(id -u)" = 0 ] || { echo "netns-drop.sh: needs root (ip netns)" >&2; exit 77; }
for tool in ip tmux ssh ssh-keygen; do
	command -v "$tool" >/dev/null || { echo "netns-drop.sh: $tool not found" >&2; exit 1; }
done

work=$(mktemp -d)
bin=${1:-}
if [ -z "$bin" ]; then
	bin=$work/termarena
	(cd "$(dirname "$0")/.." && go build -o "$bin" .)
fi

cleanup() {
	[ "${KEEP:-}" = 1 ] && { echo "KEEP=1: left running (tmux ls; ip netns)"; return; }
	tmux kill-session -t "$PREFIX-ann" 2>/dev/null || true
	tmux kill-session -t "$PREFIX-ben" 2>/dev/null || true
	[ -f "$work/server.pid" ] && kill "$(cat "$work/server.pid")" 2>/dev/null || true
	ip netns del "$SRV_NS" 2>/dev/null || true
	ip netns del "$CLI_NS" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

ip netns add "$SRV_NS"
ip netns add "$CLI_NS"
ip link add "$SRV_IF" type veth peer name "$CLI_IF"
ip link set "$SRV_IF" netns "$SRV_NS"
ip link set "$CLI_IF" netns "$CLI_NS"
ip -n "$SRV_NS" addr add $SRV_IP/24 dev "$SRV_IF"
ip -n "$CLI_NS" addr add $CLI_IP/24 dev "$CLI_IF"
for ns in "$SRV_NS" "$CLI_NS"; do ip -n "$ns" link set lo up; done
ip -n "$SRV_NS" link set "$SRV_IF" up
ip -n "$CLI_NS" link set "$CLI_IF" up

ip netns exec "$SRV_NS" "$bin" --listen $SRV_IP:$PORT --data "$work/data" >"$work/server.log" 2>&1 &
echo $! >"$work/server.pid"
for _ in $(seq 50); do ip netns exec "$SRV_NS" bash -c "exec 3<>/dev/tcp/$SRV_IP/$PORT" 2>/dev/null && break; sleep 0.2; done

ssh-keygen -q -t ed25519 -N '' -f "$work/ann"
ssh-keygen -q -t ed25519 -N '' -f "$work/ben"
sshcmd() { # ns who command…
	local ns=$1 who=$2
	shift 2
	echo "ip netns exec $ns ssh -F /dev/null -tt -p $PORT -i $work/$who -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR $who@$SRV_IP $*"
}
screen() { tmux capture-pane -p -t "$PREFIX-$1" | sed '/^ *$/d'; }
show() { echo "--- $1's screen:"; screen "$1"; }
# waitfor who text seconds: poll the screen; prints the seconds it took.
waitfor() {
	local start=$EPOCHREALTIME
	local until=$((SECONDS + $3))
	while ! screen "$1" | grep -q -- "$2"; do
		[ $SECONDS -ge $until ] && { echo "never saw \"$2\" on $1's screen" >&2; show "$1" >&2; return 1; }
		sleep 0.1
	done
	echo "$start $EPOCHREALTIME" | awk '{printf "%.1f\n", $2 - $1}'
}
link() { ip -n "$CLI_NS" link set "$CLI_IF" "$1"; }

failed=0
check() { # what ok?
	if [ "$2" = ok ]; then echo "ok: $1"; else echo "FAILED: $1"; failed=1; fi
}
sshsrv() { # who command… (from the server's namespace, no terminal)
	local who=$1
	shift
	ip netns exec "$SRV_NS" ssh -F /dev/null -p $PORT -i "$work/$who" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR "$who@$SRV_IP" "$@"
}
# field who key: the numbers a key has in who's profile (--json), one a line.
field() { sshsrv ben profile "$1" --json | { grep -o "\"$2\": *[0-9a-z]*" || true; } | sed 's/.*: *//'; }
ratings() {
	echo "--- ratings:"
	sshsrv ben leaderboard --mode pong-1v1
}
detect() { # prints the seconds until the grace notice, fails past 12 s
	local took
	# A notice that never shows is a failure: an empty time would compare
	# as a string in awk ("" <= 12 is true) and pass.
	took=$(waitfor ben "ann disconnected" 60) || { echo "over 60"; return 1; }
	echo "$took"
	awk -v t="$took" 'BEGIN { exit !(t + 0 <= 12) }'
}
newmatch() { # [seconds to wait for the pairing]
	local pairing=${1:-15}
	tmux kill-session -t "$PREFIX-ann" 2>/dev/null || true
	tmux kill-session -t "$PREFIX-ben" 2>/dev/null || true
	tmux new -d -s "$PREFIX-ann" -x 80 -y 24 "$(sshcmd "$CLI_NS" ann play pong-1v1)"
	waitfor ann "Looking for" 15 >/dev/null
	tmux new -d -s "$PREFIX-ben" -x 80 -y 24 "$(sshcmd "$SRV_NS" ben play pong-1v1)"
	waitfor ann "w/s" "$pairing" >/dev/null
	waitfor ben "w/s" "$pairing" >/dev/null
	sleep 4 # the countdown, then play
}

newmatch
echo "== a ranked match is on"
show ann
show ben

echo
echo "== 1. ann's link goes down (no FIN, no RST); back within the grace"
link down
took=$(detect) && check "grace notice on ben's screen ${took}s after the link went down (at most 12 s)" ok ||
	check "grace notice on ben's screen ${took}s after the link went down (at most 12 s)" no
show ben
show ann
sleep 3
link up
tmux kill-session -t "$PREFIX-ann"
tmux new -d -s "$PREFIX-ann" -x 80 -y 24 "$(sshcmd "$CLI_NS" ann)"
waitfor ann "▸ann" 20 >/dev/null && check "ann reconnected with the same key into her seat" ok || check "ann back in her seat" no
show ann
for _ in $(seq 50); do screen ben | grep -q "ann disconnected" || break; sleep 0.2; done
screen ben | grep -q "ann disconnected" && check "the grace notice cleared on ben's screen" no || check "the grace notice cleared on ben's screen" ok
show ben
echo "... nobody plays: the match runs to its end"
waitfor ben "game over" 180 >/dev/null && check "the match played to its end" ok || check "the match played to its end" no
show ben
sleep 1
ga=$(field ann games | head -1) gb=$(field ben games | head -1)
left=$(field ann left | grep -c true || true)
[ "$ga" = 1 ] && [ "$gb" = 1 ] && check "rated once: ann $ga game, ben $gb game" ok || check "rated once: ann ${ga:-none} games, ben ${gb:-none} games" no
[ "$left" = 0 ] && check "a finished match, nobody recorded as having left: the blip cost nobody rating" ok || check "ann recorded as having left the match" no
ratings

echo
echo "== 2. a new match; ann's link goes down for longer than the grace (${GRACE}s)"
# The first match left them 482 points apart (provisional ratings move
# by ±241): the queue's windows widen 50 points every 5 s and take anyone
# after 60 s, so this pairing takes ~40 s, not the first one's two.
newmatch 75
link down
took2=$(detect) && check "grace notice on ben's screen ${took2}s after the link went down (at most 12 s)" ok ||
	check "grace notice on ben's screen ${took2}s after the link went down (at most 12 s)" no
waitfor ben "game over" $((GRACE + 20)) >/dev/null && check "after the grace the match ends" ok || check "after the grace the match ends" no
echo "after the grace:"
show ben
link up
tmux kill-session -t "$PREFIX-ann"
tmux new -d -s "$PREFIX-ann" -x 80 -y 24 "$(sshcmd "$CLI_NS" ann)"
waitfor ann "Welcome" 20 >/dev/null
echo "ann reconnected after the grace:"
show ann
sleep 1
ga=$(field ann games | head -1)
left=$(field ann left | grep -c true || true)
[ "$ga" = 2 ] && [ "$left" = 1 ] && check "the second match counts as ann's forfeit (games $ga, left once)" ok || check "the second match as a forfeit: games ${ga:-none}, left ${left:-0} times" no
ratings
echo "--- server log (drops):"
grep -i "dropping connection" "$work/server.log" || true
echo
echo "time to detect: ${took}s and ${took2}s (client timeout ${TERMARENA_CLIENT_TIMEOUT:-10s}, keepalive every 2s)"
[ $failed = 0 ] && echo "netns-drop.sh: all checks passed" || echo "netns-drop.sh: some checks FAILED"
exit $failed
