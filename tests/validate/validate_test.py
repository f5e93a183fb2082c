#!/usr/bin/python3
"""Unit tests of scripts/validate (qacc validate): the SystemVerilog reader, the mutation operators, the
schemata writer, the coverage summary, the verdict and the yosys equivalence check. Run by CTest (labels unit,
validate): validate.unit runs every class but the yosys one (--no-yosys), validate.yosys_equivalence runs that
one (--yosys) and exits 77, skipped, when yosys is not installed."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from validate import coverage, mutants, report, rtl, sv_parse, yosys_equiv  # noqa: E402

MODULE = """// a test module
module t
  import p::*;
#(
  parameter int unsigned W = 4
) (
  input  logic         clk_i,
  input  logic [7:0]   a_i,
  input  logic [7:0]   b_i,
  output logic [7:0]   y_o,
  output logic         z_o
);
  logic [7:0] r_d, r_q;
  always_comb begin
    r_d = (a_i < b_i) ? a_i + 8'd1 : b_i[3:0] << 2;
    if (a_i[0] && !b_i[7]) begin
      r_d = 4'(a_i) - b_i;
    end
  end
  always_ff @(posedge clk_i) begin
    r_q <= r_d;
  end
  assign y_o = r_q;
  assign z_o = y_o[W-1];
`ifndef SYNTHESIS
  Check_A: assert property (@(posedge clk_i) r_q <= 8'd200);
`endif
endmodule
"""


def source():
    return sv_parse.read_source("t.sv", MODULE)


class ReaderTest(unittest.TestCase):
    def test_tokens_keep_sized_literals_and_casts_apart(self):
        texts = [t.text for t in sv_parse.tokenize("x = 32'sh8000_0000 + 6'(y) + '0 + 4'b1x0z;")]
        self.assertEqual(texts, ["x", "=", "32'sh8000_0000", "+", "6", "'", "(", "y", ")", "+", "'0", "+",
                                 "4'b1x0z", ";"])

    def test_precedence_and_spans(self):
        src = sv_parse.read_source("e.sv", "module e; assign x = a + b * c < d ? e : f; endmodule")
        (slot,) = src.slots
        tree = slot.tree
        self.assertEqual(tree.kind, "ternary")
        cond = tree.children[0]
        self.assertEqual(src.tokens[cond.op].text, "<")
        plus = cond.children[0]
        self.assertEqual(src.tokens[plus.op].text, "+")
        self.assertEqual(src.tokens[plus.children[1].op].text, "*")

    def test_slots_of_a_module(self):
        src = source()
        roles = [(s.role, s.block) for s in src.slots]
        self.assertEqual(roles, [("rhs", "always_comb"), ("cond", "always_comb"), ("rhs", "always_comb"),
                                 ("rhs", "always_ff"), ("rhs", "assign"), ("rhs", "assign")])
        self.assertTrue(all(s.tree is not None for s in src.slots))

    def test_assertions_hold_no_slot(self):
        # The assertion's r_q <= 8'd200 is not read: no slot starts after `ifndef SYNTHESIS.
        src = source()
        last_line = max(src.tokens[s.first].line for s in src.slots)
        self.assertLess(last_line, MODULE.splitlines().index("`ifndef SYNTHESIS") + 1)

    def test_unparsed_expression_is_reported_not_guessed(self):
        src = sv_parse.read_source("e.sv", "module e; assign x = a +; endmodule")
        self.assertIsNone(src.slots[0].tree)
        self.assertIn("operand", src.slots[0].error)


class OperatorTest(unittest.TestCase):
    def mutants(self, operator=None):
        return [m for m in mutants.generate([source()]) if operator is None or m.operator == operator]

    def test_constant_neighbours_wrap_in_their_width(self):
        self.assertEqual(mutants.constant_neighbours("4'd15"), ["4'd0", "4'd14"])
        self.assertEqual(mutants.constant_neighbours("8'h00"), ["8'h1", "8'hFF"])
        self.assertEqual(mutants.constant_neighbours("0"), ["1"])
        self.assertEqual(mutants.constant_neighbours("'0"), ["'1"])
        self.assertEqual(mutants.constant_neighbours("4'b1x0z"), [])

    def test_every_operator_appears_with_its_text(self):
        found = {(m.operator, m.original, m.mutated) for m in self.mutants()}
        self.assertIn(("rel", "a_i < b_i", "a_i <= b_i"), found)
        self.assertIn(("arith", "a_i + 8'd1", "a_i - 8'd1"), found)
        self.assertIn(("arith", "b_i[3:0] << 2", "b_i[3:0] >> 2"), found)
        self.assertIn(("logic", "a_i[0] && !b_i[7]", "a_i[0] || !b_i[7]"), found)
        self.assertIn(("const", "8'd1", "8'd2"), found)
        self.assertIn(("index", "a_i[0]", "a_i[(0) + 1]"), found)
        self.assertIn(("width", "b_i[3:0]", "{1'b0, b_i[(3) - 1:0]}"), found)
        self.assertIn(("width", "4'(a_i)", "4'((4 - 1)'(a_i))"), found)
        self.assertIn(("cond", "a_i[0] && !b_i[7]", "!(a_i[0] && !b_i[7])"), found)
        self.assertIn(("cond", "a_i[0] && !b_i[7]", "1'b0"), found)
        self.assertIn(("ternary", "(a_i < b_i) ? a_i + 8'd1 : b_i[3:0] << 2",
                       "(a_i < b_i) ? b_i[3:0] << 2 : a_i + 8'd1"), found)
        self.assertIn(("bypass", "r_q", "r_d"), found)
        self.assertIn(("stuck0", "r_q", "'0"), found)

    def test_no_mutant_in_constant_contexts(self):
        # Part-select bounds, cast widths and the W-1 of a select inside a declaration stay as written.
        for m in self.mutants("const"):
            self.assertNotIn(m.original, ("3", "4"), m.describe())

    def test_ids_are_dense_and_mutants_distinct(self):
        ms = self.mutants()
        self.assertEqual([m.id for m in ms], list(range(1, len(ms) + 1)))
        texts = {mutants.apply_single(MODULE, m) for m in ms}
        self.assertEqual(len(texts), len(ms))
        self.assertNotIn(MODULE, texts)

    def test_select_of_a_mutated_base_moves_up(self):
        src = sv_parse.read_source("s.sv", "module s; assign x = m[c][31:0]; endmodule")
        found = {(m.original, m.mutated) for m in mutants.generate([src], ["index"])}
        self.assertIn(("m[c][31:0]", "m[(c) + 1][31:0]"), found)


class SchemataTest(unittest.TestCase):
    def test_guards_and_selector(self):
        src = source()
        ms = mutants.generate([src])
        text, regions = mutants.schemata_text(src, ms)
        self.assertEqual(len({mid for _, _, mid in regions}), len(ms))
        for s, e, mid in regions:
            self.assertTrue(text[s:e].startswith(f"(qacc_mutant_id == {mid}) ? ("), text[s:e][:40])
        self.assertEqual(text.count('$value$plusargs("qacc_mutant=%d"'), 1)
        # The selector comes after the port list, before the first declaration.
        self.assertLess(text.index("int unsigned qacc_mutant_id"), text.index("logic [7:0] r_d"))

    @unittest.skipUnless(shutil.which("verilator"), "verilator is not installed")
    def test_schemata_of_the_rtl_lints_without_errors(self):
        # Every mutant of the RTL that lints alone, guarded in one design: no syntax or elaboration error.
        rtl_dir = os.path.join(ROOT, "rtl")
        sources = rtl.read_sources(rtl_dir)
        ms = mutants.generate(sources, ["rel", "arith", "logic", "ternary", "bypass", "cond"])
        with tempfile.TemporaryDirectory() as d:
            rtl.copy_rtl(rtl_dir, d, {s.path: mutants.schemata_text(s, [m for m in ms if m.file == s.path])[0]
                                      for s in sources})
            (config,) = rtl.read_configs(ROOT, ["default"])
            ok, messages, out = rtl.lint(d, config, extra=["-Wno-fatal", "-Wno-WIDTH", "-Wno-UNOPTFLAT"])
            self.assertEqual([str(m) for m in messages if m.severity == "Error"], [])

    @unittest.skipUnless(shutil.which("verilator"), "verilator is not installed")
    def test_guards_keep_the_original_signed(self):
        # A signed product whose assignment has a stuck-at-0 mutant: with the mutant off, the schemata must
        # multiply signed (an unsigned '0 arm would make the whole ternary unsigned). Simulated exhaustively.
        design = """module t (
  input  logic signed [3:0] a_i,
  input  logic signed [3:0] b_i,
  output logic signed [7:0] p_o
);
  always_comb begin
    p_o = a_i * b_i;
  end
endmodule
"""
        bench = """module tb;
  logic signed [3:0] a, b;
  logic signed [7:0] p;
  int bad = 0, zero = 0;
  t dut (.a_i(a), .b_i(b), .p_o(p));
  initial begin
    for (int i = -8; i < 8; i++) begin
      for (int j = -8; j < 8; j++) begin
        a = 4'(i);
        b = 4'(j);
        #1;
        if (int'(p) != i * j) bad++;
        if (p == 0) zero++;
      end
    end
    $display("bad=%0d zero=%0d", bad, zero);
    $finish;
  end
endmodule
"""
        src = sv_parse.read_source("t.sv", design)
        (stuck,) = [m for m in mutants.generate([src], ["stuck0"])]
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "t.sv"), "w") as f:
                f.write(mutants.schemata_text(src, [stuck])[0])
            with open(os.path.join(d, "tb.sv"), "w") as f:
                f.write(bench)
            subprocess.run(["verilator", "--binary", "-Wno-fatal", "--top-module", "tb", "t.sv", "tb.sv",
                            "-Mdir", "obj"], cwd=d, check=True, capture_output=True)
            runs = {mid: subprocess.run([os.path.join(d, "obj", "Vtb"), f"+qacc_mutant={mid}"], cwd=d,
                                        check=True, capture_output=True, text=True).stdout
                    for mid in (0, stuck.id)}
        self.assertIn("bad=0 zero=31", runs[0])           # 31 of 256 products are 0: a or b is 0
        self.assertIn("bad=225 zero=256", runs[stuck.id])  # the mutant: every product 0


DAT = """# SystemC::Coverage-3
C '\x01t\x02line\x01page\x02v_line/t\x01f\x02/x/t.sv\x01l\x0215\x01n\x020\x01S\x0215-16\x01o\x02block\x01h\x02TOP.t' 4
C '\x01t\x02line\x01page\x02v_line/t\x01f\x02/x/t.sv\x01l\x0218\x01n\x021\x01o\x02if\x01h\x02TOP.t' 0
C '\x01t\x02line\x01page\x02v_line/t\x01f\x02/x/t.sv\x01l\x0218\x01n\x021\x01o\x02if\x01h\x02TOP.t2' 0
C '\x01t\x02toggle\x01page\x02v_toggle/t\x01f\x02/x/t.sv\x01l\x0213\x01n\x023\x01o\x02r_q[0]\x01h\x02TOP.t' 0
C '\x01t\x02toggle\x01page\x02v_toggle/t\x01f\x02/x/t.sv\x01l\x0213\x01n\x024\x01o\x02r_q[0]\x01h\x02TOP.t2' 2
"""


class CoverageTest(unittest.TestCase):
    def test_summary_merges_instances(self):
        with tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False, encoding="latin-1") as f:
            f.write(DAT)
        try:
            summary = coverage.summarize(coverage.read_points(f.name))
        finally:
            os.remove(f.name)
        s = summary["t.sv"]
        self.assertEqual((s["line_hit"], s["line_points"]), (1, 2))
        self.assertEqual((s["toggle_hit"], s["toggle_points"]), (1, 1))  # hit in one of two instances
        self.assertEqual(s["uncovered_lines"], [18])
        self.assertEqual(s["covered_lines"], [15, 16])

    def test_lost_lines_follow_moved_code(self):
        base_text = "a\nb\nc\n"
        head_text = "new\na\nb\nc\n"  # a line inserted above: b moved from 2 to 3
        base = {"f.sv": {"covered_lines": [2], "uncovered_lines": [], "line_points": 1}}
        head = {"f.sv": {"covered_lines": [], "uncovered_lines": [3], "line_points": 1}}
        self.assertEqual(coverage.lost_lines(base, head, {"f.sv": base_text}, {"f.sv": head_text}),
                         [("f.sv", 3, "b")])
        head_new_only = {"f.sv": {"covered_lines": [], "uncovered_lines": [1], "line_points": 1}}
        self.assertEqual(coverage.lost_lines(base, head_new_only, {"f.sv": base_text}, {"f.sv": head_text}), [])


class VerdictTest(unittest.TestCase):
    def doc(self, step_status="pass", score=96.0, line=80.0):
        return {"steps": [{"name": "lint", "status": step_status}], "mutation": {"score": score},
                "coverage": {"totals": {"line_percent": line}}}

    def test_thresholds(self):
        self.assertTrue(report.verdict(self.doc(), 95, 80))
        self.assertFalse(report.verdict(self.doc(score=94.9), 95, None))
        self.assertFalse(report.verdict(self.doc(line=79.9), None, 80))
        self.assertFalse(report.verdict(self.doc(step_status="fail"), None, None))
        self.assertTrue(report.verdict(self.doc(step_status="skipped"), None, None))
        self.assertFalse(report.verdict({"steps": []}, 50, None))  # a score never measured misses its threshold

    def test_unbuildable_counted_by_first_lint_message(self):
        from validate.main import lint_classes
        records = [{"status": "unbuildable", "lint": "default: %Warning-UNUSEDSIGNAL: t.sv:3: x is not used"},
                   {"status": "unbuildable", "lint": "rect_4x16: %Warning-WIDTH: t.sv:9: ..."},
                   {"status": "unbuildable", "lint": "default: %Warning-UNUSEDSIGNAL: t.sv:4: y is not used"},
                   {"status": "unbuildable", "lint": "default: %Error: t.sv:5: syntax error"},
                   {"status": "killed"}]
        self.assertEqual(lint_classes(records), {"UNUSEDSIGNAL": 2, "WIDTH": 1, "error": 1})


CLAMP = """module qacc_clamp (
  input  logic signed [32:0] value_i,
  input  logic signed [31:0] min_i,
  input  logic signed [31:0] max_i,
  output logic signed [31:0] value_o
);
  always_comb begin
    if (value_i < 33'(min_i)) value_o = min_i;
    else if (value_i > 33'(max_i)) value_o = max_i;
    else value_o = value_i[31:0];
  end
endmodule
"""

CLAMP_Q = """// The clamp, registered, with an asynchronous reset and an assertion yosys does not read (-DSYNTHESIS).
module clamp_q (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic signed [32:0] value_i,
  input  logic signed [31:0] min_i,
  input  logic signed [31:0] max_i,
  output logic signed [31:0] value_q
);
  logic signed [31:0] value_d;
  always_comb begin
    if (value_i < 33'(min_i)) value_d = min_i;
    else if (value_i > 33'(max_i)) value_d = max_i;
    else value_d = value_i[31:0];
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) value_q <= '0;
    else value_q <= value_d;
  end
`ifndef SYNTHESIS
  Bounded: assert property (@(posedge clk_i) disable iff (!rst_ni) value_q <= max_i || value_q >= min_i);
`endif
endmodule
"""


class YosysEquivalenceTest(unittest.TestCase):
    def setUp(self):
        if shutil.which("yosys") is None:
            self.skipTest("yosys is not installed (scripts/setup.sh installs it)")

    def check(self, original, old, new, name="m.sv"):
        mutated = original.replace(old, new, 1)
        self.assertNotEqual(mutated, original)
        with tempfile.TemporaryDirectory() as d:
            dirs = [os.path.join(d, "orig"), os.path.join(d, "mut")]
            for directory, text in zip(dirs, (original, mutated)):
                os.makedirs(directory)
                with open(os.path.join(directory, name), "w") as f:
                    f.write(text)
            result = yosys_equiv.check(dirs[0], dirs[1], name, timeout_s=60)
            for directory in dirs:  # yosys ran elsewhere: nothing beside the source
                self.assertEqual(os.listdir(directory), [name])
        return result

    def test_clamp_bound_tie_is_proven(self):
        # At value == max the upper bound is the value itself, whichever branch takes it.
        r = self.check(CLAMP, "value_i > 33'(max_i)", "value_i >= 33'(max_i)")
        self.assertEqual(r.verdict, "equivalent", r.detail)
        self.assertIn("equiv_make/equiv_simple/equiv_induct proved module qacc_clamp", r.detail)

    def test_clamp_lower_tie_differs_when_min_exceeds_max(self):
        # < -> <= is equivalent only while min_i <= max_i: at value == min > max the original gives max_i and
        # the mutant min_i. SAT finds it; the verdict is still only "unproven".
        r = self.check(CLAMP, "value_i < 33'(min_i)", "value_i <= 33'(min_i)")
        self.assertEqual(r.verdict, "unproven", r.detail)
        self.assertIn("miter/sat: outputs differ at", r.detail)

    def test_clamp_real_change_is_unproven(self):
        r = self.check(CLAMP, "value_i < 33'(min_i)", "value_i > 33'(min_i)")
        self.assertEqual(r.verdict, "unproven", r.detail)
        self.assertIn("$equiv cells unproven", r.detail)

    def test_registered_clamp(self):
        r = self.check(CLAMP_Q, "value_i > 33'(max_i)", "value_i >= 33'(max_i)")
        self.assertEqual(r.verdict, "equivalent", r.detail)
        self.assertIn("registers paired by name", r.detail)
        for old, new in (("value_i < 33'(min_i)", "value_i > 33'(min_i)"),  # the next state
                         ("value_q <= '0", "value_q <= '1")):                 # the reset value
            r = self.check(CLAMP_Q, old, new)
            self.assertEqual(r.verdict, "unproven", (new, r.detail))
            self.assertIn("$equiv cells unproven", r.detail)

    def test_combinational_miter_sees_past_internal_nets(self):
        # t differs but y does not: equiv_make's cut at t stays unproven, the miter of the outputs proves it.
        design = """module n (
  input  logic a_i,
  input  logic b_i,
  input  logic c_i,
  output logic y_o
);
  logic t;
  always_comb begin
    t = a_i & b_i;
    y_o = t & c_i;
  end
endmodule
"""
        r = self.check(design, "t = a_i & b_i;", "t = a_i & b_i & c_i;")
        self.assertEqual(r.verdict, "equivalent", r.detail)
        self.assertIn("miter/sat proved module n", r.detail)

    def test_package_parameters_and_instances_are_not_checked(self):
        r = self.check(MODULE, "a_i < b_i", "a_i <= b_i", "t.sv")
        self.assertEqual(r, yosys_equiv.Result("unreadable", "uses package p (yosys reads this file alone)"))
        param = CLAMP.replace("module qacc_clamp (", "module qacc_clamp #(\n  parameter int W = 32\n) (")
        r = self.check(param, "value_i > 33'(max_i)", "value_i >= 33'(max_i)")
        self.assertEqual(r.verdict, "unreadable")
        self.assertIn("has parameters (a proof would hold at their defaults only)", r.detail)
        top = "module top (\n  input logic a_i,\n  output logic y_o\n);\n  leaf u (.a_i(a_i), .y_o(y_o));\nendmodule\n"
        r = self.check(top, "(a_i)", "(!a_i)")
        self.assertEqual(r, yosys_equiv.Result("unreadable",
                                               "instantiates module leaf (only leaf modules are checked)"))

    def test_a_construct_yosys_rejects_is_unreadable_with_its_error(self):
        # int'() casts: yosys 0.23 stops at them (qacc_sram.sv, qacc_sram_win.sv).
        design = CLAMP.replace("value_o = value_i[31:0];", "value_o = int'(value_i[31:0]);")
        r = self.check(design, "value_i > 33'(max_i)", "value_i >= 33'(max_i)")
        self.assertEqual(r.verdict, "unreadable", r.detail)
        self.assertIn("ERROR", r.detail)
        # A mutant yosys rejects, of an original it reads: unproven.
        r = self.check(CLAMP, "value_o = value_i[31:0];", "value_o = int'(value_i[31:0]);")
        self.assertEqual(r.verdict, "unproven", r.detail)
        self.assertIn("yosys cannot read the mutant", r.detail)


class CliTest(unittest.TestCase):
    def run_validate(self, *args):
        return subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "qacc_validate.py"), *args],
                              capture_output=True, text=True)

    def test_bad_input_is_a_usage_error_naming_the_field(self):
        for args, needle in ((["--seeds", "0"], "--seeds: 0 is out of range; allowed 1..1000"),
                             (["--jobs", "65"], "--jobs: 65 is out of range; allowed 1..64"),
                             (["--configs", "nope"], "--configs: unknown config 'nope'"),
                             (["--suites", "x"], "--suites: unknown suite 'x'"),
                             (["--operators", "swap"], "--operators: unknown operator 'swap'"),
                             (["--min-mutation-score", "101"], "--min-mutation-score: 101.0 is out of range"),
                             (["--skip", "build"], "--skip: unknown step 'build'"),
                             (["--base", "no-such-revision"], "--base: 'no-such-revision' is not a commit"),
                             (["-o", "/nonexistent/dir/x.json"], "--output: /nonexistent/dir/x.json cannot be"),
                             (["--json", "x.json"], "--json takes no file: it prints JSON; --json -o FILE"),
                             (["--list-mutants", "--json"], "--list-mutants prints the mutants and stops"),
                             (["--ids", "5-3"], "--ids: '5-3' is not a mutant number or range N-M (N <= M)"),
                             (["--ids", "x"], "--ids: 'x' is not a mutant number"),
                             (["--ids", "0"], "--ids: 0 is out of range; allowed 1..100000"),
                             (["--ids", "99999", "--list-mutants"], "--ids: no mutant 99999 (the RTL has")):
            p = self.run_validate(*args)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn(needle, p.stderr, args)

    def test_json_prints_json_and_output_writes_a_file_as_in_every_subcommand(self):
        # README: every subcommand but regress prints one JSON document with --json and writes to a file
        # with -o (issue 37: validate --json took a file). Every step skipped: only the report is made.
        with tempfile.TemporaryDirectory() as tmp:
            base = ["--skip", "lint,unit,regression,mutation", "--work", os.path.join(tmp, "work")]
            p = self.run_validate(*base, "--json")
            self.assertEqual(p.returncode, 0, p.stderr)
            doc = json.loads(p.stdout)
            self.assertEqual([step["status"] for step in doc["steps"]], ["skipped"] * 4)
            text = self.run_validate(*base)
            self.assertIn("qacc validate: PASS", text.stdout)
            out = os.path.join(tmp, "v.json")
            p = self.run_validate(*base, "--json", "-o", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stdout, "")
            with open(out) as f:
                self.assertEqual(json.load(f)["steps"], doc["steps"])
            p = self.run_validate(*base, "-o", out)
            self.assertEqual(p.stdout, "")
            with open(out) as f:
                self.assertIn("qacc validate: PASS", f.read())

    def test_ids_select_mutants_by_number(self):
        p = self.run_validate("--ids", "3,7-9", "--list-mutants")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([int(line.split()[0]) for line in p.stdout.splitlines()], [3, 7, 8, 9])
        self.assertIn("mutants 3,7-9", p.stderr)

    def test_list_mutants(self):
        p = self.run_validate("--all", "--list-mutants", "--operators", "rel")
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertTrue(lines and all("[rel]" in line for line in lines))


if __name__ == "__main__":
    # CTest runs the yosys class apart, so that without yosys it is reported skipped (77, SKIP_RETURN_CODE).
    if sys.argv[1:2] == ["--yosys"]:
        if shutil.which("yosys") is None:
            print("skipped: yosys is not installed (scripts/setup.sh installs it)")
            sys.exit(77)
        sys.argv[1:2] = ["YosysEquivalenceTest"]
    elif sys.argv[1:2] == ["--no-yosys"]:
        sys.argv[1:2] = [name for name, value in list(globals().items()) if isinstance(value, type) and
                         issubclass(value, unittest.TestCase) and value is not YosysEquivalenceTest]
    unittest.main()
