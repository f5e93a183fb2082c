#!/usr/bin/python3
"""Unit tests of scripts/validate (qacc validate): the SystemVerilog reader, the mutation operators, the
schemata writer, the coverage summary, the verdict and the yosys equivalence check. Run by CTest (labels unit,
validate): validate.unit runs every class but the yosys one (--no-yosys), validate.yosys_equivalence runs that
one (--yosys) and exits 77, skipped, when yosys is not installed."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from validate import coverage, main, mutants, record, report, rtl, schemata, sv_parse, yosys_equiv  # noqa: E402

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

    def test_a_looser_replacement_keeps_its_meaning_alone(self):
        # a && b inside a && b && c swapped to || is (a || b) && c, as the schemata's guard computes it; without
        # the parentheses the mutant alone (what lint and the equivalence check read) would be a || (b && c).
        text = "module p;\n  assign y = a && b && c;\n  assign z = a * b * c;\nendmodule\n"
        src = sv_parse.read_source("p.sv", text)
        found = {mutated_line(text, m) for m in mutants.generate([src], ["logic", "arith"])}
        self.assertIn("assign y = (a || b) && c;", found)
        self.assertIn("assign y = a && b || c;", found)  # the top node: nothing binds it
        self.assertIn("assign z = (a + b) * c;", found)

    def test_select_of_a_mutated_base_moves_up(self):
        src = sv_parse.read_source("s.sv", "module s; assign x = m[c][31:0]; endmodule")
        found = {(m.original, m.mutated) for m in mutants.generate([src], ["index"])}
        self.assertIn(("m[c][31:0]", "m[(c) + 1][31:0]"), found)


# The operators of realistic slips (order, term, sum, swapsig): a chain of three branches, a three-term && chain,
# a three-term sum beside a two-term one, and signals of a few types and kinds.
SLIPS = """module s (
  input  logic       clk_i,
  input  logic       a_i,
  input  logic       b_i,
  input  logic       c_i,
  input  logic [7:0] x_i,
  input  logic [7:0] y_i,
  output logic [7:0] r_o
);
  logic [7:0] acc_d, acc_q, sum2;
  always_comb begin
    sum2  = x_i + y_i;
    acc_d = acc_q + x_i - y_i;
    if (a_i && b_i && c_i) acc_d = x_i;
    else if (b_i || c_i) acc_d = y_i;
    else if (a_i) acc_d = sum2;
    else acc_d = acc_q;
  end
  always_ff @(posedge clk_i) acc_q <= acc_d;
  assign r_o = acc_q;
endmodule
"""


def slips(operator, text=SLIPS):
    src = sv_parse.read_source("s.sv", text)
    return src, [m for m in mutants.generate([src]) if m.operator == operator]


def mutated_line(text, mutant):
    """The line of the mutant's first edit in the mutated text, stripped."""
    line = text.count("\n", 0, mutant.edits[0].start)
    return mutants.apply_single(text, mutant).splitlines()[line].strip()


class SlipOperatorTest(unittest.TestCase):
    def test_order_swaps_each_adjacent_pair_of_a_chain(self):
        _, ms = slips("order")
        self.assertEqual([mutated_line(SLIPS, m) for m in ms],
                         ["if ((a_i && b_i && c_i) && !(b_i || c_i)) acc_d = x_i;",
                          "else if ((b_i || c_i) && !(a_i)) acc_d = y_i;"])  # not (a_i, else): cond's stuck-at

    def test_order_links_only_else_if(self):
        # An if inside an else block, and two ifs in a row, are not chains.
        text = SLIPS.replace("else if (a_i) acc_d = sum2;", "else begin if (a_i) acc_d = sum2; end")
        _, ms = slips("order", text)
        self.assertEqual(len(ms), 1)
        chains = [s for s in sv_parse.read_source("s.sv", text).slots if s.role == "cond" and s.else_if]
        self.assertEqual(len(chains), 1)

    def test_term_drops_one_term_of_each_chain(self):
        _, ms = slips("term")
        conds = sorted(mutated_line(SLIPS, m) for m in ms)
        self.assertEqual(conds, sorted(["if (a_i && b_i) acc_d = x_i;",  # the top node without c_i
                                        "if (a_i && c_i) acc_d = x_i;",  # a_i && b_i -> a_i
                                        "if (b_i && c_i) acc_d = x_i;",  # a_i && b_i -> b_i
                                        "else if (b_i) acc_d = y_i;",
                                        "else if (c_i) acc_d = y_i;"]))  # never c_i alone: two terms dropped

    def test_term_leaves_bitwise_operators(self):
        _, ms = slips("term", SLIPS.replace("a_i && b_i && c_i", "a_i & b_i"))
        self.assertTrue(all("&" not in m.original or "&&" in m.original for m in ms))

    def test_sum_drops_each_update_after_the_base(self):
        _, ms = slips("sum")
        self.assertEqual(sorted(mutated_line(SLIPS, m) for m in ms),
                         ["acc_d = acc_q + x_i;", "acc_d = acc_q - y_i;"])  # sum2 = x_i + y_i: two terms, none

    def test_sum_on_four_terms(self):
        src = sv_parse.read_source("f.sv", "module f; assign y = a - b + c + d; endmodule")
        found = sorted(mutants.apply_single(src.text, m) for m in mutants.generate([src], ["sum"]))
        self.assertEqual([t.split("= ")[1].split(";")[0] for t in found], ["a + c + d", "a - b + c", "a - b + d"])

    def test_swapsig_keeps_type_and_kind(self):
        _, ms = slips("swapsig")
        pairs = {(m.original, m.mutated) for m in ms}
        # Inputs for inputs of their type, variables for variables: acc_q's neighbours are acc_d and sum2.
        self.assertIn(("x_i", "y_i"), pairs)
        self.assertIn(("acc_q", "acc_d"), pairs)
        self.assertIn(("acc_q", "sum2"), pairs)
        self.assertIn(("a_i", "b_i"), pairs)
        for original, new in pairs:
            self.assertNotIn(new, ("clk_i", "r_o"))  # a clock is no data; an output is another kind
            self.assertNotEqual(original, new)
            self.assertEqual(original.endswith("_i"), new.endswith("_i"), (original, new))
        # acc_q read in the register's own load (acc_q <= acc_d reads acc_d): acc_d -> acc_q or sum2.
        self.assertIn(("acc_d", "sum2"), pairs)

    def test_swapsig_samples_at_most_k_per_site_and_is_stable(self):
        decls = "".join(f"  logic [3:0] v{i};\n" for i in range(12))
        text = f"module k (\n  output logic [3:0] y_o\n);\n{decls}  assign y_o = v0 + v1;\nendmodule\n"
        runs = [[(m.line, m.col, m.mutated) for m in mutants.generate([sv_parse.read_source("k.sv", text)],
                                                                      ["swapsig"])] for _ in range(2)]
        self.assertEqual(runs[0], runs[1])
        per_site = {}
        for line, col, new in runs[0]:
            per_site.setdefault((line, col), []).append(new)
        self.assertEqual(len(per_site), 2)
        for site, news in per_site.items():
            self.assertEqual(len(news), mutants.SWAPSIG_PER_SITE, site)

    def test_swapsig_skips_parameters_loop_variables_and_enum_values(self):
        text = """module p #(
  parameter int unsigned N = 4
) (
  input  logic [3:0] a_i,
  input  logic [3:0] b_i,
  output logic [3:0] y_o
);
  always_comb begin
    y_o = a_i;
    for (int i = 0; i < 4; i++) begin
      y_o[i] = y_o[i] ^ (N > i) ^ (StIdle == a_i[0]);
    end
  end
endmodule
"""
        src = sv_parse.read_source("p.sv", text)
        # Only a_i is swapped (with b_i); a select of it moves up whole (SystemVerilog selects no parenthesis).
        self.assertEqual({(m.original, m.mutated) for m in mutants.generate([src], ["swapsig"])},
                         {("a_i", "b_i"), ("a_i[0]", "b_i[0]")})

    def test_lint_sinks_are_not_mutated_and_a_read_unused_signal_is(self):
        text = """module k (input logic a_i, input logic b_i, output logic r_o);
  logic unused_x, unused_y;
  assign unused_x = ^{a_i, b_i};
  always_comb begin
    unused_y = a_i;
    unused_y ^= b_i;
  end
  assign r_o = unused_y;
endmodule
"""
        src = sv_parse.read_source("k.sv", text)
        self.assertEqual(mutants.lint_sinks(src), {"unused_x"})
        lines = {m.line for m in mutants.generate([src])}
        self.assertNotIn(3, lines)  # unused_x's assignment
        self.assertTrue({5, 6} <= lines)  # unused_y is read by r_o: an ordinary signal

    def test_new_operators_keep_older_names_on_identical_edits(self):
        # acc_q <= acc_d loads from one signal: reads of acc_q may be bypassed; a swapsig acc_q -> acc_d of the
        # one read site would be the same edit, and keeps the name bypass.
        text = SLIPS.replace("acc_d = acc_q + x_i - y_i;", "acc_d = x_i;").replace("else acc_d = acc_q;",
                                                                                    "else acc_d = y_i;")
        ms = mutants.generate([sv_parse.read_source("s.sv", text)])
        keys = [tuple((e.start, e.end, e.text) for e in m.edits) for m in ms]
        self.assertEqual(len(keys), len(set(keys)))
        self.assertIn(("bypass", "acc_q", "acc_d"), {(m.operator, m.original, m.mutated) for m in ms})


class DeclarationTest(unittest.TestCase):
    def decls(self, text):
        src = sv_parse.read_source("d.sv", text)
        return src, {(d.name, d.kind, d.type_text + d.unpacked) for d in src.decls}

    def test_ports_variables_and_functions(self):
        src, found = self.decls(MODULE)
        self.assertTrue({("clk_i", "event", "logic"), ("a_i", "input", "logic[7:0]"), ("y_o", "output", "logic[7:0]"),
                         ("r_d", "var", "logic[7:0]"), ("r_q", "var", "logic[7:0]"), ("W", "param", "")} <= found)
        self.assertEqual(src.decl_errors, [])
        text = """module f #(
  parameter int unsigned W = 4,
  localparam int unsigned L = W * 2
) (
  input  logic [W-1:0] a_i, b_i,
  output desc_t        d_o
);
  typedef struct packed { logic [3:0] inner; } s_t;
  s_t s;
  logic [7:0] mem_q [4];
  localparam int unsigned T [2] = '{1, 2};
  function automatic logic [3:0] g(logic [3:0] p, logic q);
    logic [3:0] t;
    t = p;
    return q ? t : '0;
  endfunction
  for (genvar k = 0; k < 2; k++) begin : gen
    logic w;
    assign w = a_i[k];
  end
  always_comb begin
    logic [3:0] local_v;
    local_v = a_i;
  end
endmodule
"""
        src, found = self.decls(text)
        self.assertEqual(src.decl_errors, [])
        self.assertTrue({("a_i", "input", "logic[W-1:0]"), ("b_i", "input", "logic[W-1:0]"),  # inherited
                         ("d_o", "output", "desc_t"), ("s", "var", "s_t"), ("mem_q", "var", "logic[7:0][4]"),
                         ("L", "param", ""), ("T", "param", ""), ("p", "argument", "logic[3:0]"),
                         ("q", "argument", "logic"), ("t", "function var", "logic[3:0]"), ("k", "loop", ""),
                         ("w", "var", "logic"), ("local_v", "var", "logic[3:0]")} <= found, found)
        self.assertNotIn("inner", {name for name, _, _ in found})  # a struct field is no signal
        # Scopes: w is visible in its generate block only, local_v in its always block only.
        w = next(d for d in src.decls if d.name == "w")
        self.assertIsNone(src.resolve("w", w.scope[1] + 1))

    def test_a_declaration_not_read_is_counted_and_hides_its_scope(self):
        # An old-style function (arguments declared in its body) is not read: inside it no read is resolved,
        # since its own declarations might hide the module's names.
        text = """module o (
  input  logic a_i,
  input  logic b_i,
  output logic y_o,
  output logic z_o
);
  function automatic logic f;
    input logic a_i;
    return a_i;
  endfunction
  assign y_o = a_i;
  assign z_o = f(b_i);
endmodule
"""
        src = sv_parse.read_source("o.sv", text)
        self.assertEqual(len(src.decl_errors), 2, src.decl_errors)
        ms = mutants.generate([src], ["swapsig"])
        self.assertEqual({(m.line, m.original, m.mutated) for m in ms}, {(11, "a_i", "b_i")})


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
        ms = mutants.generate(sources, ["rel", "arith", "logic", "ternary", "bypass", "cond", "order", "term", "sum",
                                        "swapsig"])
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

    @unittest.skipUnless(shutil.which("verilator"), "verilator is not installed")
    def test_schemata_selects_exactly_each_mutant(self):
        # Every mutant of a small design (the slip operators beside the others, guards nested in guards: an order
        # edit and cond's on one span, term edits inside it), simulated over all 512 inputs: the schemata with
        # mutant N selected computes what mutant N alone computes, and with 0 what the original does.
        design = """module s (
  input  logic       a_i,
  input  logic       b_i,
  input  logic       c_i,
  input  logic [2:0] x_i,
  input  logic [2:0] y_i,
  output logic [2:0] r_o
);
  logic [2:0] t, u;
  always_comb begin
    t = x_i + y_i - {2'b0, c_i};
    u = y_i ^ x_i;
    if (a_i && b_i && c_i) r_o = x_i;
    else if (b_i || c_i) r_o = t;
    else if (a_i) r_o = u;
    else r_o = y_i;
  end
endmodule
"""
        src = sv_parse.read_source("s.sv", design)
        ms = mutants.generate([src])
        self.assertTrue({"order", "term", "sum", "swapsig"} <= {m.operator for m in ms})
        ports = ".a_i(a), .b_i(b), .c_i(c), .x_i(x), .y_i(y)"
        alone = "".join(f"  s_m{m.id} m{m.id} ({ports}, .r_o(want[{m.id}]));\n" for m in ms)
        bench = f"""module tb;
  logic a, b, c;
  logic [2:0] x, y, got;
  logic [{len(ms)}:0][2:0] want;  // 0: the original; N: mutant N alone
  int unsigned sel;
  int bad = 0;
  s dut ({ports}, .r_o(got));
  s_m0 m0 ({ports}, .r_o(want[0]));
{alone}  initial begin
    if (!$value$plusargs("qacc_mutant=%d", sel)) sel = 0;
    for (int i = 0; i < 512; i++) begin
      {{a, b, c, x, y}} = 9'(i);
      #1;
      if (got !== want[sel]) bad++;
    end
    $display("bad=%0d", bad);
    $finish;
  end
endmodule
"""
        with tempfile.TemporaryDirectory() as d:
            files = {"s.sv": mutants.schemata_text(src, ms)[0], "s_m0.sv": design.replace("module s ", "module s_m0 "),
                     "tb.sv": bench}
            for m in ms:
                files[f"s_m{m.id}.sv"] = mutants.apply_single(design, m).replace("module s ", f"module s_m{m.id} ")
            for name, text in files.items():
                with open(os.path.join(d, name), "w") as f:
                    f.write(text)
            subprocess.run(["verilator", "--binary", "-Wno-fatal", "--top-module", "tb", *sorted(files), "-Mdir",
                            "obj"], cwd=d, check=True, capture_output=True)
            for mid in [0] + [m.id for m in ms]:
                out = subprocess.run([os.path.join(d, "obj", "Vtb"), f"+qacc_mutant={mid}"], cwd=d, check=True,
                                     capture_output=True, text=True).stdout
                self.assertIn("bad=0", out, f"mutant {mid}")


DAT = """# SystemC::Coverage-3
C '\x01t\x02line\x01page\x02v_line/t\x01f\x02/x/t.sv\x01l\x0215\x01n\x020\x01S\x0215-16\x01o\x02block\x01h\x02TOP.t' 4
C '\x01t\x02line\x01page\x02v_line/t\x01f\x02/x/t.sv\x01l\x0218\x01n\x021\x01o\x02if\x01h\x02TOP.t' 0
C '\x01t\x02line\x01page\x02v_line/t\x01f\x02/x/t.sv\x01l\x0218\x01n\x021\x01o\x02if\x01h\x02TOP.t2' 0
C '\x01t\x02toggle\x01page\x02v_toggle/t\x01f\x02/x/t.sv\x01l\x0213\x01n\x023\x01o\x02r_q[0]\x01h\x02TOP.t' 0
C '\x01t\x02toggle\x01page\x02v_toggle/t\x01f\x02/x/t.sv\x01l\x0213\x01n\x024\x01o\x02r_q[0]\x01h\x02TOP.t2' 2
"""


class LoopCheckFake:
    """Loops where the design's lint would find them: a group holding every mutant of one of `cycles`."""

    def __init__(self, cycles):
        self.cycles, self.asked = cycles, 0

    def loops(self, group):
        self.asked += 1
        ids = {m.id for m in group}
        return next((f"UNOPTFLAT {sorted(c)}" for c in self.cycles if c <= ids), "")


class SchemataSplitTest(unittest.TestCase):
    def mutants_of(self, n, reading):
        return [mutants.Mutant(i, f"f{i % 3}.sv", i, 1, "swapsig" if i in reading else "rel", "a", "b")
                for i in range(1, n + 1)]

    def test_no_group_closes_a_loop_and_every_mutant_is_placed_once(self):
        ms = self.mutants_of(40, reading=set(range(20, 41)))
        cycles = [{21, 24}, {22, 30, 38}, {25, 26}, {25, 33}, {40}]
        check = LoopCheckFake(cycles)
        groups, alone = schemata.loop_free_groups(ms, check)
        self.assertEqual([(m.id, why) for m, why in alone], [(40, "UNOPTFLAT [40]")])
        placed = sorted(m.id for g in groups for m in g)
        self.assertEqual(placed, list(range(1, 40)))
        for g in groups:
            self.assertEqual(check.loops(g), "", [m.id for m in g])
            self.assertEqual([m.id for m in g], sorted(m.id for m in g))
        # First fit keeps the count small: the mutants reading nothing new share the first group.
        self.assertLessEqual(len(groups), 3)
        self.assertTrue(set(range(1, 20)) <= {m.id for m in groups[0]})

    def test_without_loops_one_group(self):
        ms = self.mutants_of(12, reading={3, 7})
        groups, alone = schemata.loop_free_groups(ms, LoopCheckFake([]))
        self.assertEqual(([[m.id for m in g] for g in groups], alone), ([list(range(1, 13))], []))


class KillOrderTest(unittest.TestCase):
    def test_killers_of_the_same_file_and_config_go_first(self):
        baseline = {"default": ["cheap", "mid", "dear"], "tall": ["cheap", "dear"]}
        kill = lambda f, c, t: {"status": "killed", "file": f, "killed_by": {"config": c, "test": t}}
        order = main.KillOrder(baseline, [kill("a.sv", "default", "dear"), {"status": "survived", "file": "a.sv"},
                                          {"status": "killed", "file": "a.sv", "killed_by": {"config": "default"}}])
        self.assertEqual(order.order("a.sv", "default"), ["dear", "cheap", "mid"])
        self.assertEqual(order.order("b.sv", "default"), ["cheap", "mid", "dear"])  # another file: the baseline
        self.assertEqual(order.order("a.sv", "tall"), ["cheap", "dear"])  # another config: the baseline
        order.add(kill("a.sv", "default", "mid"))
        order.add(kill("a.sv", "default", "mid"))
        self.assertEqual(order.order("a.sv", "default"), ["mid", "dear", "cheap"])  # most kills first
        self.assertEqual(baseline["default"], ["cheap", "mid", "dear"])  # the baseline is not reordered


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


class RecordTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, record.FILE_NAME)

    def tearDown(self):
        self.tmp.cleanup()

    def test_verdicts_survive_a_reload_and_a_later_line_wins(self):
        rec = record.MutationRecord.create(self.path, ["--all"], {"rtl/a.sv": "1"})
        rec.add_baseline({"default": ["t1", "t0"]}, 12.5)
        rec.add_verdict("regression", {"id": 3, "status": "survived"})
        rec.add_verdict("regression", {"id": 4, "status": "killed", "killed_by": {"test": "t1", "seed": 2}})
        rec.add_verdict("equivalence", {"id": 3, "status": "equivalent"})
        loaded = record.MutationRecord.load(self.path)
        self.assertEqual(loaded.arguments, ["--all"])
        self.assertEqual(loaded.baseline, {"order": {"default": ["t1", "t0"]}, "timeout": 12.5})
        self.assertEqual(loaded.verdicts["regression"][4]["killed_by"], {"test": "t1", "seed": 2})
        self.assertEqual(loaded.verdicts["equivalence"][3]["status"], "equivalent")
        self.assertEqual(loaded.finished(), {3, 4})
        self.assertFalse(loaded.complete)
        loaded.mark_complete()
        self.assertTrue(record.MutationRecord.load(self.path).complete)

    def test_a_torn_last_line_is_dropped_and_cut_off(self):
        rec = record.MutationRecord.create(self.path, [], {})
        rec.add_verdict("regression", {"id": 1, "status": "killed"})
        with open(self.path, "a") as f:
            f.write('{"type": "mutant", "phase": "regression", "record": {"id": 2, "sta')  # killed mid-write
        loaded = record.MutationRecord.load(self.path)
        self.assertEqual(loaded.finished(), {1})
        loaded.add_verdict("regression", {"id": 2, "status": "survived"})  # appended after the cut: whole
        self.assertEqual(record.MutationRecord.load(self.path).finished(), {1, 2})

    def test_a_damaged_record_or_none_is_refused(self):
        with self.assertRaisesRegex(record.RecordError, "does not exist: no interrupted mutation analysis"):
            record.MutationRecord.load(self.path)
        rec = record.MutationRecord.create(self.path, [], {})
        rec.add_verdict("regression", {"id": 1, "status": "killed"})
        with open(self.path) as f:
            lines = f.readlines()
        with open(self.path, "w") as f:
            f.writelines([lines[0], "garbage\n", lines[1]])
        with self.assertRaisesRegex(record.RecordError, "line 2 is not a JSON object: the record is damaged"):
            record.MutationRecord.load(self.path)
        with open(self.path, "w") as f:
            f.write('{"type": "mutant"}\n')
        with self.assertRaisesRegex(record.RecordError, "line 1 is not the header"):
            record.MutationRecord.load(self.path)

    def test_a_different_key_is_refused_naming_what_differs(self):
        rec = record.MutationRecord.create(self.path, [], {"rtl/a.sv": "1" * 64, "mutants": "5 mutants", "x": "s"})
        rec.check({"rtl/a.sv": "1" * 64, "mutants": "5 mutants", "x": "s"})
        with self.assertRaises(record.RecordError) as e:
            rec.check({"rtl/a.sv": "2" * 64, "mutants": "6 mutants", "x": "s", "rtl/b.sv": "3" * 64})
        message = str(e.exception)
        self.assertIn(f"rtl/a.sv: recorded {'1' * 16}, now {'2' * 16}", message)
        self.assertIn("mutants: recorded 5 mutants, now 6 mutants", message)
        self.assertIn("rtl/b.sv: recorded none, now", message)
        self.assertNotIn("x:", message)
        # The schemata's key: recorded by the first session, checked by the next.
        rec.check_schemata({"schemata": "s1", "qacc": "q1"})
        again = record.MutationRecord.load(self.path)
        again.check_schemata({"schemata": "s1", "qacc": "q1"})
        with self.assertRaisesRegex(record.RecordError, "the mutant schemata was recorded on other inputs: qacc: "
                                                        "recorded q1, now q2"):
            again.check_schemata({"schemata": "s1", "qacc": "q2"})


# A stand-in for `qacc regress --mutant N ... --json OUT`: even mutants are killed (exit 1), odd ones survive
# (exit 0); the mutant named by $FAKE_HANG waits until it is stopped. Each start appends the mutant to $FAKE_LOG.
FAKE_QACC = """#!/usr/bin/python3
import json, os, sys, time
args = sys.argv[1:]
mutant = int(args[args.index("--mutant") + 1])
with open(os.environ["FAKE_LOG"], "a") as f:
    f.write(f"{mutant}\\n")
if str(mutant) == os.environ.get("FAKE_HANG"):
    time.sleep(60)
killed = mutant % 2 == 0
run = {"test": "t", "seed": 7, "status": "fail" if killed else "pass", "message": "mismatch", "reproduce": "r",
       "result": {"first_mismatch": {"cycle": 10 * mutant, "unit": "out"}}}
with open(args[args.index("--json") + 1], "w") as f:
    json.dump({"runs": [run]}, f)
sys.exit(1 if killed else 0)
"""

# Runs mutants 1..6 against the fake with a new record, as the mutation step does, and exits 128 + N on signal N.
DRIVER = """import sys
sys.path.insert(0, sys.argv[1])
from validate import main, mutants, record
work, fake = sys.argv[2], sys.argv[3]
args = main.parse_args(["--configs", "default", "--work", work, "-j", "1"])
v = main.Validation(args)
v.record = record.MutationRecord.create(work + "/" + record.FILE_NAME, [], {})
ms = [mutants.Mutant(i, "f.sv", i, 1, "rel", "a", "b") for i in range(1, 7)]
records = {m.id: {"id": m.id, "status": "pending"} for m in ms}
main.STOP.install()
try:
    v.run_mutants({m.id: fake for m in ms}, ms, args.config_list, {"default": ["t"]}, 10, records)
except main.Interrupted:
    sys.exit(128 + main.STOP.signum)
"""


class ResumeTest(unittest.TestCase):
    """The mutation step's resume logic against a fake qacc: no build."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.work = os.path.join(self.tmp.name, "work")
        os.makedirs(self.work)
        self.fake = os.path.join(self.tmp.name, "qacc")
        with open(self.fake, "w") as f:
            f.write(FAKE_QACC)
        os.chmod(self.fake, 0o755)
        self.log = os.path.join(self.tmp.name, "log")
        os.environ["FAKE_LOG"] = self.log
        os.environ.pop("FAKE_HANG", None)

    def tearDown(self):
        os.environ.pop("FAKE_LOG", None)
        self.tmp.cleanup()

    def started(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [int(line) for line in f]

    def run_all(self, rec, ms=None):
        """The mutation step's (d) on mutants 1..6: recorded verdicts taken, the rest run. Returns the records."""
        args = main.parse_args(["--configs", "default", "--work", self.work, "-j", "2"])
        v = main.Validation(args)
        v.record = rec
        ms = ms or [mutants.Mutant(i, "f.sv", i, 1, "rel", "a", "b") for i in range(1, 7)]
        records = {m.id: {"id": m.id, "status": "pending"} for m in ms}
        to_run = v.take_recorded("regression", ms, records)
        v.run_mutants({m.id: self.fake for m in ms}, to_run, args.config_list, {"default": ["t"]}, 10, records)
        return records

    def test_a_resumed_run_runs_only_the_mutants_without_a_verdict(self):
        whole = self.run_all(record.MutationRecord.create(os.path.join(self.tmp.name, "whole.jsonl"), [], {}))
        self.assertEqual(sorted(self.started()), [1, 2, 3, 4, 5, 6])
        self.assertEqual(whole[4]["killed_by"]["cycle"], 40)
        self.assertEqual([whole[i]["status"] for i in range(1, 7)], ["survived", "killed"] * 3)
        os.remove(self.log)
        path = os.path.join(self.work, record.FILE_NAME)
        first = record.MutationRecord.create(path, [], {})
        for i in (1, 2, 5):
            first.add_verdict("regression", whole[i])
        resumed = self.run_all(record.MutationRecord.load(path))
        self.assertEqual(sorted(self.started()), [3, 4, 6])
        self.assertEqual(resumed, whole)
        self.assertEqual(record.MutationRecord.load(path).finished(), {1, 2, 3, 4, 5, 6})

    def test_a_stop_signal_leaves_the_record_whole_and_the_run_resumes(self):
        # Mutant 3 hangs: SIGTERM while it runs stops it at once (not after its 60 s), records no verdict for it
        # (never an error), starts no other mutant, and exits 128 + 15.
        env = dict(os.environ, FAKE_HANG="3")
        driver = subprocess.Popen(["/usr/bin/python3", "-c", DRIVER, os.path.join(ROOT, "scripts"), self.work,
                                   self.fake], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while 3 not in self.started() and time.monotonic() < deadline and driver.poll() is None:
            time.sleep(0.05)
        self.assertIn(3, self.started())
        time.sleep(0.3)
        start = time.monotonic()
        driver.send_signal(signal.SIGTERM)
        _, err = driver.communicate(timeout=30)
        self.assertEqual(driver.returncode, 128 + signal.SIGTERM, err)
        self.assertLess(time.monotonic() - start, 5)
        self.assertEqual(self.started(), [1, 2, 3])
        path = os.path.join(self.work, record.FILE_NAME)
        rec = record.MutationRecord.load(path)
        self.assertEqual(rec.finished(), {1, 2})
        os.remove(self.log)
        resumed = self.run_all(rec)
        self.assertEqual(sorted(self.started()), [3, 4, 5, 6])
        self.assertEqual([resumed[i]["status"] for i in range(1, 7)], ["survived", "killed"] * 3)


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

    def test_resume_usage_errors(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = self.run_validate("--resume", "--work", tmp)
            self.assertEqual(p.returncode, 2)
            self.assertIn(f"--resume: {tmp}/{record.FILE_NAME} does not exist: no interrupted mutation analysis",
                          p.stderr)
            p = self.run_validate("--resume", "--work", tmp, "--seeds", "3")
            self.assertEqual(p.returncode, 2)
            self.assertIn("--seeds: not with --resume: a resumed run takes its arguments from its record", p.stderr)
            arguments = ["--all", "--configs", "default", "--skip", "lint,unit,regression", "--work", tmp]
            v = main.Validation(main.parse_args(arguments))
            key = v.record_key(v.scope()[2])
            rec = record.MutationRecord.create(os.path.join(tmp, record.FILE_NAME), arguments,
                                               dict(key, **{"rtl/qacc_dma.sv": "0" * 64}))
            p = self.run_validate("--resume", "--work", tmp)
            self.assertEqual(p.returncode, 2)
            self.assertIn("the run was recorded on other inputs: rtl/qacc_dma.sv: recorded 0000000000000000, now",
                          p.stderr)
            self.assertIn("start the run again without --resume", p.stderr)
            rec.mark_complete()
            p = self.run_validate("--resume", "--work", tmp)
            self.assertEqual(p.returncode, 2)
            self.assertIn("the run ended (0 mutants with a verdict): nothing to resume", p.stderr)

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
