#!/bin/bash
# cache g. Bazel 4 never trims its local disk cache (.bazelrc: --disk_cache=
# ~/.cache/rules_relay/disk); `./x prune` bounds it with cache/prune.sh (same ac/ and cas/
# layout). A build fills a disk cache; a kernel object not read for 30 days goes with
# --max_age_days 14 while its action-cache entry stays; another output base then builds from
# that cache, compiling that kernel and nothing else, with the same outputs; --max_size caps
# the folder.
source "$(dirname "${BASH_SOURCE[0]}")/cache_lib.sh"
cache_begin

cache_server_start
cache_zoo_workspace "$ITEST_TMP/a" mlp
disk="$ITEST_TMP/disk"
DISK="$disk"
must_bazel build //m:all
expect_success "a build fills the disk cache"
digest_a="$(outputs_digest "$WS")"
kernel="$(kernel_ids "$WS/m/kernels" | head -n 1)"
object_digest="$(sha256sum "$WS/bazel-bin/m/kernels_x86-64/$kernel.o" | cut -d' ' -f1)"
blob="$disk/cas/${object_digest:0:2}/$object_digest"
if [[ -f "$blob" ]]; then
  pass "the kernel object $kernel.o is in the disk cache"
else
  fail "no $blob in the disk cache"
fi
touch -a -d "30 days ago" "$blob"

out="$("$REPO/x" prune --dir "$disk" --max_age_days 14 2>&1)"
if [[ -e "$blob" ]]; then
  fail "./x prune --max_age_days 14 left the 30-day-old kernel object ($out)"
else
  pass "./x prune --max_age_days 14 removed the 30-day-old kernel object ($out)"
fi

cache_machine "$ITEST_TMP/b"
DISK="$disk"
must_bazel build //m:all
report_counts "another output base, the pruned disk cache"
expect_success "a build from the pruned disk cache succeeds"
expect_eq "the pruned kernel compiled here, and only it" "$(compiled_kernels | tr -d '\n')" \
  "$kernel"
expect_same_outputs "the outputs are the first build's" "$digest_a" "$(outputs_digest "$WS")"

"$REPO/x" prune --dir "$disk" --max_size 1M >/dev/null
size=$(find "$disk/ac" "$disk/cas" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
if ((size <= 1048576)); then
  pass "./x prune --max_size 1M leaves $size bytes"
else
  fail "./x prune --max_size 1M left $size bytes"
fi

itest_end
