#!/bin/bash
# cache_lib.sh: what the remote cache's integration tests (cache_*.sh) share, on top of lib.sh.
#
# Each test starts its own nginx (cache/serve.sh) on a free loopback port, with its own cache
# folder and htpasswd file under the test's folder, and stops it at exit. "Machines" are
# workspaces with their own output base (and so their own Bazel server): machine A uploads
# through cache/bazel-ci.sh (--config=ci and the credentials from the environment), machine B
# reads with --config=remote-ro and the cache's URL in its user.bazelrc, as a developer would.
# Both workspaces import the repository's .bazelrc, so the configs under test are the real ones.
#
#   source "$(dirname "${BASH_SOURCE[0]}")/cache_lib.sh"
#   cache_begin                       # itest_begin, the report tool, cleanup of servers
#   cache_server_start                # CACHE_URL, CACHE_DIR, CACHE_PORT (+ serve.sh options)
#   cache_zoo_workspace "$ITEST_TMP/a" mlp bert_tiny
#   cache_bazel_ci build //m:all      # itest_bazel through cache/bazel-ci.sh
#   cache_machine "$ITEST_TMP/b"      # a copy of WS, fresh output base, no disk cache
#   must_bazel build --config=remote-ro //m:all
#   itest_end
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The uploader's credentials. The base64 of "ci:s3cret~~~>>>" holds '+', which Bazel 4.2.3
# would turn into '-' were the credentials in the URL (cache/bazel-ci.sh sends a header).
CACHE_USER="ci"
CACHE_PASSWORD="s3cret~~~>>>"
CACHE_DIR=""
CACHE_PORT=""
CACHE_URL=""
CACHE_HTPASSWD=""
# Cache folders of the servers this test started, stopped at exit.
CACHE_SERVERS=()
SERVE="$REPO/cache/serve.sh"

cache_cleanup() {
  local dir
  for dir in "${CACHE_SERVERS[@]+"${CACHE_SERVERS[@]}"}"; do
    "$SERVE" stop --dir "$dir" >/dev/null 2>&1 || true
  done
  itest_cleanup
}

# itest_begin, then: the report tool, and a test folder the nginx workers (relay-cache) may
# traverse (mktemp makes it 0700).
cache_begin() {
  itest_begin
  trap cache_cleanup EXIT
  chmod 711 "$ITEST_TMP"
  command -v nginx >/dev/null || { fail "nginx is missing: run ./x deps"; itest_end; exit 1; }
  command -v curl >/dev/null || { fail "curl is missing: run ./x deps"; itest_end; exit 1; }
  REPORT="${REPORT:-}"
  if [[ -z "$REPORT" ]]; then
    mkdir -p "$ITEST_TMP/tools"
    local out="$ITEST_TMP/tools/report.log"
    if ! (cd "$REPO" && bazel build --color=no --curses=no --noshow_progress //cache:report) \
      >"$out" 2>&1; then
      fail "cannot build //cache:report"
      tail -n 20 "$out" | sed 's/^/    /'
      itest_end
      exit 1
    fi
    cp "$(cd "$REPO" && bazel info bazel-bin 2>/dev/null)/cache/report" "$ITEST_TMP/tools/report"
    chmod 755 "$ITEST_TMP/tools/report"
    REPORT="$ITEST_TMP/tools/report"
  fi
}

# True when something listens on 127.0.0.1:$1.
port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# cache_htpasswd FILE USER PASSWORD: a one-user htpasswd file, as docs/remote-cache.md says.
cache_htpasswd() {
  printf '%s:%s\n' "$2" "$(openssl passwd -apr1 "$3")" >"$1"
  chmod 644 "$1"
}

# cache_server_start [SERVE.SH OPTIONS...]: a fresh cache under the test's folder on a free
# loopback port, with an htpasswd file for CACHE_USER (unless the options name another, or
# --no_htpasswd is the first argument: a read-only server). Sets CACHE_DIR, CACHE_PORT,
# CACHE_URL.
cache_server_start() {
  local auth=(--htpasswd "$ITEST_TMP/htpasswd") options=() arg
  for arg in "$@"; do
    if [[ "$arg" == --no_htpasswd ]]; then
      auth=()
    else
      options+=("$arg")
    fi
  done
  [[ -f "$ITEST_TMP/htpasswd" ]] || cache_htpasswd "$ITEST_TMP/htpasswd" "$CACHE_USER" "$CACHE_PASSWORD"
  # shellcheck disable=SC2034  # read by the tests that source this file
  CACHE_HTPASSWD="$ITEST_TMP/htpasswd"
  local n=$((${#CACHE_SERVERS[@]} + 1))
  CACHE_DIR="$ITEST_TMP/cache$n"
  local port
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    port=$((20000 + (RANDOM % 20000)))
    port_in_use "$port" && continue
    if "$SERVE" start --dir "$CACHE_DIR" --port "$port" "${auth[@]+"${auth[@]}"}" \
      "${options[@]+"${options[@]}"}" >"$ITEST_TMP/serve.$n.out" 2>&1; then
      CACHE_SERVERS+=("$CACHE_DIR")
      # shellcheck disable=SC2034  # read by the tests that source this file
      CACHE_PORT="$port"
      CACHE_URL="http://127.0.0.1:$port"
      echo "cache server: $(cat "$ITEST_TMP/serve.$n.out")"
      return 0
    fi
    # Another process took the port between the check and the bind: try another.
    grep -q "Address already in use" "$CACHE_DIR/nginx/error.log" 2>/dev/null || break
  done
  fail "cannot start the cache server:"
  sed 's/^/    /' "$ITEST_TMP/serve.$n.out"
  itest_end
  exit 1
}

cache_server_stop() {
  "$SERVE" stop --dir "$CACHE_DIR"
}

# The number of blobs in the current cache (ac and cas).
cache_blobs() {
  find "$CACHE_DIR/ac" "$CACHE_DIR/cas" -type f | wc -l
}

# cache_workspace DIR: a workspace at DIR (itest_workspace) importing the repository's .bazelrc
# (its remote-ro and ci configs); its user.bazelrc points remote-ro at the current cache. Current
# workspace afterwards, with no disk cache (DISK="").
cache_workspace() {
  itest_workspace "$1"
  DISK=""
  echo "import $REPO/.bazelrc" >>"$WS/.bazelrc"
  cache_user_bazelrc
}

# cache_zoo_workspace DIR MODEL...: cache_workspace DIR with package m holding the zoo's MODELs
# (made by modelgen, seeded) and their kernel library.
cache_zoo_workspace() {
  local dir="$1"
  shift
  cache_workspace "$dir"
  itest_kernel_package m "$@"
  local model shapes shape_flag
  for model in "$@"; do
    case "$model" in
      mlp) shapes='"input": "1,784"' shape_flag="input:1,784" ;;
      bert_tiny) shapes='"input_ids": "1,128"' shape_flag="input_ids:1,128" ;;
      *) shapes='"input": "1,3,224,224"' shape_flag="input:1,3,224,224" ;;
    esac
    itest_model m "$model" "$shapes"
    gen_model "$WS/m/$model.onnx" --model="$model"
    # The kernel files, as `bazel run //m:MODEL.update_kernels` writes them, but without a
    # Bazel server: not under test here, and the machine's first build must start from nothing.
    mkdir -p "$ITEST_TMP/partition"
    if ! "$RELAYC" partition "$WS/m/$model.onnx" --input-shape "$shape_flag" \
      --kernel_dir "$WS/m/kernels" --write_kernels --out_dir "$ITEST_TMP/partition" \
      --name "$model" >"$ITEST_TMP/partition/$model.out" 2>&1; then
      fail "relayc partition --write_kernels failed for $model:"
      sed 's/^/    /' "$ITEST_TMP/partition/$model.out"
      itest_end
      exit 1
    fi
  done
  echo "the models have $(kernel_ids "$WS/m/kernels" | wc -l) kernels"
}

# The developer's user.bazelrc of WS: the team's cache is the current server.
cache_user_bazelrc() {
  echo "build:remote-ro --remote_cache=$CACHE_URL" >"$WS/user.bazelrc"
}

# cache_machine DIR: another machine: a copy of the current workspace's sources at DIR (another
# path, as another checkout would be), with its own output base and no disk cache. Becomes the
# current workspace.
cache_machine() {
  itest_copy_workspace "$1"
  DISK=""
}

# A folder with a `bazel` that is cache/bazel-ci.sh around the real one (itest_bazel runs
# `bazel`).
cache_ci_shim() {
  local shim="$ITEST_TMP/ci_shim"
  [[ -x "$shim/bazel" ]] && return 0
  mkdir -p "$shim"
  printf '#!/bin/bash\nBAZEL=%q exec %q "$@"\n' "$(command -v bazel)" \
    "$REPO/cache/bazel-ci.sh" >"$shim/bazel.tmp"
  chmod 755 "$shim/bazel.tmp"
  mv "$shim/bazel.tmp" "$shim/bazel"
}

# cache_bazel_ci COMMAND ARGS...: itest_bazel through cache/bazel-ci.sh, with the uploader's
# credentials and the current cache's URL in the environment.
cache_bazel_ci() {
  cache_ci_shim
  local shim="$ITEST_TMP/ci_shim"
  ITEST_ENV="env PATH=$shim:$PATH RELAY_CACHE_URL=$CACHE_URL RELAY_CACHE_USER=$CACHE_USER RELAY_CACHE_PASSWORD=$CACHE_PASSWORD"
  itest_bazel "$@"
  ITEST_ENV=""
}

# The number of requests in the current server's access log with METHOD and STATUS.
access_count() {
  awk -v m="\"$1" -v s="$2" '$0 ~ m " /" && $(NF - 3) == s' "$CACHE_DIR/nginx/access.log" |
    wc -l
}

# outputs_digest DIR: one line per file of the model package's outputs (kernels, executors,
# headers, params objects), "sha256  path", sorted: two builds with equal outputs print the same.
outputs_digest() {
  (cd "$1/bazel-bin/m" && find . -type f \( -name '*.o' -o -name '*.a' -o -name '*.h' \
    -o -name '*.cc' -o -name '*.json' -o -name '*.params' \) -not -path '*/_objs/*' \
    -not -path '*.runfiles/*' -print0 | sort -z | xargs -0 sha256sum)
}

# cache_report LABEL [REPORT FLAGS...] LOG: runs the cache report on LOG and prints it.
cache_report() {
  local label="$1"
  shift
  echo "---- cache report: $label"
  "$REPORT" --execroot="$WS" "$@" | sed 's/^/    /'
}

# expect_same_outputs DESCRIPTION EXPECTED_DIGESTS ACTUAL_DIGESTS (outputs_digest's lines).
expect_same_outputs() {
  local n
  n=$(printf '%s\n' "$2" | grep -c . || true)
  if [[ "$2" == "$3" && $n -gt 0 ]]; then
    pass "$1 ($n files)"
  else
    fail "$1: the outputs differ:"
    diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | head -n 20 | sed 's/^/    /'
  fi
}
