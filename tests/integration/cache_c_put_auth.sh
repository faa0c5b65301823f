#!/bin/bash
# cache c. Writes need credentials: a PUT without them (or with a wrong password) is refused with
# 401 and changes nothing, with them the blob is stored and served; a Bazel build that uploads
# without credentials changes nothing either. Also what else the server refuses (other paths,
# other methods, blobs over the size limit, any PUT on a server without an htpasswd file), that
# its workers run unprivileged, and that serve.sh start/stop/status are idempotent.
source "$(dirname "${BASH_SOURCE[0]}")/cache_lib.sh"
cache_begin

cache_server_start --max_body 64k

# curl_status ARGS...: the HTTP status of one request.
curl_status() {
  curl -s -o "$ITEST_TMP/curl.body" -w '%{http_code}' "$@" || true
}

blob="$ITEST_TMP/blob"
printf 'a compiled kernel, for this test\n' >"$blob"
digest="$(sha256sum "$blob" | cut -d' ' -f1)"
stored="$CACHE_DIR/cas/$digest"

expect_eq "PUT without credentials: 401" \
  "$(curl_status -X PUT --data-binary @"$blob" "$CACHE_URL/cas/$digest")" 401
expect_eq "PUT with a wrong password: 401" \
  "$(curl_status -u "$CACHE_USER:wrong" -X PUT --data-binary @"$blob" "$CACHE_URL/cas/$digest")" 401
expect_eq "PUT of an unknown user: 401" \
  "$(curl_status -u "mallory:$CACHE_PASSWORD" -X PUT --data-binary @"$blob" \
    "$CACHE_URL/cas/$digest")" 401
expect_eq "the refused PUTs stored nothing" "$(cache_blobs)" 0
expect_eq "and the blob is not served" "$(curl_status "$CACHE_URL/cas/$digest")" 404

expect_eq "PUT with credentials: 201" \
  "$(curl_status -u "$CACHE_USER:$CACHE_PASSWORD" -X PUT --data-binary @"$blob" \
    "$CACHE_URL/cas/$digest")" 201
if cmp -s "$blob" "$stored"; then
  pass "the blob is stored under its digest"
else
  fail "no $stored with the blob's bytes"
fi
expect_eq "GET without credentials: 200" "$(curl_status "$CACHE_URL/cas/$digest")" 200
if cmp -s "$blob" "$ITEST_TMP/curl.body"; then
  pass "GET returns the blob's bytes"
else
  fail "GET returned other bytes"
fi
expect_eq "a second PUT of the same blob: 204" \
  "$(curl_status -u "$CACHE_USER:$CACHE_PASSWORD" -X PUT --data-binary @"$blob" \
    "$CACHE_URL/cas/$digest")" 204
expect_eq "PUT of an action result: 201" \
  "$(curl_status -u "$CACHE_USER:$CACHE_PASSWORD" -X PUT --data-binary @"$blob" \
    "$CACHE_URL/ac/$digest")" 201

# What the server refuses even with credentials.
expect_eq "DELETE: 405" \
  "$(curl_status -u "$CACHE_USER:$CACHE_PASSWORD" -X DELETE "$CACHE_URL/cas/$digest")" 405
if [[ -f "$stored" ]]; then pass "the blob survived the DELETE"; else fail "DELETE removed the blob"; fi
head -c 70000 /dev/zero >"$ITEST_TMP/big"
big_digest="$(sha256sum "$ITEST_TMP/big" | cut -d' ' -f1)"
expect_eq "PUT over --max_body 64k: 413" \
  "$(curl_status -u "$CACHE_USER:$CACHE_PASSWORD" -X PUT --data-binary @"$ITEST_TMP/big" \
    "$CACHE_URL/cas/$big_digest")" 413
if [[ -e "$CACHE_DIR/cas/$big_digest" ]]; then
  fail "the big blob was stored"
else
  pass "the big blob was not stored"
fi
expect_eq "PUT outside /ac/ and /cas/: 404" \
  "$(curl_status -u "$CACHE_USER:$CACHE_PASSWORD" -X PUT --data-binary @"$blob" \
    "$CACHE_URL/other/$digest")" 404
expect_eq "PUT of a name that is not a digest: 404" \
  "$(curl_status -u "$CACHE_USER:$CACHE_PASSWORD" -X PUT --data-binary @"$blob" \
    "$CACHE_URL/cas/x$digest")" 404
expect_eq "the server's own files are not served" \
  "$(curl_status --path-as-is "$CACHE_URL/cas/../nginx/nginx.conf")" 404
expect_eq "only the two blobs are stored" "$(cache_blobs)" 2

# The workers run as a user of their own (not nobody, which other services share), made by
# serve.sh as a system user without a login; the blobs are theirs and no one else's.
master="$(cat "$CACHE_DIR/nginx/nginx.pid")"
expect_eq "the workers run as relay-cache" \
  "$(ps -o user= --ppid "$master" | sort -u | tr -d ' ')" relay-cache
IFS=: read -r _ _ worker_uid _ _ worker_home worker_shell < <(getent passwd relay-cache)
expect_eq "relay-cache logs in nowhere" "$worker_shell" /usr/sbin/nologin
expect_eq "relay-cache has no home" "$worker_home" /nonexistent
if ((worker_uid > 0 && worker_uid < 1000)); then
  pass "relay-cache is a system user (uid $worker_uid)"
else
  fail "relay-cache has uid $worker_uid, not a system user's"
fi
expect_eq "the blob is the workers' alone" "$(stat -c '%U %a' "$stored")" "relay-cache 600"
expect_eq "the blob folder is not world-writable" "$(stat -c '%a' "$CACHE_DIR/cas")" 755

# A Bazel build that uploads without credentials (--config=ci without cache/bazel-ci.sh).
cache_zoo_workspace "$ITEST_TMP/ws" mlp
blobs_before=$(cache_blobs)
puts_ok_before=$(access_count PUT 201)
must_bazel build --config=ci --remote_cache="$CACHE_URL" //m:all
report_counts "ci without credentials"
expect_success "the build succeeds"
expect_grep "Bazel warns that it could not write" "Writing to Remote Cache:" "$ITEST_OUT"
refused=$(access_count PUT 401)
if ((refused > 3)); then
  pass "its uploads were refused ($refused PUTs got 401)"
else
  fail "only $refused PUTs were refused"
fi
expect_eq "and changed nothing in the cache" "$(cache_blobs)" "$blobs_before"
expect_eq "no PUT succeeded" "$(access_count PUT 201)" "$puts_ok_before"

# serve.sh is idempotent.
args=(--dir "$CACHE_DIR" --port "$CACHE_PORT" --htpasswd "$CACHE_HTPASSWD" --max_body 64k)
rc=0
"$SERVE" start "${args[@]}" >"$ITEST_TMP/serve.out" 2>&1 || rc=$?
expect_eq "start while running: success" "$rc" 0
expect_grep "and says it already runs" "already running (pid $master)" "$ITEST_TMP/serve.out"
rc=0
"$SERVE" status --dir "$CACHE_DIR" >"$ITEST_TMP/serve.out" 2>&1 || rc=$?
expect_eq "status while running: 0" "$rc" 0
rc=0
"$SERVE" start --dir "$CACHE_DIR" --port $((CACHE_PORT + 1)) >"$ITEST_TMP/serve.out" 2>&1 || rc=$?
expect_eq "start with other settings while running: refused" "$rc" 1
"$SERVE" stop --dir "$CACHE_DIR" >/dev/null
rc=0
"$SERVE" stop --dir "$CACHE_DIR" >"$ITEST_TMP/serve.out" 2>&1 || rc=$?
expect_eq "stop when stopped: success" "$rc" 0
expect_grep "and says so" "not running" "$ITEST_TMP/serve.out"
rc=0
"$SERVE" status --dir "$CACHE_DIR" >/dev/null 2>&1 || rc=$?
expect_eq "status when stopped: 3" "$rc" 3

# A server without an htpasswd file is read-only: every PUT is refused.
cache_server_start --no_htpasswd
expect_eq "read-only server: PUT with credentials: 403" \
  "$(curl_status -u "$CACHE_USER:$CACHE_PASSWORD" -X PUT --data-binary @"$blob" \
    "$CACHE_URL/cas/$digest")" 403
expect_eq "read-only server: nothing stored" "$(cache_blobs)" 0

# cache/bazel-ci.sh refuses to run without credentials, and credentials in the URL.
rc=0
env -u RELAY_CACHE_USER -u RELAY_CACHE_PASSWORD "$REPO/cache/bazel-ci.sh" version \
  >"$ITEST_TMP/ci.out" 2>&1 || rc=$?
expect_eq "bazel-ci.sh without credentials: exit 2" "$rc" 2
rc=0
RELAY_CACHE_USER=u RELAY_CACHE_PASSWORD=p RELAY_CACHE_URL="http://u:p@127.0.0.1:1" \
  "$REPO/cache/bazel-ci.sh" version >"$ITEST_TMP/ci.out" 2>&1 || rc=$?
expect_eq "bazel-ci.sh with user:password@ in the URL: exit 2" "$rc" 2

itest_end
