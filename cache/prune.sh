#!/bin/bash
# prune.sh: evict entries from the cache folder of cache/serve.sh, which nginx never does itself
# (docs/remote-cache.md, "Sizing and eviction"). Meant for cron:
#
#   cache/prune.sh --dir D [--max_age_days N] [--max_size SIZE] [--dry_run]
#
#   --max_age_days N  remove blobs not read or written for N days (by access time)
#   --max_size SIZE   then remove the least recently used blobs until D/ac + D/cas hold at most
#                     SIZE (bytes, or with a K, M, G or T suffix: 50G)
#   --dry_run         print what would be removed, remove nothing
#
# Both look at access times, which nginx's reads update only if the file system records them:
# with `relatime` (Linux's default) an atime older than a day is refreshed on the next read, so
# ages are right to a day; with `noatime` they never move and "least recently used" means
# "least recently written". prune.sh warns when the cache's file system is mounted noatime.
#
# An action-cache entry whose output blobs were removed is harmless: Bazel finds the blob
# missing, warns, and runs the action. Prints one summary line; exit 0, or 2 for bad arguments.
set -euo pipefail

die() {
  echo "prune.sh: $*" >&2
  exit 2
}

dir=""
max_age=""
max_size=""
dry_run=0
while (($# > 0)); do
  case "$1" in
    --dir) dir="${2:?--dir needs a value}"; shift 2 ;;
    --dir=*) dir="${1#*=}"; shift ;;
    --max_age_days) max_age="${2:?--max_age_days needs a value}"; shift 2 ;;
    --max_age_days=*) max_age="${1#*=}"; shift ;;
    --max_size) max_size="${2:?--max_size needs a value}"; shift 2 ;;
    --max_size=*) max_size="${1#*=}"; shift ;;
    --dry_run) dry_run=1; shift ;;
    -h | --help) sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1'" ;;
  esac
done
[[ -n "$dir" ]] || die "--dir is required (the folder given to serve.sh --dir)"
[[ -d "$dir/ac" && -d "$dir/cas" ]] || die "$dir has no ac/ and cas/: not a cache folder"
[[ -n "$max_age" || -n "$max_size" ]] || die "nothing to do: give --max_age_days or --max_size"
[[ -z "$max_age" || "$max_age" =~ ^[0-9]+$ ]] || die "--max_age_days: '$max_age' is not a number"

limit=""
if [[ -n "$max_size" ]]; then
  [[ "$max_size" =~ ^([0-9]+)([kKmMgGtT]?)$ ]] || die "--max_size: '$max_size' is not a size (50G)"
  limit="${BASH_REMATCH[1]}"
  case "${BASH_REMATCH[2]}" in
    k | K) limit=$((limit << 10)) ;;
    m | M) limit=$((limit << 20)) ;;
    g | G) limit=$((limit << 30)) ;;
    t | T) limit=$((limit << 40)) ;;
  esac
fi

if command -v findmnt >/dev/null &&
  findmnt -no OPTIONS --target "$dir" 2>/dev/null | tr ',' '\n' | grep -qx noatime; then
  echo "prune.sh: warning: $dir is on a noatime mount: access times never change, so blobs are" \
    "pruned by when they were written" >&2
fi

removed=0
removed_bytes=0
# remove SIZE PATH
remove() {
  removed=$((removed + 1))
  removed_bytes=$((removed_bytes + $1))
  if ((dry_run)); then
    echo "would remove $2"
  else
    rm -f -- "$2"
  fi
}

# Blobs by access time, oldest first: "ATIME SIZE PATH".
listing="$(mktemp)"
trap 'rm -f "$listing"' EXIT
find "$dir/ac" "$dir/cas" -type f -printf '%A@ %s %p\n' | sort -n >"$listing"

now=$(date +%s)
total=0
kept="$(mktemp)"
trap 'rm -f "$listing" "$kept"' EXIT
while read -r atime size path; do
  if [[ -n "$max_age" ]] && ((${atime%.*} < now - max_age * 86400)); then
    remove "$size" "$path"
  else
    echo "$size $path" >>"$kept"
    total=$((total + size))
  fi
done <"$listing"

if [[ -n "$limit" ]]; then
  while read -r size path && ((total > limit)); do
    remove "$size" "$path"
    total=$((total - size))
  done <"$kept"
fi

verb="removed"
((dry_run)) && verb="would remove"
echo "prune.sh: $verb $removed blobs ($removed_bytes bytes); $total bytes left in $dir"
