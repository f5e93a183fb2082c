#!/usr/bin/env python3
"""Where a CI stage's minutes go (docs/sanitizers.md "Where the minutes go").

  scripts/ci_profile.py BUILD_DIR [--ctest-log FILE] [--top N] [--jobs J]

From BUILD_DIR/.ninja_log: the compile and link time of each target group (CPU seconds summed over the build's
steps; with -j J the wall time is at least the sum / J), the Verilated models of each config apart. From a
`ctest` log (its standard output, which scripts/test.sh keeps as BUILD_DIR/ctest.log): the N slowest tests, the
tests' CPU seconds, the wall time and how long the cores idled while the last tests ran alone (J * wall - sum).
"""
import argparse
import os
import re
import sys
from collections import defaultdict


def group_of(output):
    """The target group of one ninja output path."""
    m = re.search(r"/(Vqacc_top_[a-z0-9_]+?)(_fst)?/", output)
    if m and "qacc_vl_cosim" in output:
        return "Verilated qacc_top, %s%s" % (m.group(1)[len("Vqacc_top_"):], " (traced)" if m.group(2) else "")
    if "qacc_vl_cosim.dir" in output:
        return "Verilator runtime (verilated.cpp, FST writer)"
    if "tests/rtl/CMakeFiles/qacc_vl_" in output:
        return "Verilated RTL blocks of tests/rtl"
    if output.startswith("tests/fuzz/"):
        return "fuzz harnesses"
    if output.startswith("tests/"):
        return "tests (%s)" % ("link" if not output.endswith(".o") else "compile")
    for prefix in ("golden/", "model/", "sim/cosim/", "sim/"):
        if output.startswith(prefix) and output.endswith(".o"):
            return prefix.rstrip("/") + " compile"
    if output.endswith(".o"):
        return "other compile"
    if re.search(r"\.(cpp|h|cmake)$", output):
        return "Verilator runs (in the build)"
    return "links, archives, test discovery"


def ninja_groups(build_dir):
    path = os.path.join(build_dir, ".ninja_log")
    seen = set()
    groups = defaultdict(float)
    counts = defaultdict(int)
    span = 0.0
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            start, end, _, output, command_hash = line.split("\t")
            key = (start, end, command_hash)  # a step with several outputs is one step
            if key in seen:
                continue
            seen.add(key)
            seconds = (int(end) - int(start)) / 1000.0
            span = max(span, int(end) / 1000.0)
            g = group_of(output)
            groups[g] += seconds
            counts[g] += 1
    return groups, counts, span


def ctest_times(log):
    tests = []
    wall = None
    with open(log) as f:
        for line in f:
            m = re.match(r"\s*\d+/\d+ Test +#\d+: (\S+) .*?(Passed|Failed|\*\*\*\w+) +([\d.]+) sec", line)
            if m:
                tests.append((float(m.group(3)), m.group(1)))
            m = re.match(r"Total Test time \(real\) = +([\d.]+) sec", line)
            if m:
                wall = float(m.group(1))
    return tests, wall


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("build_dir")
    p.add_argument("--ctest-log")
    p.add_argument("--top", type=int, default=20)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = p.parse_args()
    if not os.path.isfile(os.path.join(args.build_dir, ".ninja_log")):
        print("ci_profile: %s has no .ninja_log" % args.build_dir, file=sys.stderr)
        return 2
    groups, counts, span = ninja_groups(args.build_dir)
    total = sum(groups.values())
    print("| build step group | steps | CPU s |")
    print("|---|---|---|")
    for g, s in sorted(groups.items(), key=lambda kv: -kv[1]):
        print("| %s | %d | %.0f |" % (g, counts[g], s))
    print("| all (ninja's span %.0f s wall) | %d | %.0f |" % (span, sum(counts.values()), total))
    log = args.ctest_log or os.path.join(args.build_dir, "ctest.log")
    if os.path.isfile(log):
        tests, wall = ctest_times(log)
        busy = sum(t for t, _ in tests)
        print()
        print("| test | s |")
        print("|---|---|")
        for t, name in sorted(tests, reverse=True)[: args.top]:
            print("| %s | %.1f |" % (name, t))
        if wall is not None:
            print("| %d tests: %.0f CPU s, %.0f s wall; idle cores while the last ran alone: %.0f core-s |"
                  % (len(tests), busy, wall, max(0.0, args.jobs * wall - busy)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
