#!/usr/bin/env bash
# The glue's layers (docs/architecture.md) include downwards only:
#   entry -> service -> store -> boundary -> src/core
# A file may include its own layer or one below it; this script fails on any include that points
# up, and on two glue files with one base name (PGXS keeps their dependency files by base name).
set -euo pipefail
cd "$(dirname "$0")/.."
rank() { case $1 in entry) echo 4 ;; service) echo 3 ;; store) echo 2 ;; boundary) echo 1 ;; *) echo 0 ;; esac; }
status=0
for file in src/pg/*/*.cpp src/pg/*/*.hpp; do
	layer=$(basename "$(dirname "$file")")
	own=$(rank "$layer")
	[ "$own" -gt 0 ] || { echo "$file: not in a layer folder (entry, service, store, boundary)"; status=1; continue; }
	while read -r included; do
		target=${included%%/*}
		if [ "$(rank "$target")" -gt "$own" ]; then
			echo "$file includes $included: $layer may not include $target"
			status=1
		fi
	done < <(sed -n -E 's/^#include "((entry|service|store|boundary)\/[^"]+)".*/\1/p' "$file")
done
dups=$(ls src/pg/*/*.cpp | xargs -n1 basename | sort | uniq -d)
[ -z "$dups" ] || { echo "glue files with the same base name: $dups"; status=1; }
[ $status -eq 0 ] && echo "layers: every include of src/pg points down"
exit $status
