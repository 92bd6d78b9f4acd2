#!/usr/bin/env bash
# The sanitizer stage of scripts/test.sh, runnable alone: AddressSanitizer + UndefinedBehaviorSanitizer
# (gcc's, -fno-sanitize-recover=undefined: any undefined behaviour stops the program), CPU only.
#   1. the engine built with -DGRAIL_SANITIZE=ON (build/sanitize-unit) runs its unit tests (CTest);
#   2. the extension built the same way (GRAIL_SANITIZE=1, from a copy of the tree) is installed
#      into a private relocated copy of PostgreSQL (the normal install is untouched), a cluster of
#      that copy runs with libasan preloaded, and pg_regress and pgTAP run against it.
# The stage fails when a test fails or when any sanitizer report appears: ASan writes its reports
# under $root/reports (log_path), UBSan (with a stack) into the server log, which must show no
# report and no crash.
# PostgreSQL leaks by design (memory contexts freed at exit), so leak detection is off.
#   scripts/sanitize.sh            both parts
#   scripts/sanitize.sh unit|sql   one of them
# GRAIL_SANITIZE_ROOT (default /tmp/pg_grail_sanitize) holds the PostgreSQL copy, the build, the
# cluster (port GRAIL_SANITIZE_PORT, default 54331) and the reports.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
jobs=$(nproc)
root=${GRAIL_SANITIZE_ROOT:-/tmp/pg_grail_sanitize}
port=${GRAIL_SANITIZE_PORT:-54331}
osuser=${GRAIL_PG_OSUSER:-pggrail}
reports=$root/reports
mkdir -p "$root"

# Reports: from the unit tests, the server and its clients. Empty means clean.
check_reports() {
	local found
	found=$(find "$reports" -type f -size +0 2>/dev/null | sort)
	if [ -n "$found" ]; then
		echo "sanitizer reports:"
		for f in $found; do
			echo "==== $f"
			head -n 60 "$f"
		done
		return 1
	fi
}

if [ "$what" = all ] || [ "$what" = unit ]; then
	echo "== sanitizers: engine unit tests (ASan + UBSan)"
	rm -rf "$reports" && mkdir -p "$reports"
	cmake -S . -B build/sanitize-unit -DGRAIL_WITH_CUDA=OFF -DGRAIL_SANITIZE=ON -DGRAIL_BUILD_TESTS=ON >/dev/null
	# The unit tests, and the CLI that one of them runs (the benchmarks are not tested here); the
	# guard's test exists where PostgreSQL's server headers do.
	targets=(grail_unit_tests grail_cli)
	if cmake --build build/sanitize-unit --target help | grep grail_guard_tests >/dev/null; then targets+=(grail_guard_tests); fi
	cmake --build build/sanitize-unit -j "$jobs" --target "${targets[@]}" >/dev/null
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1:log_path=$reports/asan \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$reports/ubsan \
		ctest --test-dir build/sanitize-unit --output-on-failure -j "$jobs"
	check_reports
fi

if [ "$what" = all ] || [ "$what" = sql ]; then
	echo "== sanitizers: extension (ASan + UBSan) under pg_regress and pgTAP"
	# A private copy of PostgreSQL 15 (as the Debian package lays it out; its tools find their
	# files relative to themselves), for an install that touches nothing else.
	pg=$root/pg
	sysbin=$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)
	sysbin=$(readlink -f "$sysbin")
	prefix=${sysbin%/lib/postgresql/15/bin}
	if [ ! -x "$pg$prefix/lib/postgresql/15/bin/postgres" ]; then
		mkdir -p "$pg$prefix/lib/postgresql" "$pg$prefix/share/postgresql" "$pg$prefix/include/postgresql"
		cp -a "$prefix/lib/postgresql/15" "$pg$prefix/lib/postgresql/"
		cp -a "$prefix/share/postgresql/15" "$pg$prefix/share/postgresql/"
		cp -a "$prefix/include/postgresql/15" "$pg$prefix/include/postgresql/"
		cp -a "$prefix"/include/postgresql/*.h "$pg$prefix/include/postgresql/"
		chmod -R a+rX "$root"
	fi
	export PATH=$pg$prefix/lib/postgresql/15/bin:$PATH

	# The extension from a copy of the tree: its objects and engine build stay apart from the
	# normal build's.
	src=$root/src
	mkdir -p "$src"
	# Only the engine's build is kept from a former run: a file the tree no longer has must not stay
	# (pg_regress of PostgreSQL 15 prefers an expected/ beside the Makefile to test/expected/).
	find "$src" -mindepth 1 -maxdepth 1 ! -name build -exec rm -rf {} +
	tar --exclude=./build --exclude=./.git --exclude='*.o' --exclude='*.so' --exclude=./.deps -cf - . | tar -xf - -C "$src"
	make -C "$src" -j "$jobs" GRAIL_SANITIZE=1 >"$root/build.log" 2>&1 || { tail -n 40 "$root/build.log"; exit 1; }
	make -C "$src" install GRAIL_SANITIZE=1 >>"$root/build.log" 2>&1 || { tail -n 40 "$root/build.log"; exit 1; }

	export GRAIL_PG_ROOT=$root/cluster GRAIL_PG_PORT=$port
	scripts/cluster.sh destroy >/dev/null 2>&1 || true
	rm -rf "$reports" && mkdir -p "$reports"
	[ "$(id -u)" -ne 0 ] || { id "$osuser" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$osuser"; chown "$osuser" "$reports"; }
	chmod 1777 "$reports"
	trap 'scripts/cluster.sh stop' EXIT
	# The server (postmaster and every backend it forks) with the sanitizer runtime first, and
	# test/sanitize/asan_init_first.c (why: there) after it. An allocation past memory returns NULL,
	# as without ASan (allocator_may_return_null): a hostile test records a terabyte-sized image, and
	# the load must say "damaged", where ASan would abort the backend.
	gcc -shared -fPIC -O2 -o "$root/asan_init_first.so" test/sanitize/asan_init_first.c -ldl
	chmod a+rx "$root/asan_init_first.so"
	LD_PRELOAD="$(gcc -print-file-name=libasan.so) $root/asan_init_first.so" \
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1:log_path=$reports/asan \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$reports/ubsan \
		scripts/cluster.sh start >"$root/env.sh"
	eval "$(cat "$root/env.sh")"
	status=0
	if ! make -C "$src" installcheck GRAIL_SANITIZE=1; then
		head -n 200 "$src/regression.diffs" || true
		status=1
	fi
	# A backend stopped by a report restarts the server: wait for it before the next suite.
	for _ in $(seq 120); do pg_isready -q && break; sleep 1; done
	if psql -Xq -c "DROP DATABASE IF EXISTS grail_tap" -c "CREATE DATABASE grail_tap"; then
		pg_prove -d grail_tap test/pgtap/*.sql || status=1
	else
		status=1
	fi
	scripts/cluster.sh stop
	trap - EXIT
	log=$GRAIL_PG_ROOT/server.log
	found=$(grep -E -A 20 "runtime error:|AddressSanitizer|UndefinedBehaviorSanitizer|terminated by signal|was terminated by exception|PANIC" "$log" || true)
	if [ -n "$found" ]; then
		printf '%s\n' "$found" | sed -n '1,200p'
		echo "sanitizer report or crash in $log"
		status=1
	fi
	check_reports || status=1
	[ $status -eq 0 ] || exit 1
fi
echo "sanitizers: clean"
