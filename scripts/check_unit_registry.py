#!/usr/bin/python3
"""Fails when a unit that the spec data marks present lacks its row in a registry of the tree.

    scripts/check_unit_registry.py [--root DIR] [--spec FILE]

docs/units.md 21.3 and docs/adding_a_unit.md: a unit is its own files plus one row in each registry. For every
unit of docs/spec/qacc_spec.json with "present": true this checks, naming the registry and the file:

    spec library      spec/arch_spec.h: its row of arch::kUnits, present (scripts/gen_spec.py --write makes it)
    HW_UNITS          a core, stage or command unit has its bit in HW_UNITS, reset 1 (frame units have none)
    RTL               each module its "rtl" names is a file of rtl/files.f
    mutation scope    ... and is listed in scripts/validate/mutation_scope.json (mutated or excluded with a reason)
    monitor           a row_beat unit: its slot assigned in rtl/qacc_top.sv (mon_beat_*_o[BEAT_<UNIT>]), its beat
                      cycle (arch::Timing::Beat), its lanes (MakeRowBeat) and its scoreboard check
                      (BeatCheckUnit); an out_write unit: the mon_out_* ports; an out_access
                      unit (a command unit's out SRAM accesses): the mon_out_acc_* ports and their
                      scoreboard check
    perf counter      a row_beat unit: its input beats assigned in rtl/qacc_top.sv (unit_in_beat[BEAT_<UNIT>], which
                      its PERF_<x>_BUSY counts), their closed form (arch::Timing::In) and the SystemC pipeline's
                      count of them (UnitPipeline::InputBeats)
    scoreboard        its check unit ("registry.check") in sim/cosim/scoreboard.h's kCheckUnits
    coverage          a bin named "<registry.coverage>.*" in sim/cosim/coverage.cc or a unit's *_coverage.cc
    test generator    its suite ("registry.suite") in sim/testgen/suites.cc
    compiler          its lowering ("registry.lowering", a C++ name) used in compiler/*.cc
    docs              its document ("registry.doc") in docs/, naming each of its RTL modules

and for every SRAM of the spec (a region with "sram", whatever unit uses it):

    SRAM              its storage and depth in the model (model/srams.cc, ArchConfig::depth in model/arch.cc), its
                      read-back in co-simulation (DutImpl::ReadSram), its range check at fetch (qacc_desc_check), its
                      bus window (qacc_regs), its instance u_<name>_sram (qacc_top) and its DMA lane (qacc_dma's
                      <name>_rdata_i)

Exit 1 with one line per missing row, 0 when every present unit is complete, 2 for an unreadable spec. Standard
library only.
"""
import argparse
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEC = os.path.join("docs", "spec", "qacc_spec.json")


def camel(name):
    return "".join(part.capitalize() for part in name.split("_"))


def read(root, path):
    try:
        with open(os.path.join(root, path), encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return None


def read_all(root, folder, suffixes):
    text = []
    base = os.path.join(root, folder)
    for dirpath, _, files in os.walk(base):
        for name in sorted(files):
            if name.endswith(suffixes):
                with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                    text.append(f.read())
    return "\n".join(text)


def function(source, name):
    """The text of the C++ function whose definition starts with `name` (up to the next closing brace in column 0),
    or "" when the source has none."""
    m = re.search(rf"^[^\n]*\b{re.escape(name)}.*?^}}", source, re.M | re.S)
    return m.group(0) if m else ""


def modules(unit):
    """The RTL modules a unit's "rtl" text names: `qacc_x` in backticks."""
    return re.findall(r"`(qacc_\w+)`", unit["rtl"])


def missing_rows(root, doc):
    """(unit, registry, what is missing) for every present unit."""
    files_f = read(root, "rtl/files.f") or ""
    scope = json.loads(read(root, "scripts/validate/mutation_scope.json") or "{}")
    scoped = set(scope.get("files", [])) | {e["file"] if isinstance(e, dict) else e for e in scope.get("excluded", [])}
    hw_units = next((r for r in doc["registers"] if r["name"] == "HW_UNITS"), {"fields": []})
    sources = {
        "arch_spec": read(root, "spec/arch_spec.h") or "",
        "top": read(root, "rtl/qacc_top.sv") or "",
        "timing": read(root, "model/closed_form_timing.cc") or "",
        "pipeline": read(root, "model/unit_pipeline.cc") or "",
        "srams": read(root, "model/srams.cc") or "",
        "arch": read(root, "model/arch.cc") or "",
        "dut": read(root, "sim/cosim/dut_impl.h") or "",
        "desc_check": read(root, "rtl/qacc_desc_check.sv") or "",
        "regs": read(root, "rtl/qacc_regs.sv") or "",
        "dma": read(root, "rtl/qacc_dma.sv") or "",
        "beats": read(root, "model/beats.cc") or "",
        "scoreboard": read(root, "sim/cosim/scoreboard.h") or "",
        # The frame's bins, and a unit's own (sim/cosim/<unit>_coverage.cc).
        "coverage": read_all(root, "sim/cosim", ("coverage.cc",)),
        "suites": read(root, "sim/testgen/suites.cc") or "",
        "compiler": read_all(root, "compiler", (".cc", ".h")),
    }
    out = []
    for region in doc["address_map"]["regions"]:
        if "sram" not in region:
            continue
        name, n = region["name"], camel(region["name"])
        rows = [
            (f"case arch::Region::k{n}:" in function(sources["srams"], "Srams::image("),
             f"model/srams.cc: Srams::image has no case arch::Region::k{n}"),
            (f"case arch::Region::k{n}:" in function(sources["srams"], "Srams::IsSramRegion("),
             f"model/srams.cc: Srams::IsSramRegion has no case arch::Region::k{n}"),
            (f"case Region::k{n}:" in function(sources["arch"], "ArchConfig::depth("),
             f"model/arch.cc: ArchConfig::depth has no case Region::k{n}"),
            (f"case arch::Region::k{n}:" in sources["dut"], f"sim/cosim/dut_impl.h: ReadSram has no case arch::Region::k{n}"),
            (f"SRAM_ID_W'(Region{n})" in sources["desc_check"],
             f"rtl/qacc_desc_check.sv has no range case SRAM_ID_W'(Region{n})"),
            (f"RegionW'(Region{n})" in sources["regs"], f"rtl/qacc_regs.sv has no window case RegionW'(Region{n})"),
            (f"u_{name}_sram" in sources["top"], f"rtl/qacc_top.sv has no instance u_{name}_sram"),
            (f"{name}_rdata_i" in sources["dma"], f"rtl/qacc_dma.sv has no lane for {name}_rdata_i"),
        ]
        out += [(f"{name} (SRAM)", "SRAM", what) for ok, what in rows if not ok]
    for u in doc["units"]:
        if not u.get("present"):
            continue
        name, reg = u["name"], u.get("registry", {})

        def need(registry, ok, what):
            if not ok:
                out.append((name, registry, what))

        need("spec library", f'{{Unit::k{camel(name)}, "{name}", true,' in sources["arch_spec"],
             "spec/arch_spec.h has no kUnits row marking it present: run /usr/bin/python3 scripts/gen_spec.py "
             "--write")
        if u["kind"] != "frame":
            field = next((f for f in hw_units["fields"] if f["name"] == name.upper()), None)
            need("HW_UNITS", field is not None and field.get("reset") == 1,
                 f"docs/spec/qacc_spec.json: HW_UNITS has no field {name.upper()} with reset 1")
        for module in modules(u):
            need("RTL", re.search(rf"(^|/){module}\.sv\s*$", files_f, re.M) is not None,
                 f"rtl/files.f does not list {module}.sv")
            need("mutation scope", f"{module}.sv" in scoped,
                 f"scripts/validate/mutation_scope.json lists {module}.sv neither in files nor in excluded")
        if u["monitor"] == "row_beat":
            slot = f"BEAT_{name.upper()}"
            need("monitor", f"mon_beat_valid_o[{slot}]" in sources["top"],
                 f"rtl/qacc_top.sv does not assign its slot mon_beat_*_o[{slot}]")
            need("monitor", f"case BeatUnit::k{camel(name)}:" in sources["timing"],
                 f"model/closed_form_timing.cc: Timing::Beat has no case BeatUnit::k{camel(name)}")
            need("monitor", f"case arch::BeatUnit::k{camel(name)}:" in sources["beats"],
                 f"model/beats.cc: MakeRowBeat has no case arch::BeatUnit::k{camel(name)}")
            need("monitor", f"case arch::BeatUnit::k{camel(name)}:" in sources["scoreboard"],
                 f"sim/cosim/scoreboard.h: BeatCheckUnit has no case arch::BeatUnit::k{camel(name)}")
            need("perf counter", f"unit_in_beat[{slot}]" in sources["top"],
                 f"rtl/qacc_top.sv does not assign its input beats unit_in_beat[{slot}]")
            need("perf counter", f"case BeatUnit::k{camel(name)}:" in function(sources["timing"], "Timing::In("),
                 f"model/closed_form_timing.cc: Timing::In has no case BeatUnit::k{camel(name)}")
            need("perf counter",
                 f"case arch::BeatUnit::k{camel(name)}:" in function(sources["pipeline"], "UnitPipeline::InputBeats("),
                 f"model/unit_pipeline.cc: UnitPipeline::InputBeats has no case arch::BeatUnit::k{camel(name)}")
        elif u["monitor"] == "out_write":
            need("monitor", "mon_out_we_o" in sources["top"], "rtl/qacc_top.sv has no mon_out_we_o")
        elif u["monitor"] == "out_access":
            need("monitor", "mon_out_acc_we_o" in sources["top"], "rtl/qacc_top.sv has no mon_out_acc_we_o")
            need("monitor", "CheckOutAccess" in sources["scoreboard"],
                 "sim/cosim/scoreboard.h has no CheckOutAccess (the mon_out_acc_* check)")
        if "check" in reg:
            need("scoreboard", f'"{reg["check"]}"}}' in sources["scoreboard"],
                 f'sim/cosim/scoreboard.h: kCheckUnits has no row "{reg["check"]}"')
        if "coverage" in reg:
            need("coverage", f'"{reg["coverage"]}.' in sources["coverage"],
                 f'sim/cosim/coverage.cc (or a *_coverage.cc) has no bin "{reg["coverage"]}.*"')
        if "suite" in reg:
            need("test generator", f'{{"{reg["suite"]}",' in sources["suites"],
                 f'sim/testgen/suites.cc has no suite "{reg["suite"]}"')
        if "lowering" in reg:
            need("compiler", reg["lowering"] in sources["compiler"],
                 f'compiler/ does not use {reg["lowering"]} (the unit\'s lowering)')
        if "doc" in reg:
            text = read(root, os.path.join("docs", reg["doc"]))
            need("docs", text is not None and all(m in text for m in modules(u)),
                 f'docs/{reg["doc"]} is missing or does not name {", ".join(modules(u)) or "the unit"}')
        for key in ("check", "coverage", "suite", "lowering", "doc"):
            need("spec data", key in reg, f'docs/spec/qacc_spec.json: its "registry" has no "{key}"')
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=ROOT, help="the tree to check (default: this repository)")
    parser.add_argument("--spec", help="the spec data (default: ROOT/docs/spec/qacc_spec.json)")
    args = parser.parse_args()
    path = args.spec or os.path.join(args.root, SPEC)
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        print(f"check_unit_registry: {path}: {e}", file=sys.stderr)
        return 2
    rows = missing_rows(args.root, doc)
    for unit, registry, what in rows:
        print(f"unit {unit}: missing from the {registry} registry: {what}", file=sys.stderr)
    if rows:
        print(f"check_unit_registry: {len(rows)} missing row(s); docs/adding_a_unit.md lists what a unit adds",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
