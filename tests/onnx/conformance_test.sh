#!/bin/bash
# Runs the ONNX conformance suite; fails on any failing case, on a missing suite, and when fewer
# cases pass than MIN_PASSED (so that a regression turning cases "unsupported" is caught too).
# Arguments after the first two go to the runner (--compiled: every passing case is also
# compiled and run, and the runner's "compiled (...)" line must be there; --dynamic: every
# passing case is also run with its leading dim symbolic, none may be wrong, and at least
# MIN_DYNAMIC_PASSED must pass).
set -u
readonly CONFORMANCE="$1"
readonly SUITE="$2"
shift 2
readonly MIN_PASSED=350
# --dynamic: cases that pass with their leading dim symbolic, compiled once (181 on 2026-12-07;
# the rest are refused by name, and the run lists each with its reason).
readonly MIN_DYNAMIC_PASSED=175

if [[ ! -d "${SUITE}" ]]; then
  echo "FAIL: ${SUITE} does not exist: install Debian's libonnx-testdata" >&2
  exit 1
fi
output="$("${CONFORMANCE}" --suite_dir="${SUITE}" "$@")"
status=$?
echo "${output}"
last="$(echo "${output}" | tail -n 1)"
if [[ ! "${last}" =~ ^conformance:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ unsupported$ ]]; then
  echo "FAIL: the last line is not the summary: ${last}" >&2
  exit 1
fi
passed="${BASH_REMATCH[1]}"
failed="${BASH_REMATCH[2]}"
if [[ "${status}" -ne 0 || "${failed}" -ne 0 ]]; then
  echo "FAIL: ${failed} cases failed (exit status ${status})" >&2
  exit 1
fi
if (( passed < MIN_PASSED )); then
  echo "FAIL: only ${passed} cases passed; expected at least ${MIN_PASSED}" >&2
  exit 1
fi
if [[ " $* " == *" --compiled "* ]] &&
  ! echo "${output}" | grep -qE "^compiled \(.*\): ${passed} passed, 0 passed interpreted but failed compiled$"; then
  echo "FAIL: --compiled, but no compiled summary line for ${passed} cases" >&2
  exit 1
fi
if [[ " $* " == *" --dynamic "* ]]; then
  dynamic="$(echo "${output}" | grep -E "^dynamic \(.*\): [0-9]+ passed, [0-9]+ refused, 0 wrong$")"
  if [[ ! "${dynamic}" =~ :\ ([0-9]+)\ passed ]]; then
    echo "FAIL: --dynamic, but no dynamic summary line with 0 wrong" >&2
    exit 1
  fi
  if (( BASH_REMATCH[1] < MIN_DYNAMIC_PASSED )); then
    echo "FAIL: only ${BASH_REMATCH[1]} cases passed dynamic; expected at least ${MIN_DYNAMIC_PASSED}" >&2
    exit 1
  fi
fi
echo "PASS"
