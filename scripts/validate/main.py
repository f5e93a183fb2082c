"""qacc validate: says whether an RTL change is safe (docs/validate.md).

Steps: lint of every config; the RTL unit tests; the lockstep regression of every suite on every config on a
build with Verilator coverage (functional bins and line/toggle points); with --base, the same at the base revision
and the differences (coverage lost line by line, commands whose cycle count changed); mutation analysis on a
mutant schemata (one Verilated model per config holding every mutant behind a run-time selector). Reports: text
on standard output, or one JSON document with --json, as every qacc subcommand prints them; -o FILE writes it to
FILE instead; --report DIR writes a static HTML page. Exit 0 when every step passes and every
threshold holds, 1 otherwise, 2 on a usage error, 128 + N when stopped by signal N.

The mutation analysis keeps a record of its verdicts in the work directory (record.py); SIGINT, SIGTERM and SIGHUP
stop the run with the record whole, and --resume continues it."""

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
import signal
import subprocess
import sys
import threading
import time

from . import coverage, mutants, record, report, rtl, schemata, yosys_equiv

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class UsageError(Exception):
    pass


# Options a resumed run may take: where it works and where its reports go. Every other one would change its
# results, so it comes from the record.
RESUME_OPTIONS = ("resume", "jobs", "json", "output", "report", "work")


def build_parser():
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
    p.add_argument("--resume", action="store_true",
                   help="go on with the interrupted run whose mutation record is in the work directory: with the "
                        "arguments it records, only the mutants without a verdict run, and the reports are those "
                        "of an uninterrupted run; only -j, --json, -o, --report and --work may be given too")
    return p


def given_options(argv):
    """The destinations of the options given in argv (a parser whose defaults are all left out)."""
    quiet = build_parser()
    for action in quiet._actions:
        action.default = argparse.SUPPRESS
    return set(vars(quiet.parse_known_args(argv)[0]))


def resumed_arguments(p, argv, work):
    """--resume: the record in `work`, and the arguments to parse: the recorded ones, then the ones given now
    (later options win, so -j, -o and --report given now replace the recorded ones)."""
    for dest in sorted(given_options(argv) - set(RESUME_OPTIONS)):
        name = next(a.option_strings[-1] for a in p._actions if a.dest == dest)
        raise UsageError(f"{name}: not with --resume: a resumed run takes its arguments from its record (only -j, "
                         "--json, -o, --report and --work may be given)")
    try:
        rec = record.MutationRecord.load(os.path.join(work, record.FILE_NAME))
    except record.RecordError as e:
        raise UsageError(str(e))
    if rec.complete:
        raise UsageError(f"--resume: {rec.path}: the run ended ({len(rec.finished())} mutants with a verdict): "
                         "nothing to resume")
    return rec, rec.arguments + [a for a in argv if a != "--resume"]


def parse_args(argv):
    p = build_parser()
    args, extra = p.parse_known_args(argv)
    if extra:
        # `--json FILE` took a file name before --json became a flag, as in every qacc subcommand.
        hint = (" (--json takes no file: it prints JSON; --json -o FILE writes it to FILE)"
                if "--json" in argv and not extra[0].startswith("-") else "")
        raise UsageError(f"unrecognized arguments: {' '.join(extra)}{hint}")
    args.argv, args.record = list(argv), None
    if args.resume:
        work = os.path.abspath(args.work)
        rec, argv = resumed_arguments(p, argv, work)
        args, extra = p.parse_known_args(argv)
        if extra:
            raise UsageError(f"--resume: {rec.path}: recorded arguments not understood: {' '.join(extra)}")
        args.argv, args.record, args.work = rec.arguments, rec, work

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


class Interrupted(Exception):
    """A stop signal arrived: the run ends at once, with its mutation record as it is (main() reports it)."""


class StopSignals:
    """SIGINT, SIGTERM and SIGHUP end the run: the handler only notes the signal; run() stops its child and
    raises Interrupted, and so do check() at the start of each unit of work and guard() after each tool call.
    Every child runs in its own session (run(), rtl.py, yosys_equiv.py), so the terminal's Ctrl-C reaches
    qacc validate alone and never cuts a tool short behind its back; no result that a stop cut short is taken
    for a verdict. A signal that was ignored when the run started stays ignored (nohup)."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    GRACE_SECONDS = 10  # a child stopped with SIGTERM gets this long to write its reports before SIGKILL

    def __init__(self):
        self.signum = None

    def install(self):
        for sig in self.SIGNALS:
            if signal.getsignal(sig) is not signal.SIG_IGN:
                signal.signal(sig, self.handle)

    def handle(self, signum, frame):
        if self.signum is None:
            self.signum = signum

    def name(self):
        return f"{signal.Signals(self.signum).name} ({self.signum})"

    def check(self):
        if self.signum is not None:
            raise Interrupted(self.name())

    def guard(self, fn, *args):
        """fn(*args), unless a stop came meanwhile: then its result or error is not taken, and Interrupted is
        raised."""
        try:
            result = fn(*args)
        except Exception:
            self.check()
            raise
        self.check()
        return result


STOP = StopSignals()


def run(cmd, cwd=SOURCE_DIR, log_path=None, check=True, env=None):
    """Runs a command; its output goes to log_path (or is returned). Raises StepError with the tail on failure,
    Interrupted when a stop signal came while it ran (its process group is then stopped: SIGTERM, then SIGKILL
    after a grace time)."""
    STOP.check()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         start_new_session=True)
    stopped_at = None
    while True:
        try:
            stdout, stderr = p.communicate(timeout=0.5)
            break
        except subprocess.TimeoutExpired:
            if STOP.signum is None:
                continue
            if stopped_at is None:
                stopped_at = time.monotonic()
                signal_group(p.pid, signal.SIGTERM)
            elif time.monotonic() - stopped_at > StopSignals.GRACE_SECONDS:
                signal_group(p.pid, signal.SIGKILL)
    STOP.check()
    out = stdout + stderr
    if log_path:
        os.makedirs(os.path.dirname(log_path), exist_ok=True)
        with open(log_path, "w") as f:
            f.write(out)
    if check and p.returncode != 0:
        raise StepError(f"`{' '.join(cmd)}` exited {p.returncode}: {out[-1500:].strip()}")
    return p.returncode, out


def signal_group(pid, sig):
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        pass  # it has ended


class StepError(Exception):
    pass


class Validation:
    def __init__(self, args):
        self.args = args
        self.work = os.path.abspath(args.work)
        self.rtl_dir = os.path.join(SOURCE_DIR, "rtl")
        self.steps = []
        self.doc = {"tool": "qacc validate", "source": SOURCE_DIR, "commit": git_head(),
                    "arguments": args.argv, "configs": [c.name for c in args.config_list],
                    "suites": args.suite_list, "seeds": args.seeds, "steps": self.steps}
        self.coverage_summary = None
        self.regress_runs = {}  # config -> runs of the head regression
        self.record = None  # the mutation record (record.py), once the mutation step has opened it

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
        # Not read, so not mutated: expressions (no mutant in them) and declarations (no signal swapped in their
        # scope where they might hide a name).
        parse_errors = [f"{s.path}: {slot.error}" for s in sources for slot in s.slots if slot.error] + \
            [f"{s.path}: {e.message}" for s in sources for e in s.decl_errors]
        return sources, everything, selected, scope, parse_errors

    def has_mutation_scope(self):
        return self.args.all or self.args.base is not None or self.args.mutants is not None or \
            self.args.id_set is not None

    def record_key(self, selected):
        """What the verdicts of a run depend on, item by item, so that a refused --resume names what changed:
        the RTL text, the configs, the scripts that generate and judge the mutants, the base commit and the
        mutants of the scope. The qacc binary and the schemata are keyed once built (build_schemata)."""
        key = {}
        for f in ["files.f"] + rtl.file_list(self.rtl_dir):
            key[f"rtl/{f}"] = file_sha256(os.path.join(self.rtl_dir, f))
        for c in self.args.config_list:
            key[os.path.relpath(c.path, SOURCE_DIR)] = file_sha256(c.path)
        for path in sorted(glob.glob(os.path.join(SOURCE_DIR, "scripts", "validate", "*.py"))) + [rtl.SCOPE_FILE]:
            key[os.path.relpath(path, SOURCE_DIR)] = file_sha256(path)
        key["base commit"] = getattr(self.args, "base_commit", None) or "none"
        described = [[m.id, m.file, m.operator, [[e.start, e.end, e.text] for e in m.edits]] for m in selected]
        key["mutants"] = f"{len(selected)} mutants, sha256 " + \
            hashlib.sha256(json.dumps(described).encode()).hexdigest()
        return key

    def open_record(self, selected):
        """A new run starts a new record (replacing an older one); a resumed run checks its record's key."""
        key = self.record_key(selected)
        if self.args.record is not None:
            self.args.record.check(key)  # RecordError: exit 2
            self.record = self.args.record
            log(f"   resuming {self.record.path}: {len(self.record.finished())} of {len(selected)} mutants "
                "have a verdict")
        else:
            self.record = record.MutationRecord.create(os.path.join(self.work, record.FILE_NAME), self.args.argv,
                                                       key)

    def mutation(self):
        if not self.has_mutation_scope():
            raise SkipStep("no scope: give --all, --base REV, --mutants N or --ids LIST")
        sources, everything, selected, scope, parse_errors = self.scope()
        self.open_record(selected)
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

        # (b) Schematas without the combinational loops that guards of several mutants can close (schemata.py),
        # each built once for every config.
        t0 = time.monotonic()
        check = schemata.LoopCheck(self.rtl_dir, sources, configs, self.work, STOP.guard)
        groups, alone = schemata.loop_free_groups(buildable, check)
        for m, why in alone:
            records[m.id]["status"] = "unbuildable"
            records[m.id]["lint"] = f"its schemata guard closes a combinational loop: {why}"
        buildable = [m for g in groups for m in g]
        timing["loop_check_seconds"] = round(time.monotonic() - t0, 1)
        log(f"   {len(groups)} loop-free schematas ({check.lints} lints, {timing['loop_check_seconds']} s); "
            f"{len(alone)} mutants close a loop alone")
        t0 = time.monotonic()
        qaccs = self.build_schematas(sources, groups)
        timing["schemata_build_seconds"] = round(time.monotonic() - t0, 1)
        log(f"   schematas of {len(buildable)} mutants built in {timing['schemata_build_seconds']} s")
        qacc_of = {m.id: q for g, q in zip(groups, qaccs) for m in g}

        # (c) Each schemata with no mutant selected must pass: it is the design as written. The run times of the
        # first order the tests cheapest first. A resumed run takes the order and timeout its first session
        # measured, so that every mutant runs the same schedule.
        t0 = time.monotonic()
        if self.record.baseline is None:
            order, timeout = self.baseline(qaccs, configs)
            self.record.add_baseline(order, timeout)
        order, timeout = self.record.baseline["order"], self.record.baseline["timeout"]
        timing["baseline_seconds"] = round(time.monotonic() - t0, 1)

        # (d) Each mutant against the regression, config after config, stopping at the first failure; a mutant
        # with a recorded verdict does not run again.
        t0 = time.monotonic()
        to_run = self.take_recorded("regression", buildable, records)
        timing["resumed_mutants"] = len(buildable) - len(to_run)
        self.run_mutants(qacc_of, to_run, configs, order, timeout, records)
        timing["regression_seconds"] = round(time.monotonic() - t0, 1)

        # (e) Survivors: equivalent only when a machine shows it.
        t0 = time.monotonic()
        survivors = [m for m in buildable if records[m.id]["status"] == "survived"]
        self.equivalence(self.take_recorded("equivalence", survivors, records), texts, configs, records)
        timing["equivalence_seconds"] = round(time.monotonic() - t0, 1)
        timing["mutants_per_minute"] = round(60.0 * len(to_run) / max(timing["regression_seconds"], 0.1), 1)

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

    def take_recorded(self, phase, ms, records):
        """The verdicts of `phase` that the record holds go into `records`; returns the mutants still without
        one, in their order (all of them in a first session)."""
        recorded = self.record.verdicts[phase]
        for m in ms:
            if m.id in recorded:
                records[m.id].update(recorded[m.id])
        return [m for m in ms if m.id not in recorded]

    def build_schematas(self, sources, groups):
        """Writes and builds the schemata of each group; returns their qacc binaries. The record keys the
        schematas' texts and binaries: a resumed run refuses another of any (RecordError)."""
        max_id = max([m.id for g in groups for m in g], default=0)
        qaccs, keys = [], []
        for k, group in enumerate(groups):
            replace = schemata.texts(sources, group)
            schem_dir = os.path.join(self.work, f"schemata-rtl-{k}")
            rtl.copy_rtl(self.rtl_dir, schem_dir, replace)
            build_dir = os.path.join(self.work, f"schemata-build-{k}")
            self.configure(build_dir, SOURCE_DIR, [f"-DQACC_COSIM_RTL_DIR={schem_dir}",
                                                   f"-DQACC_COSIM_MUTANTS={max(max_id, 1)}",
                                                   "-DQACC_COSIM_VERILATOR_ARGS=-Wno-fatal"])
            STOP.check()
            self.build(build_dir)
            qaccs.append(os.path.join(build_dir, "sim", "qacc"))
            text = json.dumps({"files": replace, "mutants": max(max_id, 1)}, sort_keys=True)
            keys.append({"schemata": hashlib.sha256(text.encode()).hexdigest(), "qacc": file_sha256(qaccs[-1])})
            log(f"   schemata {k + 1}/{len(groups)}: {len(group)} mutants")
        self.record.check_schemata({"schematas": hashlib.sha256(json.dumps(keys).encode()).hexdigest()})
        return qaccs

    def baseline(self, qaccs, configs):
        """(test order per config, cheapest first; the per-run timeout) from the regression of each schemata with
        no mutant selected, which must pass."""
        order, timeout = {}, 10.0
        for k, qacc in enumerate(qaccs):
            for c in configs:
                out = os.path.join(self.work, "mutants", f"baseline-{k}-{c.name}.json")
                os.makedirs(os.path.dirname(out), exist_ok=True)
                code, text = run([qacc, "regress", "--suite", self.suite_arg(), "--seeds", str(self.args.seeds),
                                  "-j", str(self.args.jobs), "--config", c.path, "--json", out], check=False)
                if code != 0:
                    raise StepError(f"schemata {k + 1} with no mutant selected fails its regression on {c.name}: "
                                    f"{text[-800:]}")
                with open(out) as f:
                    runs = json.load(f)["runs"]
                cost = {}
                for r in runs:
                    cost.setdefault(r["test"], []).append(r["wall_seconds"])
                    timeout = max(timeout, 20 * r["wall_seconds"])
                if k == 0:
                    order[c.name] = sorted(cost, key=lambda t: sum(cost[t]) / len(cost[t]))
        return order, timeout

    def run_mutants(self, qacc_of, to_run, configs, order, timeout, records):
        """Runs the mutants J at a time; each verdict goes into the record as soon as it is known. A run that a
        stop signal cut short is no verdict (run() raises Interrupted): that mutant runs again on --resume."""
        done = [0]
        lock = threading.Lock()
        os.makedirs(os.path.join(self.work, "mutants"), exist_ok=True)  # a resumed run has no baseline to make it
        kills = KillOrder(order, records.values())

        def one(m):
            STOP.check()
            rec = records[m.id]
            verdict = {"status": "survived"}
            for c in configs:
                out = os.path.join(self.work, "mutants", f"m{m.id}-{c.name}.json")
                with lock:
                    tests = kills.order(m.file, c.name)
                code, text = run([qacc_of[m.id], "regress", "--suite", self.suite_arg(), "--seeds",
                                  str(self.args.seeds), "-j", "1", "--fail-fast", "--mutant", str(m.id),
                                  "--config", c.path, "--tests", ",".join(tests),
                                  "--timeout", f"{timeout:.0f}",
                                  "--json", out], check=False)
                if code == 1:
                    verdict = {"status": "killed", "killed_by": first_failure(out, c.name)}
                    break
                if code != 0:
                    verdict = {"status": "error", "error": text[-600:]}
                    break
                if os.path.exists(out):
                    os.remove(out)
            rec.update(verdict)
            if rec["status"] != "error":  # an error is no verdict: a resumed run tries that mutant again
                self.record.add_verdict("regression", rec)
            with lock:
                kills.add(rec)
                done[0] += 1
                if done[0] % 25 == 0 or done[0] == len(to_run):
                    log(f"   mutants run: {done[0]}/{len(to_run)}")
            return rec

        with concurrent.futures.ThreadPoolExecutor(max_workers=self.args.jobs) as pool:
            try:
                list(pool.map(one, to_run))
            except Interrupted:
                pool.shutdown(wait=True, cancel_futures=True)
                raise

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
            STOP.check()
            mutated = mutants.apply_single(texts[m.file], m)
            with lock:
                d = free.pop()
            try:
                for c in configs:
                    key = hashlib.sha256(f"{others}|{m.file}|{mutated}|{c.params}".encode()).hexdigest()
                    if key not in cache:
                        rtl.copy_rtl(self.rtl_dir, d, {m.file: mutated})
                        ok, messages, out = STOP.guard(rtl.lint, d, c)
                        cache[key] = "" if ok else (str(messages[0]) if messages else out[-300:])
                    if cache[key]:
                        return m, f"{c.name}: {cache[key]}"
                return m, ""
            finally:
                with lock:
                    free.append(d)

        buildable = []
        try:
            with concurrent.futures.ThreadPoolExecutor(max_workers=self.args.jobs) as pool:
                try:
                    for m, why in pool.map(lint_one, selected):
                        if why:
                            records[m.id]["status"] = "unbuildable"
                            records[m.id]["lint"] = why
                        else:
                            buildable.append(m)
                except Interrupted:
                    pool.shutdown(wait=True, cancel_futures=True)
                    raise
        finally:
            # Kept when a stop ends the lint too: a resumed run lints only what is not cached.
            os.makedirs(self.work, exist_ok=True)
            report.write_atomic(cache_path, json.dumps(cache))
        return buildable

    def equivalence(self, survivors, texts, configs, records):
        """Each survivor's equivalence verdict, recorded as soon as it is known. A check that a stop cut short
        is none (STOP.guard): that survivor is checked again on --resume."""
        if not survivors:
            return
        orig_dir = os.path.join(self.work, "tce", "original")
        mut_dir = os.path.join(self.work, "tce", "mutant")
        rtl.copy_rtl(self.rtl_dir, orig_dir)
        obj_orig, obj_mut = os.path.join(self.work, "tce", "obj-orig"), os.path.join(self.work, "tce", "obj-mut")
        reference = {c.name: STOP.guard(rtl.verilate_digest, orig_dir, c, obj_orig) for c in configs}
        yosys = shutil.which("yosys")
        for m in survivors:
            STOP.check()
            rtl.copy_rtl(self.rtl_dir, mut_dir, {m.file: mutants.apply_single(texts[m.file], m)})
            same = all(STOP.guard(rtl.verilate_digest, mut_dir, c, obj_mut) == reference[c.name] for c in configs)
            rec = records[m.id]
            if same:
                rec["status"] = "equivalent"
                rec["equivalence"] = "identical Verilated C++ (comments and line markers stripped) on every config"
            elif not yosys:
                rec["equivalence"] = "Verilated C++ differs; yosys: not installed, no equivalence check was run"
            else:
                # One module alone, not qacc_top: the configs' parameters do not reach it (parameterized
                # modules are refused), so one check covers every config.
                r = STOP.guard(yosys_equiv.check, orig_dir, mut_dir, m.file)
                if r.verdict == "equivalent":
                    rec["status"] = "equivalent"
                    rec["equivalence"] = f"{r.detail} (Verilated C++ differs)"
                else:
                    rec["equivalence"] = f"Verilated C++ differs; yosys: {r.verdict}: {r.detail}"
            self.record.add_verdict("equivalence", rec)


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


def file_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def slim_run(r):
    res = r.get("result") or {}
    return {"test": r["test"], "seed": r["seed"], "status": r["status"], "cycles": r.get("cycles"),
            "command_cycles": res.get("command_cycles"), "wall_seconds": r.get("wall_seconds")}


class KillOrder:
    """The order in which a mutant runs the tests of a config: the tests that have killed mutants of the same
    RTL file first, most kills first, then the baseline's cheapest-first order. The mutants of one file mostly
    break the same unit, and a killed mutant stops at its first failing run, so this finds that run sooner.
    The order decides only which test kills a mutant, never whether one does: a survivor runs every test."""

    def __init__(self, baseline, records):
        self.baseline = baseline  # config -> tests, cheapest first
        self.kills = {}  # (file, config) -> {test: mutants it killed}
        for rec in records:
            self.add(rec)

    def add(self, rec):
        by = rec.get("killed_by") or {}
        if rec.get("status") == "killed" and "test" in by:
            counts = self.kills.setdefault((rec.get("file"), by["config"]), {})
            counts[by["test"]] = counts.get(by["test"], 0) + 1

    def order(self, file, config):
        counts = self.kills.get((file, config), {})
        return sorted(self.baseline[config], key=lambda t: -counts.get(t, 0))  # stable: ties stay cheapest first


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
    if args.id_set is not None or args.record is not None:
        try:
            # A number the RTL has no mutant for is a usage error, before any step runs; so is a resumed run
            # whose inputs have changed since its record began (checked again once the schemata is built).
            _, _, selected, _, _ = v.scope()
            if args.record is not None:
                args.record.check(v.record_key(selected))
        except (StepError, record.RecordError) as e:
            print(f"qacc validate: error: {e}", file=sys.stderr)
            return 2
    if args.list_mutants:
        _, everything, selected, scope, errors = v.scope()
        for m in selected:
            print(f"{m.id:5d} {m.describe()}")
        print(f"{len(selected)} mutants ({scope}) of {len(everything)}; {len(errors)} expressions or declarations "
              "not read", file=sys.stderr)
        return 0
    os.makedirs(v.work, exist_ok=True)
    STOP.install()
    try:
        return validate(v)
    except record.RecordError as e:
        print(f"qacc validate: error: {e}", file=sys.stderr)
        return 2
    except Interrupted as e:
        print(interrupted_message(v, str(e)), file=sys.stderr)
        return 128 + STOP.signum


def validate(v):
    """Every step, then the reports; the mutation record is marked complete once they are written."""
    args = v.args
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
    if v.record is not None:
        v.record.mark_complete()
    return 0 if verdict else 1


def interrupted_message(v, signal_name):
    rec = v.record or v.args.record  # a resumed run stopped before its mutation step still has its record
    if rec is None:
        return (f"qacc validate: interrupted by {signal_name} before the mutation analysis began: no report, "
                "nothing recorded to resume")
    return (f"qacc validate: INCOMPLETE: interrupted by {signal_name}: {len(rec.finished())} mutants have a "
            f"verdict in {rec.path}; no report; resume: qacc validate --resume --work {v.work}")
