#!/bin/bash
# cache e. Two CI machines (two checkouts, two output bases) build the same models at the same
# time, both uploading through cache/bazel-ci.sh to one empty cache: both succeed, their outputs
# are identical, every blob the server holds hashes to its name (concurrent PUTs of one blob
# never leave a mixed file: nginx writes each upload to a temporary file and renames it), and a
# third machine then gets every kernel from that cache.
source "$(dirname "${BASH_SOURCE[0]}")/cache_lib.sh"
cache_begin

cache_server_start
cache_zoo_workspace "$ITEST_TMP/a" mlp bert_tiny
compiles=$(($(kernel_ids "$WS/m/kernels" | wc -l) + 2))
cache_machine "$ITEST_TMP/b"

# Each machine uploads as its own user, so that the access log tells them apart.
printf '%s:%s\n' ci2 "$(openssl passwd -apr1 "$CACHE_PASSWORD")" >>"$CACHE_HTPASSWD"

# Both at once. itest_bazel keeps its results in globals, so each runs in a subshell that
# leaves its exit status, output and execution log in files.
run_machine() {
  local dir="$1"
  WS="$dir"
  OB="$dir.ob"
  DISK=""
  CACHE_USER="$2"
  # Distinct file names for the two subshells' logs.
  ITEST_CALLS="$3"
  cache_bazel_ci build //m:all
  cp "$ITEST_OUT" "$dir.out"
  cp "$ITEST_SPAWNS" "$dir.spawns"
  echo "$ITEST_RC" >"$dir.rc"
}
cache_ci_shim
# Start the servers first, so that the builds, not the JVMs' start, overlap.
for m in a b; do
  (cd "$ITEST_TMP/$m" && bazel --nohome_rc --output_base="$ITEST_TMP/$m.ob" \
    --max_idle_secs=300 info release) >/dev/null 2>&1
done
start=$SECONDS
run_machine "$ITEST_TMP/a" ci 100 &
pid_a=$!
run_machine "$ITEST_TMP/b" ci2 200 &
pid_b=$!
wait "$pid_a" "$pid_b" || true
echo "both builds took $((SECONDS - start)) s together"

for m in a b; do
  expect_eq "machine $m's build succeeded" "$(cat "$ITEST_TMP/$m.rc")" 0
  expect_no_grep "machine $m: no cache warning" "Remote Cache" "$ITEST_TMP/$m.out"
  ITEST_SPAWNS="$ITEST_TMP/$m.spawns"
  report_counts "machine $m, uploading at the same time as the other"
done
expect_eq "no upload was refused or failed" \
  "$(awk '$0 ~ /"PUT / && $(NF - 3) !~ /^20[14]$/' "$CACHE_DIR/nginx/access.log" | wc -l)" 0
for user in ci ci2; do
  n=$(awk -v u="$user" '$2 == u && $0 ~ /"PUT / && $(NF - 3) ~ /^20[14]$/' \
    "$CACHE_DIR/nginx/access.log" | wc -l)
  if ((n > 0)); then pass "$user uploaded $n blobs"; else fail "$user uploaded nothing"; fi
done
expect_same_outputs "both machines' outputs are identical" "$(outputs_digest "$ITEST_TMP/a")" \
  "$(outputs_digest "$ITEST_TMP/b")"
bad=0
for f in "$CACHE_DIR"/cas/*; do
  [[ "$(sha256sum "$f" | cut -d' ' -f1)" == "$(basename "$f")" ]] || bad=$((bad + 1))
done
expect_eq "every CAS blob hashes to its name ($(find "$CACHE_DIR/cas" -mindepth 1 | wc -l) blobs)" \
  "$bad" 0
expect_eq "no temporary upload is left behind" \
  "$(find "$CACHE_DIR/nginx/client_body_temp" -type f | wc -l)" 0

# A third machine reads what they wrote.
WS="$ITEST_TMP/a"
cache_machine "$ITEST_TMP/c"
must_bazel build --config=remote-ro //m:all
report_counts "machine c, remote-ro, after both"
expect_eq "machine c: every RelayCompile action was a cache hit" \
  "$(count_spawns RelayCompile hits)" "$compiles"
expect_eq "machine c: nothing executed" "$(count_spawns all executed)" 0
expect_same_outputs "machine c's outputs are theirs" "$(outputs_digest "$ITEST_TMP/a")" \
  "$(outputs_digest "$WS")"

itest_end
