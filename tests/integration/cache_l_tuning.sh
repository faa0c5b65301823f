#!/bin/bash
# cache l. A kernel library with a tuning database (relay_kernel_library(tuning = ...)):
#   - `bazel run //m:net.tune` measures the model's kernels and writes their records;
#   - the build applies them: each tuned kernel's metadata says "tuned" with its record's digest,
#     and the build output counts the untuned kernels;
#   - editing one record recompiles exactly that kernel's RelayCompile action (each action reads
#     only its own kernel's record), and nothing else but the cheap split;
#   - a record for a kernel the library does not have is reported, not applied, and recompiles
#     nothing;
#   - machine A uploads (--config=ci); machine B (another checkout, a fresh output base) with the
#     same database gets every tuned kernel from the remote cache and executes no RelayCompile.
source "$(dirname "${BASH_SOURCE[0]}")/cache_lib.sh"
cache_begin
cache_server_start

cache_workspace "$ITEST_TMP/a"
itest_kernel_package m net
sed -i 's|    summaries = KERNELS,|    summaries = KERNELS,\n    tuning = "kernels/tuning.jsonl",|' "$WS/m/BUILD"
: >"$WS/m/kernels/tuning.jsonl"
itest_model m net
gen_model "$WS/m/net.onnx" --model=resnet18 --image_size=32 --width_divisor=8 --num_classes=10
must_bazel run //m:net.update_kernels
kernels=$(kernel_ids "$WS/m/kernels" | wc -l)

# ---- tuning: the model's kernels, a few candidates each, the heaviest first
must_bazel run //m:net.tune -- --trials 3 --budget_s 60
records=$(grep -c '"kernel"' "$WS/m/kernels/tuning.jsonl" || true)
if ((records > 0)); then
  pass "net.tune wrote $records records into m/kernels/tuning.jsonl"
else
  fail "net.tune wrote no record"
  show_output
fi
expect_grep "net.tune prints the candidates' table" "final round (default -> chosen)" "$ITEST_OUT"
expect_eq "the database is sorted, one line per record" \
  "$(sort "$WS/m/kernels/tuning.jsonl" | uniq | wc -l)" "$records"
must_bazel run //m:net.tune
expect_grep "a second net.tune leaves tuned kernels alone" "0 kernel(s) tuned, $records already had a record" "$ITEST_OUT"

# ---- machine A: CI, uploading
cache_bazel_ci build //m:all
expect_success "machine A builds with the database"
report_counts "machine A, --config=ci"
expect_eq "one RelayCompile per kernel, one overflow" "$(count_spawns RelayCompile executed)" \
  $((kernels + 1))
expect_eq "one RelaySplitTuning" "$(count_spawns RelaySplitTuning executed)" 1
expect_grep "the build counts the untuned kernels" \
  "tuning: $((kernels - records)) of $kernels kernels untuned for x86-64" "$ITEST_OUT"
tuned_meta=$(grep -l '"schedule": "tuned"' "$(bazel_bin)"/m/kernels_x86-64/*.json | wc -l)
expect_eq "every record's kernel compiled tuned" "$tuned_meta" "$records"
digest_a="$(outputs_digest "$WS")"

# ---- one record edited: its kernel alone recompiles
edited=$(head -1 "$WS/m/kernels/tuning.jsonl" | sed 's/.*"kernel":"\(k_[0-9a-f]*\)".*/\1/')
python3 - "$WS/m/kernels/tuning.jsonl" <<'PY'
import json, sys
path = sys.argv[1]
lines = open(path).read().splitlines()
first = json.loads(lines[0])
first["time_us"] = [t + 1.0 for t in first["time_us"]]
lines[0] = json.dumps(first, sort_keys=True, separators=(",", ":"))
open(path, "w").write("\n".join(lines) + "\n")
PY
cache_bazel_ci build //m:all
report_counts "one record edited"
expect_eq "RelayCompile ran for exactly the edited record's kernel" "$(compiled_kernels)" "$edited"
expect_eq "one RelayCompile action" "$(count_spawns RelayCompile executed)" 1
expect_eq "RelayPartition did not run" "$(count_spawns RelayPartition executed)" 0

# ---- a record for a kernel the library does not have
stale="k_00000000000000000000"
# Read the first record into a variable first: reading and appending the file in one pipeline
# could see its own output.
first_record="$(head -1 "$WS/m/kernels/tuning.jsonl")"
first_kernel="$(grep -o '"kernel":"k_[0-9a-f]*"' <<<"$first_record")"
echo "${first_record//$first_kernel/\"kernel\":\"$stale\"}" >>"$WS/m/kernels/tuning.jsonl"
cache_bazel_ci build //m:all
report_counts "a stale record added"
expect_grep "the stale record is reported" \
  "1 record(s) for kernels that are not in the kernel library, not applied: $stale (x86-64)" \
  "$ITEST_OUT"
expect_eq "nothing recompiles for it" "$(count_spawns RelayCompile executed)" 0

# ---- a broken database is an error that names the line
cp "$WS/m/kernels/tuning.jsonl" "$ITEST_TMP/good.jsonl"
echo '{"kernel": "k_1"}' >>"$WS/m/kernels/tuning.jsonl"
itest_bazel build //m:all
expect_failure "a malformed record fails the build"
expect_grep "the error names the file and line" \
  "m/kernels/tuning.jsonl:$((records + 2)): error: missing field 'cpu'" "$ITEST_OUT"
cp "$ITEST_TMP/good.jsonl" "$WS/m/kernels/tuning.jsonl"
cache_bazel_ci build //m:all
expect_success "machine A builds again"
digest_a="$(outputs_digest "$WS")"

# ---- machine B: the same checkout elsewhere, reading only
cache_machine "$ITEST_TMP/b"
must_bazel build --config=remote-ro //m:all
report_counts "machine B, --config=remote-ro, fresh output base"
expect_eq "machine B: no RelayCompile executed" "$(count_spawns RelayCompile executed)" 0
expect_eq "machine B: every RelayCompile a remote cache hit" "$(count_spawns RelayCompile hits)" \
  $((kernels + 1))
tuned_meta=$(grep -l '"schedule": "tuned"' "$(bazel_bin)"/m/kernels_x86-64/*.json | wc -l)
expect_eq "machine B's tuned kernels came from the cache" "$tuned_meta" "$records"
expect_same_outputs "machine B's outputs are machine A's, bit for bit" "$digest_a" \
  "$(outputs_digest "$WS")"

itest_end
