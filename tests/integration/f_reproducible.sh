#!/bin/bash
# f. Two clean builds (two workspaces at different paths, two output bases, two empty disk
# caches) give bit-identical kernel objects, overflow archives, generated executors, headers,
# weights objects and model libraries. One model's library is complete, the other's lacks a
# kernel, so its overflow archive holds a kernel.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
itest_begin

itest_workspace "$ITEST_TMP/ws"
itest_kernel_package m full stale
itest_model m full
itest_model m stale
flags=(--model=resnet18 --image_size=32 --width_divisor=8)
gen_model "$WS/m/full.onnx" "${flags[@]}" --num_classes=10
gen_model "$WS/m/stale.onnx" "${flags[@]}" --num_classes=12 --seed=3
must_bazel run //m:full.update_kernels
must_bazel build //m:all
report_counts "first clean build"
expect_eq "nothing came from a cache" "$(count_spawns all hits)" 0
first="$(bazel_bin)/m"

itest_workspace "$ITEST_TMP/elsewhere/deeper/ws"
cp -r "$ITEST_TMP/ws/m" "$WS/"
must_bazel build //m:all
report_counts "second clean build"
expect_eq "nothing came from a cache" "$(count_spawns all hits)" 0
second="$(bazel_bin)/m"

# Every file the builds wrote under m/ (runfiles trees hold links, not outputs).
(cd "$first" && find . -type f -not -path '*.runfiles*' | sort) >"$ITEST_TMP/files1.txt"
(cd "$second" && find . -type f -not -path '*.runfiles*' | sort) >"$ITEST_TMP/files2.txt"
if cmp -s "$ITEST_TMP/files1.txt" "$ITEST_TMP/files2.txt"; then
  pass "both builds wrote the same $(wc -l <"$ITEST_TMP/files1.txt") files"
else
  fail "the builds wrote different files:"
  diff "$ITEST_TMP/files1.txt" "$ITEST_TMP/files2.txt" | head -n 20 | sed 's/^/    /'
fi
# The kinds of output the issue names must be among them.
for pattern in 'kernels_x86-64/k_*.o' 'kernels_x86-64/k_*.json' 'stale_overflow.a' \
  'full.h' 'full.cc' 'full_params.o' 'full.graph.json' 'libfull.a' '_objs/full/full.pic.o'; do
  found=0
  while read -r f; do
    # shellcheck disable=SC2053  # a glob on purpose
    if [[ "${f#./}" == $pattern ]]; then
      found=1
      break
    fi
  done <"$ITEST_TMP/files1.txt"
  if ((found)); then pass "compared: $pattern"; else fail "no output matches $pattern"; fi
done
differ=0
compared=0
while read -r f; do
  compared=$((compared + 1))
  if ! cmp -s "$first/$f" "$second/$f"; then
    differ=$((differ + 1))
    echo "    differs: $f"
  fi
done <"$ITEST_TMP/files1.txt"
echo "compared $compared files"
expect_eq "files that differ" "$differ" 0
if [[ -s "$first/stale_overflow.a" ]] && grep -q "k_" "$first/stale_overflow.json"; then
  pass "the stale model's overflow archive holds a kernel"
else
  fail "the stale model's overflow archive is empty"
fi

itest_end
