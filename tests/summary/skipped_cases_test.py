#!/usr/bin/env python3
"""skipped_cases.py on test logs written here: a googletest XML with a skipped case, one whose
every case skipped, sharded logs, an sh test's SKIPPED: lines, and a log with no skips."""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "skipped_cases.py")

GTEST_XML = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="3" failures="0" disabled="0" errors="0" name="AllTests">
  <testsuite name="Suite" tests="3" failures="0" disabled="0" skipped="1" errors="0">
    <testcase name="Runs" file="a.cc" line="3" status="run" result="completed" classname="Suite" />
    <testcase name="NeedsAvx512" file="a.cc" line="9" status="run" result="skipped" classname="Suite">
      <skipped message="a.cc:10&#x0A;this CPU lacks avx512f"><![CDATA[a.cc:10
this CPU lacks avx512f]]></skipped>
    </testcase>
    <testcase name="Filtered" file="a.cc" line="20" status="notrun" result="suppressed" classname="Suite" />
  </testsuite>
</testsuites>
"""

ALL_SKIPPED_XML = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="1" name="AllTests">
  <testsuite name="Gpu" tests="1" skipped="1">
    <testcase name="Model" status="run" result="skipped" classname="Gpu">
      <skipped message="g.cc:5&#x0A;no GPU (requires-gpu): no driver"><![CDATA[g.cc:5
no GPU (requires-gpu): no driver]]></skipped>
    </testcase>
  </testsuite>
</testsuites>
"""

# What Bazel writes for a test that writes no XML of its own.
BAZEL_XML = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
<testsuite name="pkg/sh_test" tests="1" failures="0" errors="0">
<testcase name="pkg/sh_test" status="run" duration="1" time="1"></testcase>
<system-out><![CDATA[SKIPPED: no nvcc]]></system-out>
</testsuite>
</testsuites>
"""


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main():
    with tempfile.TemporaryDirectory() as logs:
        write(os.path.join(logs, "pkg/mixed/test.xml"), GTEST_XML)
        write(os.path.join(logs, "pkg/gpu/shard_1_of_2/test.xml"), ALL_SKIPPED_XML)
        write(os.path.join(logs, "pkg/gpu/shard_2_of_2/test.xml"), ALL_SKIPPED_XML)
        write(os.path.join(logs, "pkg/sh_test/test.xml"), BAZEL_XML)
        write(os.path.join(logs, "pkg/sh_test/test.log"),
              "PASS: one check\nSKIPPED: no nvcc\nSKIPPED: no ptxas\n")
        write(os.path.join(logs, "pkg/clean/test.log"), "all good\n")
        out = subprocess.run([sys.executable, TOOL, logs, "//pkg:mixed", "//pkg:gpu",
                              "//pkg:sh_test", "//pkg:clean"],
                             check=True, capture_output=True, text=True).stdout
    want = [
        "SKIPPED //pkg:mixed Suite.NeedsAvx512: this CPU lacks avx512f",
        "SKIPPED //pkg:gpu Gpu.Model: no GPU (requires-gpu): no driver",
        "SKIPPED //pkg:gpu Gpu.Model: no GPU (requires-gpu): no driver",
        "SKIPPED //pkg:sh_test: no nvcc",
        "SKIPPED //pkg:sh_test: no ptxas",
        # //pkg:gpu ran nothing but skipped cases; the others ran something.
        "skipped: 5 cases, 1 targets",
    ]
    got = out.splitlines()
    if got != want:
        sys.exit("skipped_cases.py printed:\n  %s\nwanted:\n  %s"
                 % ("\n  ".join(got), "\n  ".join(want)))
    print("PASS: skipped_cases.py counts and lists every skipped case")


if __name__ == "__main__":
    main()
