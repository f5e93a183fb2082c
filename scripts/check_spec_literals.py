#!/usr/bin/python3
"""Fails when C++ or SystemVerilog outside the generated files writes, as a literal, what the spec data owns.

    scripts/check_spec_literals.py [--root DIR]

The rules (docs/units.md 21.1), each a regular expression over the code with comments and strings removed:

    descriptor word   a descriptor word picked by a number: `d[15]`, `p[i][9]`, `desc.w[9]` or `words[15]`;
                      the word and bits of every field are in spec/arch_spec.h (arch::desc) and qacc_pkg.sv
                      (HDR_*, *_fields, <LAYOUT>_<FIELD>_WORD/_LSB/_W)
    SRAM id           an SRAM id as a number: `sram == 5`, `dst != 1`, `sram = 3;`, `sram <= 5`, or in
                      SystemVerilog a region cast to a numbered width, `3'(RegionA)`; the ids are arch::Region
                      and arch::kSrams, and qacc_pkg's Region* with SRAM_ID_W and NUM_SRAMS
    monitor width     a monitor field read with a numbered width: `take(4)`, `next(16)`, `PortBits(p, lsb, 3)`;
                      the monitor structs, their widths and unpacking are in spec/arch_spec.h (Unpack<Name>,
                      desc::UnpackCmd) and qacc_pkg.sv

Scanned: golden/, model/, sim/ and spec/ (C++) and rtl/ (SystemVerilog), without the generated text
(spec/arch_spec.h, rtl/qacc_desc_fields.sv, the GENERATED sections of qacc_pkg.sv). Tests are not scanned: they write the layouts from
the spec's prose on purpose, as an oracle that is independent of the generator. Exit 1 naming each file, line and
rule; 0 when clean. Standard library only.
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CPP_DIRS = ("golden", "model", "sim", "spec")
GENERATED_FILES = {"spec/arch_spec.h", "rtl/qacc_desc_fields.sv"}

# (rule, language, pattern)
RULES = [
    ("descriptor word", "cpp",
     re.compile(r"\b(?:d|desc|descriptor|bad|head|words)\[\s*\d+\s*\]|\b(?!argv\b)\w+\[[^\[\]]*\]\[\s*\d+\s*\]")),
    ("descriptor word", "sv", re.compile(r"(?:\.w|\bwords)\[\s*\d+\s*\]")),
    ("SRAM id", "cpp", re.compile(r"\b(?:sram|dst)\s*(?:[=!<>]=|<|>)\s*[1-9]\d*\b|\b(?:sram|dst)\s*=\s*[1-9]\d*\s*;")),
    ("SRAM id", "sv", re.compile(r"\b\d+'\(\s*Region\w+\s*\)")),
    ("monitor width", "cpp", re.compile(r"\b(?:take|next)\(\s*\d+\s*\)|\bPortBits\([^;]*?,\s*\d+\s*\)")),
]

CPP_STRIP = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])'", re.S)
SV_STRIP = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\])*\"", re.S)
SV_GENERATED = re.compile(r"^\s*// BEGIN GENERATED \w+:.*?^\s*// END GENERATED \w+$", re.S | re.M)


def blank(match):
    """The match with every character but newlines replaced by a space: line numbers stay."""
    return re.sub(r"[^\n]", " ", match.group(0))


def sources(root):
    for d in CPP_DIRS:
        for base, _, files in os.walk(os.path.join(root, d)):
            for name in sorted(files):
                path = os.path.relpath(os.path.join(base, name), root)
                if name.endswith((".h", ".cc")) and path not in GENERATED_FILES:
                    yield path, "cpp"
    rtl = os.path.join(root, "rtl")
    for name in sorted(os.listdir(rtl)):
        if name.endswith(".sv") and os.path.join("rtl", name) not in GENERATED_FILES:
            yield os.path.join("rtl", name), "sv"


def findings(root):
    out = []
    for path, language in sources(root):
        with open(os.path.join(root, path), encoding="utf-8") as f:
            text = f.read()
        if language == "sv":
            text = SV_GENERATED.sub(blank, text)
        text = (CPP_STRIP if language == "cpp" else SV_STRIP).sub(blank, text)
        for rule, lang, pattern in RULES:
            if lang != language:
                continue
            for m in pattern.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                out.append(f"{path}:{line}: {rule} as a literal: {m.group(0).strip()}")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=ROOT, help="the tree to scan (default: this repository)")
    args = parser.parse_args()
    found = findings(args.root)
    for line in found:
        print(line, file=sys.stderr)
    if found:
        print(f"check_spec_literals: {len(found)} literal(s) of what docs/spec/qacc_spec.json owns; use the "
              "generated names (spec/arch_spec.h, rtl/qacc_pkg.sv)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
