#!/bin/bash
# bench/integration_build.sh: how long the zoo takes to build with the Bazel rules, on this
# machine. Prints a Markdown section for bench/RESULTS.md ("Bazel rules: building //models").
#
#   bench/integration_build.sh
#
# Builds the committed tree (git archive HEAD, in a temporary folder) with its own output base
# and an empty disk cache, so nothing is reused from earlier builds:
#   1. cold:  bazel build //models:all   (relayc from source, modelgen, every kernel, every model)
#   2. no-op: the same command again
#   3. one-layer edit: ResNet-18's classifier gets 999 classes instead of 1000 (models/BUILD),
#      `bazel run //models:resnet.update_kernels` writes its new kernel, then the timed rebuild.
# Action counts come from Bazel's execution log (spawns that ran, by mnemonic).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/relay_bench_build.XXXXXX")"
src="$tmp/src"
ob="$tmp/ob"
cleanup() {
  if [[ -d "$src" ]]; then
    (cd "$src" && bazel --nohome_rc --output_base="$ob" shutdown) >/dev/null 2>&1 || true
  fi
  chmod -R u+w "$tmp" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# The execution-log reader, built in the repository's own workspace.
(cd "$repo" && bazel build --color=no --curses=no --noshow_progress //tests/integration:execlog) \
  >"$tmp/tool.log" 2>&1 || { cat "$tmp/tool.log"; exit 1; }
cp "$(cd "$repo" && bazel info bazel-bin 2>/dev/null)/tests/integration/execlog" "$tmp/execlog"

mkdir -p "$src"
commit="$(git -C "$repo" rev-parse --short HEAD)"
git -C "$repo" archive HEAD | tar -x -C "$src"

run=0
# timed COMMAND ARGS...: runs bazel in the copy; sets secs and counts (executed spawns by
# mnemonic), and total (all executed spawns).
timed() {
  run=$((run + 1))
  local log="$tmp/exec.$run.json" out="$tmp/out.$run.txt"
  local t0 t1
  t0=$(date +%s.%N)
  if ! (cd "$src" && bazel --nohome_rc --output_base="$ob" "$@" --color=no --curses=no \
    --noshow_progress --disk_cache="$tmp/disk" --execution_log_json_file="$log") >"$out" 2>&1; then
    echo "bench: bazel $* failed:" >&2
    tail -n 30 "$out" >&2
    exit 1
  fi
  t1=$(date +%s.%N)
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  : >"$tmp/spawns.tsv"
  [[ -s "$log" ]] && "$tmp/execlog" "$log" >"$tmp/spawns.tsv"
  total=$(awk -F'\t' '$2 == "hit" && $3 == "0"' "$tmp/spawns.tsv" | wc -l)
  counts=$(awk -F'\t' '
    $2 == "mnemonic" { m[$1] = $3 }
    $2 == "hit" && $3 == "0" { n[m[$1]]++ }
    END { for (k in n) print n[k], k }' "$tmp/spawns.tsv" | sort -k1,1nr -k2 |
    awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }')
  [[ -n "$counts" ]] || counts="none"
}

load_before="$(cut -d' ' -f1 /proc/loadavg)"
# The first command starts the server: not part of any measurement.
(cd "$src" && bazel --nohome_rc --output_base="$ob" info release) >/dev/null 2>&1

timed build //models:all
cold_secs=$secs cold_total=$total cold_counts=$counts
kernels=$(find "$src/models/kernels" -name 'k_*.relay' | wc -l)

timed build //models:all
noop_secs=$secs noop_total=$total

# models/BUILD as buildifier writes it: `"resnet": (\n "resnet18",\n "",` (flags empty).
perl -0pi -e 's/("resnet":\s*\(\s*"resnet18",\s*)""/$1"--num_classes=999"/' "$src/models/BUILD"
grep -q -- '--num_classes=999' "$src/models/BUILD" || { echo "bench: cannot edit models/BUILD" >&2; exit 1; }
before=$(find "$src/models/kernels" -name 'k_*.relay' | wc -l)
(cd "$src" && bazel --nohome_rc --output_base="$ob" run --color=no --curses=no --noshow_progress \
  --disk_cache="$tmp/disk" //models:resnet.update_kernels) >"$tmp/update.txt" 2>&1
new_kernels=$(($(find "$src/models/kernels" -name 'k_*.relay' | wc -l) - before))
timed build //models:all
edit_secs=$secs edit_total=$total edit_counts=$counts
load_after="$(cut -d' ' -f1 /proc/loadavg)"

cat <<EOF2
## Bazel rules: building //models (bench/integration_build.sh)

Commit $commit, $(nproc) cores, $(date -u +%Y-%m-%d). A fresh output base and an empty disk cache
(\`bazel --output_base=\$TMP/ob build --disk_cache=\$TMP/disk //models:all\` in a \`git archive\`
of the commit); wall-clock times of the bazel command, the server already started. Actions are
the spawns that ran (Bazel's execution log), by mnemonic. Load average (1 min) before / after:
$load_before / $load_after.

| build | time | actions run |
|---|---|---|
| cold \`bazel build //models:all\` (relayc from source, $kernels library kernels, 5 models) | ${cold_secs} s | $cold_total: $cold_counts |
| no-op rebuild | ${noop_secs} s | $noop_total |
| one-layer edit: ResNet-18 with 999 classes, after \`bazel run //models:resnet.update_kernels\` ($new_kernels new kernel) | ${edit_secs} s | $edit_total: $edit_counts |
EOF2
