#!/usr/bin/env python3
"""Medians of several bench/run invocations: a Markdown table and an SVG plot.

    for i in 1 2 3; do bench/run && cp bench/results.json /tmp/run$i.json; done
    python3 bench/summarize.py /tmp/run1.json /tmp/run2.json /tmp/run3.json --svg bench/results.svg

Each input is a bench/results.json (one row per model and thread count). The table gives, per
model and thread count, the medians of ours and of ONNX Runtime's latency, the ratio in each
invocation and its median, the largest relative error and the compile times; then the 2-thread
speedups (median 1-thread time over median 2-thread time, ours and ONNX Runtime's). The plot
shows the median latencies side by side, as a fraction of ONNX Runtime's (the bar at 1.0), per
model and thread count. Standard library only.
"""

import argparse
import json
import statistics
import sys

NAMES = {
    "resnet": "ResNet-18",
    "resnet50": "ResNet-50",
    "mobilenet_v2": "MobileNetV2",
    "mlp": "MLP",
    "bert_tiny": "bert_tiny",
    "ocr_det": "OCR detector (ocr_det)",
    "ocr_rec": "OCR recognizer (ocr_rec)",
}


def load(paths):
    runs = []
    for p in paths:
        with open(p) as f:
            runs.append({(r["model"], r["threads"]): r for r in json.load(f)})
    keys = [k for k in runs[0] if all(k in r for r in runs)]
    return runs, keys


def summarize(runs, keys):
    rows = []
    for key in keys:
        rs = [r[key] for r in runs]
        rows.append({
            "model": key[0],
            "threads": key[1],
            "ours_ms": statistics.median(r["ours_ms"] for r in rs),
            "ort_ms": statistics.median(r["ort_ms"] for r in rs),
            "ratios": [r["ratio"] for r in rs],
            "ratio": statistics.median(r["ratio"] for r in rs),
            "err": max(r["max_rel_err"] for r in rs),
            "compile": (rs[-1].get("compile_median_s"), rs[-1].get("compile_max_s")),
            # bench/run --compare_tuning: tuned over untuned, per invocation and the median.
            "tuned": ([r["tuned_speedup"] for r in rs]
                      if all("tuned_speedup" in r for r in rs) else None),
        })
    return rows


def table(rows):
    out = ["| model | threads | ours ms | ORT ms | ratio per invocation | median ratio | "
           "max rel err | compile s med / max |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        c = r["compile"]
        compile_s = "-" if c[0] is None else "%.2f / %.2f" % c
        out.append("| %s | %d | %.2f | %.2f | %s | **%.2f** | %.2e | %s |" % (
            NAMES.get(r["model"], r["model"]), r["threads"], r["ours_ms"], r["ort_ms"],
            " / ".join("%.2f" % x for x in r["ratios"]), r["ratio"], r["err"], compile_s))
    by = {(r["model"], r["threads"]): r for r in rows}
    out += ["", "| model | 2-thread speedup, ours | ONNX Runtime's |", "|---|---|---|"]
    for model in dict.fromkeys(r["model"] for r in rows):
        if (model, 1) in by and (model, 2) in by:
            one, two = by[(model, 1)], by[(model, 2)]
            out.append("| %s | %.2fx | %.2fx |" % (NAMES.get(model, model),
                                                  one["ours_ms"] / two["ours_ms"],
                                                  one["ort_ms"] / two["ort_ms"]))
    if all(r["tuned"] for r in rows):
        out += ["", "| model | threads | tuned speedup per invocation (untuned ms / tuned ms) | "
                "median |", "|---|---|---|---|"]
        for r in rows:
            out.append("| %s | %d | %s | **%.3fx** |" % (
                NAMES.get(r["model"], r["model"]), r["threads"],
                " / ".join("%.3f" % x for x in r["tuned"]), statistics.median(r["tuned"])))
    return "\n".join(out)


def svg(rows, target):
    bar, gap, group_gap, height, top, left = 14, 2, 18, 220, 30, 48
    width = left + len(rows) * (2 * bar + gap + group_gap) + 20
    scale = height / 1.6  # the axis runs to 1.6x ONNX Runtime's latency
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
             'font-family="sans-serif" font-size="10">' % (width, top + height + 90)]
    parts.append('<text x="%d" y="16" font-size="12">Latency as a fraction of ONNX Runtime\'s '
                  '(lower is faster), target %s; median of the invocations</text>' % (left, target))
    for tick in (0.0, 0.5, 1.0, 1.5):
        y = top + height - tick * scale
        parts.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="%s"/>' % (
            left, width - 10, y, y, "#333" if tick == 1.0 else "#ddd"))
        parts.append('<text x="%d" y="%.1f" text-anchor="end">%.1f</text>' % (left - 4, y + 3, tick))
    x = left + 8
    for r in rows:
        for value, color in ((min(r["ratio"], 1.6), "#2a6fdb"), (1.0, "#aaaaaa")):
            h = value * scale
            parts.append('<rect x="%d" y="%.1f" width="%d" height="%.1f" fill="%s"/>' % (
                x, top + height - h, bar, h, color))
            x += bar + gap
        parts.append('<text x="%d" y="%.1f" text-anchor="end" transform="rotate(-45 %d %.1f)">'
                     '%s, %d thr (%.2f)</text>' % (x - bar, top + height + 12, x - bar,
                                                   top + height + 12,
                                                   NAMES.get(r["model"], r["model"]).split(" (")[0],
                                                   r["threads"], r["ratio"]))
        x += group_gap - gap
    parts.append('<rect x="%d" y="%d" width="10" height="10" fill="#2a6fdb"/>'
                 '<text x="%d" y="%d">rules_relay</text>' % (width - 200, 24, width - 186, 33))
    parts.append('<rect x="%d" y="%d" width="10" height="10" fill="#aaaaaa"/>'
                 '<text x="%d" y="%d">ONNX Runtime</text>' % (width - 110, 24, width - 96, 33))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("results", nargs="+", help="bench/results.json files, one per invocation")
    p.add_argument("--svg", help="write the plot here")
    a = p.parse_args()
    runs, keys = load(a.results)
    if not keys:
        sys.exit("summarize: the files share no (model, threads) row")
    rows = summarize(runs, keys)
    print(table(rows))
    if a.svg:
        target = next(iter(runs[0].values())).get("target", "?")
        with open(a.svg, "w") as f:
            f.write(svg(rows, target))


if __name__ == "__main__":
    main()
