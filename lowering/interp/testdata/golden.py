"""What nn_golden.py and image_golden.py share: printing golden cases and checking a test file.

A golden case is one expected tensor of one TEST: the test's name, a comment saying what was
computed, the values, and whether they are exact (sums of products of multiples of 1/4, IEEE
+ - * / and sqrt, which round correctly and so give the same bits everywhere) or go through
exp/log (libm's, which may differ in the last bit between machines).

In a test file, golden values are written `std::vector<double>{...}` and nothing else is:
hand-worked expectations use plain braces. --check FILE compares, TEST by TEST and in order,
every such literal in FILE with the generator's cases: same count, same length, the same
doubles (exact cases) or doubles within a few units in the last place (the others). A literal
the generator does not print, or a case the file lacks, is an error too.
"""

import math
import re
import sys

# exp and log are not correctly rounded everywhere; the printed values are 17 significant
# digits, so a difference of a few units in the last place is the same value.
_ULPS = 4

_TEST = re.compile(r"^TEST\(\s*(\w+),\s*(\w+)\)\s*\{", re.M)
_VECTOR = re.compile(r"std::vector<double>\{([^{}]*)\}")


class Case:
    """One expected tensor of the TEST `test` (written Suite.Name)."""

    def __init__(self, test, what, values, exact=True):
        self.test = test
        self.what = what
        self.values = values
        self.exact = exact


def add_all(terms):
    """Left-to-right sum (Python 3.12's sum() compensates, which would change the last bit)."""
    total = 0.0
    for t in terms:
        total += t
    return total


def vector_literal(values):
    """The C++ form the tests use: repr() of each double, the shortest that reads back."""
    return "std::vector<double>{" + ", ".join(repr(float(v)) for v in values) + "}"


def literals_by_test(source):
    """{"Suite.Name": [[float, ...], ...]} for every std::vector<double>{...} in each TEST."""
    found = {}
    starts = list(_TEST.finditer(source))
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(source)
        body = source[m.end():end]
        lists = []
        for v in _VECTOR.finditer(body):
            items = [s.strip() for s in v.group(1).split(",")]
            lists.append([float(s) for s in items if s])
        if lists:
            found[m.group(1) + "." + m.group(2)] = lists
    return found


def _same(expected, actual, exact):
    if exact:
        return expected == actual
    return abs(expected - actual) <= _ULPS * math.ulp(max(abs(expected), abs(actual)))


def check(cases, path):
    """Error messages, one per disagreement between `cases` and the test file at `path`."""
    with open(path, encoding="utf-8") as f:
        in_file = literals_by_test(f.read())
    wanted = {}
    for c in cases:
        wanted.setdefault(c.test, []).append(c)
    errors = []
    for test in sorted(set(in_file) - set(wanted)):
        errors.append(f"{test}: has std::vector<double> values that no golden case prints")
    for test, test_cases in wanted.items():
        lists = in_file.get(test, [])
        if len(lists) != len(test_cases):
            errors.append(f"{test}: {len(lists)} std::vector<double> literals, "
                          f"the generator prints {len(test_cases)}")
            continue
        for k, (c, got) in enumerate(zip(test_cases, lists)):
            where = f"{test}, literal {k + 1} ({c.what})"
            if len(got) != len(c.values):
                errors.append(f"{where}: {len(got)} values, the generator prints "
                              f"{len(c.values)}")
                continue
            for i, (e, a) in enumerate(zip(c.values, got)):
                if not _same(e, a, c.exact):
                    errors.append(f"{where}, element {i}: the test has {a!r}, "
                                  f"the generator {e!r}")
    return errors


def main(generator, cases, argv):
    """Prints the cases, or with --check FILE compares FILE with them; returns the exit code.
    `generator` is the script's path in the repository, for messages."""
    if len(argv) == 3 and argv[1] == "--check":
        errors = check(cases, argv[2])
        for e in errors:
            print(f"{argv[2]}: {e}")
        if errors:
            print(f"{argv[2]}: disagrees with {generator} ({len(errors)} errors above); "
                  f"run `python3 {generator}` to print its values")
            return 1
        print(f"{argv[2]}: all {len(cases)} golden tensors equal what {generator} prints")
        return 0
    if len(argv) != 1:
        print(f"usage: {generator} [--check TEST_SOURCE]", file=sys.stderr)
        return 2
    for c in cases:
        print(f"// {c.test}: {c.what}")
        print(vector_literal(c.values))
    return 0
