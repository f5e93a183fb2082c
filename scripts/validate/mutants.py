"""Mutation operators on SystemVerilog source, and the two ways a mutant is written out: alone (the original text
with the mutant's edits applied: for the equivalence check) and as part of a mutant schemata (every mutant of the
run in one design, each edit guarded by `qacc_mutant_id == N`, N chosen at run time by +qacc_mutant=N).

Every mutant is a list of edits of the original text; each edit replaces the span of one expression node with a
new expression, so the schemata can guard it with a ternary. docs/validate.md lists the operators."""

import random
import re
from dataclasses import dataclass, field

from . import sv_parse

SELECTOR = "qacc_mutant_id"

# name: what it does (docs/validate.md has the table with examples)
OPERATORS = {
    "rel": "relational/equality boundary: < <=, > >=, == != swapped",
    "arith": "arithmetic and shift swap: + -, << >>, >>> >>, * +",
    "logic": "logical and bitwise swap: && ||, & |, ^ |",
    "const": "integer constant +1 and -1 ('0 and '1 swapped)",
    "index": "bit/word select index +1 and -1",
    "width": "part-select or cast one bit narrower (MSB forced to 0)",
    "cond": "if condition inverted, stuck at 1, stuck at 0",
    "ternary": "ternary arms swapped; condition stuck at 1, at 0",
    "bypass": "pipeline register bypassed: reads of X_q read its D input",
    "stuck0": "assignment stuck at 0 (the right-hand side replaced by '0)",
    "order": "two adjacent branches of an if / else if chain swapped in priority",
    "term": "one term of a && or || chain dropped",
    "sum": "one update of a sum of three or more terms dropped",
    "swapsig": "one signal read replaced by another signal of the same type and kind",
}

# swapsig: candidates drawn per read site. Every read of a 1-bit `logic` has dozens of same-typed neighbours; two,
# drawn by a generator seeded from the site, keep the operator within the size of the others (about one mutant
# per read) and its numbering stable from run to run.
SWAPSIG_PER_SITE = 2

REL_SWAP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
ARITH_SWAP = {"+": "-", "-": "+", "<<": ">>", ">>": "<<", ">>>": ">>", "*": "+"}
LOGIC_SWAP = {"&&": "||", "||": "&&", "&": "|", "|": "&", "^": "|"}


@dataclass
class Edit:
    start: int  # character span of the replaced node in the original file
    end: int
    text: str  # the replacement expression


@dataclass
class Mutant:
    id: int
    file: str
    line: int
    col: int
    operator: str
    original: str  # the source text of the first edit's node
    mutated: str  # its replacement
    edits: list = field(default_factory=list)

    def describe(self):
        return f"{self.file}:{self.line}:{self.col} [{self.operator}] {self.original}  ->  {self.mutated}"


class FileMutator:
    def __init__(self, source):
        self.src = source
        self.t = source.tokens
        self.text = source.text
        self.found = []  # (operator, first token, [Edit])
        self.parents = {}  # id(node) -> parent node, in the tree being mutated

    def span(self, node):
        return self.t[node.first].start, self.t[node.last].end

    def node_text(self, node):
        s, e = self.span(node)
        return self.text[s:e]

    def add(self, operator, node, replacement, first_token=None):
        s, e = self.span(node)
        if replacement == self.text[s:e]:
            return
        # A node selected from (x[i][7:0], x.f) cannot be guarded alone: SystemVerilog does not select from a
        # parenthesised expression. The edit moves up to the outermost select, with the rest of its text.
        while id(node) in self.parents and self.parents[id(node)].kind in ("select", "range", "member") \
                and self.parents[id(node)].children[0] is node:
            node = self.parents[id(node)]
            _, outer_end = self.span(node)
            replacement += self.text[e:outer_end]
            e = outer_end
        if binds_looser(replacement, node, self.t) and \
                self.parents.get(id(node), sv_parse.Node("paren", 0, 0)).kind in OPERATOR_KINDS:
            replacement = f"({replacement})"  # `a && b && c` with a && b -> a || b is (a || b) && c
        self.found.append((operator, node.first if first_token is None else first_token, [Edit(s, e, replacement)]))

    def replace_token(self, node, tok_index, new):
        s, e = self.span(node)
        tok = self.t[tok_index]
        return self.text[s:tok.start] + new + self.text[tok.end:e]

    # ---- operators over one expression tree ----
    def mutate_tree(self, root):
        for node in runtime_nodes(root):
            k = node.kind
            if k == "binary":
                op = self.t[node.op].text
                for table, name in ((REL_SWAP, "rel"), (ARITH_SWAP, "arith"), (LOGIC_SWAP, "logic")):
                    if op in table:
                        self.add(name, node, self.replace_token(node, node.op, table[op]), node.op)
            elif k == "number":
                for new in constant_neighbours(self.t[node.first].text):
                    self.add("const", node, new)
            elif k == "select":
                base, index = node.children
                b, i = self.node_text(base), self.node_text(index)
                self.add("index", node, f"{b}[({i}) + 1]", node.op)
                self.add("index", node, f"{b}[({i}) - 1]", node.op)
            elif k == "range":
                base, hi, lo = node.children
                b, h, l = self.node_text(base), self.node_text(hi), self.node_text(lo)
                if node.sep == ":":
                    narrower = f"{b}[({h}) - 1:{l}]"
                else:
                    narrower = f"{b}[{h} {node.sep} ({l}) - 1]"
                self.add("width", node, "{1'b0, " + narrower + "}", node.op)
            elif k == "cast":
                width, inner = node.children
                w = self.node_text(width)
                if width.kind == "number" or (width.kind in ("ident", "paren") and is_width_name(w)):
                    self.add("width", node, f"{w}'(({w} - 1)'({self.node_text(inner)}))")
            elif k == "ternary":
                cond, a, b = node.children
                c, ta, tb = self.node_text(cond), self.node_text(a), self.node_text(b)
                self.add("ternary", node, f"{c} ? {tb} : {ta}", node.op)
                self.add("ternary", node, ta, node.op)
                self.add("ternary", node, tb, node.op)

    def mutate_slot(self, slot):
        if slot.tree is None:
            return
        self.parents = {id(c): p for p in slot.tree.walk() for c in p.children}
        self.mutate_tree(slot.tree)
        text = self.node_text(slot.tree)
        if slot.role == "cond":
            self.add("cond", slot.tree, f"!({text})")
            self.add("cond", slot.tree, "1'b1")
            self.add("cond", slot.tree, "1'b0")
        elif slot.role == "rhs" and not is_zero_literal(text):
            self.add("stuck0", slot.tree, "'0", slot.assign_op)

    # ---- the operators of realistic slips (issue 39: bugs written by hand in the DMA, queue, fetcher and
    # descriptor check that survived). They run after every other operator, so that an edit another operator
    # makes too keeps that operator's name (generate() keeps the first of identical edits).
    def mutate_slot_slips(self, slot):
        if slot.tree is None:
            return
        self.parents = {id(c): p for p in slot.tree.walk() for c in p.children}
        if slot.role == "cond" and slot.else_if is not None and slot.else_if.tree is not None:
            self.swap_order(slot, slot.else_if)
        for node in runtime_nodes(slot.tree):
            if node.kind == "binary" and self.t[node.op].text in ("&&", "||"):
                self.drop_term(node)
            elif node.kind == "binary" and self.t[node.op].text in ("+", "-"):
                self.drop_update(node)
            elif node.kind == "ident" and node.first == node.last:
                self.swap_signal(node)

    def swap_order(self, slot, nxt):
        """`if (a) X else if (b) Y` -> Y first: a becomes (a) && !(b), so X runs when a and not b, Y when b.
        b is evaluated where a was: in a chain every condition sees the same state (no branch body runs before
        the condition that selects it), so the edit is always legal."""
        self.add("order", slot.tree, f"({self.node_text(slot.tree)}) && !({self.node_text(nxt.tree)})")

    def drop_term(self, node):
        """a && b && c parses ((a && b) && c): each node replaced by its left operand drops its right term; by its
        right operand drops the left, one term only when the left is not itself a chain of the same operator."""
        left, right = node.children
        op = self.t[node.op].text
        self.add("term", node, self.node_text(left), node.op)
        if not (left.kind == "binary" and self.t[left.op].text == op):
            self.add("term", node, self.node_text(right), node.op)

    def drop_update(self, node):
        """a + x - y parses ((a + x) - y): on a chain of three or more terms each node replaced by its left
        operand drops the term after its operator (the base a is never dropped). Called for every node; acts
        on the top of a chain."""
        parent = self.parents.get(id(node))
        if parent is not None and parent.kind == "binary" and self.t[parent.op].text in ("+", "-") \
                and parent.children[0] is node:
            return  # inside a chain: its top handles it
        spine = [node]
        while spine[-1].children[0].kind == "binary" and self.t[spine[-1].children[0].op].text in ("+", "-"):
            spine.append(spine[-1].children[0])
        if len(spine) < 2:
            return  # two terms: dropping one is not a lost simultaneous update
        for n in spine:
            self.add("sum", n, self.node_text(n.children[0]), n.op)

    def swap_signal(self, node):
        """A read of a declared signal replaced by another signal visible here with the same declared type
        (packed and unpacked dimensions as written, or the same struct/enum type name) and the same kind (input,
        output, internal variable, function argument, function variable). Parameters, enum values, loop
        variables, clocks and resets are not signals. At most SWAPSIG_PER_SITE candidates, drawn by a generator
        seeded from the site."""
        tok = self.t[node.first]
        decl = self.src.resolve(tok.text, node.first)
        if decl is None or decl.kind in NOT_SIGNALS or self.src.shadowed_by_error(decl, node.first):
            return
        candidates = sorted(d.name for d in self.src.visible(node.first)
                            if d.name != decl.name and d.kind == decl.kind and d.type_text == decl.type_text
                            and d.unpacked == decl.unpacked)
        rng = random.Random(f"{self.src.path}:{tok.line}:{tok.col}")
        for name in sorted(rng.sample(candidates, min(SWAPSIG_PER_SITE, len(candidates)))):
            self.add("swapsig", node, name)


NOT_SIGNALS = ("param", "loop", "event")

# Nodes whose operands are bound by precedence: a replacement that binds more loosely than the operand it
# replaces needs parentheses there (the schemata's guard adds them anyway; the mutant alone must mean the same).
OPERATOR_KINDS = ("binary", "unary", "ternary", "inside")


def precedence(node, tokens):
    """How tightly an expression's top operator binds: 0 for ?:, then the binary levels, loosest first; operands
    (unary, selects, primaries) bind tightest."""
    if node.kind == "ternary":
        return 0
    if node.kind in ("binary", "inside"):
        op = tokens[node.op].text
        return 1 + next(i for i, level in enumerate(sv_parse.BINARY_LEVELS) if op in level)
    return len(sv_parse.BINARY_LEVELS) + 1


def binds_looser(replacement, node, tokens):
    try:
        toks = sv_parse.tokenize(replacement)
        new = sv_parse.ExprParser(toks, 0, len(toks) - 1).parse()
    except (sv_parse.ParseError, AttributeError):
        return True  # not read: parentheses are always safe
    return precedence(new, toks) < precedence(node, tokens)


def is_width_name(text):
    """A cast width that is a number or a parameter (CamelCase or ALL_CAPS name), not a type (signed, int...)."""
    return text not in ("signed", "unsigned", "int", "logic", "bit", "byte", "shortint", "longint", "integer") \
        and not text.endswith("_t") and not text.endswith("_e")


def is_zero_literal(text):
    return re.fullmatch(r"'0|(\d+'[sS]?[bBoOdDhH]0+)|0", text.replace("_", "")) is not None


CONSTANT_CONTEXT_CHILDREN = {
    "cast": (0,),  # the width or type of a cast
    "range": (1, 2),  # part-select bounds are constant
    "repl": (0,),  # the replication count
}


def runtime_nodes(root):
    """The nodes of a tree a run-time selector may guard: not inside a constant context (cast widths, part-select
    bounds, replication counts, system function arguments such as $clog2 or $bits)."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if node.kind == "call":
            continue  # function arguments: user functions are mutated in their own body; system ones are constant
        skip = CONSTANT_CONTEXT_CHILDREN.get(node.kind, ())
        for i, child in enumerate(node.children):
            if i not in skip:
                stack.append(child)


NUMBER_RE = re.compile(r"^(\d+)?\s*'([sS]?)([bBoOdDhH])\s*([0-9a-fA-F_]+)$")
BASES = {"b": 2, "o": 8, "d": 10, "h": 16}


def constant_neighbours(text):
    """The literal one above and one below `text`, in the same width and base; '0 and '1 swap."""
    if text in ("'0", "'1"):
        return ["'1" if text == "'0" else "'0"]
    if re.fullmatch(r"\d[\d_]*", text):
        v = int(text.replace("_", ""))
        return [str(v + 1)] + ([str(v - 1)] if v > 0 else [])
    m = NUMBER_RE.match(text)
    if not m or m.group(1) is None:
        return []  # x/z digits, or unsized based literals: left alone
    width, signed, base = int(m.group(1)), m.group(2), m.group(3).lower()
    value = int(m.group(4).replace("_", ""), BASES[base])
    out = []
    for v in ((value + 1) % (1 << width), (value - 1) % (1 << width)):
        digits = {"b": format(v, "b"), "o": format(v, "o"), "d": str(v), "h": format(v, "X")}[base]
        out.append(f"{width}'{signed}{m.group(3)}{digits}")
    return out


def bypass_mutants(mutator):
    """Registers X_q loaded from a single signal (`X_q <= Y;` in always_ff, ignoring constant loads such as the
    reset value): reads of X_q outside the statement that computes Y read Y instead, so the register is gone."""
    t = mutator.t
    loads = {}
    for slot in mutator.src.slots:
        if slot.block != "always_ff" or slot.role != "rhs" or slot.tree is None:
            continue
        lhs = "".join(t[i].text for i in range(slot.lhs[0], slot.lhs[1] + 1))
        if slot.tree.kind == "number":
            continue
        loads.setdefault(lhs, []).append(slot)
    for reg, slots in sorted(loads.items()):
        if not re.fullmatch(r"\w+_q", reg) or len(slots) != 1 or slots[0].tree.kind != "ident":
            continue
        source = mutator.node_text(slots[0].tree)
        edits, first = [], None
        for slot in mutator.src.slots:
            if slot.tree is None or slot is slots[0]:
                continue
            if slot.lhs and "".join(t[i].text for i in range(slot.lhs[0], slot.lhs[1] + 1)) == source:
                continue  # the statement that computes the D input itself
            parents = {id(c): p for p in slot.tree.walk() for c in p.children}
            for node in runtime_nodes(slot.tree):
                if node.kind == "ident" and t[node.first].text == reg:
                    # A select of the register (X_q[i], X_q.field) is replaced whole: SystemVerilog cannot
                    # select from a parenthesised expression.
                    top = node
                    while id(top) in parents and parents[id(top)].kind in ("select", "range", "member") \
                            and parents[id(top)].children[0] is top:
                        top = parents[id(top)]
                    s, e = mutator.span(top)
                    edits.append(Edit(s, e, source + mutator.text[t[node.first].end:e]))
                    first = node.first if first is None else min(first, node.first)
        if edits:
            mutator.found.append(("bypass", first, edits))


def lint_sinks(src):
    """Signals named unused* that the file only declares and assigns: the linter's sinks for bits a module
    deliberately leaves unread (`assign unused_x = ^{...};`). Nothing reads them, so a mutant of what they are
    assigned is equivalent by construction; the reads are counted here, not assumed from the name."""
    t = src.tokens
    lhs_tokens = set()
    for slot in src.slots:
        if slot.lhs:
            lhs_tokens.update(range(slot.lhs[0], slot.lhs[1] + 1))
    uses = {}
    for i, tok in enumerate(t):
        if tok.kind == "ident" and re.fullmatch(r"unused\w*", tok.text) and i not in lhs_tokens:
            uses[tok.text] = uses.get(tok.text, 0) + 1
    # One occurrence outside the assignments' left-hand sides: the declaration. Any read makes two or more.
    return {name for name, n in uses.items() if n == 1}


def generate(sources, operators=None):
    """Every mutant of the given sv_parse.SourceFile list, numbered from 1 in file, line, column order. The
    assignments of lint sinks (lint_sinks) are not mutated."""
    found = []
    for src in sources:
        m = FileMutator(src)
        sinks = lint_sinks(src)
        slots = [s for s in src.slots
                 if not (s.lhs and "".join(src.tokens[i].text for i in range(s.lhs[0], s.lhs[1] + 1)) in sinks)]
        for slot in slots:
            m.mutate_slot(slot)
        bypass_mutants(m)
        for slot in slots:
            m.mutate_slot_slips(slot)
        seen = set()
        for operator, first, edits in m.found:
            if operators and operator not in operators:
                continue
            key = tuple((e.start, e.end, e.text) for e in edits)
            if key in seen:
                continue
            seen.add(key)
            tok = src.tokens[first]
            e0 = edits[0]
            found.append(Mutant(0, src.path, tok.line, tok.col, operator, src.text[e0.start:e0.end], e0.text,
                                edits))
    order = {src.path: i for i, src in enumerate(sources)}
    found.sort(key=lambda m: (order[m.file], m.line, m.col, m.operator, m.mutated))
    for i, mutant in enumerate(found, 1):
        mutant.id = i
    return found


# ---- Writing mutants out ---------------------------------------------------------------------------------------

def apply_single(text, mutant):
    """The file's text with this one mutant applied (its edits do not overlap one another)."""
    for e in sorted(mutant.edits, key=lambda e: e.start, reverse=True):
        text = text[:e.start] + e.text + text[e.end:]
    return text


SELECTOR_DECL = (
    "\n  // qacc validate: mutant schemata selector (+qacc_mutant=N runs mutant N; 0 is the original design)\n"
    "  /* verilator lint_off UNUSEDSIGNAL */\n"
    f"  int unsigned {SELECTOR};\n"
    "  /* verilator lint_on UNUSEDSIGNAL */\n"
    f"  initial begin\n    if (!$value$plusargs(\"qacc_mutant=%d\", {SELECTOR})) {SELECTOR} = 0;\n  end\n"
)


def typed_fill(replacement, original):
    """The guard's arm for a mutant. A ternary is signed only when both arms are, so an unsigned arm would
    turn the original arm unsigned too (a signed a * b would multiply unsigned with every mutant off). The
    fill constants '0 and '1 are unsigned: in the guard they become a zero or all-ones made from the original
    expression itself, which has its signedness and width."""
    if replacement == "'0":
        return f"(({original}) ^ ({original}))"
    if replacement == "'1":
        return f"(~(({original}) ^ ({original})))"
    return replacement


def schemata_text(source, mutants):
    """The file's text with every mutant guarded by the selector, and a map of the output: a list of
    (start, end, mutant id) character ranges of each guarded arm, to attribute lint messages to mutants."""
    text = source.text
    edits = []  # (start, end, [(id, replacement)])
    by_span = {}
    for m in mutants:
        for e in m.edits:
            by_span.setdefault((e.start, e.end), []).append((m.id, e.text))
    for (s, e), arms in by_span.items():
        edits.append((s, e, arms))
    edits.sort(key=lambda x: (x[0], -x[1]))
    regions = []

    def render(start, end, items, pos_base):
        """Renders text[start:end] with the edits in `items` (all inside it); returns the text."""
        pieces, cursor, i = [], start, 0
        length = pos_base
        while i < len(items):
            s, e, arms = items[i]
            inner = []
            j = i + 1
            while j < len(items) and items[j][0] < e:
                inner.append(items[j])
                j += 1
            pieces.append(text[cursor:s])
            length += s - cursor
            guarded = "("
            length += 1
            for mid, replacement in arms:
                arm = f"({SELECTOR} == {mid}) ? ({typed_fill(replacement, text[s:e])}) : "
                regions.append((length, length + len(arm), mid))
                guarded += arm
                length += len(arm)
            body = "(" + render(s, e, inner, length + 1) + "))"
            guarded += body
            length += len(body)
            pieces.append(guarded)
            cursor = e
            i = j
        pieces.append(text[cursor:end])
        return "".join(pieces)

    body = render(0, len(text), edits, 0)
    # The selector goes after each module header; shift the regions after each insertion point.
    tokens = sv_parse.tokenize(body)
    for idx in reversed(sv_parse.module_header_end(tokens)):
        at = tokens[idx].end
        body = body[:at] + SELECTOR_DECL + body[at:]
        regions = [(s + len(SELECTOR_DECL), e + len(SELECTOR_DECL), m) if s >= at else (s, e, m)
                   for s, e, m in regions]
    return body, regions
