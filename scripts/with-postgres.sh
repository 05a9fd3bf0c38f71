#!/usr/bin/env bash
# with-postgres.sh COMMAND [ARGS...]
#
# Runs COMMAND beside a throwaway PostgreSQL server: a fresh cluster in a
# temporary directory, listening only on a unix socket in that directory
# (no TCP port, so parallel runs on one host cannot collide), trust
# authentication and no fsync (it is thrown away). COMMAND sees its URL in
# TERMARENA_TEST_POSTGRES, which store/postgres/pgtest reads; the server
# is stopped and its directory removed when COMMAND ends, however it ends.
# The exit status is COMMAND's.
#
#   scripts/with-postgres.sh go test -race ./store/...
#
# Needs PostgreSQL's server binaries (Debian: apt-get install postgresql;
# .ci/run installs it). initdb refuses to run as root, so as root the
# server runs as the postgres user (runuser), which the package creates.
# Exit status 2 on bad usage, 1 when the server cannot be started.
set -euo pipefail

if [ $# -eq 0 ]; then
	echo "usage: scripts/with-postgres.sh COMMAND [ARGS...]" >&2
	exit 2
fi

# Debian keeps the server binaries out of PATH, one directory per major
# version: take the newest unless initdb is on PATH already.
bindir=
if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then
	bindir=$(dirname "$(command -v pg_ctl)")
else
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then bindir=$d; break; fi
	done
fi
if [ -z "$bindir" ]; then
	echo "with-postgres: no PostgreSQL server binaries (initdb, pg_ctl) found; on Debian: apt-get install postgresql" >&2
	exit 1
fi

# A short path: a unix socket's path must fit in about 100 bytes.
dir=$(mktemp -d /tmp/termarena-pg.XXXXXX)
as=()
if [ "$(id -u)" -eq 0 ]; then
	if ! id postgres >/dev/null 2>&1; then
		echo "with-postgres: running as root and there is no postgres user to run the server as" >&2
		rm -rf "$dir"; exit 1
	fi
	chown postgres: "$dir"
	as=(runuser -u postgres --)
fi
started=
stop() {
	if [ -n "$started" ]; then
		"${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	rm -rf "$dir"
}
trap stop EXIT
trap 'exit 130' INT TERM

if ! "${as[@]}" "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1; then
	echo "with-postgres: initdb failed:" >&2; cat "$dir/initdb.log" >&2; exit 1
fi
# listen_addresses='' keeps it off TCP; the fsync family is off because the
# cluster is deleted afterwards (WITH_POSTGRES_DURABLE=1 keeps PostgreSQL's
# defaults, for benchmarks set against bbolt, which syncs every commit);
# max_connections allows every test package of a parallel go test its own
# databases.
opts="-c listen_addresses= -c unix_socket_directories=$dir -c max_connections=200"
if [ -z "${WITH_POSTGRES_DURABLE:-}" ]; then
	opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
fi
started=1
if ! "${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -o "$opts" -w -t 60 start >/dev/null; then
	echo "with-postgres: the server did not start:" >&2; cat "$dir/server.log" >&2; exit 1
fi

export TERMARENA_TEST_POSTGRES="postgres:///postgres?host=$dir&user=postgres&sslmode=disable"
echo "with-postgres: $("$bindir/postgres" --version) at $TERMARENA_TEST_POSTGRES" >&2
status=0
"$@" || status=$?
exit "$status"
