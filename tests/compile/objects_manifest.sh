#!/bin/bash
# objects_manifest.sh RELAYC OUT [TARGET...]: compiles every kernel of the checked-in kernel
# libraries (models/kernels, tests/e2e/kernels) for every target (default: all of them, CUDA
# included: nvcc must be installed) and writes one line per object, "<sha256>  <target>/<id>.o",
# sorted, to OUT. Run it with relayc built before and after a change to the compiler and diff
# the two files: a refactoring leaves every object byte-identical.
#
#   tests/compile/objects_manifest.sh /tmp/relayc.before /tmp/before.txt
#   tests/compile/objects_manifest.sh bazel-bin/lowering/tools/relayc /tmp/after.txt
#   diff /tmp/before.txt /tmp/after.txt && echo identical
set -euo pipefail

if (($# < 2)); then
  sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
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
      'id=$(basename "$1" .relay); "$2" compile --target "$3" -o "$4/$3/$id.o" "$1" >/dev/null' \
      _ {} "$relayc" "$target" "$work" ||
    { echo "objects_manifest: compiling for $target failed" >&2; exit 1; }
done
(cd "$work" && sha256sum -- */*.o | sort -k2) >"$out"
echo "objects_manifest: $(wc -l <"$out") objects ($((${#kernels[@]})) kernel files x ${#targets[@]} targets) -> $out"
