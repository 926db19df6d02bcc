#!/usr/bin/env bash
# Starts a throwaway PostgreSQL for the store tests and prints shell lines to
# eval: INVX_TEST_POSTGRES (an admin DSN) and INVX_TEST_POSTGRES_STOP (the
# command that stops the server and removes its folder).
#
#   eval "$(bash .ci/postgres.sh)"
#   trap 'eval "$INVX_TEST_POSTGRES_STOP"' EXIT
#
#   bash .ci/postgres.sh stop DIR   stops a server started here (idempotent)
#
# stdout carries only the lines to eval; everything else goes to stderr.
# PostgreSQL refuses to run as root, so as root the server runs as the
# postgres user (runuser). The data folder is under ${INVX_PG_TMP:-/tmp},
# which that user must be able to reach.
set -euo pipefail

log() { printf 'postgres.sh: %s\n' "$*" >&2; }

# find_bin NAME: on PATH, in /usr/local/bin, or the newest
# /usr/lib/postgresql/*/bin.
find_bin() {
	local name=$1 p
	if p=$(command -v "$name" 2>/dev/null); then
		echo "$p"
		return
	fi
	if [[ -x /usr/local/bin/$name ]]; then
		echo "/usr/local/bin/$name"
		return
	fi
	p=$(ls -d /usr/lib/postgresql/*/bin/"$name" 2>/dev/null | sort -V | tail -n 1 || true)
	if [[ -n $p && -x $p ]]; then
		echo "$p"
		return
	fi
	log "cannot find $name (install PostgreSQL, e.g. apt-get install postgresql)"
	return 1
}

# as_pg CMD...: runs CMD as the postgres user when we are root.
as_pg() {
	if [[ $(id -u) -eq 0 ]]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

if [[ ${1:-} == stop ]]; then
	dir=${2:?usage: postgres.sh stop DIR}
	pg_ctl=$(find_bin pg_ctl)
	if [[ -f $dir/data/postmaster.pid ]]; then
		as_pg "$pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	rm -rf "$dir"
	exit 0
fi

initdb=$(find_bin initdb)
pg_ctl=$(find_bin pg_ctl)

dir=$(mktemp -d "${INVX_PG_TMP:-/tmp}/invx-pg.XXXXXX")
if [[ $(id -u) -eq 0 ]]; then
	if ! id postgres >/dev/null 2>&1; then
		log "running as root but there is no postgres user to run the server as"
		rm -rf "$dir"
		exit 1
	fi
	chown postgres: "$dir"
fi
fail() {
	log "$1; server log:"
	cat "$dir/log" >&2 2>/dev/null || true
	as_pg "$pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
	rm -rf "$dir"
	exit 1
}

# Trust auth on a private loopback server that lives for one test run.
as_pg "$initdb" -D "$dir/data" -A trust -U postgres -E UTF8 >"$dir/initdb.log" 2>&1 ||
	{ cat "$dir/initdb.log" >&2; fail "initdb failed"; }

# free_port: a port nothing listens on now. Another process may take it
# before the server binds it, so starting is retried with a new port.
free_port() {
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
		return
	fi
	local p
	while :; do
		p=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
}

started=
for _ in 1 2 3 4 5; do
	port=$(free_port)
	# fsync off: the data is thrown away after the run. Sockets go in the
	# private folder, not /var/run/postgresql, which may not exist.
	if as_pg "$pg_ctl" -D "$dir/data" -l "$dir/log" -t 60 -w \
		-o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >&2; then
		started=1
		break
	fi
	log "start on port $port failed, trying another port"
done
[[ -n $started ]] || fail "could not start PostgreSQL"

self=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
log "PostgreSQL running on 127.0.0.1:$port (data in $dir)"
# sq WORD: WORD in single quotes, for the eval side.
sq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
echo "export INVX_TEST_POSTGRES=$(sq "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable")"
echo "export INVX_TEST_POSTGRES_STOP=$(sq "bash $(printf '%q' "$self") stop $(printf '%q' "$dir")")"
