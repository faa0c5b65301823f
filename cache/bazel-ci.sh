#!/bin/bash
# bazel-ci.sh: bazel with --config=ci and the remote cache's upload credentials, taken from the
# environment so that they are never in the repository (docs/remote-cache.md).
#
#   RELAY_CACHE_URL=http://cache.internal:8090 RELAY_CACHE_USER=ci RELAY_CACHE_PASSWORD=... \
#     cache/bazel-ci.sh [STARTUP_OPTIONS...] COMMAND [ARGS...]
#
#   RELAY_CACHE_URL       the cache (http:// or https://, no user:password@ in it); unset: the
#                         URL of build:ci in .bazelrc or user.bazelrc
#   RELAY_CACHE_USER      a user of the server's htpasswd file
#   RELAY_CACHE_PASSWORD  their password
#   BAZEL                 the bazel to run (default: bazel)
#
# How the credentials reach Bazel 4.2.3: as an HTTP header (--remote_header=Authorization=Basic
# BASE64), written to a private rc file (mode 600, removed when bazel exits) that is passed with
# --bazelrc, so they are on no command line that `ps` shows. Not as user:password@ in the URL:
# Bazel 4.2.3 encodes those with base64url instead of base64, so any password whose encoding
# holds '+' or '/' is refused by the server. Not --remote_cache_header: 4.2.3's HTTP cache
# ignores it. --bazelrc replaces ~/.bazelrc, which the private file imports in its place.
# Don't add --announce_rc: it prints every rc option, the header included.
#
# Kept from build actions (everything runs as root on CI, so file modes do not protect it): the
# private folder is not under /tmp but under $HOME/.cache/rules_relay (or RELAY_CI_PRIVATE_DIR),
# and the rc file blocks it from every sandboxed action (--sandbox_block_path); the credential
# variables are removed from the environment Bazel is started with.
# tests/integration/cache_i_secret.sh runs an action that looks for them.
set -euo pipefail

die() {
  echo "bazel-ci.sh: $*" >&2
  exit 2
}

user="${RELAY_CACHE_USER:-}"
password="${RELAY_CACHE_PASSWORD:-}"
url="${RELAY_CACHE_URL:-}"
[[ -n "$user" && -n "$password" ]] ||
  die "RELAY_CACHE_USER and RELAY_CACHE_PASSWORD must be set (builds that must not upload use --config=remote-ro)"
[[ "$user" != *:* ]] || die "RELAY_CACHE_USER must not contain ':' (HTTP basic authentication)"
[[ "$user$password" != *[[:cntrl:]]* ]] ||
  die "RELAY_CACHE_USER and RELAY_CACHE_PASSWORD must not contain control characters"
if [[ -n "$url" ]]; then
  [[ "$url" =~ ^https?://[^/@[:space:]]+(/[^[:space:]]*)?$ ]] ||
    die "RELAY_CACHE_URL must be http(s)://HOST[:PORT][/PATH], without user:password@ ('$url')"
fi
(($# > 0)) || die "usage: bazel-ci.sh [STARTUP_OPTIONS...] COMMAND [ARGS...]"

umask 077
parent="${RELAY_CI_PRIVATE_DIR:-${HOME:?bazel-ci.sh needs HOME}/.cache/rules_relay}"
mkdir -p "$parent"
private="$(mktemp -d "$parent/bazel-ci.XXXXXX")"
trap 'rm -rf "$private"' EXIT
rc="$private/ci.bazelrc"
{
  echo "# Written by cache/bazel-ci.sh for one bazel command; removed when it ends."
  [[ -n "${HOME:-}" ]] && echo "try-import $HOME/.bazelrc"
  echo "build --config=ci"
  echo "build --sandbox_block_path=$private"
  # After the config, so that they override its placeholder URL. Quoted: rc files split words
  # on spaces, as a shell does.
  [[ -n "$url" ]] && echo "build --remote_cache=$url"
  printf 'build "--remote_header=Authorization=Basic %s"\n' \
    "$(printf '%s:%s' "$user" "$password" | base64 -w 0)"
} >"$rc"

status=0
env -u RELAY_CACHE_USER -u RELAY_CACHE_PASSWORD "${BAZEL:-bazel}" --bazelrc="$rc" "$@" || status=$?
exit "$status"
