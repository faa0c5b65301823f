#!/bin/bash
# cache f. cache/prune.sh evicts what nginx never does: blobs not read for N days, then the least
# recently read ones until the cache fits a size; --dry_run removes nothing. Then a build
# against a cache that lost CAS blobs its action-cache entries name still succeeds.
source "$(dirname "${BASH_SOURCE[0]}")/cache_lib.sh"
cache_begin

prune="$REPO/cache/prune.sh"
dir="$ITEST_TMP/pruned"
mkdir -p "$dir/ac" "$dir/cas"
# blob NAME SIZE DAYS_SINCE_READ
blob() {
  head -c "$2" /dev/zero >"$dir/$1"
  touch -a -d "$3 days ago" "$dir/$1"
}
blob ac/old_ac 100 30
blob cas/old_cas 1000 20
blob cas/week 4000 7
blob cas/day 2000 1
blob cas/new 3000 0
listing() {
  (cd "$dir" && find ac cas -type f | sort | tr '\n' ' ')
}

out="$("$prune" --dir "$dir" --max_age_days 14 --dry_run)"
expect_eq "--dry_run removes nothing" "$(listing)" "ac/old_ac cas/day cas/new cas/old_cas cas/week "
if [[ "$out" == *"would remove $dir/ac/old_ac"* && "$out" == *"would remove 2 blobs"* ]]; then
  pass "--dry_run names what it would remove"
else
  fail "--dry_run said: $out"
fi

"$prune" --dir "$dir" --max_age_days 14 >/dev/null
expect_eq "--max_age_days 14 removes the blobs not read for 14 days" "$(listing)" \
  "cas/day cas/new cas/week "

# 9000 bytes left; at most 4500: the least recently read go first (week, then day).
out="$("$prune" --dir "$dir" --max_size 4500)"
expect_eq "--max_size removes the least recently read first" "$(listing)" "cas/new "
if [[ "$out" == *"removed 2 blobs (6000 bytes); 3000 bytes left"* ]]; then
  pass "and says how much ($out)"
else
  fail "it said: $out"
fi

rc=0
"$prune" --dir "$dir" >/dev/null 2>&1 || rc=$?
expect_eq "no limit given: exit 2" "$rc" 2
rc=0
"$prune" --dir "$ITEST_TMP" --max_size 1G >/dev/null 2>&1 || rc=$?
expect_eq "not a cache folder: exit 2" "$rc" 2

# A pruned cache: CAS blobs gone, the action-cache entries naming them still there.
cache_server_start
cache_zoo_workspace "$ITEST_TMP/a" mlp
cache_bazel_ci build //m:all
expect_success "machine A builds and uploads"
digest_a="$(outputs_digest "$WS")"
kernel="$(kernel_ids "$WS/m/kernels" | head -n 1)"
object_digest="$(sha256sum "$WS/bazel-bin/m/kernels_x86-64/$kernel.o" | cut -d' ' -f1)"
touch -a -d "30 days ago" "$CACHE_DIR/cas/$object_digest"
"$prune" --dir "$CACHE_DIR" --max_age_days 14 >/dev/null
if [[ -e "$CACHE_DIR/cas/$object_digest" ]]; then
  fail "the kernel object was not pruned"
else
  pass "the kernel object $kernel.o was pruned, its action-cache entry was not"
fi

cache_machine "$ITEST_TMP/b"
must_bazel build --config=remote-ro //m:all
report_counts "remote-ro after pruning one kernel object"
expect_success "the build succeeds"
expect_eq "the pruned kernel compiled here, and only it" "$(compiled_kernels | tr -d '\n')" \
  "$kernel"
expect_same_outputs "the outputs are the uploader's" "$digest_a" "$(outputs_digest "$WS")"

itest_end
