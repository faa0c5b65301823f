#!/bin/bash
# cache a. Machine A (its own output base) builds the zoo's models (those of //models:all, at
# full size, on one kernel library) through cache/bazel-ci.sh (--config=ci: reads and uploads
# with credentials from the environment); machine B (another checkout, a fresh output base, no disk cache) builds them with
# --config=remote-ro: every RelayCompile action is a remote cache hit and none executes, B
# uploads nothing, and B's outputs are A's, bit for bit.
#
# CACHE_TEST_MODELS="mlp bert_tiny resnet18 mobilenet_v2 resnet50" (the default: all of
# //models:all) picks the models.
source "$(dirname "${BASH_SOURCE[0]}")/cache_lib.sh"
cache_begin

read -ra models <<<"${CACHE_TEST_MODELS:-mlp bert_tiny resnet18 mobilenet_v2 resnet50}"
cache_server_start
cache_zoo_workspace "$ITEST_TMP/a" "${models[@]}"
kernels=$(kernel_ids "$WS/m/kernels" | wc -l)
# One action per kernel file, and one overflow action per model.
compiles=$((kernels + ${#models[@]}))

# ---- machine A: CI, uploading
cache_bazel_ci build //m:all
expect_success "machine A builds through cache/bazel-ci.sh"
report_counts "machine A, --config=ci"
log_a="$ITEST_LOG"
expect_eq "machine A ran every RelayCompile action" "$(count_spawns RelayCompile executed)" \
  "$compiles"
expect_eq "machine A found nothing in the empty cache" "$(count_spawns all hits)" 0
expect_eq "no upload was refused" "$(access_count PUT 401)" 0
uploads=$(access_count PUT 201)
if ((uploads > 0)); then
  pass "machine A uploaded $uploads blobs with its credentials"
else
  fail "machine A uploaded nothing"
fi
expect_no_grep "no warning about the cache" "Remote Cache" "$ITEST_OUT"
expect_no_grep "the credentials are not printed" "$CACHE_PASSWORD" "$ITEST_OUT"
digest_a="$(outputs_digest "$WS")"

# ---- machine B: a developer, reading only
puts_before=$(grep -c '"PUT ' "$CACHE_DIR/nginx/access.log" || true)
cache_machine "$ITEST_TMP/b"
must_bazel build --config=remote-ro //m:all
report_counts "machine B, --config=remote-ro, fresh output base, no disk cache"
log_b="$ITEST_LOG"
expect_eq "machine B: every RelayCompile action was a cache hit" \
  "$(count_spawns RelayCompile hits)" "$compiles"
expect_eq "machine B: no RelayCompile action executed" "$(count_spawns RelayCompile executed)" 0
expect_eq "machine B: no RelayPartition or RelayAssemble executed" \
  "$(($(count_spawns RelayPartition executed) + $(count_spawns RelayAssemble executed)))" 0
expect_eq "machine B: nothing executed at all" "$(count_spawns all executed)" 0
expect_eq "machine B's hits are the remote cache's" "$(spawn_runners RelayCompile)" \
  "remote cache hit"
expect_eq "machine B uploaded nothing" "$(grep -c '"PUT ' "$CACHE_DIR/nginx/access.log" || true)" \
  "$puts_before"
expect_same_outputs "machine B's outputs are machine A's, bit for bit" "$digest_a" "$(outputs_digest "$WS")"

cache_report "machine B against machine A" --cache=remote --baseline="$log_a" "$log_b"
# Into a file first: `grep -q` leaving early would break the report's pipe.
"$REPORT" --execroot="$WS" --baseline="$log_a" "$log_b" >"$ITEST_TMP/report.txt" 2>&1 || true
if grep -qE "^  RelayCompile +[^ ]+ +hit" "$ITEST_TMP/report.txt"; then
  pass "the report shows the kernels as hits"
else
  fail "the report shows no kernel hit"
fi

itest_end
