# Shell helpers the benchmarks share; sourced after the script sets db (its database; the GPU
# scripts, which run no SQL, use median and ratio only).
#   P ARGS...      psql on $db, unaligned, quiet, stopping at the first error
#   ms ARGS...     the time of the last statement of P ARGS..., in ms (psql's \timing)
#   median         the median of the numbers on stdin, one per line (nan for none)
#   ratio A B      B / A with two decimals (- where A is not a positive number)
P() { psql -XAtq -v ON_ERROR_STOP=1 -d "$db" "$@"; }
ms() { P -c '\timing on' "$@" | awk '/^Time:/ { print $2 }' | tail -1; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0) printf "%.2f", b / a; else print "-" }'; }
