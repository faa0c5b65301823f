#!/usr/bin/env python3
"""bench/run's second half: runs the built benchmarks and ONNX Runtime, compares, reports.

Called by bench/run after the build (see there for the flags). Standard library only.

For every model and thread count, `rounds` rounds each run our benchmark binary once and ONNX
Runtime once (interleaved, so both see the same machine load), each process timing `runs`
inferences after `warmup` untimed ones; a side's latency is the median of its rounds' medians.
Outputs are compared after the first round (ours and ORT's on the same .npy inputs).

max_rel_err is the normwise relative error, max_i |ours_i - ort_i| / max_j |ort_j| (the
infinity norm of the difference over that of ONNX Runtime's output), over every output.
Elementwise ratios are not used: two float32 implementations that sum in different orders
differ by about 1e-5 absolute on logits of magnitude 10, which is a large ratio on an
element that happens to be near 0. A model whose max_rel_err (of the tuned or the untuned build)
passes MAX_REL_ERR fails the run: its times are written, and the exit status is 1.
"""

import argparse
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The most a model's outputs may differ from ONNX Runtime's (max_rel_err): what
# relay_model_test allows against the reference interpreter.
MAX_REL_ERR = 1e-4

# Models built with symbolic dims (bench/BUILD's DYNAMIC_BENCH_MODELS, docs/dynamic-shapes.md):
# the static model of the same network, and each input's shape at batch {b}. Each runs at every
# batch of --batches, one row a batch: its time per image, and at batch 1 its time over the
# static build's (untuned against untuned where --untuned_bin_dir is given, else tuned static
# against the dynamic build, which takes no tuning records) in the same run.
DYNAMIC = {
    "resnet_dynamic": ("resnet", {"input": "{b},3,224,224"}),
}


def read_npy(path):
    """(shape, values as a list of numbers) of a little-endian version 1.0 .npy file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY" or data[6] != 1:
        raise ValueError(f"{path}: not a version 1.0 .npy file")
    header_len = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + header_len].decode("latin1")
    descr = header.split("'descr': '")[1].split("'")[0]
    shape_text = header.split("'shape': (")[1].split(")")[0]
    shape = [int(s) for s in shape_text.split(",") if s.strip()]
    fmt = {"<f4": "f", "<i8": "q", "<i4": "i", "|b1": "?"}[descr]
    body = data[10 + header_len:]
    count = len(body) // struct.calcsize(fmt)
    return shape, list(struct.unpack(f"<{count}{fmt}", body))


def max_rel_err(ours, ref):
    if len(ours) != len(ref):
        return float("inf")
    scale = max((abs(v) for v in ref), default=0.0)
    worst = 0.0
    for a, b in zip(ours, ref):
        if a != a or b != b:  # NaN on either side
            return float("inf")
        worst = max(worst, abs(a - b))
    return worst / max(scale, 1e-30)


def outputs_rel_err(ours_dir, ort_dir):
    """max_rel_err over every output our binary wrote to ours_dir (output_0.npy, ...) against
    ONNX Runtime's in ort_dir (ort_output_0.npy, ...); infinity when there is none."""
    err, i = 0.0, 0
    while os.path.exists(os.path.join(ours_dir, f"output_{i}.npy")):
        _, a = read_npy(os.path.join(ours_dir, f"output_{i}.npy"))
        _, b = read_npy(os.path.join(ort_dir, f"ort_output_{i}.npy"))
        err = max(err, max_rel_err(a, b))
        i += 1
    return err if i > 0 else float("inf")


def opt_bin_dir():
    """bazel-bin of the optimized build that bench/run made. The bazel-bin symlink follows the
    last build, and `bazel test` points it at fastbuild binaries, whose times mean nothing."""
    return subprocess.run(["bazel", "info", "-c", "opt", "bazel-bin"], cwd=ROOT, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.strip()


def run_json(cmd, env=None):
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def model_flops(bin_dir, model):
    """Sum of the kernels' flops over the model's calls (graph.json), and the kernel ids. A
    dynamic model's are at the bounds of its dims; its batch's upper bound is returned too
    (1 for a static model)."""
    with open(os.path.join(bin_dir, "models", f"{model}.graph.json")) as f:
        graph = json.load(f)
    kernels = graph["kernels"]
    bound = 1
    for bounds in graph.get("dims", {}).values():  # "1..16" or "64..1280:32"
        bound = max(bound, int(bounds.split("..")[1].split(":")[0]))
    return sum(kernels[c["kernel"]]["flops"] for c in graph["calls"]), sorted(kernels), bound


def compile_times(relayc, target, kernel_ids, work):
    """Seconds `relayc compile` takes for each kernel file of models/kernels (one at a time)."""
    times = {}
    for kid in kernel_ids:
        src = os.path.join(ROOT, "models", "kernels", f"{kid}.relay")
        if not os.path.exists(src):
            continue  # an overflow kernel: compiled with the model, not on its own
        start = time.monotonic()
        proc = subprocess.run(
            [relayc, "compile", "--target", target, src, "-o", os.path.join(work, f"{kid}.o")],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            sys.exit(f"bench: relayc compile {kid} failed:\n{proc.stderr}")
        times[kid] = time.monotonic() - start
    return times


# bench/run flags a kernel call that takes more than this share of its model's time ...
FLAG_SHARE = 0.02
# ... at less than this fraction of this machine's roofline (runtime/relay_peak.h).
FLAG_PEAK = 0.25


def profile(binary, work, env, runs, extra=(), flops_scale=1.0):
    """The profile of `runs` runs of our binary (runtime/relay_profile.h's Chrome trace):
    per kernel call, the median time, share, %peak and bound, slowest first; and the peak.
    `extra`: the binary's shape flags; `flops_scale`: what a dynamic model's calls do of the
    flops the profiler states at the bounds (batch over its upper bound; bytes stay stated at
    the bounds, so a memory-bound call's %peak reads high)."""
    trace_path = os.path.join(work, "trace.json")
    env = dict(env, RELAY_PROFILE_TRACE=trace_path)
    proc = subprocess.run([binary, "--out_dir", work, "--runs", str(runs), "--warmup", "1",
                           *extra],
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        sys.exit(f"bench: profiling {binary} failed ({proc.returncode}):\n{proc.stderr}")
    with open(trace_path) as f:
        trace = json.load(f)
    peak = trace["otherData"]
    durations = {}
    loops = {}
    info = {}
    for e in trace["traceEvents"]:
        if e.get("ph") != "X":
            continue
        call = e["args"]["call"]
        durations.setdefault(call, []).append(e["dur"] / 1e3)
        loops.setdefault(call, []).append(e["args"].get("parallel_loops", 0))
        info[call] = e
    # The pool's forks per run (each call's median) and what they cost at the measured rate.
    peak["parallel_loops"] = sum(statistics.median(n) for n in loops.values())
    calls = []
    for call, ms in durations.items():
        e = info[call]
        med = statistics.median(ms)
        flops = e["args"]["flops"] * flops_scale
        flop_s = flops / (peak["peak_gflops"] * 1e9) if "peak_gflops" in peak else 0
        byte_s = e["args"]["bytes"] / (peak["peak_gbps"] * 1e9) if "peak_gbps" in peak else 0
        calls.append({
            "call": call,
            "kernel": e["args"]["kernel"],
            "ops": e["name"],
            "shapes": e["args"]["shapes"],
            "ms": round(med, 4),
            "peak_pct": round(100 * max(flop_s, byte_s) / (med / 1e3), 1) if med > 0 else 0,
            "bound": "compute" if flop_s >= byte_s else "memory",
        })
    total = sum(c["ms"] for c in calls)
    for c in calls:
        c["share_pct"] = round(100 * c["ms"] / total, 1) if total > 0 else 0
    calls.sort(key=lambda c: -c["ms"])
    return calls, peak


def print_profile(calls, peak):
    flagged = [c for c in calls
               if c["share_pct"] > 100 * FLAG_SHARE and c["peak_pct"] < 100 * FLAG_PEAK]
    if peak.get("threads", 1) > 1 and "fork_join_us" in peak:
        total = sum(c["ms"] for c in calls)
        cost = peak["parallel_loops"] * peak["fork_join_us"] / 1e3
        print(f"    thread pool: {peak['parallel_loops']:.0f} parallel loops per run, fork/join "
              f"{peak['fork_join_us']:.2f} us each: {cost:.3f} ms, "
              f"{100 * cost / total if total > 0 else 0:.1f}% of the kernel time")
    for c in calls[:3]:
        print(f"    slowest: call {c['call']:3d} {c['ms']:8.3f} ms {c['share_pct']:5.1f}% "
              f"{c['peak_pct']:5.0f}% of peak ({c['bound']})  {c['ops']}: {c['shapes']}")
    for c in flagged:
        print(f"    FLAG: call {c['call']} takes {c['share_pct']:.1f}% of the time at "
              f"{c['peak_pct']:.0f}% of peak ({c['bound']}-bound)  {c['ops']}: {c['shapes']}")
    return flagged


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin_dir", required=True)
    p.add_argument("--target", required=True)
    p.add_argument("--models", required=True)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--compile_times", type=int, default=1)
    p.add_argument("--results", default=os.path.join(ROOT, "bench", "results.json"))
    p.add_argument("--batches", default="1,8",
                   help="the batches a dynamic model (DYNAMIC) runs at")
    p.add_argument("--untuned_bin_dir", default="",
                   help="the same benchmark binaries built without tuning databases: each "
                        "round runs them too (bench/run --compare_tuning)")
    args = p.parse_args()

    models = args.models.split(",")
    threads = [int(t) for t in args.threads.split(",")]
    relayc = os.path.join(args.bin_dir, "lowering", "tools", "relayc")
    ort_script = os.path.join(ROOT, "bench", "ort_bench.js")
    out_root = os.path.join(ROOT, "bench", "out")
    os.makedirs(out_root, exist_ok=True)

    rows = []
    errors = []
    compile_cache = {}
    batches = [int(b) for b in args.batches.split(",")]
    for model in models:
        flops, kernel_ids, bound = model_flops(args.bin_dir, model)
        if args.compile_times:
            with tempfile.TemporaryDirectory() as work:
                missing = [k for k in kernel_ids if k not in compile_cache]
                compile_cache.update(compile_times(relayc, args.target, missing, work))
        ctimes = [compile_cache[k] for k in kernel_ids if k in compile_cache]
        onnx = os.path.join(args.bin_dir, "models", f"{model}.onnx")
        binary = os.path.join(args.bin_dir, "bench", f"bench_{model}")
        runs = [(t, b) for t in threads for b in (batches if model in DYNAMIC else [None])]
        for t, b in runs:
            extra = []
            if b is not None:
                for name, shape in DYNAMIC[model][1].items():
                    extra += ["--input_shape", f"{name}={shape.format(b=b)}"]
            work = os.path.join(out_root, f"{model}_t{t}" + (f"_b{b}" if b else ""))
            os.makedirs(work, exist_ok=True)
            env = dict(os.environ, RELAY_NUM_THREADS=str(t))
            ours, ort, untuned = [], [], []
            untuned_binary = (os.path.join(args.untuned_bin_dir, "bench", f"bench_{model}")
                              if args.untuned_bin_dir else "")
            err = None
            for r in range(args.rounds):
                o = run_json([binary, "--out_dir", work, "--runs", str(args.runs),
                              "--warmup", str(args.warmup), *extra], env)
                if o["threads"] != t:
                    sys.exit(f"bench: {model} ran with {o['threads']} threads, not {t}")
                ours.append(o["median_ms"])
                if untuned_binary:
                    os.makedirs(os.path.join(work, "untuned"), exist_ok=True)
                    u = run_json([untuned_binary, "--out_dir", os.path.join(work, "untuned"),
                                  "--runs", str(args.runs), "--warmup", str(args.warmup),
                                  *extra], env)
                    untuned.append(u["median_ms"])
                x = run_json(["node", ort_script, onnx, work, str(t), str(args.runs),
                              str(args.warmup)])
                ort.append(x["median_ms"])
                if err is None:
                    err = outputs_rel_err(work, work)
                    if untuned_binary:
                        untuned_err = outputs_rel_err(os.path.join(work, "untuned"), work)
                        if untuned_err > MAX_REL_ERR:
                            errors.append(f"{model} (untuned build) at {t} thread(s): max "
                                          f"relative error {untuned_err:.3g}")
                    if err > MAX_REL_ERR:
                        errors.append(f"{model} at {t} thread(s): max relative error {err:.3g}")
            ours_ms, ort_ms = statistics.median(ours), statistics.median(ort)
            # A dynamic model's flops at the run's batch: every kernel is its one-row kernel
            # run once a row (docs/dynamic-shapes.md), so they scale with the batch.
            scale = b / bound if b else 1.0
            calls, peak = profile(binary, work, env, args.runs, extra, scale)
            flops_run = round(flops * scale)
            row = {
                "model": model,
                "label": f"{model[:9]} b{b}" if b else model,
                "threads": t,
                "ours_ms": round(ours_ms, 3),
                "ort_ms": round(ort_ms, 3),
                "ratio": round(ours_ms / ort_ms, 3),
                "max_rel_err": float(f"{err:.3g}"),
                "gflops": round(flops_run / ours_ms / 1e6, 2),
                "ort_gflops": round(flops_run / ort_ms / 1e6, 2),
                "flops": flops_run,
                "kernels": len(kernel_ids),
                "target": args.target,
                "ort_version": x["version"],
            }
            if untuned:
                row["untuned_ms"] = round(statistics.median(untuned), 3)
                row["tuned_speedup"] = round(statistics.median(untuned) / ours_ms, 3)
            if ctimes:
                row["compile_median_s"] = round(statistics.median(ctimes), 3)
                row["compile_max_s"] = round(max(ctimes), 3)
            row["peak"] = {k: peak[k] for k in ("peak_vector_bits", "peak_gflops", "peak_gbps")
                           if k in peak}
            if "fork_join_us" in peak:
                row["parallel_loops"] = peak["parallel_loops"]
                row["fork_join_us"] = peak["fork_join_us"]
            if b:
                row["batch"] = b
                row["per_image_ms"] = round(ours_ms / b, 3)
                row["ort_per_image_ms"] = round(ort_ms / b, 3)
            row["slowest"] = calls[:3]
            rows.append(row)
            print_row(row, header=len(rows) == 1)
            if b:
                print_dynamic(row, rows)
            row["flagged"] = print_profile(calls, peak)

    with open(args.results, "w") as f:
        json.dump(rows, f, indent=2)
        f.write("\n")
    print(f"\nwrote {os.path.relpath(args.results, ROOT)}; target {args.target}, "
          f"ONNX Runtime {rows[0]['ort_version'] if rows else '?'}, "
          f"{args.rounds} rounds x {args.runs} runs")
    if errors:
        sys.exit("bench: outputs differ from ONNX Runtime's by more than %g:\n  %s"
                 % (MAX_REL_ERR, "\n  ".join(errors)))


def print_dynamic(row, rows):
    """A dynamic model's row: per image, against its batch-1 row, and at batch 1 against the
    static build's row of the same run and thread count (untuned where both have that)."""
    line = (f"    per image: {row['per_image_ms']:.3f} ms (ONNX Runtime "
            f"{row['ort_per_image_ms']:.3f} ms)")
    first = [r for r in rows if r["model"] == row["model"] and r["threads"] == row["threads"]
             and r.get("batch") == 1]
    if first and row["batch"] != 1:
        line += f", {row['per_image_ms'] / first[0]['per_image_ms']:.3f}x batch 1's"
    static = [r for r in rows if r["model"] == DYNAMIC[row["model"]][0]
              and r["threads"] == row["threads"]]
    if static and row["batch"] == 1:
        key = "untuned_ms" if "untuned_ms" in row and "untuned_ms" in static[0] else "ours_ms"
        row["vs_static"] = round(row[key] / static[0][key], 3)
        line += (f"; {row['vs_static']:.3f}x the static build "
                 f"({'untuned' if key == 'untuned_ms' else 'tuned static, untuned dynamic'})")
    print(line, flush=True)


def print_row(row, header):
    cols = ["model", "thr", "ours ms", "ORT ms", "ratio", "GFLOP/s", "ORT GFLOP/s",
            "max rel err", "compile med/max s"]
    widths = [14, 4, 10, 10, 7, 9, 12, 12, 18]
    tuned = "untuned_ms" in row
    if tuned:
        cols += ["untuned ms", "tuned x"]
        widths += [11, 8]
    if header:
        print("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in
                        enumerate(zip(cols, widths))))
    comp = (f"{row['compile_median_s']:.2f}/{row['compile_max_s']:.2f}"
            if "compile_median_s" in row else "-")
    vals = [row.get("label", row["model"]), str(row["threads"]), f"{row['ours_ms']:.2f}", f"{row['ort_ms']:.2f}",
            f"{row['ratio']:.2f}", f"{row['gflops']:.1f}", f"{row['ort_gflops']:.1f}",
            f"{row['max_rel_err']:.2e}", comp]
    if tuned:
        vals += [f"{row['untuned_ms']:.2f}", f"{row['tuned_speedup']:.3f}"]
    print("  ".join(v.rjust(w) if i else v.ljust(w) for i, (v, w) in
                    enumerate(zip(vals, widths))), flush=True)


if __name__ == "__main__":
    main()
