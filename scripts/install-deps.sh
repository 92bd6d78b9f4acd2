#!/usr/bin/env bash
# Installs what building and testing pg_grail needs on Debian 12, if it is missing:
# the compiler and CMake, GoogleTest (engine unit tests), PostgreSQL 15 with its server headers
# (PGXS), pgTAP and pg_prove (SQL tests), IPC::Run (TAP tests with PostgreSQL::Test::Cluster),
# clang-format 14 (scripts/check-format.sh), xxHash's header (libxxhash-dev: the engine's hashes).
set -euo pipefail

packages=(build-essential cmake libgtest-dev libxxhash-dev postgresql-15 postgresql-server-dev-15
          postgresql-15-pgtap libtap-parser-sourcehandler-pgtap-perl libipc-run-perl clang-format-14)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "Installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
