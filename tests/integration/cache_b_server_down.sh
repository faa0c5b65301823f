#!/bin/bash
# cache b. The cache server is down: builds with --config=remote-ro and with --config=ci (through
# cache/bazel-ci.sh) still succeed, run every action locally, and Bazel says why in a warning.
source "$(dirname "${BASH_SOURCE[0]}")/cache_lib.sh"
cache_begin

cache_server_start
cache_zoo_workspace "$ITEST_TMP/a" mlp
compiles=$(($(kernel_ids "$WS/m/kernels" | wc -l) + 1))
cache_server_stop
if port_in_use "$CACHE_PORT"; then
  fail "the server still listens on $CACHE_PORT after serve.sh stop"
else
  pass "nothing listens on $CACHE_URL any more"
fi

must_bazel build --config=remote-ro //m:all
report_counts "remote-ro, server down"
expect_success "a remote-ro build succeeds with the server down"
expect_grep "Bazel warns that it could not read the cache" "WARNING: Reading from Remote Cache:" \
  "$ITEST_OUT"
expect_grep "and says why" "Connection refused" "$ITEST_OUT"
expect_eq "every RelayCompile action ran locally" "$(count_spawns RelayCompile executed)" \
  "$compiles"
expect_eq "no cache hit" "$(count_spawns all hits)" 0
digest_local="$(outputs_digest "$WS")"

cache_machine "$ITEST_TMP/b"
cache_bazel_ci build //m:all
report_counts "ci, server down"
expect_success "a ci build succeeds with the server down"
expect_grep "Bazel warns about the cache" "Remote Cache:" "$ITEST_OUT"
expect_grep "and says why" "Connection refused" "$ITEST_OUT"
expect_eq "every RelayCompile action ran locally" "$(count_spawns RelayCompile executed)" \
  "$compiles"
expect_same_outputs "the outputs are those of the first build" "$digest_local" \
  "$(outputs_digest "$WS")"

itest_end
