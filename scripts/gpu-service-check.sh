#!/usr/bin/env bash
# On the GPU machine, after scripts/gpu-check.sh has built and installed the extension and started
# PostgreSQL: restarts the server with pg_grail preloaded and the GPU service on, then
#   1. runs the SQL suites under grail.device = gpu through the service;
#   2. runs 16 sessions of bfs() and batched reachable() on two graphs through the service, every
#      answer checked against the CPU's, while nvidia-smi counts the processes holding a CUDA
#      context (the service's server only);
#   3. resident graphs: the CSR of each graph stays on the device (device_bytes), ancestors() makes
#      the in-edges there; bfs() timed cold (upload) and warm (resident);
#   4. no head-of-line blocking: a huge batch in one session while another session's bfs() runs,
#      under auto with a short grail.gpu_service_wait (answered by the service or, past the wait,
#      by the CPU with a NOTICE; equal to the CPU's either way);
#   5. create_graph and merge_graph of an R-MAT 20-16 graph under gpu go through the service: while
#      they run, nvidia-smi shows no process with a CUDA context but the service's server, and the
#      builds answer as CPU builds (counts, components, 4M pairs); times and phases printed;
#   6. chordless cycles through the service: chordless_cycles() and chordless_cycle_counts() under
#      gpu equal the CPU's (count and digest of every cycle), only the server holds a CUDA context
#      meanwhile, a LIMIT returns its first rows long before the whole enumeration would end, and the
#      enumeration stops in the server when the statement ends (its GPU falls idle);
#   7. kills the server with SIGKILL in the middle of a request: the backend gets a clean error,
#      the postmaster does not restart, the next request is answered;
#   8. prints a short table last.
# SUITES=no skips step 1 (the longest: a second call then runs steps 2-8 within the GPU machine's
# limit per command); SUITES=only runs step 1 alone. Logs go to $OUT (or /tmp/gpu-check).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/gpu-check}
mkdir -p "$out"
source /tmp/pgenv
export PATH=/tmp/pgroot/usr/bin:$PATH PERL5LIB=/tmp/pgroot/usr/share/perl5
status=0
declare -a table

lib=/tmp/pgroot/usr/lib/x86_64-linux-gnu:/tmp/pgroot/lib/x86_64-linux-gnu
bin=/tmp/pgroot/usr/lib/postgresql/15/bin
su pgrun -c "LD_LIBRARY_PATH=$lib $bin/pg_ctl -D /tmp/pgdata/d -o '-k /tmp/pgsock -c listen_addresses= -c jit=off -c shared_preload_libraries=pg_grail -c grail.gpu_service=on -c max_connections=60' -l /tmp/pgdata/log -w restart >/dev/null" ||
	{ tail -20 /tmp/pgdata/log; exit 1; }
psql -Xq -c "DROP DATABASE IF EXISTS grail_svc" -c "CREATE DATABASE grail_svc"
psql -Xq -d grail_svc -c "CREATE EXTENSION pg_grail"
running=no
for _ in $(seq 1 60); do
	info=$(psql -XAtq -d grail_svc -c "SELECT grail.device_info()")
	if echo "$info" | grep -q "GPU service: running"; then running=yes; break; fi
	sleep 0.5
done
echo "$info" | tee "$out/service_info.txt"
table+=("service running after restart: $running")
[ $running = yes ] || { tail -30 /tmp/pgdata/log; exit 1; }

if [ "${SUITES:-yes}" != no ]; then
echo "== SQL tests with grail.device = gpu through the service"
PGOPTIONS='-c grail.device=gpu' make installcheck >/tmp/svc_installcheck.log 2>&1 || { status=1; head -c 6000 regression.diffs >>"$out/diag.txt"; }
table+=("installcheck (gpu, service): $(grep -oE '(All [0-9]+ tests passed|[0-9]+ of [0-9]+ tests failed)' /tmp/svc_installcheck.log | tail -1)")
psql -Xq -c "DROP DATABASE IF EXISTS grail_tap" -c "CREATE DATABASE grail_tap"
PGOPTIONS='-c grail.device=gpu' pg_prove -d grail_tap test/pgtap/*.sql >/tmp/svc_pgtap.log 2>&1 || { status=1; grep -B2 -A12 'Failed test' /tmp/svc_pgtap.log | head -80 >>"$out/diag.txt"; }
table+=("pgTAP (gpu, service): $(tail -1 /tmp/svc_pgtap.log)")
fi
if [ "${SUITES:-yes}" = only ]; then
	printf '%s\n' "${table[@]}" | tee "$out/service_summary.txt"
	exit $status
fi

echo "== 16 sessions on two graphs"
psql -Xq -d grail_svc <<'SQL'
CREATE TABLE e1 (source bigint, target bigint);
CREATE TABLE e2 (source bigint, target bigint);
SQL
build/grail_cli generate rmat 18 16 1 | psql -Xq -d grail_svc -c "\copy e1 from stdin with (delimiter ' ')"
build/grail_cli generate rmat 17 8 2 | psql -Xq -d grail_svc -c "\copy e2 from stdin with (delimiter ' ')"
psql -Xq -d grail_svc <<'SQL' >/tmp/svc_setup.log 2>&1
SET grail.device = cpu;
SELECT grail.create_graph('g1', 'e1'), grail.create_graph('g2', 'e2');
SELECT setseed(0.5);
-- Expected answers, from the CPU: bfs row counts and digests from 40 sources per graph, and
-- reachable() over 4 batches of 20,000 random pairs per graph.
CREATE TABLE sources AS
SELECT g, s, row_number() OVER (PARTITION BY g ORDER BY s) AS i FROM (
	(SELECT 'g1' AS g, s FROM (SELECT DISTINCT source AS s FROM e1) d ORDER BY random() LIMIT 40)
	UNION ALL
	(SELECT 'g2' AS g, s FROM (SELECT DISTINCT source AS s FROM e2) d ORDER BY random() LIMIT 40)) x;
CREATE TABLE bfs_expected AS
SELECT g, i, s, (SELECT md5(string_agg(format('%s/%s/%s', vertex, depth, parent), ',' ORDER BY depth, vertex)) FROM grail.bfs(g, s)) AS digest
FROM sources;
CREATE TABLE batches AS
SELECT g, k, array_agg(a) AS a, array_agg(b) AS b
FROM (SELECT g, k, (random() * 262144)::bigint AS a, (random() * 262144)::bigint AS b
      FROM (VALUES ('g1'), ('g2')) v(g), generate_series(1, 4) k, generate_series(1, 20000) n) x
GROUP BY g, k;
ALTER TABLE batches ADD COLUMN expected boolean[];
UPDATE batches SET expected = grail.reachable(g, a, b);
SQL
cat >/tmp/bfs.pgbench <<'SQL'
\set g random(1, 2)
\set i random(1, 40)
-- A wrong answer divides by zero (at run time: the divisor depends on the row).
SELECT 1 / coalesce((SELECT md5(string_agg(format('%s/%s/%s', vertex, depth, parent), ',' ORDER BY depth, vertex)) FROM grail.bfs('g' || :g, s)) = digest, false)::int
FROM bfs_expected WHERE g = 'g' || :g AND i = :i;
SQL
cat >/tmp/reach.pgbench <<'SQL'
\set g random(1, 2)
\set k random(1, 4)
SELECT 1 / coalesce(grail.reachable(g, a, b) = expected, false)::int FROM batches WHERE g = 'g' || :g AND k = :k;
SQL
(
	sleep 15
	nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader >"$out/compute_apps.txt" 2>&1
) &
watcher=$!
PGOPTIONS='-c grail.device=gpu' pgbench -n -c 16 -j 16 -T 30 -f /tmp/bfs.pgbench -f /tmp/reach.pgbench grail_svc >"$out/pgbench.log" 2>&1
pgbench_status=$?
wait $watcher
[ $pgbench_status = 0 ] && ! grep -q "aborted" "$out/pgbench.log" || status=1
grep -v '^pgbench: client\|^client' "$out/pgbench.log" | head -c 3000 >>"$out/diag.txt"
grep -i error /tmp/svc_setup.log >>"$out/diag.txt"
table+=("16 sessions, 30 s: $(grep -E '^number of transactions actually processed' "$out/pgbench.log" | sed 's/.*: //') transactions, pgbench exit $pgbench_status, $(grep -c 'aborted\|ERROR' "$out/pgbench.log") errors")
table+=("processes holding a CUDA context during the run: $(wc -l <"$out/compute_apps.txt") ($(tr '\n' ';' <"$out/compute_apps.txt"))")
rm -f "$out/compute_apps.txt"
table+=("resident images: $(psql -XAtq -d grail_svc -c "SELECT graph_id, build, device_bytes FROM grail.gpu_service_images()" 2>&1 | tr '\n' ';')")
# One session, one batch at a time: the service's answers against the CPU's.
PGOPTIONS='-c grail.device=gpu' psql -XAtq -d grail_svc >>"$out/diag.txt" 2>&1 <<'SQL'
SELECT 'batch', g, k, (SELECT count(*) FROM unnest(grail.reachable(g, a, b), expected) u(x, y) WHERE x IS DISTINCT FROM y) AS mismatches,
       (SELECT count(*) FROM unnest(expected) x WHERE x) AS reachable FROM batches ORDER BY 2, 3;
SET grail.device = cpu;
SELECT 'cpu now', g, k, grail.reachable(g, a, b) = expected,
       (SELECT count(*) FROM generate_series(1, 20000) i WHERE grail.reachable(g, a[i], b[i]) IS DISTINCT FROM expected[i]) AS per_row_mismatches
FROM batches ORDER BY 2, 3;
SET grail.device = gpu;
SELECT 'bfs', g, i, (SELECT md5(string_agg(format('%s/%s/%s', vertex, depth, parent), ',' ORDER BY depth, vertex)) FROM grail.bfs(g, s)) = digest
FROM bfs_expected WHERE i <= 3 ORDER BY 2, 3;
SQL

echo "== resident graphs: the CSR stays on the device, ancestors() makes its in-edges there"
images_sql="SELECT g.name || ':' || i.device_bytes FROM grail.gpu_service_images() i JOIN grail.graph g ON g.id = i.graph_id ORDER BY 1"
table+=("device bytes after the sessions: $(psql -XAtq -d grail_svc -c "$images_sql" | tr '\n' ' ')")
anc=$(PGOPTIONS='-c grail.device=gpu' psql -XAtq -d grail_svc -c "SELECT count(*), sum(depth) FROM grail.ancestors('g1', (SELECT s FROM sources WHERE g = 'g1' AND i = 1))" 2>&1)
anc_cpu=$(PGOPTIONS='-c grail.device=cpu' psql -XAtq -d grail_svc -c "SELECT count(*), sum(depth) FROM grail.ancestors('g1', (SELECT s FROM sources WHERE g = 'g1' AND i = 1))" 2>&1)
[ "$anc" = "$anc_cpu" ] || status=1
table+=("ancestors(g1) through the service: $anc (cpu: $anc_cpu); device bytes now: $(psql -XAtq -d grail_svc -c "$images_sql" | tr '\n' ' ')")
# bfs() from SQL: the first call on a graph uploads its CSR (done already by the sessions above),
# the next ones find it resident.
bfs_times=$(PGOPTIONS='-c grail.device=gpu' psql -XAtq -d grail_svc 2>&1 <<'SQL' | grep -oE 'Time: [0-9.]+ ms' | sed 's/Time: //' | tr '\n' ' '
\timing on
SELECT count(*) FROM grail.bfs('g2', (SELECT s FROM sources WHERE g = 'g2' AND i = 5));
SELECT count(*) FROM grail.bfs('g2', (SELECT s FROM sources WHERE g = 'g2' AND i = 5));
SELECT count(*) FROM grail.bfs('g2', (SELECT s FROM sources WHERE g = 'g2' AND i = 5));
SELECT count(*) FROM grail.bfs('g2', (SELECT s FROM sources WHERE g = 'g2' AND i = 5));
SQL
)
table+=("bfs(g2) from SQL under gpu, 4 calls (resident CSR): $bfs_times")

echo "== no head-of-line blocking: a huge batch and a bfs at once"
psql -Xq -d grail_svc -c "CREATE TABLE IF NOT EXISTS huge AS SELECT array_agg((random() * 262144)::bigint) AS a, array_agg((random() * 262144)::bigint) AS b FROM generate_series(1, 4000000)"
(PGOPTIONS='-c grail.device=gpu' psql -XAtq -d grail_svc -c "\timing on" -c "SELECT count(*) FILTER (WHERE x) FROM huge, unnest(grail.reachable('g1', a, b)) x" >/tmp/huge.log 2>&1) &
huge=$!
sleep 0.5
bystander=$(PGOPTIONS='-c grail.device=auto -c grail.gpu_min_edges=0 -c grail.gpu_service_wait=200' psql -XAtq -d grail_svc 2>&1 <<'SQL'
\timing on
SELECT count(*) FROM grail.bfs('g2', (SELECT s FROM sources WHERE g = 'g2' AND i = 7));
SQL
)
wait $huge
bystander_cpu=$(PGOPTIONS='-c grail.device=cpu' psql -XAtq -d grail_svc -c "SELECT count(*) FROM grail.bfs('g2', (SELECT s FROM sources WHERE g = 'g2' AND i = 7))")
echo "$bystander" | grep -q "^$bystander_cpu\$" || status=1
table+=("huge batch (4M pairs, gpu): $(tr '\n' ' ' </tmp/huge.log | cut -c1-120); meanwhile bfs(g2) under auto, wait 200 ms: $(echo "$bystander" | tr '\n' ' ' | cut -c1-200) (cpu rows $bystander_cpu)")

echo "== builds and merges through the service: only the server holds a CUDA context"
psql -Xq -d grail_svc -c "DROP TABLE IF EXISTS e3" -c "CREATE TABLE e3 (source bigint, target bigint)"
build/grail_cli generate rmat 20 16 3 | psql -Xq -d grail_svc -c "\copy e3 from stdin with (delimiter ' ')"
server=$(pgrep -f pg_grail_gpu_server | head -1)
# Polls nvidia-smi while a statement runs: every process that held a CUDA context meanwhile.
watch_contexts() {
	: >"$out/build_apps.txt"
	while [ -f /tmp/svc_watch ]; do
		nvidia-smi --query-compute-apps=pid --format=csv,noheader >>"$out/build_apps.txt" 2>/dev/null
		sleep 0.2
	done
}
build_under() { # device, statement: prints the statement's output and time
	touch /tmp/svc_watch
	watch_contexts &
	local watcher=$!
	PGOPTIONS="-c grail.device=$1" psql -XAtq -d grail_svc -c "\timing on" -c "$2" 2>&1 | tr '\n' ' '
	rm -f /tmp/svc_watch
	wait $watcher
}
cpu_build=$(build_under cpu "SELECT grail.create_graph('b_cpu', 'e3', live => false)")
gpu_build=$(build_under gpu "SELECT grail.create_graph('b_gpu', 'e3')")
contexts=$(sort -u "$out/build_apps.txt" | tr '\n' ' ')
table+=("create_graph R-MAT 20-16 cpu: $(echo "$cpu_build" | grep -oE 'Time: [0-9.]+ ms'); gpu via the service: $(echo "$gpu_build" | grep -oE 'Time: [0-9.]+ ms')")
table+=("processes with a CUDA context during the gpu build: $contexts(the server: $server)")
# One process at most (nvidia-smi may show pids of another namespace: the count is what is checked).
[ "$(sort -u "$out/build_apps.txt" | grep -c .)" -le 1 ] || status=1
phases="SELECT name, vertices, edges, components, dag_edges, read_ms, scc_ms, label_ms, persist_ms FROM grail.graphs WHERE name IN ('b_cpu', 'b_gpu') ORDER BY name"
table+=("phases: $(psql -XAtq -d grail_svc -c "$phases" | tr '\n' ';')")
compare_builds() {
	PGOPTIONS='-c grail.device=cpu' psql -XAtq -d grail_svc <<'SQL'
SELECT (SELECT format('%s/%s/%s/%s', vertices, edges, components, dag_edges) FROM grail.graphs WHERE name = 'b_cpu')
     = (SELECT format('%s/%s/%s/%s', vertices, edges, components, dag_edges) FROM grail.graphs WHERE name = 'b_gpu')
   AND (SELECT md5(string_agg(vertex || '/' || component, ',' ORDER BY vertex)) FROM grail.scc_components('b_cpu'))
     = (SELECT md5(string_agg(vertex || '/' || component, ',' ORDER BY vertex)) FROM grail.scc_components('b_gpu'))
   AND (SELECT grail.reachable('b_cpu', a, b) = grail.reachable('b_gpu', a, b) FROM huge);
SQL
}
table+=("builds equal (counts, components, 4M pairs): $(compare_builds)")
[ "$(compare_builds)" = t ] || status=1
psql -Xq -d grail_svc -c "INSERT INTO e3 SELECT (random() * 1048576)::bigint, (random() * 1048576)::bigint FROM generate_series(1, 5000)"
psql -Xq -d grail_svc -c "DELETE FROM e3 WHERE ctid IN (SELECT ctid FROM e3 LIMIT 3000)"
merge=$(build_under gpu "SELECT grail.merge_graph('b_gpu')")
contexts=$(sort -u "$out/build_apps.txt" | tr '\n' ' ')
PGOPTIONS='-c grail.device=cpu' psql -XAtq -d grail_svc -c "SELECT grail.refresh_graph('b_cpu')" >/dev/null
table+=("merge_graph under gpu: $(echo "$merge" | grep -oE 'Time: [0-9.]+ ms'), CUDA contexts meanwhile: $contexts; equal to a CPU build: $(compare_builds)")
[ "$(sort -u "$out/build_apps.txt" | grep -c .)" -le 1 ] && [ "$(compare_builds)" = t ] || status=1
rm -f "$out/build_apps.txt"

echo "== chordless cycles through the service"
# A 6 x 10 grid (800,139 chordless cycles: papers/gpu-chordless-cycles.txt, Table 1) joined to a
# small random graph with repeated rows and self-loops: under the device's 4,096 vertices.
psql -Xq -d grail_svc <<'SQL'
DROP TABLE IF EXISTS ec;
CREATE TABLE ec (source bigint, target bigint);
INSERT INTO ec SELECT r * 10 + c, r * 10 + c + 1 FROM generate_series(0, 5) r, generate_series(0, 8) c;
INSERT INTO ec SELECT r * 10 + c, (r + 1) * 10 + c FROM generate_series(0, 4) r, generate_series(0, 9) c;
SELECT setseed(0.26);
INSERT INTO ec SELECT 100 + (random() * 60)::bigint, 100 + (random() * 60)::bigint FROM generate_series(1, 150);
INSERT INTO ec SELECT source, target FROM ec WHERE source % 7 = 0;
INSERT INTO ec VALUES (59, 100), (9223372036854775807, 0), (9223372036854775807, 9223372036854775807);
SET grail.device = cpu;
SELECT grail.create_graph('gc', 'ec', live => false);
SQL
cycles_sql="SELECT count(*), md5(string_agg(c::text, ';' ORDER BY c::text)) FROM (SELECT grail.chordless_cycles('gc')) r(c)"
counts_sql="SELECT string_agg(length || ':' || cycles, ',' ORDER BY length) FROM grail.chordless_cycle_counts('gc')"
cycles_cpu=$(PGOPTIONS='-c grail.device=cpu' psql -XAtq -d grail_svc -c "\timing on" -c "$cycles_sql" 2>&1 | tr '\n' ' ')
cycles_gpu=$(build_under gpu "$cycles_sql")
contexts=$(sort -u "$out/build_apps.txt" | tr '\n' ' ')
counts_cpu=$(PGOPTIONS='-c grail.device=cpu' psql -XAtq -d grail_svc -c "$counts_sql" 2>&1)
counts_gpu=$(build_under gpu "$counts_sql")
contexts="$contexts$(sort -u "$out/build_apps.txt" | tr '\n' ' ')"
cycles_equal=no
[ "$(echo "$cycles_cpu" | sed 's/ Time.*//')" = "$(echo "$cycles_gpu" | sed 's/ Time.*//')" ] && cycles_equal=yes
counts_equal=no
[ "$counts_cpu" = "$(echo "$counts_gpu" | sed 's/ Time.*//; s/ *$//')" ] && counts_equal=yes
table+=("chordless_cycles(gc) cpu: $cycles_cpu; gpu via the service: $cycles_gpu; equal: $cycles_equal")
table+=("chordless_cycle_counts(gc) equal: $counts_equal ($counts_cpu); processes with a CUDA context meanwhile: $contexts(the server: $server)")
[ $cycles_equal = yes ] && [ $counts_equal = yes ] || status=1
[ "$(sort -u "$out/build_apps.txt" | grep -c .)" -le 1 ] || status=1
# LIMIT: the first rows come as soon as they are found; the statement's end stops the enumeration
# in the server (the GPU idle a moment later).
limit=$(PGOPTIONS='-c grail.device=gpu' psql -XAtq -d grail_svc -c "\timing on" -c "SELECT count(*) FROM (SELECT grail.chordless_cycles('gc') LIMIT 10) c" 2>&1 | tr '\n' ' ')
sleep 1
utilization=$(nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader 2>&1 | head -1)
table+=("chordless LIMIT 10 under gpu: $limit; GPU utilization 1 s after: $utilization")
echo "$limit" | grep -q '^10 ' || status=1
rm -f "$out/build_apps.txt"

echo "== SIGKILL of the server in the middle of a request"
start_before=$(psql -XAtq -d grail_svc -c "SELECT pg_postmaster_start_time()")
server=$(pgrep -f pg_grail_gpu_server | head -1)
# Thousands of batches one after the other: the kill lands in one of them or between two.
(PGOPTIONS='-c grail.device=gpu' psql -XAtq -d grail_svc -c "SELECT count(*) FROM generate_series(1, 5000) i, LATERAL (SELECT grail.reachable(g, a, b) FROM batches WHERE g = 'g1' AND k = 1 + i % 4) x" >/tmp/killed.log 2>&1) &
victim=$!
sleep 0.3
kill -9 "$server" 2>/dev/null
wait $victim
start_after=$(psql -XAtq -d grail_svc -c "SELECT pg_postmaster_start_time()")
next=no
for _ in $(seq 1 40); do
	if PGOPTIONS='-c grail.device=gpu' psql -XAtq -d grail_svc -c "SELECT count(*) FROM grail.bfs('g2', (SELECT s FROM sources WHERE g = 'g2' LIMIT 1))" >/dev/null 2>&1; then
		next=yes; break
	fi
	sleep 0.5
done
table+=("killed server $server: victim said \"$(tr '\n' ' ' </tmp/killed.log | cut -c1-160)\"; postmaster restarted: $([ "$start_before" = "$start_after" ] && echo no || echo YES); next request answered: $next")
[ "$start_before" = "$start_after" ] && [ $next = yes ] || status=1
psql -XAtq -d grail_svc -c "SELECT grail.device_info()" >>"$out/service_info.txt"
tail -40 /tmp/pgdata/log | grep -v '^\s*$' | tail -25 >>"$out/diag.txt"

echo "== service summary"
printf '%s\n' "${table[@]}" | tee "$out/service_summary.txt"
exit $status
