#!/bin/bash
# cache d. Corrupted entries on the server are not used. Bazel 4.2.3 checks every blob it
# downloads against its digest (--remote_verify_downloads, on in the remote-ro config): a kernel
# object whose bytes were flipped in the server's CAS is refused with a warning and the kernel
# compiles locally; an action-cache entry that is not an ActionResult is refused the same way.
# The build succeeds and its outputs are bit-identical to the uploader's clean build.
source "$(dirname "${BASH_SOURCE[0]}")/cache_lib.sh"
cache_begin

cache_server_start
cache_zoo_workspace "$ITEST_TMP/a" mlp
cache_bazel_ci build //m:all
expect_success "machine A builds and uploads"
digest_a="$(outputs_digest "$WS")"

mapfile -t ids < <(kernel_ids "$WS/m/kernels")
((${#ids[@]} >= 2)) || { fail "mlp has fewer than two kernels"; itest_end; exit 1; }
flipped="${ids[0]}"
garbled="${ids[1]}"

# Flip bytes of the first kernel's object in the CAS (its file is named by its SHA-256).
object="$WS/bazel-bin/m/kernels_x86-64/$flipped.o"
object_digest="$(sha256sum "$object" | cut -d' ' -f1)"
cas_file="$CACHE_DIR/cas/$object_digest"
if [[ -f "$cas_file" ]]; then
  pass "the kernel object $flipped.o is in the CAS under its digest"
else
  fail "no $cas_file"
fi
size=$(stat -c %s "$cas_file")
printf '\xde\xad\xbe\xef' | dd of="$cas_file" bs=1 seek=$((size / 2)) conv=notrunc status=none
if [[ "$(sha256sum "$cas_file" | cut -d' ' -f1)" != "$object_digest" ]]; then
  pass "the CAS file no longer hashes to its name"
else
  fail "the flip changed nothing"
fi

# Replace the second kernel's action-cache entry (the ActionResult naming its outputs) with
# bytes that are no ActionResult.
ac_file="$(grep -l -F "kernels_x86-64/$garbled.o" "$CACHE_DIR"/ac/* | head -n 1)"
if [[ -n "$ac_file" ]]; then
  pass "found the action-cache entry of $garbled"
  head -c 300 /dev/urandom >"$ac_file"
else
  fail "no action-cache entry names $garbled.o"
fi

cache_machine "$ITEST_TMP/b"
must_bazel build --config=remote-ro //m:all
report_counts "remote-ro with a corrupted CAS blob and a garbled action-cache entry"
log_b="$ITEST_LOG"
expect_success "the build succeeds"
expect_grep "Bazel refuses the flipped blob" \
  "Output bazel-out/k8-fastbuild/bin/m/kernels_x86-64/$flipped.o download failed: Expected digest '$object_digest/" \
  "$ITEST_OUT"
expect_grep "and the garbled entry" "WARNING: Reading from Remote Cache:" "$ITEST_OUT"
expect_eq "exactly those two kernels compiled here" "$(compiled_kernels | tr '\n' ' ')" \
  "$(printf '%s\n' "$flipped" "$garbled" | sort | tr '\n' ' ')"
expect_eq "everything else came from the cache" "$(count_spawns RelayCompile hits)" \
  $((${#ids[@]} + 1 - 2))
expect_same_outputs "the outputs are bit-identical to the clean build's" "$digest_a" \
  "$(outputs_digest "$WS")"
cache_report "the build that met the corrupted entries" --cache=remote --misses_only "$log_b"

itest_end
