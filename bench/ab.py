#!/usr/bin/env python3
"""Interleaved A/B of two builds of one model's benchmark binary (before / after a change):

    python3 bench/ab.py OLD_BINARY NEW_BINARY [--threads 2] [--rounds 8] [--runs 15]

Runs the two alternately (which goes first alternates too), each with RELAY_NUM_THREADS, and
prints the median of each one's per-round median latency and the median of the per-round
ratios new / old, with their range. On a shared machine the ratio of two binaries run side by
side holds better than either's time. Standard library only.
"""

import argparse
import os
import statistics
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import bench  # noqa: E402  (bench.py's run_json(): one run, its JSON line)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=8)
    p.add_argument("--runs", type=int, default=15)
    args = p.parse_args()
    env = dict(os.environ, RELAY_NUM_THREADS=str(args.threads))
    work = tempfile.mkdtemp()
    ms = {args.old: [], args.new: []}
    for r in range(args.rounds):
        for binary in (args.old, args.new) if r % 2 == 0 else (args.new, args.old):
            out = bench.run_json([binary, "--out_dir", work, "--runs", str(args.runs),
                                  "--warmup", "2"], env)
            ms[binary].append(out["median_ms"])
    ratios = [n / o for o, n in zip(ms[args.old], ms[args.new])]
    old_ms, new_ms = statistics.median(ms[args.old]), statistics.median(ms[args.new])
    print(f"{args.threads} thread(s), {args.rounds} rounds: old {old_ms:.3f} ms, new {new_ms:.3f} "
          f"ms, new / old {statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f})")


if __name__ == "__main__":
    main()
