#!/usr/bin/env bash
# relayc compile on ResNet-18 (batch 1, 3x224x224, the zoo's seeded weights) on this machine
# (issue 5), for each target and both schedules:
#   - per-kernel compile time, median and max: in process (CompileKernelText, as `relayc run`
#     reports it) and per `relayc compile` process (what one Bazel RelayCompile action costs,
#     process start included);
#   - end-to-end latency with 1 and 2 threads through `relayc run --threads N --repeat R`
#     (median of R runs of the whole graph, kernels already compiled and cached).
#
#   bench/compile_resnet18.sh [--targets x86-64,x86-64-avx2] [--repeat 10] [--relayc PATH]
#                             [--modelgen PATH] [--write]
#
# Without --relayc/--modelgen it builds both with -c opt (what Bazel's exec configuration runs
# for kernel actions), without touching the bazel-* symlinks. Prints a Markdown table; --write
# also replaces the section "## relayc compile (issue 5)" of bench/RESULTS.md (and only it).
# Each configuration compiles into an empty kernel cache of its own (RELAY_CACHE_DIR), so the
# user's cache is neither used nor changed.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=""
repeat=10
relayc=""
modelgen=""
write=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --targets) targets="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    --relayc) relayc="$(realpath "$2")"; shift 2 ;;
    --modelgen) modelgen="$(realpath "$2")"; shift 2 ;;
    --write) write=1; shift ;;
    *) echo "compile_resnet18.sh: unknown flag '$1' (see the comment at the top)" >&2; exit 2 ;;
  esac
done

if [[ -z "$targets" ]]; then
  # The portable baseline, and this machine's best x86 target if it has one.
  targets="x86-64"
  flags="$(grep -m1 '^flags' /proc/cpuinfo || true)"
  if [[ " $flags " == *" avx512f "* && " $flags " == *" avx512bw "* ]]; then
    targets="$targets,x86-64-avx512"
  elif [[ " $flags " == *" avx2 "* && " $flags " == *" fma "* ]]; then
    targets="$targets,x86-64-avx2"
  fi
fi

if [[ -z "$relayc" || -z "$modelgen" ]]; then
  bazel build -c opt --symlink_prefix=/ //lowering/tools:relayc //models/gen:modelgen >&2
  bin_dir="$(bazel info -c opt bazel-bin 2>/dev/null)"
  [[ -n "$relayc" ]] || relayc="$bin_dir/lowering/tools/relayc"
  [[ -n "$modelgen" ]] || modelgen="$bin_dir/models/gen/modelgen"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/compile_resnet18.XXXXXX")"
trap 'rm -rf "$work"' EXIT
"$modelgen" --model=resnet18 -o "$work/resnet18.onnx"
"$relayc" partition "$work/resnet18.onnx" --kernel_dir "$work/kernels" --write_kernels \
  --out_dir "$work/p" >"$work/partition.txt"
kernels=("$work"/kernels/k_*.relay)

# median_max MS...: "median max" of the numbers given.
median_max() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.1f %.1f", m, v[NR] }'
}

# field TEXT REGEX: the first capture group of REGEX in TEXT (sed -E syntax).
field() { echo "$1" | sed -nE "s/.*$2.*/\\1/p" | head -n 1; }

cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
load_before="$(cut -d' ' -f1 /proc/loadavg)"
rows=()
for target in ${targets//,/ }; do
  for schedule in default naive; do
    # One `relayc compile` process per kernel, as Bazel runs them.
    process_ms=()
    for k in "${kernels[@]}"; do
      start=$(date +%s%N)
      "$relayc" compile "$k" --target="$target" --schedule="$schedule" -o "$work/k.o"
      process_ms+=("$(( ($(date +%s%N) - start) / 1000 ))e-3")
    done
    read -r proc_median proc_max <<<"$(median_max "${process_ms[@]}")"

    cache="$work/cache.$target.$schedule"
    run() {  # run THREADS: relayc run into this configuration's cache
      RELAY_CACHE_DIR="$cache" "$relayc" run "$work/resnet18.onnx" --random_inputs \
        --target="$target" --schedule="$schedule" --threads="$1" --repeat="$repeat" \
        --output_dir="$work/out.$target.$schedule.$1"
    }
    first="$(run 1)"
    second="$(run 2)"
    compiled="$(field "$first" 'compiled ([0-9]+), cached 0 kernels')"
    [[ -n "$compiled" ]] || { echo "unexpected output: $first" >&2; exit 1; }
    [[ "$(field "$second" 'compiled ([0-9]+), cached')" == 0 ]] ||
      { echo "the second run compiled again: $second" >&2; exit 1; }
    cmp -s "$work/out.$target.$schedule.1/output_0.npy" "$work/out.$target.$schedule.2/output_0.npy" ||
      echo "note: $target $schedule: 1 and 2 threads give different bytes" >&2
    total_s="$(field "$first" 'kernels \([^)]*\) in ([0-9.]+) s')"
    median="$(field "$first" 'per kernel: median ([0-9.]+) ms')"
    max="$(field "$first" 'max ([0-9.]+) ms')"
    t1="$(field "$first" 'run: median ([0-9.]+) ms')"
    t2="$(field "$second" 'run: median ([0-9.]+) ms')"
    rows+=("| $target | $schedule | $compiled | $median / $max | $proc_median / $proc_max | $total_s | $t1 | $t2 |")
  done
done

table="$(
  echo "ResNet-18, batch 1, 3x224x224 ($(grep -oE '[0-9]+ kernels, [0-9]+ calls' "$work/partition.txt"));"
  echo "$cpu, $(nproc) CPUs; relayc built with -c opt; run latency: median of $repeat runs."
  echo "Load average (1 min) before/after: $load_before / $(cut -d' ' -f1 /proc/loadavg) (above"
  echo "about 1, other processes on these 2 CPUs inflate every figure and hide the second"
  echo "thread's gain). The naive schedule has no parallel loop: its 2-thread figure is 1 thread's."
  echo
  echo "| target | schedule | kernels | compile ms/kernel, in process: median / max | relayc compile process ms: median / max | compile all, s | latency 1 thread, ms | latency 2 threads, ms |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Command: \`bench/compile_resnet18.sh --targets $targets --repeat $repeat\` ($(date -u +%Y-%m-%d))."
)"
echo "$table"

if [[ "$write" == 1 ]]; then
  python3 - "$table" <<'EOF'
import re
import sys

path = "bench/RESULTS.md"
heading = "## relayc compile (issue 5)"
section = heading + "\n\n" + sys.argv[1].strip() + "\n"
try:
    text = open(path).read()
except FileNotFoundError:
    text = "# Benchmark results\n\nEach section is written by its own script; see the command under it.\n"
# The section runs from its heading to the next "## " heading (or the end).
pattern = re.compile(re.escape(heading) + r"\n.*?(?=^## |\Z)", re.S | re.M)
if pattern.search(text):
    text = pattern.sub(lambda m: section + "\n", text, count=1).rstrip("\n") + "\n"
else:
    text = text.rstrip("\n") + "\n\n" + section
open(path, "w").write(text)
print("wrote the section to " + path, file=sys.stderr)
EOF
fi
