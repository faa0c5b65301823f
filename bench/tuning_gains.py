#!/usr/bin/env python3
"""Per-kernel gains of tuning, from the profiler, in the model (not in isolation):

    bench/run --compare_tuning --models ocr_det      # builds both binaries
    python3 bench/tuning_gains.py ocr_det [--threads 1] [--rounds 5] [--runs 20] [--target T]

Runs the tuned benchmark binary (bazel-bin, as bench/run built it) and the untuned one
(bench/out/untuned) alternately, each with the profiler's trace (RELAY_PROFILE_TRACE), and
prints, per kernel, the median over rounds of its summed call times in each, the ratio, and
whether its record for the target changed its schedule (a record that kept the default's knobs
has its time equal to the default's). Kernels are listed by time saved, then the totals.
Standard library only.
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
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--tuning", default=os.path.join(ROOT, "models", "kernels", "tuning.jsonl"))
    p.add_argument("--target", default="", help="the binaries' target (default: this machine's, "
                   "as bench/run picks it)")
    args = p.parse_args()
    if not args.target:
        args.target = subprocess.run([os.path.join(ROOT, "toolchains", "host_target.sh")],
                                     text=True, stdout=subprocess.PIPE, check=True).stdout.strip()
    bin_dir = subprocess.run(["bazel", "info", "-c", "opt", "bazel-bin"], cwd=ROOT, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.strip()
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
    work = os.path.join(ROOT, "bench", "out", f"gains_{args.model}_t{args.threads}")
    os.makedirs(work, exist_ok=True)
    samples = {"tuned": [], "untuned": []}
    for _ in range(args.rounds):
        samples["untuned"].append(kernel_times(untuned_bin, work, args.threads, args.runs))
        samples["tuned"].append(kernel_times(tuned_bin, work, args.threads, args.runs))
    rows = []
    for kernel, (_, ops) in samples["tuned"][0].items():
        t = statistics.median(s[kernel][0] for s in samples["tuned"])
        u = statistics.median(s[kernel][0] for s in samples["untuned"])
        rows.append((u - t, kernel, ops, u, t))
    rows.sort(reverse=True)
    print(f"{args.model}, {args.threads} thread(s), median of {args.rounds} alternating rounds "
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


if __name__ == "__main__":
    main()
