"""The reports of qacc validate: the verdict with its thresholds, text for the terminal, and a static HTML page
(steps, coverage per file with the uncovered lines, the operator table, survivors, killed mutants)."""

from html import escape
import os
import tempfile


def verdict(doc, min_score, min_coverage):
    """Adds doc['thresholds'] and doc['pass']; True when every step passed and every threshold holds."""
    thresholds = []
    if min_score is not None:
        mutation = doc.get("mutation") or {}
        score = mutation.get("score")
        thresholds.append({"name": "mutation score", "required": min_score, "actual": score,
                           "pass": score is not None and score >= min_score})
    if min_coverage is not None:
        totals = (doc.get("coverage") or {}).get("totals")
        actual = round(totals["line_percent"], 2) if totals else None
        thresholds.append({"name": "line coverage", "required": min_coverage, "actual": actual,
                           "pass": actual is not None and actual >= min_coverage})
    doc["thresholds"] = thresholds
    doc["pass"] = all(s["status"] != "fail" for s in doc["steps"]) and all(t["pass"] for t in thresholds)
    return doc["pass"]


def write_atomic(path, text):
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".validate.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def text(doc):
    out = ["", "qacc validate: " + ("PASS" if doc.get("pass") else "FAIL") + f" ({doc.get('commit', '')})"]
    out.append(f"{'step':<18} {'status':<8} {'seconds':>8}  detail")
    for s in doc["steps"]:
        out.append(f"{s['name']:<18} {s['status']:<8} {s['seconds']:>8.1f}  {s['detail'][:300]}")
    cov = doc.get("coverage")
    if cov:
        out.append("")
        out.append(f"{'code coverage':<24} {'lines':>14} {'toggles':>16}  uncovered lines")
        for name, s in sorted(cov["files"].items()):
            out.append(f"{name:<24} {s['line_hit']:>5}/{s['line_points']:<5} {s['line_percent']:5.1f}% "
                       f"{s['toggle_hit']:>6}/{s['toggle_points']:<6} {s['toggle_percent']:5.1f}%  "
                       f"{compress(s['uncovered_lines'])}")
        t = cov["totals"]
        out.append(f"{'total':<24} {t['line_hit']:>5}/{t['line_points']:<5} {t['line_percent']:5.1f}% "
                   f"{t['toggle_hit']:>6}/{t['toggle_points']:<6} {t['toggle_percent']:5.1f}%")
    base = doc.get("base")
    if base:
        out.append("")
        lost = base.get("coverage_lost")
        out.append(f"against base {base['commit'][:12]}: " +
                   ("coverage not compared" if lost is None else f"{len(lost)} lines lost coverage"))
        for item in (lost or [])[:50]:
            out.append(f"  lost: {item['file']}:{item['line']}: {item['text']}")
        out.append(f"  {len(base['cycle_changes'])} runs changed their cycle count")
        for c in base["cycle_changes"][:50]:
            out.append(f"  cycles: {c['config']} {c['test']} seed {c['seed']} {c['field']}: {c['base']} -> "
                       f"{c['head']} ({c['head'] - c['base']:+d})")
    mutation = doc.get("mutation")
    if mutation and "operator_table" in mutation:
        out.append("")
        out.append(f"mutation analysis: {mutation['scope']}; score {mutation['score']}% "
                   f"(killed / (generated - equivalent - unbuildable))")
        out.append(f"{'operator':<10} {'generated':>9} {'equivalent':>10} {'killed':>7} {'unbuildable':>11} "
                   f"{'survived':>8}")
        for name, row in sorted(mutation["operator_table"].items(), key=lambda kv: (kv[0] == "total", kv[0])):
            out.append(f"{name:<10} {row['generated']:>9} {row['equivalent']:>10} {row['killed']:>7} "
                       f"{row['unbuildable']:>11} {row['survived']:>8}")
        classes = mutation.get("unbuildable_by_lint_message")
        if classes:
            out.append("unbuildable by first lint message: " + ", ".join(f"{k} {v}" for k, v in classes.items()))
        timing = mutation.get("timing", {})
        out.append("time: " + ", ".join(f"{k} {v}" for k, v in timing.items()))
        for m in mutation["mutants"]:
            if m["status"] in ("survived", "error"):
                out.append(f"  {m['status'].upper()} #{m['id']} {m['file']}:{m['line']}:{m['col']} [{m['operator']}] "
                           f"{m['original']}  ->  {m['mutated']}")
                if m.get("equivalence"):  # why no machine showed the survivor equivalent
                    out.append(f"      equivalence: {m['equivalence']}")
    for t in doc.get("thresholds", []):
        out.append(f"threshold {t['name']}: {t['actual']} (required {t['required']}): "
                   + ("met" if t["pass"] else "MISSED"))
    return "\n".join(out)


def compress(lines):
    """[3, 4, 5, 9] -> '3-5, 9' (at most 30 ranges)."""
    ranges = []
    for n in lines:
        if ranges and n == ranges[-1][1] + 1:
            ranges[-1][1] = n
        else:
            ranges.append([n, n])
    parts = [f"{a}-{b}" if a != b else f"{a}" for a, b in ranges]
    return ", ".join(parts[:30]) + (f", ... ({len(parts) - 30} more)" if len(parts) > 30 else "")


def html(doc, source_dir):
    e = escape
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>qacc validate</title><style>",
             "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}"
             "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}"
             ".pass{background:#dfd}.fail{background:#fdd}.skipped{background:#eee}"
             "pre{background:#f6f6f6;padding:6px;margin:0}code{white-space:pre}</style></head><body>",
             f"<h1>qacc validate: {'PASS' if doc.get('pass') else 'FAIL'}</h1>",
             f"<p>commit {e(doc.get('commit', ''))}; configs {e(', '.join(doc['configs']))}; suites "
             f"{e(', '.join(doc['suites']))}; {doc['seeds']} seeds per test; {doc.get('wall_seconds', 0)} s</p>",
             "<h2>Steps</h2><table><tr><th>step</th><th>status</th><th>seconds</th><th>detail</th></tr>"]
    for s in doc["steps"]:
        parts.append(f"<tr class='{s['status']}'><td>{e(s['name'])}</td><td>{s['status']}</td>"
                     f"<td>{s['seconds']}</td><td>{e(s['detail'])}</td></tr>")
    parts.append("</table>")
    for t in doc.get("thresholds", []):
        parts.append(f"<p class='{'pass' if t['pass'] else 'fail'}'>threshold {e(t['name'])}: {t['actual']} "
                     f"(required {t['required']})</p>")
    cov = doc.get("coverage")
    if cov:
        parts.append("<h2>Code coverage (Verilator line and toggle, merged over runs and configs)</h2><table>"
                     "<tr><th>file</th><th>line points</th><th>toggle points</th><th>uncovered lines</th></tr>")
        for name, s in sorted(cov["files"].items()):
            rows = source_lines(os.path.join(source_dir, "rtl", name), s["uncovered_lines"])
            parts.append(f"<tr><td>{e(name)}</td><td>{s['line_hit']}/{s['line_points']} "
                         f"({s['line_percent']:.1f}%)</td><td>{s['toggle_hit']}/{s['toggle_points']} "
                         f"({s['toggle_percent']:.1f}%)</td><td><pre>{e(rows)}</pre></td></tr>")
        parts.append("</table>")
    base = doc.get("base")
    if base:
        parts.append(f"<h2>Against base {e(base['commit'][:12])}</h2>")
        lost = base.get("coverage_lost")
        parts.append("<p>coverage not compared</p>" if lost is None else
                     f"<p>{len(lost)} lines lost coverage</p><pre>" +
                     e("\n".join(f"{x['file']}:{x['line']}: {x['text']}" for x in lost)) + "</pre>")
        parts.append(f"<p>{len(base['cycle_changes'])} runs changed their cycle count</p><pre>" +
                     e("\n".join(f"{c['config']} {c['test']} seed {c['seed']} {c['field']}: {c['base']} -> "
                                 f"{c['head']}" for c in base["cycle_changes"])) + "</pre>")
    mutation = doc.get("mutation")
    if mutation and "operator_table" in mutation:
        parts.append(f"<h2>Mutation analysis</h2><p>{e(mutation['scope'])}; score {mutation['score']}%</p>"
                     "<table><tr><th>operator</th><th>what</th><th>generated</th><th>equivalent</th><th>killed</th>"
                     "<th>unbuildable</th><th>survived</th></tr>")
        for name, row in sorted(mutation["operator_table"].items(), key=lambda kv: (kv[0] == "total", kv[0])):
            parts.append(f"<tr><td>{e(name)}</td><td>{e(mutation['operators'].get(name, ''))}</td>"
                         f"<td>{row['generated']}</td><td>{row['equivalent']}</td><td>{row['killed']}</td>"
                         f"<td>{row['unbuildable']}</td><td>{row['survived']}</td></tr>")
        parts.append("</table><p>time: " + e(", ".join(f"{k} {v}" for k, v in mutation["timing"].items())) +
                     "</p>")
        classes = mutation.get("unbuildable_by_lint_message")
        if classes:
            parts.append("<p>unbuildable by first lint message: " +
                         e(", ".join(f"{k} {v}" for k, v in classes.items())) + "</p>")
        for title, status in (("Survivors", "survived"), ("Equivalent (machine-checked)", "equivalent"),
                              ("Killed", "killed"), ("Unbuildable", "unbuildable")):
            rows = [m for m in mutation["mutants"] if m["status"] == status]
            parts.append(f"<h3>{title}: {len(rows)}</h3><table><tr><th>#</th><th>where</th><th>operator</th>"
                         "<th>original</th><th>mutated</th><th>evidence</th></tr>")
            for m in rows:
                evidence = m.get("equivalence") or m.get("lint") or ""
                k = m.get("killed_by")
                if k:
                    evidence = (f"{k.get('config')} {k.get('test')} seed {k.get('seed')}, cycle {k.get('cycle')}"
                                f" ({k.get('unit')})")
                parts.append(f"<tr><td>{m['id']}</td><td>{e(m['file'])}:{m['line']}:{m['col']}</td>"
                             f"<td>{e(m['operator'])}</td><td><code>{e(m['original'])}</code></td>"
                             f"<td><code>{e(m['mutated'])}</code></td><td>{e(evidence)}</td></tr>")
            parts.append("</table>")
    parts.append("</body></html>\n")
    return "".join(parts)


def source_lines(path, numbers, limit=60):
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError:
        return compress(numbers)
    shown = [f"{n:5d}  {lines[n - 1]}" for n in numbers[:limit] if 0 < n <= len(lines)]
    if len(numbers) > limit:
        shown.append(f"... {len(numbers) - limit} more")
    return "\n".join(shown)
