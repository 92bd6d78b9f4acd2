# Shell helpers the benchmarks share; P and ms use $db, the script's database, set before their
# first call (the GPU scripts, which run no SQL, use median and ratio only).
#   parse_args USAGE NAME... -- "$@"
#                  each --NAME VALUE of the arguments sets $NAME (its default set before); any
#                  other argument, or a NAME without a value, prints "usage: USAGE" and exits 2
#   P ARGS...      psql on $db, unaligned, quiet, stopping at the first error
#   ms ARGS...     the time of the last statement of P ARGS..., in ms (psql's \timing)
#   median         the median of the numbers on stdin, one per line (nan for none)
#   ratio A B      B / A with two decimals (- where A is not a positive number)
P() { psql -XAtq -v ON_ERROR_STOP=1 -d "$db" "$@"; }
ms() { P -c '\timing on' "$@" | awk '/^Time:/ { print $2 }' | tail -1; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0) printf "%.2f", b / a; else print "-" }'; }
parse_args() {
	local usage=$1 names=() name known
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do names+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	while [ $# -gt 0 ]; do
		known=
		for name in "${names[@]}"; do [ "$1" = "--$name" ] && known=$name; done
		if [ -z "$known" ] || [ $# -lt 2 ]; then
			echo "usage: $usage" >&2
			exit 2
		fi
		printf -v "$known" '%s' "$2"
		shift 2
	done
}
