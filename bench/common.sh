# Shell helpers the SQL benchmarks share; sourced after the script sets db (its database).
#   P ARGS...      psql on $db, unaligned, quiet, stopping at the first error
#   ms ARGS...     the time of the last statement of P ARGS..., in ms (psql's \timing)
#   median         the median of the numbers on stdin, one per line
#   ratio A B      B / A with two decimals
P() { psql -XAtq -v ON_ERROR_STOP=1 -d "$db" "$@"; }
ms() { P -c '\timing on' "$@" | awk '/^Time:/ { print $2 }' | tail -1; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b / a }'; }
