#!/usr/bin/python3
"""Tests of scripts/gen_spec.py: the committed generated files are fresh, a hand edit of any of them
fails the check (naming the file and the command that regenerates it), --write repairs it, and an
inconsistent spec is refused. Each test works on a copy of the files in a temporary directory. Also
scripts/check_spec_literals.py: the tree writes no descriptor position as a literal, and the rule
finds one that a fixture writes.

    /usr/bin/python3 tests/spec/gen_spec_test.py
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(ROOT, "scripts", "gen_spec.py")
LITERALS = os.path.join(ROOT, "scripts", "check_spec_literals.py")
SPEC = os.path.join(ROOT, "docs", "spec", "qacc_spec.json")
REGENERATE = "/usr/bin/python3 scripts/gen_spec.py --write"


def run(*args):
    return subprocess.run([sys.executable, GEN, *args], capture_output=True, text=True)


class GenSpecTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="gen_spec_test.")
        self.outputs = run("--list").stdout.split()
        self.copy_committed()

    def copy_committed(self):
        for path in self.outputs:
            os.makedirs(os.path.dirname(os.path.join(self.tmp, path)), exist_ok=True)
            shutil.copy(os.path.join(ROOT, path), os.path.join(self.tmp, path))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def edit(self, path, old, new):
        full = os.path.join(self.tmp, path)
        with open(full) as f:
            text = f.read()
        self.assertIn(old, text, path)
        with open(full, "w") as f:
            f.write(text.replace(old, new, 1))

    def check(self, *extra):
        return run("--check", "--root", self.tmp, *extra)

    def spec_with(self, change):
        """A copy of the spec changed by `change(doc)`; returns its path."""
        with open(SPEC) as f:
            doc = json.load(f)
        change(doc)
        path = os.path.join(self.tmp, "spec.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def test_lists_the_generated_files(self):
        self.assertEqual(self.outputs,
                         ["spec/arch_spec.h", "rtl/qacc_pkg.sv", "rtl/qacc_desc_fields.sv", "docs/architecture.md",
                          "docs/data_movement.md", "docs/units.md"])

    def test_committed_files_are_fresh(self):
        result = run("--check")
        self.assertEqual(result.returncode, 0, result.stderr)
        result = self.check()
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_hand_edits_fail_the_check(self):
        # One edit inside the generated part of each file.
        edits = [("spec/arch_spec.h", "inline constexpr uint32_t kCmdOp = 0x0BC;",
                  "inline constexpr uint32_t kCmdOp = 0x0C0;"),
                 ("rtl/qacc_pkg.sv", "REQUANT_LATENCY   = 4;", "REQUANT_LATENCY   = 5;"),
                 ("docs/architecture.md", "| 12    | 9    | `UNIT_ABSENT`    |",
                  "| 12    | 11   | `UNIT_ABSENT`    |")]
        for path, old, new in edits:
            with self.subTest(path=path):
                self.copy_committed()
                self.edit(path, old, new)
                result = self.check()
                self.assertEqual(result.returncode, 1, result.stderr)
                self.assertIn(f"gen_spec: {path} is stale or hand-edited", result.stderr)
                self.assertIn(REGENERATE, result.stderr)
                self.assertIn(new.strip(), result.stderr)  # the diff shows the edit
                others = [p for p in self.outputs if p != path]
                for other in others:
                    self.assertNotIn(f"gen_spec: {other} is stale", result.stderr)

    def test_write_repairs_and_out_dir_receives_the_regenerated_files(self):
        self.edit("spec/arch_spec.h", "kVersion = 0x0002'0001", "kVersion = 0x0002'0002")
        out_dir = os.path.join(self.tmp, "out")
        self.assertEqual(self.check("--out-dir", out_dir).returncode, 1)
        with open(os.path.join(ROOT, "spec/arch_spec.h")) as f, \
                open(os.path.join(out_dir, "spec/arch_spec.h")) as g:
            self.assertEqual(f.read(), g.read())
        result = run("--write", "--root", self.tmp)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("gen_spec: wrote spec/arch_spec.h", result.stdout)
        self.assertEqual(self.check().returncode, 0)

    def test_text_outside_the_generated_sections_is_free(self):
        self.edit("docs/architecture.md", "## 5. Arithmetic", "## 5. Arithmetic (edited by hand)")
        self.edit("rtl/qacc_pkg.sv", "    WinOut  = 3'd4", "    WinOut  = 3'd4  // edited")
        self.assertEqual(self.check().returncode, 0)

    def test_a_lost_marker_is_an_error(self):
        self.edit("docs/architecture.md", "<!-- END GENERATED units -->", "")
        result = self.check()
        self.assertEqual(result.returncode, 2)
        self.assertIn("docs/architecture.md", result.stderr)
        self.assertIn("BEGIN GENERATED address_map inside units", result.stderr)

    def test_a_missing_generated_file_is_stale(self):
        os.remove(os.path.join(self.tmp, "spec/arch_spec.h"))
        result = self.check()
        self.assertEqual(result.returncode, 1)
        self.assertIn("gen_spec: spec/arch_spec.h is stale", result.stderr)

    def test_inconsistent_specs_are_refused(self):
        def register(doc, name):
            return next(r for r in doc["registers"] if r["name"] == name)

        def overlap(doc):
            register(doc, "CMD_MODE")["fields"][6]["bits"] = "11:5"

        def same_offset(doc):
            register(doc, "CMD_OP")["offset"] = "0x0B8"

        def misaligned(doc):
            register(doc, "CMD_OP")["offset"] = "0x0BE"

        def code_twice(doc):
            doc["error_codes"]["in_validation_order"][0]["code"] = 1

        def code_too_wide(doc):
            doc["error_codes"]["in_validation_order"][0]["code"] = 256

        def reset_too_wide(doc):
            register(doc, "HW_LATENCY")["fields"][0]["reset"] = 256

        def ro_register_rw_field(doc):
            register(doc, "ID")["fields"][0]["access"] = "RW"

        def enum_width(doc):
            doc["enums"]["opcode"]["bits"] = 3

        def unknown_name(doc):
            register(doc, "CMD_M")["fields"][0]["bits"] = "DIM_BITS-1:0"

        def reserved_overlap(doc):
            doc["reserved_offsets"][0]["first"] = "0x0BC"

        def layout(doc, name):
            return next(lay for lay in doc["descriptors"]["layouts"] if lay["name"] == name)

        def desc_overlap(doc):
            layout(doc, "dma")["fields"][-2]["bits"] = "2"  # OUT_INT32 onto SRAM

        def desc_header_word(doc):
            layout(doc, "move")["fields"][0]["word"] = 15

        def desc_opcode_without_layout(doc):
            doc["descriptors"]["layouts"] = [lay for lay in doc["descriptors"]["layouts"] if lay["name"] != "move"]

        def desc_words_overlap(doc):
            layout(doc, "set")["fields"][1]["word"] = 13  # REG into VALUE's last word

        def desc_words_past_header(doc):
            layout(doc, "set")["fields"][0]["words"] = 16  # VALUE into the header word

        def unit(doc, name):
            return next(u for u in doc["units"] if u["name"] == name)

        def unit_register_outside_block(doc):
            register(doc, "SLOPE_POS_MULT")["offset"] = "0x300"  # block 3 is softmax's

        def unit_register_read_only(doc):
            register(doc, "SLOPE_CLAMP_MAX")["access"] = "RO"  # SET writes a unit's registers whole

        def unit_busy_reserved(doc):
            unit(doc, "softmax")["present"] = True  # present, but its busy counter still reserved

        def unit_busy_missing(doc):
            del unit(doc, "requant")["perf"]

        def unit_busy_unknown(doc):
            unit(doc, "requant")["perf"] = "PERF_RQ_BUZY"

        def unit_busy_not_busy(doc):
            unit(doc, "requant")["perf"] = "PERF_CYCLES"

        def unit_kind(doc):
            unit(doc, "lut")["kind"] = "activation"

        def unit_block_twice(doc):
            unit(doc, "lut")["block"] = 3  # softmax's

        def unit_block_range(doc):
            unit(doc, "lut")["block"] = 1

        def inexact_division(doc):
            next(c for c in doc["constants"] if c["name"] == "LUT_WORD_ENTRIES")["value"] = 7

        def monitor_field_wide(doc):
            doc["monitors"][0]["fields"][0]["bits"] = 33

        def lut_sram(doc):
            return next(r for r in doc["address_map"]["regions"] if r["name"] == "lut")["sram"]

        def sram_lanes_unknown(doc):
            lut_sram(doc)["lanes"] = "LUT_WORD_ENTRYS"

        def sram_lanes_not_pow2(doc):
            lut_sram(doc)["lanes"] = "LUT_MAX_IN_BITS"  # made 6 here
            next(c for c in doc["constants"] if c["name"] == "LUT_MAX_IN_BITS")["value"] = 6

        def sram_depth_two_parameters(doc):
            lut_sram(doc)["depth"] = "ADepth * LutSlots"

        def sram_depth_no_parameter(doc):
            lut_sram(doc)["depth"] = "LUT_SLOT_WORDS"

        cases = [(overlap, "overlap another field"), (same_offset, "duplicate offset"),
                 (misaligned, "not word aligned"), (code_twice, "duplicate code"),
                 (code_too_wide, "does not fit 8 bits"), (reset_too_wide, "does not fit"),
                 (ro_register_rw_field, "RO register, RW field"),
                 (enum_width, "not as wide as the field"), (unknown_name, "unknown name DIM_BITS"),
                 (reserved_overlap, "hold register CMD_OP"),
                 (desc_overlap, "dma field OUT_INT32: bits [2:2] overlap"),
                 (desc_header_word, "word 15 is outside 0..14"),
                 (desc_opcode_without_layout, "every opcode needs one: missing MOVE"),
                 (desc_words_overlap, "set field REG: bits [11:2] overlap"),
                 (desc_words_past_header, "set field VALUE: word 15 is outside 0..14"),
                 (unit_register_outside_block, "offset 0x300 is outside block 2 of unit slope"),
                 (unit_register_read_only, "unit slope: a unit register must be RW"),
                 (unit_busy_reserved, "unit softmax: PERF_SMX_BUSY must be reserved exactly while the unit is not present"),
                 (unit_busy_missing, "unit requant: a unit has a busy counter (perf) if and only if its monitor is"),
                 (unit_busy_unknown, "unit requant: perf names no register (PERF_RQ_BUZY)"),
                 (unit_busy_not_busy, "unit requant: perf must name a PERF_<x>_BUSY register, not PERF_CYCLES"),
                 (unit_kind, "unit lut: kind must be one of"), (unit_block_twice, "a register block is given twice"),
                 (unit_block_range, "unit lut: register block must be 2..15"),
                 (monitor_field_wide, "monitor mon_q_t field d2c: width must be 1..32"),
                 (inexact_division, "constant LUT_SLOT_WORDS: 256 // 7 is not an exact division"),
                 (sram_lanes_unknown, "region lut sram: lanes must be Rows, Cols or a constant"),
                 (sram_lanes_not_pow2, "region lut sram: a fixed lane count must be a power of 2"),
                 (sram_depth_two_parameters, "depth must be a parameter or an expression of one parameter"),
                 (sram_depth_no_parameter, "depth must be a parameter or an expression of one parameter")]
        for change, message in cases:
            with self.subTest(change=change.__name__):
                result = self.check("--spec", self.spec_with(change))
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(message, result.stderr)

    def test_a_spec_change_reaches_every_file(self):
        def bump(doc):
            next(c for c in doc["constants"] if c["name"] == "VERSION_MINOR")["value"] = 2
            layouts = {layout["name"]: layout for layout in doc["descriptors"]["layouts"]}
            layouts["dma"]["fields"][0]["desc"] = "units per row"  # data_movement.md
            layouts["set"]["fields"][2]["desc"] = "registers"  # units.md (SET)
            layouts["set"]["fields"][2]["bits"] = "20:16"  # qacc_desc_fields.sv (SET's COUNT)

        result = self.check("--spec", self.spec_with(bump))
        self.assertEqual(result.returncode, 1)
        for path in self.outputs:
            self.assertIn(f"gen_spec: {path} is stale", result.stderr)


class SpecLiteralsTest(unittest.TestCase):
    def literals(self, *args):
        return subprocess.run([sys.executable, LITERALS, *args], capture_output=True, text=True)

    def test_the_tree_writes_no_spec_literal(self):
        result = self.literals()
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_literals_are_found_outside_comments_and_generated_text(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "golden"))
            os.makedirs(os.path.join(tmp, "rtl"))
            shutil.copy(os.path.join(ROOT, "rtl", "qacc_pkg.sv"), os.path.join(tmp, "rtl"))
            with open(os.path.join(tmp, "golden", "a.cc"), "w") as f:
                f.write("x = d[15] & 0xF;\ny = p[i][9];\nz = argv[i][0];  // d[3] in a comment\n"
                        "if (f.sram == 5) {}\nf.dst = 2;\nok = sram == 0 && sram_base == 5;\n"
                        "q.d2c = take(4);\nq.x = PortBits(port, lsb, 16);\n")
            with open(os.path.join(tmp, "rtl", "b.sv"), "w") as f:
                f.write("module b;\n  assign a = desc.w[9][2:0];\n  assign s = x == 3'(RegionOut);\n"
                        "  assign t = x == SRAM_ID_W'(RegionOut);\nendmodule\n")
            result = self.literals("--root", tmp)
        self.assertEqual(result.returncode, 1)
        found = [(line.split(": ")[0], line.split(": ")[1].split(" as a literal")[0])
                 for line in result.stderr.splitlines() if "as a literal" in line]
        self.assertEqual(found, [("golden/a.cc:1", "descriptor word"), ("golden/a.cc:2", "descriptor word"),
                                 ("golden/a.cc:4", "SRAM id"), ("golden/a.cc:5", "SRAM id"),
                                 ("golden/a.cc:7", "monitor width"), ("golden/a.cc:8", "monitor width"),
                                 ("rtl/b.sv:2", "descriptor word"), ("rtl/b.sv:3", "SRAM id")])


if __name__ == "__main__":
    unittest.main()
