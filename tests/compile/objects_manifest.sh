#!/bin/bash
# objects_manifest.sh [--tuning DB] [--tir] RELAYC OUT [TARGET...]: compiles every kernel of the
# checked-in kernel libraries (models/kernels, tests/e2e/kernels) for every target (default: all
# of them, CUDA included: nvcc must be installed) and writes one line per object,
# "<sha256>  <target>/<id>.o", sorted, to OUT. --tuning DB compiles with the records of a tuning
# database (as the Bazel rules do: a kernel with a record for the target takes its knobs);
# --tir adds a line "<sha256>  <target>/<id>.tir" per kernel and CPU target, the digest of its
# loop IR (`relayc tir`). Run it with relayc built before and after a change to the compiler and
# diff the two files: a refactoring leaves every object and every loop nest byte-identical.
#
#   tests/compile/objects_manifest.sh /tmp/relayc.before /tmp/before.txt
#   tests/compile/objects_manifest.sh bazel-bin/lowering/tools/relayc /tmp/after.txt
#   diff /tmp/before.txt /tmp/after.txt && echo identical
#   tests/compile/objects_manifest.sh --tuning models/kernels/tuning.jsonl --tir \
#     bazel-bin/lowering/tools/relayc /tmp/tuned.txt x86-64 x86-64-avx2 x86-64-avx512
set -euo pipefail

usage() {
  sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

tuning=()
tir=0
while (($# > 0)); do
  case "$1" in
    --tuning)
      (($# >= 2)) || usage
      tuning=(--tuning "$(realpath "$2")")
      shift 2
      ;;
    --tir)
      tir=1
      shift
      ;;
    -*) usage ;;
    *) break ;;
  esac
done
(($# >= 2)) || usage
relayc="$(realpath "$1")"
out="$2"
shift 2
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if (($# > 0)); then
  targets=("$@")
else
  targets=(x86-64 x86-64-avx2 x86-64-avx512 cuda-sm80 cuda-sm90)
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

kernels=()
for dir in models/kernels tests/e2e/kernels; do
  for f in "$repo/$dir"/k_*.relay; do kernels+=("$f"); done
done
for target in "${targets[@]}"; do
  mkdir -p "$work/$target"
  # shellcheck disable=SC2016  # the inner sh expands them
  printf '%s\n' "${kernels[@]}" | sort -u |
    xargs -P "$(nproc)" -I{} sh -c \
      'k=$1; id=$(basename "$k" .relay); r=$2; t=$3; d=$4; shift 4
       "$r" compile --target "$t" "$@" -o "$d/$t/$id.o" "$k" >/dev/null' \
      _ {} "$relayc" "$target" "$work" "${tuning[@]}" ||
    { echo "objects_manifest: compiling for $target failed" >&2; exit 1; }
  if ((tir)) && [[ "$target" != cuda-* ]]; then
    # shellcheck disable=SC2016  # the inner sh expands them
    printf '%s\n' "${kernels[@]}" | sort -u |
      xargs -P "$(nproc)" -I{} sh -c \
        'k=$1; id=$(basename "$k" .relay); r=$2; t=$3; d=$4; shift 4
         "$r" tir --target "$t" "$@" "$k" >"$d/$t/$id.tir"' \
        _ {} "$relayc" "$target" "$work" "${tuning[@]}" ||
      { echo "objects_manifest: relayc tir for $target failed" >&2; exit 1; }
  fi
done
(cd "$work" && find . -type f \( -name '*.o' -o -name '*.tir' \) -printf '%P\0' | sort -z |
  xargs -0 sha256sum -- | sort -k2) >"$out"
echo "objects_manifest: $(wc -l <"$out") lines ($((${#kernels[@]})) kernel files x ${#targets[@]} targets${tuning[1]:+, records of ${tuning[1]}}) -> $out"
