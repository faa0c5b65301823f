#!/bin/bash
# cache h. A poisoned cache entry builds; relay_model_test catches it. Machine A builds a model
# into a disk cache. Someone with write access to the cache then replaces one kernel's object:
# a valid blob under its own digest (so Bazel's download check passes), compiled from another
# kernel text (relu turned into negative) and renamed to that kernel's symbol, and the kernel's
# action-cache entry now names it. Machine B (a fresh output base, the same cache) builds
# without a complaint and links the wrong object; the model's relay_model_test, which compares
# the library with the reference interpreter on the model itself, fails.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
itest_begin

itest_workspace "$ITEST_TMP/a"
itest_kernel_package m net
itest_model m net
sed -i 's/"relay_kernel_library", "relay_model_library")/"relay_kernel_library", "relay_model_library", "relay_model_test")/' \
  "$WS/m/BUILD"
cat >>"$WS/m/BUILD" <<'BUILD'

relay_model_test(
    name = "net_test",
    model = ":net",
)
BUILD
gen_model "$WS/m/net.onnx" --model=resnet18 --image_size=32 --width_divisor=8
must_bazel run //m:net.update_kernels
must_bazel test //m:net_test
expect_success "machine A: the model builds into the disk cache and its test passes"

# The victim: a kernel with a relu; the poison: its text with the relu made a negation.
victim=""
for id in $(kernel_ids "$WS/m/kernels"); do
  if grep -q 'nn.relu(' "$WS/m/kernels/$id.relay"; then
    victim="$id"
    break
  fi
done
[[ -n "$victim" ]] || { fail "no kernel with a relu"; itest_end; exit 1; }
poison_dir="$ITEST_TMP/poison"
mkdir -p "$poison_dir"
sed 's/nn\.relu(/negative(/' "$WS/m/kernels/$victim.relay" >"$poison_dir/text.relay"
poison_id="k_$(sha256sum "$poison_dir/text.relay" | cut -c1-20)"
mv "$poison_dir/text.relay" "$poison_dir/$poison_id.relay"
if ! "$RELAYC" compile "$poison_dir/$poison_id.relay" -o "$poison_dir/bad.o" \
  >"$poison_dir/compile.out" 2>&1; then
  fail "cannot compile the poison: $(cat "$poison_dir/compile.out")"
  itest_end
  exit 1
fi
objcopy --redefine-sym "$poison_id=$victim" "$poison_dir/bad.o"
bad_digest="$(sha256sum "$poison_dir/bad.o" | cut -d' ' -f1)"
bad_size="$(stat -c %s "$poison_dir/bad.o")"
mkdir -p "$DISK/cas/${bad_digest:0:2}"
cp "$poison_dir/bad.o" "$DISK/cas/${bad_digest:0:2}/$bad_digest"

# The victim's action-cache entry (an ActionResult naming its outputs) now names the poison.
ac_file="$(grep -l -F "kernels_x86-64/$victim.o" "$DISK"/ac/*/* | head -n 1)"
[[ -n "$ac_file" ]] || { fail "no action-cache entry names $victim.o"; itest_end; exit 1; }
python3 - "$ac_file" "$victim.o" "$bad_digest" "$bad_size" <<'PY'
import sys

path, suffix, digest, size = sys.argv[1], sys.argv[2].encode(), sys.argv[3].encode(), int(sys.argv[4])

def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)

def read_varint(data, i):
    value, shift = 0, 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, i

def fields(data):
    i = 0
    while i < len(data):
        key, i = read_varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = read_varint(data, i)
        elif wire == 2:
            n, i = read_varint(data, i)
            value = data[i:i + n]
            i += n
        elif wire in (1, 5):
            n = 8 if wire == 1 else 4
            value = data[i:i + n]
            i += n
        else:
            raise SystemExit("unexpected wire type %d" % wire)
        yield number, wire, value

def encode(number, wire, value):
    key = varint(number << 3 | wire)
    if wire == 0:
        return key + varint(value)
    if wire == 2:
        return key + varint(len(value)) + value
    return key + value

data = open(path, "rb").read()
out, changed = b"", 0
for number, wire, value in fields(data):
    if number == 2 and wire == 2:  # ActionResult.output_files
        parts = list(fields(value))
        if any(n == 1 and v.endswith(suffix) for n, _, v in parts):
            digest_msg = encode(1, 2, digest) + encode(2, 0, size)
            value = b"".join(encode(n, w, digest_msg if n == 2 else v) for n, w, v in parts)
            changed += 1
    out += encode(number, wire, value)
if changed != 1:
    raise SystemExit("expected one output file ending in %s, found %d" % (suffix.decode(), changed))
open(path, "wb").write(out)
PY
pass "the cache now gives $victim.o as an object of another kernel text ($poison_id)"

# Machine B: another checkout and output base, the same (poisoned) disk cache.
itest_copy_workspace "$ITEST_TMP/b"
must_bazel build //m:all
expect_success "machine B builds from the poisoned cache without a complaint"
expect_eq "machine B linked the poisoned object" \
  "$(sha256sum "$WS/bazel-bin/m/kernels_x86-64/$victim.o" | cut -d' ' -f1)" "$bad_digest"
itest_bazel test //m:net_test
expect_failure "machine B: relay_model_test fails on the poisoned library"
expect_grep "the test names an output out of tolerance" "the reference interpreter's" \
  "$WS/bazel-testlogs/m/net_test/test.log"

itest_end
