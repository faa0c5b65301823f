#!/usr/bin/env python3
"""Where the second thread's time goes: each kernel call at 1 and at 2 threads, in the model.

    bench/run --models M                     # builds bench_M for this machine
    python3 bench/scaling.py M [--rounds 3] [--runs 15] [--top 25]

Runs our benchmark binary (the optimized bazel-bin, as bench/run built it) with the profiler's trace
on (bench.py's profile()), alternately with RELAY_NUM_THREADS=1 and 2, and prints the summed
kernel time at each and, per call, the median time at each, its speedup and what it loses
against a perfect split (t2 - t1 / 2), the largest losses first. A kernel that scales in
kernel_bench and not here reads data that the other core wrote, or writes lines it holds.
Standard library only.
"""

import argparse
import os
import statistics
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import bench  # noqa: E402  (bench.py's profile(): one traced run, per call)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--runs", type=int, default=15)
    p.add_argument("--top", type=int, default=25)
    args = p.parse_args()
    binary = os.path.join(bench.opt_bin_dir(), "bench", f"bench_{args.model}")
    if not os.path.exists(binary):
        sys.exit(f"scaling: {binary} is missing: run bench/run --models {args.model} first")
    times = {1: {}, 2: {}}
    info = {}
    for _ in range(args.rounds):
        for threads in (1, 2):
            env = dict(os.environ, RELAY_NUM_THREADS=str(threads))
            calls, _ = bench.profile(binary, tempfile.mkdtemp(), env, args.runs)
            for c in calls:
                times[threads].setdefault(c["call"], []).append(c["ms"])
                info[c["call"]] = c
    rows = []
    for call in times[1]:
        t1 = statistics.median(times[1][call])
        t2 = statistics.median(times[2][call])
        rows.append((t2 - t1 / 2, call, t1, t2))
    sum1 = sum(r[2] for r in rows)
    sum2 = sum(r[3] for r in rows)
    print(f"{args.model}: kernel time 1 thread {sum1:.3f} ms, 2 threads {sum2:.3f} ms, "
          f"speedup {sum1 / sum2:.2f}x, lost against a perfect split {sum2 - sum1 / 2:.3f} ms")
    print(f"{'call':>5} {'1 thr ms':>9} {'2 thr ms':>9} {'speedup':>8} {'lost ms':>8}  ops: shapes")
    rows.sort(reverse=True)
    for lost, call, t1, t2 in rows[:args.top]:
        c = info[call]
        print(f"{call:5d} {t1:9.3f} {t2:9.3f} {t1 / t2:7.2f}x {lost:8.3f}  {c['ops']}: {c['shapes']}")


if __name__ == "__main__":
    main()
