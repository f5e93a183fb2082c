"""Verilator code coverage (coverage.dat, as `verilator_coverage --write` merges it) summarised per RTL file:
line points (blocks and branches) and toggle points, each merged over the instances of a module (a point is hit
when any instance hits it), and the source lines that no run reached."""

import difflib
import os
import re
import subprocess

POINT_RE = re.compile(r"^C '(.*)' (\d+)$")


def read_points(path):
    """{(kind, file, line, comment): count} of a coverage.dat; kind is 'line' or 'toggle'. Instances are
    merged: the hierarchy key is dropped and the counts added."""
    points = {}
    with open(path, encoding="latin-1") as f:
        for raw in f:
            m = POINT_RE.match(raw.rstrip("\n"))
            if not m:
                continue
            fields = {}
            for item in m.group(1).split("\x01"):
                if "\x02" in item:
                    key, value = item.split("\x02", 1)
                    fields[key] = value
            page = fields.get("page", "")
            kind = "toggle" if page.startswith("v_toggle") else "line" if page.startswith(("v_line", "v_branch")) \
                else None
            if kind is None:
                continue
            key = (kind, os.path.basename(fields.get("f", "")), int(fields.get("l", 0)), fields.get("o", ""),
                   fields.get("S", ""))
            points[key] = points.get(key, 0) + int(m.group(2))
    return points


def merge(dat_files, out_path):
    """verilator_coverage --write: one file from many (counts added)."""
    if not dat_files:
        raise RuntimeError("no coverage files to merge")
    subprocess.run(["verilator_coverage", "--write", out_path, *dat_files], check=True, capture_output=True)


def lines_of(point):
    """The source lines a line point stands for (its S span when Verilator gives one)."""
    _, _, line, _, span = point
    m = re.fullmatch(r"(\d+)-(\d+)", span)
    if m and int(m.group(2)) - int(m.group(1)) < 200:
        return range(int(m.group(1)), int(m.group(2)) + 1)
    return [line]


def summarize(points):
    """Per file: line and toggle points hit/total, and the uncovered source lines (a line is uncovered when a
    line point on it was never hit)."""
    files = {}
    for point, count in points.items():
        kind, file = point[0], point[1]
        s = files.setdefault(file, {"line_points": 0, "line_hit": 0, "toggle_points": 0, "toggle_hit": 0,
                                    "uncovered_lines": set(), "covered_lines": set(), "untoggled": []})
        s[f"{kind}_points"] += 1
        if count > 0:
            s[f"{kind}_hit"] += 1
            if kind == "line":
                s["covered_lines"].update(lines_of(point))
        elif kind == "line":
            s["uncovered_lines"].update(lines_of(point))
        else:
            s["untoggled"].append(f"{point[3]} (line {point[2]})")
    for s in files.values():
        s["uncovered_lines"] = sorted(s["uncovered_lines"])
        s["covered_lines"] = sorted(set(s["covered_lines"]) - set(s["uncovered_lines"]))
        s["untoggled"] = sorted(set(s["untoggled"]))
        s["line_percent"] = 100.0 * s["line_hit"] / s["line_points"] if s["line_points"] else 100.0
        s["toggle_percent"] = 100.0 * s["toggle_hit"] / s["toggle_points"] if s["toggle_points"] else 100.0
    return files


def totals(summary):
    t = {k: sum(s[k] for s in summary.values()) for k in ("line_points", "line_hit", "toggle_points",
                                                          "toggle_hit")}
    t["line_percent"] = 100.0 * t["line_hit"] / t["line_points"] if t["line_points"] else 100.0
    t["toggle_percent"] = 100.0 * t["toggle_hit"] / t["toggle_points"] if t["toggle_points"] else 100.0
    return t


def line_map(old_text, new_text):
    """{old line number: new line number} for the lines an edit left in place (difflib's matching blocks)."""
    mapping = {}
    matcher = difflib.SequenceMatcher(None, old_text.splitlines(), new_text.splitlines(), autojunk=False)
    for block in matcher.get_matching_blocks():
        for i in range(block.size):
            mapping[block.a + i + 1] = block.b + i + 1
    return mapping


def lost_lines(base_summary, head_summary, base_texts, head_texts):
    """Lines covered at the base and uncovered now, in the new numbering: [(file, line, text)]. A line that the
    change removed or rewrote has no counterpart and is not listed (it is new code: its coverage is the head's)."""
    lost = []
    for file, head in head_summary.items():
        base = base_summary.get(file)
        if base is None or file not in base_texts or file not in head_texts:
            continue
        mapping = line_map(base_texts[file], head_texts[file])
        base_covered = set(base["covered_lines"])
        head_uncovered = set(head["uncovered_lines"])
        head_lines = head_texts[file].splitlines()
        for old, new in sorted(mapping.items(), key=lambda kv: kv[1]):
            if new in head_uncovered and old in base_covered:
                lost.append((file, new, head_lines[new - 1].strip()))
    return lost
