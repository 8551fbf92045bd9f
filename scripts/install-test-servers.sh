#!/usr/bin/env bash
# Installs the servers the tests run against when they are missing, from Debian/Ubuntu packages:
# redis-server (@parley/redis starts one per test file on a loopback port) and PostgreSQL
# (@parley/postgres runs initdb and starts one on a loopback port). Needs root or sudo; on other
# systems, install both yourself (REDIS_SERVER may name the redis-server binary). Also Chromium
# (Debian's `chromium`): @parley/console's browser tests drive it headless (CHROMIUM_PATH may name it).
set -euo pipefail

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing=()
command -v "${REDIS_SERVER:-redis-server}" >/dev/null 2>&1 || missing+=(redis-server)
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || missing+=(postgresql)
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || missing+=(chromium)
if [ "${#missing[@]}" -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "Install ${missing[*]} (the Redis and Postgres stores are tested against real servers; the console in Chromium)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq
  as_root apt-get install -y -qq "${missing[@]}" >/dev/null
fi
"${REDIS_SERVER:-redis-server}" --version
ls -d /usr/lib/postgresql/*/bin/postgres
"${CHROMIUM_PATH:-/usr/bin/chromium}" --version
