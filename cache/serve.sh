#!/bin/bash
# serve.sh: run nginx as a Bazel HTTP remote cache (see docs/remote-cache.md).
#
#   cache/serve.sh start  [--port N] [--dir D] [--htpasswd FILE] [--bind ADDR] [--max_body SIZE]
#                         [--user USER]
#   cache/serve.sh stop   [--dir D]
#   cache/serve.sh status [--dir D]
#
#   --dir D          the cache: D/ac/ and D/cas/ hold the blobs, D/nginx/ the server's state
#                    (rendered nginx.conf, nginx.pid, error.log, access.log, temporary uploads).
#                    Default: ~/.cache/rules_relay/http-cache
#   --port N         default 8090
#   --bind ADDR      the listen address; default 127.0.0.1 (loopback: this machine only)
#   --htpasswd FILE  users allowed to upload (PUT), one "user:hash" a line from
#                    `openssl passwd -apr1`. Without it the cache is read-only: every PUT gets 403.
#   --max_body SIZE  the largest blob one PUT may carry (nginx size: 512m, 1g); default 1g
#   --user USER      the unprivileged user nginx's workers run as when started as root;
#                    default relay-cache, a system user made on first start (no home, no
#                    login shell) that owns nothing but the blobs. It must be able to write D
#                    and read FILE.
#
# Idempotent: start while running with the same settings says so and succeeds; stop and status
# when nothing runs say so (status then exits 3, like an LSB init script).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly SCRIPT_DIR
readonly TEMPLATE="$SCRIPT_DIR/nginx.conf.template"

die() {
  echo "serve.sh: $*" >&2
  exit 1
}

usage() {
  sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

command_name="${1:-}"
(($# > 0)) && shift
port=8090
dir="${HOME:-/root}/.cache/rules_relay/http-cache"
htpasswd=""
bind="127.0.0.1"
max_body="1g"
readonly DEFAULT_USER="relay-cache"
user="$DEFAULT_USER"
while (($# > 0)); do
  case "$1" in
    --port) port="${2:?--port needs a value}"; shift 2 ;;
    --port=*) port="${1#*=}"; shift ;;
    --dir) dir="${2:?--dir needs a value}"; shift 2 ;;
    --dir=*) dir="${1#*=}"; shift ;;
    --htpasswd) htpasswd="${2:?--htpasswd needs a value}"; shift 2 ;;
    --htpasswd=*) htpasswd="${1#*=}"; shift ;;
    --bind) bind="${2:?--bind needs a value}"; shift 2 ;;
    --bind=*) bind="${1#*=}"; shift ;;
    --max_body) max_body="${2:?--max_body needs a value}"; shift 2 ;;
    --max_body=*) max_body="${1#*=}"; shift ;;
    --user) user="${2:?--user needs a value}"; shift 2 ;;
    --user=*) user="${1#*=}"; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
done

if ! [[ "$port" =~ ^[0-9]+$ ]] || ((port < 1 || port > 65535)); then
  die "--port: '$port' is not a port"
fi
[[ "$max_body" =~ ^[0-9]+[kKmMgG]?$ ]] || die "--max_body: '$max_body' is not an nginx size (512m, 1g)"
[[ "$dir" == /* ]] || dir="$PWD/$dir"
dir="${dir%/}"
readonly state="$dir/nginx"
readonly pid_file="$state/nginx.pid"
readonly conf="$state/nginx.conf"

# The pid of the running server of this cache, or nothing.
running_pid() {
  [[ -f "$pid_file" ]] || return 0
  local pid
  pid="$(tr -d '[:space:]' <"$pid_file")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 0
  # Only our nginx: a stale pid file may name a recycled pid.
  if [[ -r "/proc/$pid/cmdline" ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$conf"; then
    echo "$pid"
  fi
}

# The nginx configuration for the settings given, on stdout.
render() {
  local listen="$bind:$port"
  [[ "$bind" == *:* ]] && listen="[$bind]:$port"
  local write_access
  if [[ -n "$htpasswd" ]]; then
    write_access="        auth_basic \"rules_relay cache\";
        auth_basic_user_file $htpasswd;"
  else
    write_access="        deny all;"
  fi
  local group
  group="$(id -gn "$user" 2>/dev/null)" || die "--user: no user '$user'"
  local line
  while IFS= read -r line || [[ -n "$line" ]]; do
    if [[ "$line" == "@WRITE_ACCESS@" ]]; then
      echo "$write_access"
      continue
    fi
    line="${line//@USER@/$user}"
    line="${line//@GROUP@/$group}"
    line="${line//@STATE@/$state}"
    line="${line//@DIR@/$dir}"
    line="${line//@LISTEN@/$listen}"
    line="${line//@MAX_BODY@/$max_body}"
    echo "$line"
  done <"$TEMPLATE"
}

# The workers' own user, made when it is missing (as root only): not `nobody`, which every
# service that falls back to it shares, so that no other daemon can read or replace a blob.
# Another --user must exist already: serve.sh makes no user it was not told to own.
ensure_default_user() {
  id -u "$user" >/dev/null 2>&1 && return 0
  [[ "$user" == "$DEFAULT_USER" ]] || die "--user: no user '$user'"
  command -v useradd >/dev/null || die "useradd is missing: cannot make the user '$user'"
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
    --user-group "$user" || die "could not make the system user '$user'"
  echo "serve.sh: made the system user '$user' for the workers"
}

# Runs "$@" as the worker user (as root), or as ourselves.
as_worker() {
  if [[ "$(id -u)" == 0 ]]; then
    runuser -u "$user" -- "$@"
  else
    "$@"
  fi
}

# Fails with the reason when the worker user could not serve the cache: every folder above D
# must be searchable, D/ac, D/cas and the upload folder writable, the htpasswd file readable.
check_access() {
  local d
  for d in "$dir/ac" "$dir/cas" "$state/client_body_temp"; do
    as_worker test -w "$d" -a -x "$d" ||
      die "the worker user '$user' cannot write $d (is every folder above it searchable? e.g. chmod o+x on them)"
  done
  if [[ -n "$htpasswd" ]]; then
    as_worker test -r "$htpasswd" ||
      die "the worker user '$user' cannot read $htpasswd: nginx reads it on every PUT (chgrp $(id -gn "$user") $htpasswd; chmod 640 $htpasswd)"
    grep -qE '^[^:#]+:' "$htpasswd" || die "--htpasswd: $htpasswd has no 'user:hash' line"
  fi
}

cmd_start() {
  command -v nginx >/dev/null || die "nginx is missing: run ./x deps (Debian's nginx)"
  [[ -z "$htpasswd" || "$htpasswd" == /* ]] || htpasswd="$PWD/$htpasswd"
  [[ -z "$htpasswd" || -f "$htpasswd" ]] || die "--htpasswd: no file $htpasswd"
  if [[ "$(id -u)" == 0 ]]; then
    ensure_default_user
  else
    # Not root: nginx cannot switch users, and everything runs as ourselves.
    user="$(id -un)"
  fi
  local rendered
  rendered="$(render)"
  local pid
  pid="$(running_pid)"
  if [[ -n "$pid" ]]; then
    if [[ "$rendered" == "$(cat "$conf")" ]]; then
      echo "serve.sh: already running (pid $pid) on http://$bind:$port, cache $dir"
      return 0
    fi
    die "already running (pid $pid) with other settings ($conf): stop it first"
  fi
  mkdir -p "$dir/ac" "$dir/cas" "$state/client_body_temp"
  if [[ "$(id -u)" == 0 ]]; then
    # The workers write blobs and uploads; never world-writable.
    chown "$user:$(id -gn "$user")" "$dir/ac" "$dir/cas" "$state/client_body_temp"
    chmod 755 "$dir/ac" "$dir/cas"
    chmod 700 "$state/client_body_temp"
  fi
  check_access
  printf '%s\n' "$rendered" >"$conf"
  rm -f "$pid_file"
  # -e: nginx opens its compiled-in error log (/var/log/nginx) before reading the config.
  if ! nginx -q -p "$state" -e "$state/error.log" -c "$conf" -t 2>"$state/config-test.log"; then
    cat "$state/config-test.log" >&2
    die "nginx rejected $conf"
  fi
  nginx -p "$state" -e "$state/error.log" -c "$conf" ||
    die "nginx did not start; $state/error.log says: $(tail -n 3 "$state/error.log" 2>/dev/null)"
  # The master writes its pid file once it listens.
  for _ in $(seq 50); do
    pid="$(running_pid)"
    [[ -n "$pid" ]] && break
    sleep 0.1
  done
  [[ -n "$pid" ]] || die "nginx did not start; $state/error.log says: $(tail -n 3 "$state/error.log" 2>/dev/null)"
  local mode="read-only (no --htpasswd: PUT refused)"
  [[ -n "$htpasswd" ]] && mode="uploads need a user of $htpasswd"
  echo "serve.sh: started (pid $pid) on http://$bind:$port, cache $dir, $mode"
}

cmd_stop() {
  local pid
  pid="$(running_pid)"
  if [[ -z "$pid" ]]; then
    echo "serve.sh: not running (cache $dir)"
    return 0
  fi
  # QUIT: finish the requests in flight (an upload half-written is never renamed into place).
  kill -QUIT "$pid" 2>/dev/null || true
  for _ in $(seq 100); do
    [[ -d "/proc/$pid" ]] || break
    sleep 0.1
  done
  if [[ -d "/proc/$pid" ]]; then
    kill -TERM "$pid" 2>/dev/null || true
    sleep 0.5
  fi
  [[ -d "/proc/$pid" ]] && die "nginx (pid $pid) did not stop"
  rm -f "$pid_file"
  echo "serve.sh: stopped (pid $pid)"
}

cmd_status() {
  local pid
  pid="$(running_pid)"
  if [[ -z "$pid" ]]; then
    echo "serve.sh: not running (cache $dir)"
    return 3
  fi
  local listen blobs
  listen="$(sed -n 's/^ *listen \(.*\);/\1/p' "$conf" | head -n 1)"
  blobs="$(find "$dir/ac" "$dir/cas" -type f 2>/dev/null | wc -l)"
  echo "serve.sh: running (pid $pid) on $listen, cache $dir: $blobs blobs, $(du -sh "$dir" 2>/dev/null | cut -f1)"
}

case "$command_name" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  -h | --help | help | "") usage ;;
  *) usage >&2; die "unknown command '$command_name'" ;;
esac
