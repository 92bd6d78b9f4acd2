#!/usr/bin/env bash
# The C++ and CUDA sources (src, cuda, test/unit, bench, cli) against .clang-format, with Debian 12's
# clang-format 14 (other versions format some constructs differently). Every file is checked, not
# only changed ones: a clean clone has no "changed". Fails listing the files that differ.
#   scripts/check-format.sh         check
#   scripts/check-format.sh --fix   rewrite those files in place (clang-format -i)
set -euo pipefail
cd "$(dirname "$0")/.."
format=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$format" ] || ! "$format" --version | grep -q "version 14\."; then
	echo "check-format: clang-format 14 not found (scripts/install-deps.sh installs it)" >&2
	exit 1
fi
mapfile -t files < <(find src cuda test/unit bench cli -type f \
	\( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' \) | sort)
if [ "${1:-}" = --fix ]; then
	"$format" -i "${files[@]}"
	exit 0
fi
mapfile -t differ < <(printf '%s\0' "${files[@]}" |
	xargs -0 -n 1 -P "$(nproc)" sh -c '"$0" --dry-run -Werror "$1" >/dev/null 2>&1 || echo "$1"' "$format" |
	sort)
if [ ${#differ[@]} -gt 0 ]; then
	printf '%s\n' "${differ[@]}"
	echo "format: ${#differ[@]} of ${#files[@]} files differ from .clang-format (scripts/check-format.sh --fix)"
	exit 1
fi
echo "format: ${#files[@]} files as .clang-format says"
