#!/usr/bin/env python3
"""Per-kernel gains of tuning, from the profiler, in the model (not in isolation):

    bench/run --compare_tuning --models ocr_det      # builds both binaries
    python3 bench/tuning_gains.py ocr_det [--threads 1,2] [--rounds 5] [--runs 20] [--target T]
        [--prune]

Runs the tuned benchmark binary (bazel-bin, as bench/run built it) and the untuned one
(bench/out/untuned) alternately, each with the profiler's trace (RELAY_PROFILE_TRACE), and
prints, per thread count and kernel, the median over rounds of its summed call times in each,
the ratio, and whether its record for the target changed its schedule (a record that kept the
default's knobs has its time equal to the default's). Kernels are listed by time saved, then the
totals. Standard library only.

--prune: a record that the model does not confirm, slower in the model than the default by more
than PRUNE_LOSS at any thread count measured (the rule the tuner holds its candidates to: no gain
at one thread count bought with a loss at another), is set back to the default's knobs in the
database (knobs {}, time_us = default_us: the form of a record whose default won the tuner), so
that the next build compiles that kernel with the default schedule and `.tune` does not search
it again. A kernel timed alone, even in the model's cache state, can win in the tuner and lose
among its neighbours (docs/tuning.md, "Confirming records in the model").
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import bench  # noqa: E402  (bench.py's profile(): one traced run, per call)

# A record's loss in the model beyond which --prune sets it back: above the few percent by which
# one kernel's summed time moves between rounds on a shared machine.
PRUNE_LOSS = 0.05


def kernel_times(binary, work, threads, runs):
    env = dict(os.environ, RELAY_NUM_THREADS=str(threads))
    calls, _ = bench.profile(binary, work, env, runs)
    per_kernel = {}
    for c in calls:
        per_kernel.setdefault(c["kernel"], [0.0, c["ops"]])
        per_kernel[c["kernel"]][0] += c["ms"]
    return per_kernel


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("--threads", default="1", help="thread counts, comma-separated")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--tuning", default=os.path.join(ROOT, "models", "kernels", "tuning.jsonl"))
    p.add_argument("--target", default="", help="the binaries' target (default: this machine's, "
                   "as bench/run picks it)")
    p.add_argument("--prune", action="store_true",
                   help="set records the model does not confirm back to the default")
    args = p.parse_args()
    thread_counts = [int(t) for t in args.threads.split(",")]
    if not args.target:
        args.target = subprocess.run([os.path.join(ROOT, "toolchains", "host_target.sh")],
                                     text=True, stdout=subprocess.PIPE, check=True).stdout.strip()
    bin_dir = bench.opt_bin_dir()
    tuned_bin = os.path.join(bin_dir, "bench", f"bench_{args.model}")
    untuned_bin = os.path.join(ROOT, "bench", "out", "untuned", "bench", f"bench_{args.model}")
    for b in (tuned_bin, untuned_bin):
        if not os.path.exists(b):
            sys.exit(f"tuning_gains: {b} is missing: run bench/run --compare_tuning first")
    changed = set()
    with open(args.tuning) as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                if r["target"] == args.target and r["time_us"] != r["default_us"]:
                    changed.add(r["kernel"])
    speedups = {}  # kernel -> in-model speedup per thread count
    for threads in thread_counts:
        for kernel, speedup in measure(args, tuned_bin, untuned_bin, threads, changed).items():
            speedups.setdefault(kernel, []).append(speedup)
    if args.prune:
        prune(args.tuning, args.target, {
            k for k, s in speedups.items()
            if k in changed and len(s) == len(thread_counts) and min(s) < 1 - PRUNE_LOSS
        })


def measure(args, tuned_bin, untuned_bin, threads, changed):
    """Prints the table for one thread count; returns each kernel's speedup in the model."""
    work = os.path.join(ROOT, "bench", "out", f"gains_{args.model}_t{threads}")
    os.makedirs(work, exist_ok=True)
    samples = {"tuned": [], "untuned": []}
    for _ in range(args.rounds):
        samples["untuned"].append(kernel_times(untuned_bin, work, threads, args.runs))
        samples["tuned"].append(kernel_times(tuned_bin, work, threads, args.runs))
    rows = []
    for kernel, (_, ops) in samples["tuned"][0].items():
        t = statistics.median(s[kernel][0] for s in samples["tuned"])
        u = statistics.median(s[kernel][0] for s in samples["untuned"])
        rows.append((u - t, kernel, ops, u, t))
    rows.sort(reverse=True)
    print(f"{args.model}, {threads} thread(s), median of {args.rounds} alternating rounds "
          f"of {args.runs} runs; * = its record changed the schedule")
    print(f"{'kernel':24} {'untuned ms':>10} {'tuned ms':>9} {'speedup':>8}  ops")
    for saved, kernel, ops, u, t in rows:
        if abs(saved) < 0.005 * max(u, 1e-9) and kernel not in changed:
            continue
        mark = "*" if kernel in changed else " "
        print(f"{kernel:23}{mark} {u:10.3f} {t:9.3f} {u / t if t else 0:8.3f}  {ops}")
    tu = sum(r[3] for r in rows)
    tt = sum(r[4] for r in rows)
    print(f"total kernel time: untuned {tu:.3f} ms, tuned {tt:.3f} ms ({tu / tt:.3f}x); "
          f"{len(changed & set(r[1] for r in rows))} of {len(rows)} kernels with a changed "
          f"schedule")
    return {r[1]: (r[3] / r[4] if r[4] else 1.0) for r in rows}


def prune(path, target, kernels):
    """Sets the records of `kernels` for `target` back to the default's knobs, in place (the
    file's order and every other line kept as they are)."""
    with open(path) as f:
        lines = f.read().splitlines()
    out = []
    for line in lines:
        if line.strip():
            r = json.loads(line)
            if r["target"] == target and r["kernel"] in kernels:
                r["knobs"] = {}
                r["time_us"] = r["default_us"]
                line = json.dumps(r, sort_keys=True, separators=(",", ":"))
                print(f"pruned: {r['kernel']} on {target} (slower in the model than the default)")
        out.append(line)
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(out) + "\n")
    os.replace(path + ".tmp", path)

if __name__ == "__main__":
    main()
