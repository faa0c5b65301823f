#!/bin/bash
# run_all.sh: the integration tests of rules_relay's Bazel rules (`./x test` runs them after the
# Bazel tests). Each test script builds in its own temporary workspaces and output bases (see
# lib.sh) and prints PASS/FAIL lines and the action counts it saw (COUNTS lines).
#
#   tests/integration/run_all.sh                  every test: each *.sh but lib.sh, *_lib.sh and
#                                                 the Bazel sh_tests (*_test.sh)
#   tests/integration/run_all.sh b_one_layer ...  some
#
# Ends with "integration: N passed, M failed, K skipped": N and M count test scripts, K the
# checks they skipped (lib.sh's skip: a "SKIPPED: reason" line each, listed here as "SKIPPED
# <test>: reason"); a script that skipped every check counts as skipped, not passed. Exit
# status 0 when none failed. ITEST_JOBS=N runs N tests at a time (default 1), each test's output
# printed whole when it ends. ITEST_KEEP=1 keeps each test's folder for a post-mortem.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"
here="$PWD"

tools="$(mktemp -d "${TMPDIR:-/tmp}/relay_itest_tools.XXXXXX")"
logs="$(mktemp -d "${TMPDIR:-/tmp}/relay_itest_logs.XXXXXX")"
trap 'rm -rf "$tools" "$logs"' EXIT

# Built once for all tests (lib.sh's itest_build_tools, in a subshell: lib.sh sets traps).
if ! (ITEST_NAME=run_all source "$here/lib.sh" && itest_build_tools "$tools"); then
  echo "integration: 0 passed, 1 failed, 0 skipped"
  exit 1
fi
# shellcheck disable=SC2031  # the subshell above sets them for lib.sh only; these are the ones
export RELAYC="$tools/relayc" MODELGEN="$tools/modelgen" EXECLOG="$tools/execlog" \
  REPORT="$tools/report"

tests=()
if (($# > 0)); then
  for name in "$@"; do tests+=("${name%.sh}.sh"); done
else
  # Every test script here: not the libraries, not this runner, not the Bazel sh_tests.
  for f in *.sh; do
    case "$f" in
      lib.sh | *_lib.sh | run_all.sh | *_test.sh) ;;
      *) tests+=("$f") ;;
    esac
  done
fi

# A hung build must not hang CI: 20 minutes for the tests that may compile relayc (h_*), else
# 10.
time_limit() {
  if [[ "$1" == h_* ]]; then echo 1200; else echo 600; fi
}

# Tests that compile relayc (h_*) first: the longest start first, so the last to end is short.
ordered=()
for t in "${tests[@]}"; do [[ "$t" == h_* ]] && ordered+=("$t"); done
for t in "${tests[@]}"; do [[ "$t" != h_* ]] && ordered+=("$t"); done

passed=0
failed=0
skipped=0
failures=()
skips=()

# Counts and prints one finished test: its log (held back while it ran beside others), the
# skips it reported, its verdict.
report_test() {
  local name="$1" rc="$2" secs="$3" these
  cat "$logs/$name.log"
  these="$(grep -c '^SKIPPED: ' "$logs/$name.log" || true)"
  skipped=$((skipped + these))
  while IFS= read -r line; do
    skips+=("SKIPPED $name: ${line#SKIPPED: }")
  done < <(grep '^SKIPPED: ' "$logs/$name.log" || true)
  if ((rc == 0)) && ((these > 0)) && ! grep -q '^PASS: ' "$logs/$name.log"; then
    echo "== $name: SKIPPED (every check) in $secs s"
  elif ((rc == 0)); then
    passed=$((passed + 1))
    echo "== $name: PASSED in $secs s"
  else
    failed=$((failed + 1))
    failures+=("$name")
    ((rc == 124)) && echo "== $name: timed out after $(time_limit "$name") s"
    echo "== $name: FAILED in $secs s"
  fi
}

# ITEST_JOBS tests at a time (default 1); each has its own workspace, output base, disk cache
# and cache server port. The tests are mostly CPU-bound, so on two cores two at a time end
# 10-20% sooner than one at a time, not twice as soon. Not the default: in one of four runs two
# at a time, cache_a_shared's upload to its nginx failed under the load ("WARNING: Writing to
# Remote Cache") and machine B missed that entry, so CI stays one at a time until that is
# understood.
jobs="${ITEST_JOBS:-1}"
declare -A pid_name=() pid_start=()
start_all=$SECONDS
next=0
while ((next < ${#ordered[@]})) || ((${#pid_name[@]} > 0)); do
  while ((next < ${#ordered[@]})) && ((${#pid_name[@]} < jobs)); do
    t="${ordered[next]}"
    next=$((next + 1))
    name="${t%.sh}"
    timeout --kill-after=30 "$(time_limit "$name")" bash "$here/$t" >"$logs/$name.log" 2>&1 &
    pid_name[$!]="$name"
    pid_start[$!]=$SECONDS
    echo "== started $name"
  done
  done_pid=""
  wait -n -p done_pid "${!pid_name[@]}"
  rc=$?
  report_test "${pid_name[$done_pid]}" "$rc" "$((SECONDS - pid_start[$done_pid]))"
  unset "pid_name[$done_pid]" "pid_start[$done_pid]"
done

echo
echo "== action counts"
cat "$logs"/*.log | grep '^COUNTS ' || true
((failed > 0)) && echo "== failed: ${failures[*]}"
((skipped > 0)) && printf '%s\n' "${skips[@]}"
echo "integration tests took $((SECONDS - start_all)) s"
echo "integration: $passed passed, $failed failed, $skipped skipped"
((failed == 0))
