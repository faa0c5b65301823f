#!/bin/bash
# bench.sh: what the remote cache saves on `bazel build //models:all` (bench/RESULTS.md).
#
#   cache/bench.sh [--workspace DIR] [--target PATTERN]
#
# Starts its own nginx (cache/serve.sh) on a free loopback port with an empty cache, then:
#   cold: a fresh output base, no disk cache, the empty remote cache, uploading
#         (cache/bazel-ci.sh, --config=ci): everything is built, relayc included
#   warm: another fresh output base, no disk cache, --config=remote-ro against the cache the cold
#         build filled
# and prints the wall time, the actions executed and taken from the cache (by mnemonic, from
# //cache:report on each build's execution log) and the cache's size. Stops its server and
# Bazel servers at the end. --workspace defaults to this repository (use a clean checkout:
# the build compiles whatever the tree holds).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ws="$repo"
pattern="//models:all"
while (($# > 0)); do
  case "$1" in
    --workspace) ws="$(cd "${2:?}" && pwd)"; shift 2 ;;
    --target) pattern="${2:?}"; shift 2 ;;
    *) echo "bench.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

tmp="$(mktemp -d "${TMPDIR:-/tmp}/relay_cache_bench.XXXXXX")"
# The nginx workers (relay-cache) must reach the cache folder.
chmod 711 "$tmp"
cleanup() {
  "$repo/cache/serve.sh" stop --dir "$tmp/cache" >/dev/null 2>&1 || true
  local ob
  for ob in "$tmp/ob_cold" "$tmp/ob_warm"; do
    [[ -d "$ob" ]] && (cd "$ws" && bazel --nohome_rc --output_base="$ob" shutdown) >/dev/null 2>&1
  done
  chmod -R u+w "$tmp" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

password="$(openssl rand -hex 16)"
printf 'bench:%s\n' "$(openssl passwd -apr1 "$password")" >"$tmp/htpasswd"
chmod 644 "$tmp/htpasswd"
port=""
for _ in 1 2 3 4 5 6 7 8 9 10; do
  candidate=$((20000 + (RANDOM % 20000)))
  (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null && continue
  if "$repo/cache/serve.sh" start --dir "$tmp/cache" --port "$candidate" \
    --htpasswd "$tmp/htpasswd" >/dev/null; then
    port="$candidate"
    break
  fi
done
[[ -n "$port" ]] || { echo "bench.sh: cannot start the cache server" >&2; exit 1; }
url="http://127.0.0.1:$port"

# timed NAME COMMAND...: runs it in the workspace, prints its wall time in seconds.
timed() {
  local name="$1" start end
  shift
  start=$(date +%s.%N)
  (cd "$ws" && "$@") >"$tmp/$name.out" 2>&1 || {
    echo "bench.sh: the $name build failed:" >&2
    tail -n 30 "$tmp/$name.out" >&2
    exit 1
  }
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.0f", e - s }'
}

load_before="$(cut -d' ' -f1 /proc/loadavg)"
# --symlink_prefix=/: no bazel-* links in the workspace (they would point at these temporary
# output bases).
flags=(--color=no --curses=no --noshow_progress --disk_cache= --symlink_prefix=/)
echo "cold build: fresh output base, empty cache, uploading ..." >&2
cold=$(RELAY_CACHE_URL="$url" RELAY_CACHE_USER=bench RELAY_CACHE_PASSWORD="$password" timed cold \
  "$repo/cache/bazel-ci.sh" --nohome_rc --output_base="$tmp/ob_cold" build "${flags[@]}" \
  --execution_log_json_file="$tmp/cold.json" "$pattern")
cache_size="$(du -sh "$tmp/cache" --exclude=nginx | cut -f1)"
blobs="$(find "$tmp/cache/ac" "$tmp/cache/cas" -type f | wc -l)"
echo "warm build: fresh output base, remote-ro ..." >&2
warm=$(timed warm bazel --nohome_rc --output_base="$tmp/ob_warm" build "${flags[@]}" \
  --config=remote-ro --remote_cache="$url" --execution_log_json_file="$tmp/warm.json" "$pattern")

(cd "$ws" && bazel --nohome_rc --output_base="$tmp/ob_warm" build "${flags[@]}" //cache:report) \
  >"$tmp/report_build.out" 2>&1
report="$tmp/ob_warm/execroot/rules_relay/bazel-out/k8-fastbuild/bin/cache/report"

# counts LOG: "RelayCompile 93/0, ..." (executed/hits) from the report's totals.
counts() {
  "$report" --execroot="$tmp/ob_warm/execroot/rules_relay" "$1" | awk '
    /^Each action once:/ { on = 1; next }
    on && NF == 7 { printf "%s%s %d executed, %d from the cache", sep, $1, $6, $4; sep = "; " }'
}
summary() {
  grep -E '^INFO: [0-9]+ processes' "$tmp/$1.out" | tail -n 1 | sed 's/^INFO: //'
}

load_after="$(cut -d' ' -f1 /proc/loadavg)"
cpu="$(grep -m 1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"

cat <<EOF
$(date +%F), $(nproc) CPUs ($cpu); load average (1 min) before/after: $load_before / $load_after.

| build of \`$pattern\` | wall time | Bazel's summary | rules_relay and other actions (executed, from the cache) |
|---|---|---|---|
| cold: fresh output base, empty cache | ${cold} s | $(summary cold) | $(counts "$tmp/cold.json") |
| warm: fresh output base, \`--config=remote-ro\` | ${warm} s | $(summary warm) | $(counts "$tmp/warm.json") |

The cold build left $blobs blobs, $cache_size, in the cache.
EOF
