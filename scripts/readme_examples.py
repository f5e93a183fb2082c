#!/usr/bin/python3
"""Checks (or regenerates) the example outputs in README.md against real runs of qacc.

An example is a comment naming the command, followed by a fenced block whose first line is the
command as a user types it and whose other lines are its standard output:

    <!-- example -->
    ```
    $ qacc cosim --test gemm_random --seed 3 --config configs/default.json
    cosim gemm_random seed 3 ...
    ```

The command runs from the repository root with `qacc` replaced by the binary under test. Lines
that differ from run to run (wall times, cycles per second) are compared with their numbers masked.
A line `...` (any indentation) in the README stands for any number of output lines. The exit code
must be the one written as `<!-- example: exit N -->` (default 0).

    scripts/readme_examples.py --qacc build/release/sim/qacc            # check, exit 1 on a diff
    scripts/readme_examples.py --qacc build/release/sim/qacc --update   # rewrite the outputs

Standard library only: run it with /usr/bin/python3 or any python3.
"""
import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKER = re.compile(r"^<!-- example(?::\s*exit (\d+))? -->$")
# Measurements that change from run to run: masked before comparing.
VOLATILE = [
    (re.compile(r"\d+\.\d+ s\b"), "#.### s"),
    (re.compile(r"\d+ cycles/s"), "# cycles/s"),
]


def mask(line):
    for pattern, replacement in VOLATILE:
        line = pattern.sub(replacement, line)
    return line


def matches(expected, actual):
    """Expected lines (with `...` wildcards) against actual lines, volatile numbers masked."""
    expected = [mask(line) for line in expected]
    actual = [mask(line) for line in actual]

    def match(i, j):
        if i == len(expected):
            return j == len(actual)
        if expected[i].strip() == "...":
            return any(match(i + 1, k) for k in range(j, len(actual) + 1))
        return j < len(actual) and expected[i] == actual[j] and match(i + 1, j + 1)

    return match(0, 0)


def find_examples(lines, name):
    """Yields (marker line index, exit code, command, output start, output end) per example."""
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if not m:
            i += 1
            continue
        if i + 2 >= len(lines) or not lines[i + 1].startswith("```") or \
                not lines[i + 2].startswith("$ qacc "):
            raise SystemExit(f"{name}:{i + 1}: an example marker must be followed by a fenced "
                             "block starting with '$ qacc ...'")
        end = i + 3
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        if end == len(lines):
            raise SystemExit(f"{name}:{i + 1}: unterminated example block")
        yield i, int(m.group(1) or 0), lines[i + 2][2:], i + 3, end
        i = end + 1


def run(qacc, command):
    argv = shlex.split(command)
    argv[0] = qacc
    result = subprocess.run(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, timeout=600)
    return result.returncode, result.stdout.splitlines(), result.stderr


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--qacc", required=True, help="the qacc binary to run")
    parser.add_argument("--readme", default=os.path.join(ROOT, "README.md"))
    parser.add_argument("--update", action="store_true", help="rewrite the outputs in the README")
    args = parser.parse_args()
    qacc = os.path.abspath(args.qacc)
    if not os.access(qacc, os.X_OK):
        raise SystemExit(f"--qacc: {args.qacc} is not an executable")

    with open(args.readme, encoding="utf-8") as f:
        lines = f.read().split("\n")
    name = os.path.basename(args.readme)
    failures, count = 0, 0
    # Back to front, so that rewriting a block keeps the earlier line numbers valid.
    for marker, exit_code, command, start, end in reversed(list(find_examples(lines, name))):
        count += 1
        code, out, err = run(qacc, command)
        if code != exit_code:
            failures += 1
            print(f"{name}:{marker + 1}: `{command}` exited {code}, the README says {exit_code}"
                  f"\n{err}", file=sys.stderr)
            continue
        if matches(lines[start:end], out):
            continue
        if args.update:
            lines[start:end] = out
            print(f"{name}:{marker + 1}: updated `{command}`", file=sys.stderr)
            continue
        failures += 1
        diff = difflib.unified_diff(lines[start:end], out, name, "actual", lineterm="")
        print(f"{name}:{marker + 1}: `{command}` prints something else:\n" + "\n".join(diff),
              file=sys.stderr)
    if count == 0:
        raise SystemExit(f"{name} has no examples: nothing was checked")
    if args.update:
        with open(args.readme, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
    print(f"{count} README examples, {failures} differ from real runs")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
