#!/usr/bin/env python3
"""The skipped test cases of a `bazel test` run, which Bazel itself counts as passes.

Bazel reports a target PASSED when its test binary exits 0, and a googletest case that calls
GTEST_SKIP() exits 0. So `./x test` reads what each passed target left in its test logs:

  - a googletest binary writes its own test.xml (Bazel sets XML_OUTPUT_FILE): every
    <testcase result="skipped"> is one skipped case, its <skipped message> the reason;
  - any other test (an sh_test) follows the convention of printing one line
    "SKIPPED: <reason>" per case it skips (test.log).

A target whose every case was skipped ran nothing: it is a skipped target, not a pass.

  skipped_cases.py TESTLOGS LABEL...

TESTLOGS is the run's bazel-testlogs folder; the labels are the targets that passed. Prints one
line per skipped case, "SKIPPED <label> <case>: <reason>", then the totals as the last line:
"skipped: K cases, T targets" (T: the targets that ran nothing but skipped cases).
"""

import glob
import os
import re
import sys
import xml.etree.ElementTree as ElementTree


def _log_dirs(testlogs, label):
    """The folders of a target's logs: one, or one per shard."""
    package, _, name = label.lstrip("/").partition(":")
    top = os.path.join(testlogs, package, name)
    shards = sorted(glob.glob(os.path.join(top, "shard_*_of_*")))
    return shards or [top]


def _reason(skipped):
    """googletest's message is "file:line\\nSkipped\\n<message>": the message, on one line."""
    lines = [l for l in (skipped.get("message") or "").splitlines() if l.strip()]
    lines = [l for l in lines if not re.match(r"^\S+:\d+$", l) and l != "Skipped"]
    return " ".join(lines) or "(no reason given)"


def _cases(log_dir):
    """(ran, [(case, reason)]) of one log folder: how many cases ran, and the skipped ones."""
    xml_path = os.path.join(log_dir, "test.xml")
    log_path = os.path.join(log_dir, "test.log")
    root = None
    if os.path.exists(xml_path):
        try:
            root = ElementTree.parse(xml_path).getroot()
        except ElementTree.ParseError:
            root = None
    # googletest's own XML has a result attribute on each test case; Bazel's has none.
    cases = [] if root is None else [c for c in root.iter("testcase") if "result" in c.attrib]
    if cases:
        ran = [c for c in cases if c.get("status") == "run"]
        skipped = []
        for c in ran:
            if c.get("result") != "skipped":
                continue
            element = c.find("skipped")
            reason = _reason(element) if element is not None else "(no reason given)"
            skipped.append(("%s.%s" % (c.get("classname"), c.get("name")), reason))
        return len(ran), skipped
    skipped = []
    if os.path.exists(log_path):
        with open(log_path, errors="replace") as f:
            for line in f:
                m = re.match(r"^SKIPPED: (.*)$", line.rstrip("\n"))
                if m:
                    skipped.append(("", m.group(1)))
    # An sh test ran its own checks besides what it skipped.
    return len(skipped) + 1, skipped


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    testlogs, labels = argv[1], argv[2:]
    total = 0
    targets = 0
    for label in labels:
        ran = 0
        skipped = []
        for d in _log_dirs(testlogs, label):
            n, s = _cases(d)
            ran += n
            skipped += s
        for case, reason in skipped:
            print("SKIPPED %s%s: %s" % (label, " " + case if case else "", reason))
        total += len(skipped)
        if skipped and len(skipped) == ran:
            targets += 1
    print("skipped: %d cases, %d targets" % (total, targets))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
