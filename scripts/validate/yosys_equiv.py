"""yosys's equivalence check of one surviving mutant against the original (docs/validate.md, the equivalence
step). It reaches leaf modules that yosys 0.23 reads from their file alone: no package, no parameter, no
instance. A failed proof is "unproven", never "different": yosys's equivalence passes are incomplete."""

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass

from .rtl import COMMENT_RE

MODULE_RE = re.compile(r"^\s*module\s+([A-Za-z_]\w*)", re.M)
# An x literal ('x, 'bx, 4'b1x0z, 8'hx0): yosys takes x as a don't-care, Verilator picks a value (--x-assign fast),
# so 'x -> '0 would be "proven" and yet change the simulation.
X_LITERAL_RE = re.compile(r"'[sS]?(?:[bBoOhH]\s*[0-9a-fA-F_xXzZ?]*[xX]|[xX])")
# State elements after prep (before techmap): FFs and latches of every flavour.
STATE_CELL_RE = re.compile(r"dff|latch|^\$sr$|^\$ff$")


@dataclass
class Result:
    verdict: str  # "equivalent", "unreadable" (the original is out of reach) or "unproven"
    detail: str   # one line: what proved it, or why not


def refusal(text):
    """(module name, reason not to check) from the original's text, before yosys runs."""
    code = COMMENT_RE.sub(" ", text)
    names = MODULE_RE.findall(code)
    if len(names) != 1:
        return None, f"defines {len(names)} modules ({', '.join(names)}); only one-module files are checked"
    name = names[0]
    pkg = re.search(r"\bimport\s+(\w+)::|\b(\w+)::", code)
    if pkg:
        return name, f"uses package {pkg.group(1) or pkg.group(2)} (yosys reads this file alone)"
    if re.search(r"\bparameter\b", code):
        # A proof would hold at the defaults only, and the configs elaborate other values.
        return name, "has parameters (a proof would hold at their defaults only)"
    if X_LITERAL_RE.search(code):
        return name, "has x literals (yosys takes x as a don't-care, Verilator picks a value)"
    # -DSYNTHESIS must only drop assertion blocks: logic that differs with it defined would be proven, not simulated.
    if re.search(r"`(?:ifdef|elsif)\s+SYNTHESIS\b", code) or (
            re.search(r"`ifndef\s+SYNTHESIS\b", code) and re.search(r"`(?:else|elsif)\b", code)):
        return name, "has logic that differs with SYNTHESIS defined"
    return name, None


def read_script(path, name, as_name):
    # prep: a conservative RTL synthesis (keeps don't-cares, no FF optimisation). async2sync: yosys's SAT has no
    # model of async-reset FFs; both sides get the same rewrite.
    return [f"read_verilog -sv -DSYNTHESIS {path}", f"prep -top {name}", "check -assert", "async2sync",
            f"rename {name} {as_name}", f"design -stash {as_name}"]


def run_yosys(tmp, lines, deadline):
    """(ok, log text, first ERROR line); ok None on a timeout."""
    script = os.path.join(tmp, "run.ys")
    log = os.path.join(tmp, "run.log")
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    if os.path.exists(log):
        os.remove(log)
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        return None, "", ""
    try:
        # In its own session, as rtl.lint(): the terminal's Ctrl-C stops qacc validate, not yosys half-way.
        p = subprocess.run(["yosys", "-q", "-l", log, "-s", script], cwd=tmp, capture_output=True, text=True,
                           timeout=remaining, start_new_session=True)
    except subprocess.TimeoutExpired:
        return None, "", ""
    text = ""
    if os.path.exists(log):
        with open(log, errors="replace") as f:
            text = f.read()
    text += "\n" + p.stdout + "\n" + p.stderr
    error = next((line.strip() for line in text.splitlines() if "ERROR:" in line), "")
    return p.returncode == 0, text, error or f"yosys exited with {p.returncode}"


def probe(tmp, path, name, deadline):
    """Reads one side alone: (ok, first error, netlist as yosys's JSON)."""
    out = os.path.join(tmp, "probe.json")
    ok, _, error = run_yosys(tmp, [f"read_verilog -sv -DSYNTHESIS {path}", f"hierarchy -check -top {name}",
                                   f"prep -top {name}", "check -assert", f"write_json {os.path.basename(out)}"],
                             deadline)
    if not ok:
        return ok, error, None
    with open(out) as f:
        return True, "", json.load(f)["modules"][name]


def summary(netlist):
    """(cell types, has state, has init values) of a probed netlist."""
    types = {c["type"] for c in netlist["cells"].values()}
    inits = any("init" in n.get("attributes", {}) for n in netlist["netnames"].values())
    return types, any(STATE_CELL_RE.search(t) for t in types), inits


def check(orig_dir, mut_dir, rel_file, timeout_s=120):
    """Whether yosys proves the mutated rel_file (in mut_dir) equivalent to the original (in orig_dir)."""
    deadline = time.monotonic() + timeout_s
    with open(os.path.join(orig_dir, rel_file)) as f:
        original = f.read()
    name, why = refusal(original)
    if why:
        return Result("unreadable", why)
    if shutil.which("yosys") is None:
        return Result("unreadable", "yosys is not installed")
    base = os.path.basename(rel_file)
    timed_out = Result("unproven", f"timed out after {timeout_s} s")
    # A scratch directory: yosys writes its log and netlists there, never in the source tree.
    with tempfile.TemporaryDirectory(prefix="qacc-yosys-") as tmp:
        gold, gate = f"original/{base}", f"mutant/{base}"
        for side, src in ((gold, orig_dir), (gate, mut_dir)):
            os.makedirs(os.path.join(tmp, os.path.dirname(side)))
            shutil.copyfile(os.path.join(src, rel_file), os.path.join(tmp, side))

        ok, error, netlist = probe(tmp, gold, name, deadline)
        if ok is None:
            return Result("unreadable", f"reading the original timed out after {timeout_s} s")
        if not ok:
            m = re.search(r"Module `\\?(\S+?)' referenced in module", error)
            return Result("unreadable", f"instantiates module {m.group(1)} (only leaf modules are checked)" if m
                          else f"yosys cannot read it: {error}")
        types, gold_state, gold_init = summary(netlist)
        if any(t.startswith("$mem") for t in types):
            # equiv_make pairs registers by name; memory words have no name to pair.
            return Result("unreadable", "has a memory (yosys pairs registers by name, not memory words)")
        if gold_init:
            return Result("unreadable", "has initial values (the proof assumes paired registers start equal)")
        outputs = [p for p, d in netlist["ports"].items() if d["direction"] == "output"]

        ok, error, netlist = probe(tmp, gate, name, deadline)
        if ok is None:
            return timed_out
        if not ok:
            return Result("unproven", f"yosys cannot read the mutant: {error}")
        gate_types, gate_state, gate_init = summary(netlist)
        if gate_init or any(t.startswith("$mem") for t in gate_types):
            return Result("unproven", "the mutant has initial values or a memory")

        both = (read_script(gold, name, "gold") + read_script(gate, name, "gate") +
                ["design -copy-from gold -as gold gold", "design -copy-from gate -as gate gate"])
        # equiv_make pairs every same-named wire (ports, registers, named nets) with an $equiv cell and cuts the
        # design there; equiv_simple proves each cell from a 5-cycle cone, equiv_induct proves the rest by
        # induction. Source mutants keep every register's name, and the schemata starts the original and the
        # mutant from one power-on state, so "paired registers start equal" holds and the proof is sound for
        # the simulation. A named net that differs while the outputs do not leaves a cell unproven: incomplete.
        ok, log, error = run_yosys(tmp, both + ["equiv_make gold gate equiv", "hierarchy -top equiv",
                                                "equiv_simple -seq 5", "equiv_induct -seq 5",
                                                "equiv_status -assert"], deadline)
        if ok is None:
            return timed_out
        paired = set(re.findall(r"^Presumably equivalent wires: .* -> \\?(\S+)$", log, re.M))
        unpaired = [p for p in outputs if p not in paired]
        if ok and not unpaired:
            return Result("equivalent", f"yosys equiv_make/equiv_simple/equiv_induct proved module {name} "
                                        "equivalent" + (" (registers paired by name)" if gold_state else ""))
        m = re.search(r"Of those cells (\d+) are proven and (\d+) are unproven", log)
        why = (f"output {', '.join(unpaired)} not paired by equiv_make" if ok else
               f"equiv_simple/equiv_induct left {m.group(2)} of {int(m.group(1)) + int(m.group(2))} $equiv "
               "cells unproven" if m else error)
        if gold_state or gate_state:
            return Result("unproven", why)

        # Combinational: a miter of the outputs alone and one SAT call is complete (no cut points, no state), so
        # a difference on a named internal net that never reaches an output does not stop the proof.
        ok, log, error = run_yosys(tmp, both + ["miter -equiv -flatten -make_assert gold gate miter",
                                                "hierarchy -top miter",
                                                "sat -verify -prove-asserts -show-inputs miter"], deadline)
        if ok is None:
            return Result("unproven", f"{why}; miter/sat timed out after {timeout_s} s in all")
        if ok:
            return Result("equivalent", f"yosys miter/sat proved module {name} equivalent (combinational, "
                                        f"every input; equiv passes: {why})")
        cex = counterexample(log)
        # A counterexample is a difference in yosys's reading of the file; the verdict stays "unproven".
        return Result("unproven", f"{why}; miter/sat: " +
                      (f"outputs differ at {cex}" if cex else f"not proven ({error})"))


def counterexample(log):
    """The inputs of sat's model as 'name=0xHEX ...' (empty when sat printed none)."""
    values = []
    for m in re.finditer(r"^\s+\\in_(\w+)\s+\S+\s+\S+\s+([01xz]+)\s*$", log, re.M):
        bits = m.group(2)
        values.append(f"{m.group(1)}=" + (hex(int(bits, 2)) if set(bits) <= {"0", "1"} else f"'b{bits}"))
    return " ".join(values)
