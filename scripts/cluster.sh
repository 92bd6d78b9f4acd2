#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster for the demo, the tests and the benchmarks.
#   scripts/cluster.sh start     initdb (first time) and start; prints the environment to use
#   scripts/cluster.sh restart   restart it (the index must survive this)
#   scripts/cluster.sh stop      stop it
#   scripts/cluster.sh destroy   stop it and delete its files
#   eval "$(scripts/cluster.sh env)"   set PGHOST, PGPORT, PGUSER, PGDATABASE in this shell
# PostgreSQL refuses to run as root, so as root the cluster runs as the user $GRAIL_PG_OSUSER
# (created if missing); clients connect over a unix socket as the superuser "postgres".
set -euo pipefail

root=${GRAIL_PG_ROOT:-/tmp/pg_grail_cluster}
port=${GRAIL_PG_PORT:-54329}
osuser=${GRAIL_PG_OSUSER:-pggrail}
bin=$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)
[ -x "$bin/initdb" ] || bin=/usr/lib/postgresql/15/bin

run_as() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u "$osuser" -- "$@"
	else
		"$@"
	fi
}

print_env() {
	echo "export PGHOST=$root/socket PGPORT=$port PGUSER=postgres PGDATABASE=postgres"
}

case "${1:-}" in
start)
	if [ "$(id -u)" -eq 0 ] && ! id "$osuser" >/dev/null 2>&1; then
		useradd --system --no-create-home --shell /usr/sbin/nologin "$osuser"
	fi
	if [ ! -f "$root/data/PG_VERSION" ]; then
		mkdir -p "$root/socket"
		[ "$(id -u)" -ne 0 ] || chown -R "$osuser" "$root"
		run_as "$bin/initdb" -D "$root/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$root/initdb.log"
		cat >>"$root/data/postgresql.conf" <<CONF
listen_addresses = ''
port = $port
unix_socket_directories = '$root/socket'
fsync = off
shared_buffers = 256MB
max_wal_size = 4GB
# pg_grail's hooks in every backend (README, Security: roles that own graphs)
shared_preload_libraries = 'pg_grail'
CONF
	fi
	if ! run_as "$bin/pg_ctl" -D "$root/data" status >/dev/null 2>&1; then
		run_as "$bin/pg_ctl" -D "$root/data" -l "$root/server.log" -w start >/dev/null
	fi
	print_env
	;;
restart)
	run_as "$bin/pg_ctl" -D "$root/data" -l "$root/server.log" -w restart >/dev/null
	;;
stop)
	if [ -f "$root/data/PG_VERSION" ]; then
		run_as "$bin/pg_ctl" -D "$root/data" -w stop >/dev/null 2>&1 || true
	fi
	;;
destroy)
	"$0" stop
	rm -rf "$root"
	;;
env)
	print_env
	;;
*)
	echo "usage: $0 start|restart|stop|destroy|env" >&2
	exit 2
	;;
esac
