#!/usr/bin/env python3
"""Layer by layer: our kernel calls against ONNX Runtime's nodes, on the same inputs.

    bench/run --models M --threads T         # builds bench_M and M.onnx for this machine
    python3 bench/layers.py M --threads T [--runs 40]

Runs our benchmark binary with the profiler's trace on (runtime/relay_profile.h) and ONNX
Runtime with its own profiler (bench/ort_bench.js PROFILE_PREFIX), both in bazel-bin as the last
bench/run left it, and prints each side's median time per call in execution order. A call and a
node are paired where their outputs have the same shape (ours blocked [N, C/b, H, W, b] counts as
[N, C, H, W]), aligned over the whole sequence, so that fusions that differ (ONNX Runtime's
ReorderOutput, our fused reshape) leave a gap on one side instead of shifting every row after
them. This is how the slowest layers against ONNX Runtime are found (docs/cpu-performance.md).
"""

import argparse
import difflib
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import bench  # noqa: E402  (bench.py's opt_bin_dir())


def canonical(shape):
    """NCHW for a blocked NCHW[b]c shape; other shapes as they are."""
    if len(shape) == 5:
        return (shape[0], shape[1] * shape[4], shape[2], shape[3])
    return tuple(shape)


def ours(binary, work, threads, runs):
    trace_path = os.path.join(work, "trace.json")
    env = dict(os.environ, RELAY_NUM_THREADS=str(threads), RELAY_PROFILE_TRACE=trace_path)
    subprocess.run([binary, "--out_dir", work, "--runs", str(runs), "--warmup", "3"], env=env,
                   check=True, stdout=subprocess.DEVNULL)
    with open(trace_path) as f:
        trace = json.load(f)
    durations, info = {}, {}
    for e in trace["traceEvents"]:
        if e.get("ph") != "X":
            continue
        call = e["args"]["call"]
        durations.setdefault(call, []).append(e["dur"] / 1e3)
        info[call] = e
    rows = []
    for call in sorted(durations):
        shapes = info[call]["args"]["shapes"]
        out = shapes.split("->")[-1].strip() if isinstance(shapes, str) else ""
        dims = [int(d) for d in out[out.find("[") + 1:out.find("]")].split(",") if d.strip()]
        rows.append((info[call]["name"], statistics.median(durations[call]), canonical(dims)))
    return rows


def ort(onnx, work, threads, runs):
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "ort")
        subprocess.run(["node", os.path.join(ROOT, "bench", "ort_bench.js"), onnx, work,
                        str(threads), str(runs), "3", prefix], check=True,
                       stdout=subprocess.DEVNULL)
        (path,) = glob.glob(prefix + "*.json")
        with open(path) as f:
            events = json.load(f)
    durations, meta = {}, {}
    for e in events:
        if e.get("cat") != "Node" or not e["name"].endswith("_kernel_time"):
            continue
        name = e["name"][:-len("_kernel_time")]
        durations.setdefault(name, []).append(e["dur"] / 1e3)
        if name not in meta:
            shapes = e["args"].get("output_type_shape") or [{}]
            dims = next(iter(shapes[0].values()), [])
            meta[name] = (e["args"].get("op_name", ""), canonical(dims))
    # The warm-up runs are profiled too: the median of the last `runs` calls of each node.
    return [(meta[n][0] + " " + n, statistics.median(d[-runs:]), meta[n][1])
            for n, d in durations.items()]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("model")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--runs", type=int, default=40)
    p.add_argument("--bin_dir", default="")
    args = p.parse_args()
    args.bin_dir = args.bin_dir or bench.opt_bin_dir()
    binary = os.path.join(args.bin_dir, "bench", f"bench_{args.model}")
    onnx = os.path.join(args.bin_dir, "models", f"{args.model}.onnx")
    for f in (binary, onnx):
        if not os.path.exists(f):
            sys.exit(f"bench/layers.py: {f} is missing; run bench/run --models {args.model}")
    work = os.path.join(ROOT, "bench", "out", f"layers_{args.model}_t{args.threads}")
    os.makedirs(work, exist_ok=True)
    a = ours(binary, work, args.threads, args.runs)  # also writes the inputs ONNX Runtime reads
    b = ort(onnx, work, args.threads, args.runs)
    print(f"{args.model}, {args.threads} thread(s), median of {args.runs} runs per call; "
          f"sum of calls: ours {sum(r[1] for r in a):.3f} ms, "
          f"ONNX Runtime {sum(r[1] for r in b):.3f} ms")
    print(f"{'ours ms':>8} {'ORT ms':>8} {'ratio':>6}  {'output':24} ours | ONNX Runtime")
    matcher = difflib.SequenceMatcher(a=[r[2] for r in a], b=[r[2] for r in b], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for k in range(max(i2 - i1, j2 - j1)):
            x = a[i1 + k] if i1 + k < i2 else None
            y = b[j1 + k] if j1 + k < j2 else None
            ratio = f"{x[1] / y[1]:6.2f}" if x and y and tag == "equal" and y[1] > 0 else " " * 6
            shape = str(list((x or y)[2]))
            print(f"{x[1] if x else 0:8.3f} {y[1] if y else 0:8.3f} {ratio}  {shape:24} "
                  f"{x[0][:44] if x else '-'} | {y[0][:40] if y else '-'}")


if __name__ == "__main__":
    main()
