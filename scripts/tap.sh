#!/usr/bin/env bash
# Runs the TAP tests (test/t/*.pl) with PostgreSQL's own framework (PostgreSQL::Test::Cluster,
# shipped by postgresql-server-dev-15): crash recovery, dump/restore, hot standby, concurrency,
# load and fuzz. Each test makes its own throwaway clusters; the extension must be installed.
# PostgreSQL refuses to run as root, so as root the tests run as $GRAIL_PG_OSUSER from a copy of
# test/t in a directory that user owns.
#   scripts/tap.sh                 every test
#   scripts/tap.sh 005_load.pl     some of them
set -euo pipefail
cd "$(dirname "$0")/.."
osuser=${GRAIL_PG_OSUSER:-pggrail}
bin=$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)
pgxs_src=$(dirname "$(pg_config --pgxs)")/..
pgxs_src=$(cd "$pgxs_src" && pwd)

work=$(mktemp -d /tmp/pg_grail_tap.XXXXXX)
cp -r test/t "$work/t"
cp test/hostile_schema.sql "$work/"
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=($(cd "$work" && ls t/*.pl))
for i in "${!tests[@]}"; do
	case "${tests[$i]}" in t/*) ;; *) tests[$i]="t/$(basename "${tests[$i]}")" ;; esac
done

run=()
if [ "$(id -u)" -eq 0 ]; then
	id "$osuser" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$osuser"
	chown -R "$osuser" "$work"
	run=(runuser -u "$osuser" --)
fi
status=0
(cd "$work" && "${run[@]}" env HOME="$work" PATH="$bin:$PATH" TESTDIR="$work" \
	PERL5LIB="$pgxs_src/test/perl" PG_REGRESS="$pgxs_src/test/regress/pg_regress" \
	prove "${tests[@]}") || status=$?
if [ $status -ne 0 ]; then
	for log in "$work"/tmp_check/log/regress_log_*; do
		echo "==== $log (last 60 lines)"
		tail -n 60 "$log"
	done
	echo "TAP logs kept in $work/tmp_check/log"
else
	[ -n "${GRAIL_TAP_KEEP:-}" ] || rm -rf "$work"
fi
exit $status
