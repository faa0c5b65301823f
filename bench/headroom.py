#!/usr/bin/env python3
"""How much faster any schedule of a model's kernels could make it: the ceiling on tuning.

    bench/run --compare_tuning --models resnet50     # builds the untuned binary too
    python3 bench/headroom.py resnet50 [mobilenet_v2 ...] [--threads 1,2] [--runs 20]
        [--efficiency 0.9]

Profiles the untuned benchmark binary (bench/out/untuned: every kernel at its default schedule)
once per thread count with the profiler's trace (bench.py's profile(): per call, its time and
its share of this machine's measured roofline, runtime/relay_peak.h), and prints:

  default   the summed kernel time, compute-bound and memory-bound calls apart;
  ceiling   default / (the compute-bound calls at --efficiency of peak, or their own time where
            they are faster already, plus the memory-bound calls as they are): the most that
            any schedule of the same kernels, tuned or not, could gain where compute-bound
            kernels reach what the best hand-written BLAS and conv kernels reach (about 90 % of
            peak) and the memory-bound ones, which already run out of cache above the DRAM
            roofline, gain nothing;
  for 1.1x  how much faster the memory-bound calls would have to become on top of that.

A schedule space cannot gain more than this over the default (docs/tuning.md, "How far tuning
can go"): a larger gain needs another algorithm (a Winograd form, a fused kernel), a decision
made at partition time, not per kernel. Standard library only.
"""

import argparse
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import bench  # noqa: E402  (bench.py's profile())

TARGET_GAIN = 1.1


def headroom(calls, efficiency):
    """(total, compute, memory, ceiling, memory speedup needed for TARGET_GAIN) in ms."""
    total = sum(c["ms"] for c in calls)
    compute = sum(c["ms"] for c in calls if c["bound"] == "compute")
    memory = total - compute
    best_compute = sum(min(c["ms"], c["ms"] * c["peak_pct"] / 100 / efficiency)
                       for c in calls if c["bound"] == "compute")
    ceiling = total / (best_compute + memory)
    left = total / TARGET_GAIN - best_compute  # what the memory-bound calls may take
    needed = memory / left if left > 0 else float("inf")
    return total, compute, memory, ceiling, needed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--efficiency", type=float, default=0.9)
    args = parser.parse_args()
    print(f"| model | threads | default ms (compute / memory) | ceiling at {args.efficiency:.0%} "
          f"of peak | memory-bound calls faster by, for {TARGET_GAIN}x |")
    print("|---|---|---|---|---|")
    for model in args.models:
        binary = os.path.join(ROOT, "bench", "out", "untuned", "bench", f"bench_{model}")
        if not os.path.exists(binary):
            sys.exit(f"headroom: {binary} is missing: run bench/run --compare_tuning "
                     f"--models {model} first")
        for threads in [int(t) for t in args.threads.split(",")]:
            env = dict(os.environ, RELAY_NUM_THREADS=str(threads))
            with tempfile.TemporaryDirectory() as work:
                calls, _ = bench.profile(binary, work, env, args.runs)
            total, compute, memory, ceiling, needed = headroom(calls, args.efficiency)
            print(f"| {model} | {threads} | {total:.2f} ({compute:.2f} / {memory:.2f}) | "
                  f"{ceiling:.3f}x | {needed:.2f}x |")


if __name__ == "__main__":
    main()
