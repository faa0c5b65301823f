#!/bin/bash
# lib.sh: what the integration tests of rules_relay's Bazel rules share. Sourced by each test.
#
# A test builds in its own temporary workspace that loads rules_relay as users do
# (local_repository + rules_relay_dependencies()), with its own output base (and so its own
# Bazel server, shut down at exit) and its own disk cache, and counts the actions each build
# ran from Bazel's execution log (--execution_log_json_file, flattened by //tests/integration:
# execlog). Most workspaces register a relayc toolchain made of a prebuilt relayc (the one the
# outer workspace builds) so that a fresh output base does not compile relayc and LLVM headers;
# itest_workspace --source_toolchain uses rules_relay_toolchains() instead.
#
#   source "$(dirname "$0")/lib.sh"
#   itest_begin                      # temp dir, tools, cleanup trap
#   itest_workspace "$ITEST_TMP/ws"  # WORKSPACE, .bazelrc, //toolchain
#   itest_bazel build //m:all        # sets ITEST_LOG (execution log), ITEST_OUT (output)
#   expect_eq "no RelayCompile ran" "$(count_spawns RelayCompile executed)" 0
#   itest_end                        # prints "RESULT <test>: N passed, M failed, K skipped";
#                                    # exit status
#
# Tools: RELAYC, MODELGEN and EXECLOG (and REPORT, for cache_lib.sh) name prebuilt binaries
# (run_all.sh builds them once and exports them); when unset, the tests build them in the outer
# workspace.
set -euo pipefail

ITEST_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$ITEST_DIR/../.." && pwd)"
ITEST_NAME="$(basename "$0" .sh)"
ITEST_PASSED=0
ITEST_FAILED=0
ITEST_SKIPPED=0
ITEST_CALLS=0
# Output bases to shut down at exit, each with a workspace to run `bazel shutdown` in.
ITEST_SERVERS=()

# The current workspace, output base and disk cache of itest_bazel (a test may switch them).
WS=""
OB=""
DISK=""
ITEST_LOG=""
ITEST_OUT=""

# ---- results ------------------------------------------------------------------------------

pass() {
  echo "PASS: $*"
  ITEST_PASSED=$((ITEST_PASSED + 1))
}

fail() {
  echo "FAIL: $*"
  ITEST_FAILED=$((ITEST_FAILED + 1))
}

# skip REASON: a check this machine cannot make (no CUDA Toolkit, say), said so, never a pass.
# run_all.sh lists every "SKIPPED: " line and counts it as skipped.
skip() {
  echo "SKIPPED: $*"
  ITEST_SKIPPED=$((ITEST_SKIPPED + 1))
}

# expect_eq DESCRIPTION ACTUAL EXPECTED
expect_eq() {
  # Lists print on one line.
  if [[ "$2" == "$3" ]]; then
    pass "$1 (${2//$'\n'/ })"
  else
    fail "$1: got '${2//$'\n'/ }', want '${3//$'\n'/ }'"
  fi
}

# expect_grep DESCRIPTION FIXED_STRING FILE: FILE contains the text.
expect_grep() {
  if grep -qF -- "$2" "$3"; then
    pass "$1"
  else
    fail "$1: '$2' not found in the output; its end:"
    tail -n 30 "$3" | sed 's/^/    /'
  fi
}

# expect_no_grep DESCRIPTION FIXED_STRING FILE
expect_no_grep() {
  if grep -qF -- "$2" "$3"; then
    fail "$1: '$2' found in the output:"
    grep -F -- "$2" "$3" | head -n 5 | sed 's/^/    /'
  else
    pass "$1"
  fi
}

# Prints the end of the last Bazel output, for failures.
show_output() {
  echo "  --- end of: bazel $ITEST_CMDLINE"
  tail -n 40 "$ITEST_OUT" | sed 's/^/    /'
}

# expect_success DESCRIPTION: the last itest_bazel call succeeded.
expect_success() {
  if ((ITEST_RC == 0)); then
    pass "$1"
  else
    fail "$1: bazel exited with $ITEST_RC"
    show_output
  fi
}

expect_failure() {
  if ((ITEST_RC != 0)); then
    pass "$1 (bazel exited with $ITEST_RC)"
  else
    fail "$1: bazel succeeded"
    show_output
  fi
}

# ---- setup and cleanup --------------------------------------------------------------------

itest_cleanup() {
  local entry
  for entry in "${ITEST_SERVERS[@]+"${ITEST_SERVERS[@]}"}"; do
    local ob="${entry%%|*}" ws="${entry#*|}"
    if [[ -d "$ws" ]]; then
      (cd "$ws" && bazel --nohome_rc --output_base="$ob" shutdown) >/dev/null 2>&1 || true
    fi
  done
  if [[ -n "${ITEST_TMP:-}" && -d "$ITEST_TMP" ]]; then
    if [[ -n "${ITEST_KEEP:-}" ]]; then
      echo "kept $ITEST_TMP (ITEST_KEEP is set)"
    else
      # Bazel leaves its outputs read-only.
      chmod -R u+w "$ITEST_TMP" 2>/dev/null || true
      rm -rf "$ITEST_TMP"
    fi
  fi
}

# Builds relayc, modelgen and execlog in the outer workspace (unless given) and copies them
# into the test's folder, so that an outer rebuild during the test does not change them.
itest_tools() {
  if [[ -n "${RELAYC:-}" && -n "${MODELGEN:-}" && -n "${EXECLOG:-}" ]]; then
    return 0
  fi
  mkdir -p "$ITEST_TMP/tools"
  itest_build_tools "$ITEST_TMP/tools"
  RELAYC="$ITEST_TMP/tools/relayc"
  MODELGEN="$ITEST_TMP/tools/modelgen"
  EXECLOG="$ITEST_TMP/tools/execlog"
}

# itest_build_tools DIR: builds relayc, modelgen and execlog in the outer workspace (fastbuild,
# as `bazel test //...` does) and copies them into DIR. Exits the script if that fails.
itest_build_tools() {
  local out="$1/build.log"
  echo "building relayc, modelgen, execlog and report in $REPO"
  if ! (cd "$REPO" && bazel build --color=no --curses=no --noshow_progress \
    //lowering/tools:relayc //models/gen:modelgen //tests/integration:execlog //cache:report) \
    >"$out" 2>&1; then
    echo "FAIL: cannot build the tools the integration tests use:"
    grep -E "ERROR|error" "$out" | head -n 20 | sed 's/^/    /'
    exit 1
  fi
  local bin
  bin="$(cd "$REPO" && bazel info bazel-bin 2>/dev/null)"
  cp "$bin/lowering/tools/relayc" "$bin/models/gen/modelgen" "$bin/tests/integration/execlog" \
    "$bin/cache/report" "$1/"
  chmod 755 "$1/relayc" "$1/modelgen" "$1/execlog" "$1/report"
}

itest_begin() {
  ITEST_TMP="$(mktemp -d "${TMPDIR:-/tmp}/relay_itest.$ITEST_NAME.XXXXXX")"
  trap itest_cleanup EXIT
  # Killed (run_all.sh's timeout, ^C): still shut the servers down and remove the folder.
  trap 'exit 143' TERM
  trap 'exit 130' INT
  itest_tools
  echo "== $ITEST_NAME (in $ITEST_TMP)"
}

itest_end() {
  echo "RESULT $ITEST_NAME: $ITEST_PASSED passed, $ITEST_FAILED failed, $ITEST_SKIPPED skipped"
  ((ITEST_FAILED == 0))
}

# itest_workspace DIR [--source_toolchain]: a workspace that loads rules_relay from this
# repository, and makes it the current one: WS=DIR, OB=DIR.ob, DISK=DIR.disk (a fresh disk
# cache; a test may point DISK elsewhere).
itest_workspace() {
  local dir="$1" toolchain="${2:-prebuilt}"
  mkdir -p "$dir"
  WS="$dir"
  OB="$dir.ob"
  DISK="$dir.disk"
  ITEST_SERVERS+=("$OB|$WS")
  local register
  if [[ "$toolchain" == --source_toolchain ]]; then
    register='rules_relay_toolchains()'
  else
    register='register_toolchains("//toolchain:relayc_prebuilt_toolchain")'
    mkdir -p "$dir/toolchain"
    cp "$RELAYC" "$dir/toolchain/relayc"
    chmod 755 "$dir/toolchain/relayc"
    cat >"$dir/toolchain/BUILD" <<'EOF'
# relayc prebuilt by the outer workspace: fresh output bases need not compile it.
load("@cuda_tools//:digests.bzl", "NVCC_DIGEST", "PTXAS_DIGEST")
load("@llvm_14//:version.bzl", "LLVM_LIB_DIGEST", "LLVM_VERSION")
load("@rules_relay//rules:defs.bzl", "relay_toolchain")

# sh_binary of an ELF file: its executable is a symlink to the file.
sh_binary(
    name = "relayc_bin",
    srcs = ["relayc"],
)

relay_toolchain(
    name = "relayc_prebuilt",
    llvm_digest = LLVM_LIB_DIGEST,
    llvm_version = LLVM_VERSION,
    nvcc_digest = NVCC_DIGEST,
    ptxas_digest = PTXAS_DIGEST,
    relayc = ":relayc_bin",
)

toolchain(
    name = "relayc_prebuilt_toolchain",
    toolchain = ":relayc_prebuilt",
    toolchain_type = "@rules_relay//toolchains:toolchain_type",
)
EOF
  fi
  cat >"$dir/WORKSPACE" <<EOF
workspace(name = "itest")

local_repository(
    name = "rules_relay",
    path = "$REPO",
)

load("@rules_relay//rules:repositories.bzl", "rules_relay_dependencies", "rules_relay_toolchains")

rules_relay_dependencies()

$register
EOF
  cat >"$dir/.bazelrc" <<'EOF'
build --cxxopt=-std=c++17 --host_cxxopt=-std=c++17
build --sandbox_debug=false
build --incompatible_strict_action_env
test --test_output=errors
EOF
}

# itest_copy_workspace DIR: another machine: a copy of the current workspace's sources at DIR
# (another path, as another checkout would be) with its own output base, and the same disk cache
# (DISK); becomes the current workspace.
itest_copy_workspace() {
  local dir="$1"
  mkdir -p "$dir"
  (cd "$WS" && tar --exclude='./bazel-*' -cf - .) | (cd "$dir" && tar -xf -)
  WS="$dir"
  OB="$dir.ob"
  ITEST_SERVERS+=("$OB|$WS")
}

# itest_kernel_package PKG [MODEL...]: PKG/BUILD with a kernel library `kernels` over
# PKG/kernels/ (and its kernels.bzl) that lists MODELs (names in PKG) as the models sharing it,
# then whatever the caller appends. The library starts empty.
itest_kernel_package() {
  local pkg="$1"
  shift
  local models="" m
  for m in "$@"; do models+="\"//$pkg:$m\", "; done
  mkdir -p "$WS/$pkg/kernels"
  [[ -f "$WS/$pkg/kernels/kernels.bzl" ]] || echo 'KERNELS = {}' >"$WS/$pkg/kernels/kernels.bzl"
  cat >"$WS/$pkg/BUILD" <<EOF
load("@rules_relay//rules:defs.bzl", "relay_kernel_library", "relay_model_library")
load("//$pkg:kernels/kernels.bzl", "KERNELS")

relay_kernel_library(
    name = "kernels",
    dir = "kernels",
    models = [${models%, }],
    summaries = KERNELS,
)
EOF
}

# itest_model PKG NAME [INPUT_SHAPES]: appends a relay_model_library over PKG/NAME.onnx.
itest_model() {
  local shapes="${3:-}"
  cat >>"$WS/$1/BUILD" <<EOF

relay_model_library(
    name = "$2",
    input_shapes = {$shapes},
    kernels = ":kernels",
    model = "$2.onnx",
)
EOF
}

# gen_model OUT.onnx MODELGEN_FLAGS...
gen_model() {
  local out="$1"
  shift
  mkdir -p "$(dirname "$out")"
  "$MODELGEN" "$@" -o "$out"
}

# ---- Bazel --------------------------------------------------------------------------------

# itest_bazel COMMAND ARGS...: runs bazel in WS with output base OB and disk cache DISK (empty:
# none; unset: whatever the workspace's rc files say), output in ITEST_OUT, execution log in
# ITEST_LOG (flattened into ITEST_SPAWNS), exit status in ITEST_RC (never fails itself). Set
# ITEST_ENV to `env ...` words to change the client's environment for one call.
itest_bazel() {
  local cmd="$1"
  shift
  ITEST_CALLS=$((ITEST_CALLS + 1))
  ITEST_OUT="$ITEST_TMP/bazel.$ITEST_CALLS.out"
  ITEST_LOG="$ITEST_TMP/bazel.$ITEST_CALLS.execlog.json"
  ITEST_SPAWNS="$ITEST_TMP/bazel.$ITEST_CALLS.spawns.tsv"
  ITEST_CMDLINE="$cmd $*"
  ITEST_RC=0
  local disk_flag=()
  [[ -n "${DISK+set}" ]] && disk_flag=(--disk_cache="$DISK")
  # --nohome_rc: the user's rc file must not change what a test sees (the system one holds
  # Debian's install base).
  # --max_idle_secs: a server left behind by a killed test goes away by itself.
  (cd "$WS" && ${ITEST_ENV:-} bazel --nohome_rc --output_base="$OB" \
    --max_idle_secs=300 "$cmd" --color=no --curses=no --noshow_progress \
    "${disk_flag[@]}" --execution_log_json_file="$ITEST_LOG" "$@") >"$ITEST_OUT" 2>&1 ||
    ITEST_RC=$?
  : >"$ITEST_SPAWNS"
  if [[ -s "$ITEST_LOG" ]]; then
    "$EXECLOG" "$ITEST_LOG" >"$ITEST_SPAWNS" || fail "execlog could not read $ITEST_LOG"
  fi
  return 0
}

# Like itest_bazel, but a failed command is a test failure (with its output shown).
must_bazel() {
  itest_bazel "$@"
  if ((ITEST_RC != 0)); then
    fail "bazel $ITEST_CMDLINE exited with $ITEST_RC"
    show_output
    return 1
  fi
}

# bazel_bin: the workspace's bazel-bin (fastbuild).
bazel_bin() {
  echo "$WS/bazel-bin"
}

# ---- the execution log --------------------------------------------------------------------

# count_spawns [MNEMONIC|all] [executed|hits|all]: spawns of the last itest_bazel call.
count_spawns() {
  awk -F'\t' -v want="${1:-all}" -v kind="${2:-executed}" '
    $2 == "mnemonic" { m[$1] = $3 }
    $2 == "hit" { h[$1] = $3 }
    END {
      n = 0
      for (i in m) {
        if (want != "all" && m[i] != want) continue
        if (kind == "executed" && h[i] == "1") continue
        if (kind == "hits" && h[i] != "1") continue
        n++
      }
      print n
    }' "$ITEST_SPAWNS"
}

# spawn_runners MNEMONIC: the distinct runners of its spawns, one line each ("linux-sandbox").
spawn_runners() {
  awk -F'\t' -v want="$1" '
    $2 == "mnemonic" { m[$1] = $3 }
    $2 == "runner" { r[$1] = $3 }
    END { for (i in m) if (m[i] == want) print r[i] }' "$ITEST_SPAWNS" | sort -u
}

# spawn_field MNEMONIC FIELD: FIELD's values in spawns of MNEMONIC (executed or not).
spawn_field() {
  awk -F'\t' -v want="$1" -v field="$2" '
    $2 == "mnemonic" { m[$1] = $3 }
    $2 == field { v[$1] = v[$1] $3 "\n" }
    END { for (i in m) if (m[i] == want) printf "%s", v[i] }' "$ITEST_SPAWNS"
}

# compiled_kernels: ids of the kernels whose RelayCompile action executed, sorted, one a line.
compiled_kernels() {
  awk -F'\t' '
    $2 == "mnemonic" { m[$1] = $3 }
    $2 == "hit" { h[$1] = $3 }
    $2 == "output" && $3 ~ /\/k_[0-9a-f]+\.o$/ { o[$1] = $3 }
    END {
      for (i in o) {
        if (m[i] != "RelayCompile" || h[i] == "1") continue
        n = split(o[i], parts, "/")
        print substr(parts[n], 1, length(parts[n]) - 2)
      }
    }' "$ITEST_SPAWNS" | sort
}

# report_counts LABEL: one line with the spawns of the last call, executed and cache hits, by
# mnemonic and by runner.
report_counts() {
  local line
  line="$(awk -F'\t' '
    $2 == "mnemonic" { m[$1] = $3 }
    $2 == "runner" { r[$1] = $3 }
    $2 == "hit" { h[$1] = $3 }
    END {
      total = 0; hits = 0
      for (i in m) {
        total++
        if (h[i] == "1") { hits++; hm[m[i]]++ } else em[m[i]]++
        rn[r[i]]++
      }
      printf "%d spawns, %d executed, %d cache hits", total, total - hits, hits
      s = ""; for (k in em) s = s " " k "=" em[k]
      if (s != "") printf "; executed:%s", s
      s = ""; for (k in hm) s = s " " k "=" hm[k]
      if (s != "") printf "; hits:%s", s
      s = ""; for (k in rn) s = s " " k "=" rn[k]
      if (s != "") printf "; runners:%s", s
    }' "$ITEST_SPAWNS")"
  echo "COUNTS $ITEST_NAME [$1]: $line"
}

# kernel_ids DIR: the kernel ids of DIR's k_*.relay files, sorted.
kernel_ids() {
  local f
  for f in "$1"/k_*.relay; do
    [[ -e "$f" ]] && basename "$f" .relay
  done | sort
}
