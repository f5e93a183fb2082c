"""qacc validate: says whether an RTL change is safe (docs/validate.md).

Steps: lint of every config; the RTL unit tests; the lockstep regression of every suite on every config on a
build with Verilator coverage (functional bins and line/toggle points); with --base, the same at the base revision
and the differences (coverage lost line by line, commands whose cycle count changed); mutation analysis on a
mutant schemata (one Verilated model per config holding every mutant behind a run-time selector). Reports: text
on standard output, or one JSON document with --json, as every qacc subcommand prints them; -o FILE writes it to
FILE instead; --report DIR writes a static HTML page. Exit 0 when every step passes and every
threshold holds, 1 otherwise, 2 on a usage error."""

import argparse
import collections
import concurrent.futures
import glob
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import threading
import time

from . import coverage, mutants, report, rtl, yosys_equiv

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class UsageError(Exception):
    pass


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="qacc validate",
        description="Lint, RTL unit tests, lockstep regression with functional and code coverage, comparison "
                    "with a base revision, and mutation analysis of the RTL; one verdict, with text, JSON and "
                    "HTML reports (docs/validate.md).")
    p.add_argument("--base", metavar="REV", help="git revision to compare with: coverage lost, cycle counts "
                   "changed, and mutants on the changed lines of rtl/")
    p.add_argument("--suites", default="all", help="comma-separated suites of the regression (default all)")
    p.add_argument("--seeds", type=int, default=5, help="seeds per test, 1..1000 (default 5, the main job's)")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="parallel jobs, 1..64")
    p.add_argument("--configs", help="comma-separated configs/*.json names (default: every config)")
    p.add_argument("--json", action="store_true", help="print the report as one JSON document instead of text")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the report (text, or JSON with --json) to FILE instead of standard output, atomically")
    p.add_argument("--report", metavar="DIR", help="write the HTML report to DIR/index.html")
    scope = p.add_argument_group("mutation analysis (without one of --base, --all, --mutants, --ids it is "
                                 "skipped)")
    scope.add_argument("--all", action="store_true", help="mutate every line of the files in scripts/validate/mutation_scope.json")
    scope.add_argument("--mutants", type=int, metavar="N", help="a seeded sample of N mutants of the scope")
    scope.add_argument("--mutant-seed", type=int, default=1, help="seed of the sample (default 1)")
    scope.add_argument("--operators", help="comma-separated mutation operators (default all): " +
                       ", ".join(mutants.OPERATORS))
    scope.add_argument("--ids", metavar="LIST", help="only these mutants, by the numbers --list-mutants --all prints "
                       "(e.g. 832,1100-1102): re-run survivors after adding a test")
    scope.add_argument("--list-mutants", action="store_true", help="print the mutants of the scope and stop")
    p.add_argument("--min-mutation-score", type=float, metavar="PERCENT",
                   help="fail unless killed / (generated - equivalent - unbuildable) >= PERCENT")
    p.add_argument("--min-coverage", type=float, metavar="PERCENT",
                   help="fail unless the RTL's line coverage (merged over configs and runs) >= PERCENT")
    p.add_argument("--skip", default="", help="comma-separated steps to skip: lint, unit, regression, mutation")
    p.add_argument("--work", default=os.path.join(SOURCE_DIR, "build", "validate"),
                   help="work directory for builds and run outputs (default build/validate)")
    args, extra = p.parse_known_args(argv)
    if extra:
        # `--json FILE` took a file name before --json became a flag, as in every qacc subcommand.
        hint = (" (--json takes no file: it prints JSON; --json -o FILE writes it to FILE)"
                if "--json" in argv and not extra[0].startswith("-") else "")
        raise UsageError(f"unrecognized arguments: {' '.join(extra)}{hint}")

    def bounded(name, value, lo, hi):
        if value is not None and not lo <= value <= hi:
            raise UsageError(f"--{name}: {value} is out of range; allowed {lo}..{hi}")
    bounded("seeds", args.seeds, 1, 1000)
    bounded("jobs", args.jobs, 1, 64)
    bounded("mutants", args.mutants, 1, 100000)
    bounded("mutant-seed", args.mutant_seed, 0, 2**63 - 1)
    bounded("min-mutation-score", args.min_mutation_score, 0, 100)
    bounded("min-coverage", args.min_coverage, 0, 100)
    args.skip = [s for s in args.skip.split(",") if s]
    for s in args.skip:
        if s not in ("lint", "unit", "regression", "mutation"):
            raise UsageError(f"--skip: unknown step '{s}'; allowed: lint, unit, regression, mutation")
    args.operators = [o for o in (args.operators or "").split(",") if o]
    for o in args.operators:
        if o not in mutants.OPERATORS:
            raise UsageError(f"--operators: unknown operator '{o}'; allowed: {', '.join(mutants.OPERATORS)}")
    try:
        args.config_list = rtl.read_configs(SOURCE_DIR, [c for c in args.configs.split(",") if c]
                                            if args.configs else None)
    except ValueError as e:
        raise UsageError(str(e))
    if not args.config_list:
        raise UsageError("--configs: no config named")
    suites = qacc_suites()
    args.suite_list = [s for s in args.suites.split(",") if s]
    for s in args.suite_list:
        if s not in suites + ["all"]:
            raise UsageError(f"--suites: unknown suite '{s}'; allowed: {', '.join(suites)}, all")
    if "all" in args.suite_list:
        args.suite_list = ["all"]
    if not args.suite_list:
        raise UsageError("--suites: no suite named")
    if args.output == "-":
        args.output = None
    if args.list_mutants and (args.json or args.output is not None):
        raise UsageError("--json and --output: they give the report of a validation; --list-mutants prints the "
                         "mutants and stops")
    if args.output is not None and (args.output == "" or os.path.isdir(args.output)):
        raise UsageError(f"--output: '{args.output}' is not a file name")
    for option, path in (("--output", args.output), ("--report", args.report)):
        if path is not None:
            target = os.path.dirname(os.path.abspath(path)) if option == "--output" else os.path.abspath(path)
            probe = target if os.path.isdir(target) else os.path.dirname(target)
            if not os.access(probe, os.W_OK):
                raise UsageError(f"{option}: {path} cannot be written (directory {probe} is not writable)")
    if args.output is not None and args.report is not None and \
            os.path.abspath(args.output) == os.path.abspath(os.path.join(args.report, "index.html")):
        raise UsageError(f"--output and --report: both write {args.output}; give each output its own file")
    args.id_set = None
    if args.ids is not None:
        args.id_set = set()
        for part in [p for p in args.ids.split(",") if p.strip()] or [""]:
            m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", part)
            if not m or int(m.group(2) or m.group(1)) < int(m.group(1)):
                raise UsageError(f"--ids: '{part}' is not a mutant number or range N-M (N <= M)")
            lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
            if lo < 1 or hi > 100000:
                raise UsageError(f"--ids: {part} is out of range; allowed 1..100000")
            args.id_set.update(range(lo, hi + 1))
    if args.base is not None:
        r = subprocess.run(["git", "rev-parse", "--verify", "--quiet", args.base + "^{commit}"], cwd=SOURCE_DIR,
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise UsageError(f"--base: '{args.base}' is not a commit of the repository at {SOURCE_DIR}")
        args.base_commit = r.stdout.strip()
    return args


def qacc_suites():
    with open(os.path.join(SOURCE_DIR, "sim", "testgen", "suites.cc")) as f:
        return sorted(set(re.findall(r'Suite\{\s*"(\w+)"', f.read()))) or ["gemm", "program"]


def log(text):
    print(text, file=sys.stderr, flush=True)


def run(cmd, cwd=SOURCE_DIR, log_path=None, check=True, env=None):
    """Runs a command; its output goes to log_path (or is returned). Raises StepError with the tail on failure."""
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    out = p.stdout + p.stderr
    if log_path:
        os.makedirs(os.path.dirname(log_path), exist_ok=True)
        with open(log_path, "w") as f:
            f.write(out)
    if check and p.returncode != 0:
        raise StepError(f"`{' '.join(cmd)}` exited {p.returncode}: {out[-1500:].strip()}")
    return p.returncode, out


class StepError(Exception):
    pass


class Validation:
    def __init__(self, args):
        self.args = args
        self.work = os.path.abspath(args.work)
        self.rtl_dir = os.path.join(SOURCE_DIR, "rtl")
        self.steps = []
        self.doc = {"tool": "qacc validate", "source": SOURCE_DIR, "commit": git_head(),
                    "arguments": sys.argv[1:], "configs": [c.name for c in args.config_list],
                    "suites": args.suite_list, "seeds": args.seeds, "steps": self.steps}
        self.coverage_summary = None
        self.regress_runs = {}  # config -> runs of the head regression

    # ---- step bookkeeping ----
    def step(self, name, fn):
        if name.split(":")[0] in self.args.skip:
            self.steps.append({"name": name, "status": "skipped", "seconds": 0.0, "detail": "--skip"})
            log(f"== {name}: skipped (--skip)")
            return None
        log(f"== {name}")
        start = time.monotonic()
        entry = {"name": name, "status": "pass", "seconds": 0.0, "detail": ""}
        self.steps.append(entry)
        try:
            detail = fn()
            entry["detail"] = detail or ""
        except StepError as e:
            entry["status"] = "fail"
            entry["detail"] = str(e)
        except SkipStep as e:
            entry["status"] = "skipped"
            entry["detail"] = str(e)
        entry["seconds"] = round(time.monotonic() - start, 1)
        log(f"   {entry['status']} ({entry['seconds']} s){': ' + entry['detail'] if entry['detail'] else ''}")
        return entry

    # ---- 1. lint ----
    def lint(self):
        bad = []
        for c in self.args.config_list:
            ok, messages, out = rtl.lint(self.rtl_dir, c)
            if not ok:
                bad.append(f"{c.name}: " + ("; ".join(str(m) for m in messages[:5]) or out[-500:]))
        if bad:
            raise StepError("lint: " + " | ".join(bad))
        return f"verilator --lint-only -Wall clean on {len(self.args.config_list)} configs"

    # ---- builds ----
    def configure(self, build_dir, source, extra):
        configs = ";".join(c.name for c in self.args.config_list)
        cmd = ["cmake", "-S", source, "-B", build_dir, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
               "-DBUILD_TESTING=OFF", "-DQACC_COSIM_WAVES=OFF", f"-DQACC_COSIM_CONFIGS={configs}", *extra]
        run(cmd, log_path=os.path.join(build_dir + ".configure.log"))

    def build(self, build_dir, target="qacc"):
        run(["cmake", "--build", build_dir, "-j", str(self.args.jobs), "--target", target],
            log_path=os.path.join(build_dir + ".build.log"))

    # ---- 2. RTL unit tests ----
    def unit_tests(self):
        build_dir = os.path.join(SOURCE_DIR, "build", "release")
        if not os.path.isdir(build_dir):
            run(["cmake", "--preset", "release"], log_path=os.path.join(self.work, "unit.configure.log"))
        targets = ["requant_lane_test"]
        for c in self.args.config_list:
            targets += [f"mac_array_{c.name}_test", f"top_{c.name}_test"]
        run(["cmake", "--build", build_dir, "-j", str(self.args.jobs), "--target", *targets],
            log_path=os.path.join(self.work, "unit.build.log"))
        code, out = run(["ctest", "--test-dir", build_dir, "-L", "rtl", "-j", str(self.args.jobs),
                         "--output-on-failure"], log_path=os.path.join(self.work, "unit.log"), check=False)
        m = re.search(r"(\d+)% tests passed, (\d+) tests failed out of (\d+)", out)
        if code != 0 or not m:
            raise StepError(f"RTL unit tests failed: {out[-1200:].strip()}")
        return f"{m.group(3)} RTL unit tests passed"

    # ---- 3. regression with coverage ----
    def regression(self, source=SOURCE_DIR, tag="head"):
        build_dir = os.path.join(self.work, f"{tag}-coverage-build")
        self.configure(build_dir, source, ["-DQACC_COSIM_COVERAGE=ON"])
        self.build(build_dir)
        qacc = os.path.join(build_dir, "sim", "qacc")
        results, lines = {}, []
        dats = []
        failed = False
        # A base revision from before qacc validate has no --coverage-dir: its coverage is not compared.
        has_cov = supports(qacc, "regress", "--coverage-dir")
        for c in self.args.config_list:
            for suite in self.args.suite_list:
                out_dir = os.path.join(self.work, tag, c.name, suite)
                shutil.rmtree(out_dir, ignore_errors=True)
                os.makedirs(out_dir)
                json_path = os.path.join(out_dir, "regress.json")
                cmd = [qacc, "regress", "--suite", suite, "--seeds", str(self.args.seeds), "-j",
                       str(self.args.jobs), "--config", os.path.join(source, "configs", c.name + ".json"),
                       "--json", json_path]
                if has_cov:
                    cmd += ["--coverage-dir", os.path.join(out_dir, "coverage")]
                code, out = run(cmd, log_path=os.path.join(out_dir, "regress.txt"), check=False)
                if not os.path.exists(json_path):
                    raise StepError(f"regression {c.name}/{suite} wrote no report: {out[-800:]}")
                with open(json_path) as f:
                    doc = json.load(f)
                results.setdefault(c.name, []).extend(doc["runs"])
                t = doc
                cov = t.get("coverage") or {}
                lines.append(f"{c.name}/{suite}: {t['passed']}/{t['total']} passed"
                             + (f", functional coverage {cov['hit']}/{cov['bins']} bins" if cov else ""))
                failed = failed or code != 0
                if has_cov:
                    dats += glob.glob(os.path.join(out_dir, "coverage", "*.dat"))
        self.doc.setdefault("regression", {})[tag] = {
            "lines": lines, "runs": {c: [slim_run(r) for r in runs] for c, runs in results.items()}}
        summary = None
        if dats:
            merged = os.path.join(self.work, tag, "coverage.dat")
            # verilator_coverage takes the files on its command line: merge in chunks.
            chunks = [dats[i:i + 500] for i in range(0, len(dats), 500)]
            parts = []
            for i, chunk in enumerate(chunks):
                part = os.path.join(self.work, tag, f"coverage.part{i}.dat")
                coverage.merge(chunk, part)
                parts.append(part)
            coverage.merge(parts, merged)
            summary = coverage.summarize(coverage.read_points(merged))
        if tag == "head":
            self.regress_runs = results
            self.coverage_summary = summary
            if summary:
                self.doc["coverage"] = {"files": summary, "totals": coverage.totals(summary)}
        else:
            self.base_coverage_summary = summary
            self.base_runs = results
        if failed:
            raise StepError("regression failed: " + "; ".join(lines))
        tot = coverage.totals(summary) if summary else None
        return "; ".join(lines) + (f"; line coverage {tot['line_percent']:.1f}%, toggle {tot['toggle_percent']:.1f}%"
                                   if tot else "; no code coverage (this revision's qacc has no --coverage-dir)")

    # ---- 4. comparison with the base ----
    def base(self):
        tree = os.path.join(self.work, "base-src")
        if os.path.isdir(tree):
            run(["git", "worktree", "remove", "--force", tree], check=False)
        run(["git", "worktree", "add", "--detach", "--force", tree, self.args.base_commit])
        try:
            try:
                self.regression(source=tree, tag="base")
            except StepError as e:
                log(f"   the base's regression failed (compared anyway): {e}")
            base_texts = {f: read_text(os.path.join(tree, "rtl", f)) for f in rtl.mutable_files(self.rtl_dir)}
        finally:
            run(["git", "worktree", "remove", "--force", tree], check=False)
        head_texts = {f: read_text(os.path.join(self.rtl_dir, f)) for f in rtl.mutable_files(self.rtl_dir)}
        result = {"commit": self.args.base_commit}
        if self.coverage_summary and getattr(self, "base_coverage_summary", None):
            lost = coverage.lost_lines(self.base_coverage_summary, self.coverage_summary, base_texts, head_texts)
            result["coverage_lost"] = [{"file": f, "line": n, "text": t} for f, n, t in lost]
            result["base_totals"] = coverage.totals(self.base_coverage_summary)
        else:
            result["coverage_lost"] = None
        changes = []
        for c, runs in self.regress_runs.items():
            base_runs = {(r["test"], r["seed"]): r for r in self.base_runs.get(c, [])}
            for r in runs:
                b = base_runs.get((r["test"], r["seed"]))
                if not b:
                    continue
                for key in ("command_cycles", "cycles"):
                    hv, bv = r.get(key), b.get(key)
                    if hv is not None and bv is not None and hv != bv:
                        changes.append({"config": c, "test": r["test"], "seed": r["seed"], "field": key,
                                        "base": bv, "head": hv})
                        break
        result["cycle_changes"] = changes
        self.doc["base"] = result
        lost_text = "not compared (no coverage at the base)" if result["coverage_lost"] is None else \
            f"{len(result['coverage_lost'])} lines lost coverage"
        return f"base {self.args.base_commit[:10]}: {lost_text}; {len(changes)} runs changed cycle count"

    # ---- 5. mutation analysis ----
    def scope(self):
        sources = rtl.read_sources(self.rtl_dir)
        everything = mutants.generate(sources, self.args.operators or None)
        selected = everything
        files, excluded = rtl.mutation_scope()
        scope = (f"the {len(files)} RTL files of scripts/validate/mutation_scope.json "
                 f"({len(excluded)} excluded there with their reasons)")
        if not self.args.all and self.args.base is not None:
            changed = changed_lines(self.args.base_commit)
            selected = [m for m in everything if mutant_lines(m, sources) & changed.get(m.file, set())]
            scope = f"lines of rtl/ changed since {self.args.base[:20]}"
        if self.args.id_set is not None:
            missing = sorted(self.args.id_set - {m.id for m in everything})
            if missing:
                raise StepError(f"--ids: no mutant {missing[0]} (the RTL has {len(everything)})")
            selected = [m for m in selected if m.id in self.args.id_set]
            scope += f", mutants {self.args.ids}"
        if self.args.mutants is not None and self.args.mutants < len(selected):
            rng = random.Random(self.args.mutant_seed)
            selected = sorted(rng.sample(selected, self.args.mutants), key=lambda m: m.id)
            scope += f", a sample of {self.args.mutants} (seed {self.args.mutant_seed})"
        parse_errors = [f"{s.path}: {slot.error}" for s in sources for slot in s.slots if slot.error]
        return sources, everything, selected, scope, parse_errors

    def mutation(self):
        if not (self.args.all or self.args.base is not None or self.args.mutants is not None or
                self.args.id_set is not None):
            raise SkipStep("no scope: give --all, --base REV, --mutants N or --ids LIST")
        sources, everything, selected, scope, parse_errors = self.scope()
        texts = {s.path: s.text for s in sources}
        configs = self.args.config_list
        timing = {}
        result = {"scope": scope, "generated_total": len(everything), "parse_errors": parse_errors,
                  "operators": mutants.OPERATORS, "mutants": [], "timing": timing}
        self.doc["mutation"] = result
        records = {m.id: {"id": m.id, "file": m.file, "line": m.line, "col": m.col, "operator": m.operator,
                          "original": m.original, "mutated": m.mutated, "status": "pending"} for m in selected}
        result["mutants"] = [records[m.id] for m in selected]
        log(f"   {len(selected)} mutants in scope ({scope}) of {len(everything)}")

        # (a) Lint each mutant alone, per config: a mutant that fails is unbuildable, counted apart.
        t0 = time.monotonic()
        buildable = self.lint_mutants(selected, texts, configs, records)
        timing["lint_seconds"] = round(time.monotonic() - t0, 1)
        result["unbuildable_by_lint_message"] = lint_classes(records.values())
        log(f"   lint: {len(selected) - len(buildable)} unbuildable, {timing['lint_seconds']} s")

        # (b) One schemata per run, built once for every config.
        t0 = time.monotonic()
        schem_dir = os.path.join(self.work, "schemata-rtl")
        replace = {}
        for s in sources:
            mine = [m for m in buildable if m.file == s.path]
            replace[s.path] = mutants.schemata_text(s, mine)[0]
        rtl.copy_rtl(self.rtl_dir, schem_dir, replace)
        build_dir = os.path.join(self.work, "schemata-build")
        max_id = max([m.id for m in buildable], default=0)
        self.configure(build_dir, SOURCE_DIR, [f"-DQACC_COSIM_RTL_DIR={schem_dir}",
                                               f"-DQACC_COSIM_MUTANTS={max(max_id, 1)}",
                                               "-DQACC_COSIM_VERILATOR_ARGS=-Wno-fatal"])
        self.build(build_dir)
        qacc = os.path.join(build_dir, "sim", "qacc")
        timing["schemata_build_seconds"] = round(time.monotonic() - t0, 1)
        log(f"   schemata of {len(buildable)} mutants built in {timing['schemata_build_seconds']} s")

        # (c) The schemata with no mutant selected must pass: it is the design as written. Its run times order
        # the tests cheapest first.
        t0 = time.monotonic()
        order, timeout = {}, 10.0
        for c in configs:
            out = os.path.join(self.work, "mutants", f"baseline-{c.name}.json")
            os.makedirs(os.path.dirname(out), exist_ok=True)
            code, text = run([qacc, "regress", "--suite", self.suite_arg(), "--seeds", str(self.args.seeds), "-j",
                              str(self.args.jobs), "--config", c.path, "--json", out], check=False)
            if code != 0:
                raise StepError(f"the schemata with no mutant selected fails its regression on {c.name}: "
                                f"{text[-800:]}")
            with open(out) as f:
                runs = json.load(f)["runs"]
            cost = {}
            for r in runs:
                cost.setdefault(r["test"], []).append(r["wall_seconds"])
                timeout = max(timeout, 20 * r["wall_seconds"])
            order[c.name] = sorted(cost, key=lambda t: sum(cost[t]) / len(cost[t]))
        timing["baseline_seconds"] = round(time.monotonic() - t0, 1)

        # (d) Each mutant against the regression, config after config, stopping at the first failure.
        t0 = time.monotonic()
        done = [0]
        lock = threading.Lock()

        def one(m):
            rec = records[m.id]
            rec["status"] = "survived"
            for c in configs:
                out = os.path.join(self.work, "mutants", f"m{m.id}-{c.name}.json")
                code, text = run([qacc, "regress", "--suite", self.suite_arg(), "--seeds", str(self.args.seeds),
                                  "-j", "1", "--fail-fast", "--mutant", str(m.id), "--config", c.path,
                                  "--tests", ",".join(order[c.name]), "--timeout", f"{timeout:.0f}",
                                  "--json", out], check=False)
                if code == 1:
                    rec["status"] = "killed"
                    rec["killed_by"] = first_failure(out, c.name)
                    break
                if code != 0:
                    rec["status"] = "error"
                    rec["error"] = text[-600:]
                    break
                if os.path.exists(out):
                    os.remove(out)
            with lock:
                done[0] += 1
                if done[0] % 25 == 0 or done[0] == len(buildable):
                    log(f"   mutants run: {done[0]}/{len(buildable)}")
            return rec

        with concurrent.futures.ThreadPoolExecutor(max_workers=self.args.jobs) as pool:
            list(pool.map(one, buildable))
        timing["regression_seconds"] = round(time.monotonic() - t0, 1)

        # (e) Survivors: equivalent only when a machine shows it.
        t0 = time.monotonic()
        survivors = [m for m in buildable if records[m.id]["status"] == "survived"]
        self.equivalence(survivors, texts, configs, records)
        timing["equivalence_seconds"] = round(time.monotonic() - t0, 1)
        timing["mutants_per_minute"] = round(60.0 * len(buildable) / max(timing["regression_seconds"], 0.1), 1)

        table = operator_table(result["mutants"])
        result["operator_table"] = table
        total = table["total"]
        denominator = total["generated"] - total["equivalent"] - total["unbuildable"]
        result["score"] = round(100.0 * total["killed"] / denominator, 2) if denominator else 100.0
        if total["error"]:
            raise StepError(f"{total['error']} mutants could not be run (see the report)")
        return (f"{total['generated']} mutants: {total['killed']} killed, {total['survived']} survived, "
                f"{total['equivalent']} equivalent, {total['unbuildable']} unbuildable; score {result['score']}%; "
                f"{timing['mutants_per_minute']} mutants/min")

    def suite_arg(self):
        return self.args.suite_list[0] if len(self.args.suite_list) == 1 else "all"

    def lint_mutants(self, selected, texts, configs, records):
        cache_path = os.path.join(self.work, "lint-cache.json")
        cache = {}
        if os.path.exists(cache_path):
            with open(cache_path) as f:
                cache = json.load(f)
        others = hashlib.sha256("".join(read_text(os.path.join(self.rtl_dir, f))
                                        for f in rtl.file_list(self.rtl_dir)).encode()).hexdigest()
        workers = [os.path.join(self.work, "lint", f"w{i}") for i in range(self.args.jobs)]
        free = list(workers)
        lock = threading.Lock()

        def lint_one(m):
            mutated = mutants.apply_single(texts[m.file], m)
            with lock:
                d = free.pop()
            try:
                for c in configs:
                    key = hashlib.sha256(f"{others}|{m.file}|{mutated}|{c.params}".encode()).hexdigest()
                    if key not in cache:
                        rtl.copy_rtl(self.rtl_dir, d, {m.file: mutated})
                        ok, messages, out = rtl.lint(d, c)
                        cache[key] = "" if ok else (str(messages[0]) if messages else out[-300:])
                    if cache[key]:
                        return m, f"{c.name}: {cache[key]}"
                return m, ""
            finally:
                with lock:
                    free.append(d)

        buildable = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=self.args.jobs) as pool:
            for m, why in pool.map(lint_one, selected):
                if why:
                    records[m.id]["status"] = "unbuildable"
                    records[m.id]["lint"] = why
                else:
                    buildable.append(m)
        os.makedirs(self.work, exist_ok=True)
        with open(cache_path, "w") as f:
            json.dump(cache, f)
        return buildable

    def equivalence(self, survivors, texts, configs, records):
        if not survivors:
            return
        orig_dir = os.path.join(self.work, "tce", "original")
        mut_dir = os.path.join(self.work, "tce", "mutant")
        rtl.copy_rtl(self.rtl_dir, orig_dir)
        reference = {c.name: rtl.verilate_digest(orig_dir, c, os.path.join(self.work, "tce", "obj-orig"))
                     for c in configs}
        yosys = shutil.which("yosys")
        for m in survivors:
            rtl.copy_rtl(self.rtl_dir, mut_dir, {m.file: mutants.apply_single(texts[m.file], m)})
            same = all(rtl.verilate_digest(mut_dir, c, os.path.join(self.work, "tce", "obj-mut")) ==
                       reference[c.name] for c in configs)
            rec = records[m.id]
            if same:
                rec["status"] = "equivalent"
                rec["equivalence"] = "identical Verilated C++ (comments and line markers stripped) on every config"
            elif not yosys:
                rec["equivalence"] = "Verilated C++ differs; yosys: not installed, no equivalence check was run"
            else:
                # One module alone, not qacc_top: the configs' parameters do not reach it (parameterized
                # modules are refused), so one check covers every config.
                r = yosys_equiv.check(orig_dir, mut_dir, m.file)
                if r.verdict == "equivalent":
                    rec["status"] = "equivalent"
                    rec["equivalence"] = f"{r.detail} (Verilated C++ differs)"
                else:
                    rec["equivalence"] = f"Verilated C++ differs; yosys: {r.verdict}: {r.detail}"


def lint_classes(records):
    """Unbuildable mutants counted by the class of their first lint message (UNUSEDSIGNAL, WIDTH, ...)."""
    counts = collections.Counter()
    for r in records:
        if r["status"] == "unbuildable":
            found = re.search(r"%(?:Warning|Error)-([A-Z0-9_]+)", r.get("lint", ""))
            counts[found.group(1) if found else "error"] += 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


class SkipStep(Exception):
    pass


def supports(qacc, command, flag):
    p = subprocess.run([qacc, command, "--help"], capture_output=True, text=True)
    return flag in p.stdout


def git_head():
    p = subprocess.run(["git", "rev-parse", "HEAD"], cwd=SOURCE_DIR, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "rtl"], cwd=SOURCE_DIR, capture_output=True,
                           text=True).stdout.strip()
    return p.stdout.strip() + ("+rtl-changes" if dirty else "")


def read_text(path):
    with open(path) as f:
        return f.read()


def slim_run(r):
    res = r.get("result") or {}
    return {"test": r["test"], "seed": r["seed"], "status": r["status"], "cycles": r.get("cycles"),
            "command_cycles": res.get("command_cycles"), "wall_seconds": r.get("wall_seconds")}


def first_failure(json_path, config):
    try:
        with open(json_path) as f:
            runs = json.load(f)["runs"]
    except (OSError, ValueError, KeyError):
        return {"config": config}
    for r in runs:
        if r["status"] != "pass":
            res = r.get("result") or {}
            first = res.get("first_mismatch") or {}
            return {"config": config, "test": r["test"], "seed": r["seed"], "cycle": first.get("cycle"),
                    "unit": first.get("unit"), "status": r["status"],
                    "message": (r.get("message") or "")[:300], "reproduce": r.get("reproduce")}
    return {"config": config}


def changed_lines(base):
    """{file: set of new line numbers} that differ from `base` in rtl/ (working tree included)."""
    out = subprocess.run(["git", "diff", "-U0", base, "--", "rtl"], cwd=SOURCE_DIR, capture_output=True,
                         text=True, check=True).stdout
    changed, current = {}, None
    for line in out.splitlines():
        if line.startswith("+++ "):
            current = os.path.basename(line[4:].strip()) if line[4:].strip() != "/dev/null" else None
        m = re.match(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", line)
        if m and current:
            start, count = int(m.group(1)), int(m.group(2) or 1)
            changed.setdefault(current, set()).update(range(start, start + count))
    # A new file not yet added to git is not in the diff: every line of it is changed.
    untracked = subprocess.run(["git", "ls-files", "--others", "--exclude-standard", "--", "rtl"], cwd=SOURCE_DIR,
                               capture_output=True, text=True, check=True).stdout.split()
    for path in untracked:
        with open(os.path.join(SOURCE_DIR, path)) as f:
            changed[os.path.basename(path)] = set(range(1, len(f.read().splitlines()) + 1))
    return changed


def mutant_lines(m, sources):
    src = next(s for s in sources if s.path == m.file)
    lines = set()
    for e in m.edits:
        first = src.text.count("\n", 0, e.start) + 1
        last = src.text.count("\n", 0, e.end) + 1
        lines.update(range(first, last + 1))
    return lines


def operator_table(records):
    table = {}
    for r in records:
        for key in (r["operator"], "total"):
            row = table.setdefault(key, {"generated": 0, "killed": 0, "survived": 0, "equivalent": 0,
                                         "unbuildable": 0, "error": 0})
            row["generated"] += 1
            row[r["status"]] = row.get(r["status"], 0) + 1
    table.setdefault("total", {"generated": 0, "killed": 0, "survived": 0, "equivalent": 0, "unbuildable": 0,
                               "error": 0})
    return table


def main(argv=None):
    try:
        args = parse_args(argv if argv is not None else sys.argv[1:])
    except UsageError as e:
        print(f"qacc validate: error: {e}", file=sys.stderr)
        return 2
    v = Validation(args)
    if args.id_set is not None:
        try:
            v.scope()  # a number the RTL has no mutant for is a usage error, before any step runs
        except StepError as e:
            print(f"qacc validate: error: {e}", file=sys.stderr)
            return 2
    if args.list_mutants:
        _, everything, selected, scope, errors = v.scope()
        for m in selected:
            print(f"{m.id:5d} {m.describe()}")
        print(f"{len(selected)} mutants ({scope}) of {len(everything)}; {len(errors)} expressions not parsed",
              file=sys.stderr)
        return 0
    os.makedirs(v.work, exist_ok=True)
    start = time.monotonic()
    v.step("lint", v.lint)
    v.step("unit", v.unit_tests)
    v.step("regression", v.regression)
    if args.base is not None:
        v.step("regression:base", v.base)
    v.step("mutation", v.mutation)
    v.doc["wall_seconds"] = round(time.monotonic() - start, 1)
    verdict = report.verdict(v.doc, args.min_mutation_score, args.min_coverage)
    text = json.dumps(v.doc, indent=2, default=list) + "\n" if args.json else report.text(v.doc) + "\n"
    if args.output:
        report.write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    if args.report:
        os.makedirs(args.report, exist_ok=True)
        report.write_atomic(os.path.join(args.report, "index.html"), report.html(v.doc, SOURCE_DIR))
    return 0 if verdict else 1
