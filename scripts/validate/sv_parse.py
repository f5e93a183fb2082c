"""A small SystemVerilog reader for mutation analysis: tokens with their offsets, the procedural statements of
each module (always_comb, always_ff, assign, function bodies) and a parser of their expressions into trees whose
nodes know their source span.

It reads the subset of SystemVerilog that qacc's RTL is written in (lowRISC style), not the whole language: an
expression it cannot parse is skipped and counted (Slot.error), never guessed at. Elaboration-time code
(parameters, declarations, generate conditions, for-loop headers) and everything between `ifndef SYNTHESIS and
its `endif (assertions) hold no mutation slots: a mutant there could not be selected at run time (widths) or is
not part of the design (checkers)."""

import re
from dataclasses import dataclass, field

TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<directive>`[A-Za-z_]\w*)
  | (?P<string>"(?:\\.|[^"\\])*")
  | (?P<number>(?:\d[\d_]*\s*)?'[sS]?[bBoOdDhH]\s*[0-9a-fA-FxXzZ?_]+|'[01xXzZ](?![\w'])|\d[\d_]*)
  | (?P<ident>[A-Za-z_$][\w$]*)
  | (?P<op>>>>=|<<<=|>>>|<<<|===|!==|==\?|!=\?|->|\+:|-:|::|<<|>>|<=|>=|==|!=|&&|\|\||\*\*|\+\+|--
          |\+=|-=|\|=|&=|\^=|~&|~\||~\^|\^~|.)
    """,
    re.S | re.X,
)


@dataclass
class Token:
    kind: str  # number, ident, op, string, directive
    text: str
    start: int  # character offsets in the file
    end: int
    line: int
    col: int  # 1-based


def tokenize(text):
    """Tokens of `text` without whitespace and comments; directives are kept (they bound excluded regions)."""
    tokens, line, line_start = [], 1, 0
    pos = 0
    while pos < len(text):
        m = TOKEN_RE.match(text, pos)
        kind = m.lastgroup
        if kind not in ("ws", "comment"):
            tokens.append(Token(kind, m.group(), m.start(), m.end(), line, m.start() - line_start + 1))
        newlines = m.group().count("\n")
        if newlines:
            line += newlines
            line_start = m.start() + m.group().rfind("\n") + 1
        pos = m.end()
    return tokens


# ---- Expressions ---------------------------------------------------------------------------------------------

@dataclass
class Node:
    kind: str  # binary unary ternary ident number select range member call paren concat repl cast inside
    first: int  # index of the first and last token of the node
    last: int
    children: list = field(default_factory=list)
    op: int = -1  # token index of the operator (binary, unary, ternary '?'), or of '[' for selects

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()


class ParseError(Exception):
    pass


# Binary operators by precedence, lowest first (IEEE 1800-2017 table 11-2; the subset qacc uses).
BINARY_LEVELS = [
    {"||"}, {"&&"}, {"|"}, {"^", "~^", "^~"}, {"&"}, {"==", "!=", "===", "!==", "==?", "!=?"},
    {"<", "<=", ">", ">=", "inside"}, {"<<", ">>", "<<<", ">>>"}, {"+", "-"}, {"*", "/", "%"}, {"**"},
]
UNARY_OPS = {"+", "-", "!", "~", "&", "~&", "|", "~|", "^", "~^", "^~"}


class ExprParser:
    """Precedence climbing over tokens[first..last] (inclusive); parse() must consume them all."""

    def __init__(self, tokens, first, last):
        self.t, self.pos, self.last = tokens, first, last

    def peek(self, ahead=0):
        i = self.pos + ahead
        return self.t[i].text if i <= self.last else None

    def take(self, expected=None):
        if self.pos > self.last:
            raise ParseError(f"expected {expected or 'more'} at the end of the expression")
        tok = self.t[self.pos]
        if expected is not None and tok.text != expected:
            raise ParseError(f"expected '{expected}' at line {tok.line} col {tok.col}, found '{tok.text}'")
        self.pos += 1
        return self.pos - 1

    def parse(self):
        node = self.ternary()
        if self.pos <= self.last:
            tok = self.t[self.pos]
            raise ParseError(f"unexpected '{tok.text}' at line {tok.line} col {tok.col}")
        return node

    def ternary(self):
        cond = self.binary(0)
        if self.peek() != "?":
            return cond
        q = self.take("?")
        a = self.ternary()
        self.take(":")
        b = self.ternary()
        return Node("ternary", cond.first, b.last, [cond, a, b], q)

    def binary(self, level):
        if level == len(BINARY_LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek() in BINARY_LEVELS[level]:
            op = self.take()
            if self.t[op].text == "inside":
                right = self.set_list()
                left = Node("inside", left.first, right.last, [left, right], op)
                continue
            right = self.binary(level + 1)
            left = Node("binary", left.first, right.last, [left, right], op)
        return left

    def set_list(self):
        first = self.take("{")
        items = [self.ternary()]
        while self.peek() == ",":
            self.take(",")
            items.append(self.ternary())
        last = self.take("}")
        return Node("concat", first, last, items)

    def unary(self):
        if self.peek() in UNARY_OPS:
            op = self.take()
            operand = self.unary()
            return Node("unary", op, operand.last, [operand], op)
        return self.postfix(self.primary())

    def primary(self):
        if self.pos > self.last:
            raise ParseError("expected an operand at the end of the expression")
        tok = self.t[self.pos]
        if tok.kind == "number":
            self.take()
            return Node("number", self.pos - 1, self.pos - 1)
        if tok.kind == "ident":
            first = self.take()
            while self.peek() == "::":  # package scope
                self.take("::")
                self.take()
            if self.peek() == "(":  # function or system function call
                self.take("(")
                args = []
                if self.peek() != ")":
                    args.append(self.ternary())
                    while self.peek() == ",":
                        self.take(",")
                        args.append(self.ternary())
                last = self.take(")")
                return Node("call", first, last, args)
            return Node("ident", first, self.pos - 1)
        if tok.text == "(":
            first = self.take("(")
            inner = self.ternary()
            last = self.take(")")
            return Node("paren", first, last, [inner])
        if tok.text == "{":
            first = self.take("{")
            head = self.ternary()
            if self.peek() == "{":  # replication {n{...}}
                body = self.set_list()
                last = self.take("}")
                return Node("repl", first, last, [head, body])
            items = [head]
            while self.peek() == ",":
                self.take(",")
                items.append(self.ternary())
            last = self.take("}")
            return Node("concat", first, last, items)
        raise ParseError(f"unexpected '{tok.text}' at line {tok.line} col {tok.col}")

    def postfix(self, node):
        while True:
            nxt = self.peek()
            if nxt == "'" and self.peek(1) == "(":  # cast: width'(e), type'(e), signed'(e)
                self.take("'")
                self.take("(")
                inner = self.ternary()
                last = self.take(")")
                node = Node("cast", node.first, last, [node, inner])
            elif nxt == "[":
                bracket = self.take("[")
                index = self.ternary()
                if self.peek() in (":", "+:", "-:"):
                    sep = self.take()
                    other = self.ternary()
                    last = self.take("]")
                    node = Node("range", node.first, last, [node, index, other], bracket)
                    node.sep = self.t[sep].text
                else:
                    last = self.take("]")
                    node = Node("select", node.first, last, [node, index], bracket)
            elif nxt == "." and self.pos + 1 <= self.last and self.t[self.pos + 1].kind == "ident":
                self.take(".")
                last = self.take()
                node = Node("member", node.first, last, [node])
            else:
                return node


# ---- Statements ------------------------------------------------------------------------------------------------

@dataclass
class Slot:
    """An expression in the design that may be mutated: the right-hand side of an assignment, an if condition,
    or a function's return value. `tree` is None when the parser could not read it (`error` says why)."""
    role: str  # rhs, cond, return
    block: str  # always_comb, always_ff, assign, function
    first: int  # token range of the expression
    last: int
    tree: Node = None
    error: str = ""
    lhs: tuple = None  # (first, last) token range of the assigned variable, for rhs slots
    assign_op: int = -1  # token index of '=' or '<='
    stmt_last: int = -1  # token index of the statement's ';'


ASSIGN_OPS = {"=", "<=", "+=", "-=", "|=", "&=", "^="}
DECL_WORDS = {"logic", "int", "integer", "bit", "byte", "reg", "wire", "automatic", "static", "localparam",
              "parameter", "genvar", "typedef", "var", "signed", "unsigned"}


class ModuleReader:
    """Finds the slots of one file's modules. Token indexes refer to the file's token list."""

    def __init__(self, tokens):
        self.t = tokens
        self.slots = []
        self.excluded = self._excluded_ranges()

    def _excluded_ranges(self):
        """Token ranges between `ifndef SYNTHESIS and the matching `endif (assertions), excluded."""
        ranges, i = [], 0
        while i < len(self.t):
            if self.t[i].text == "`ifndef" and i + 1 < len(self.t) and self.t[i + 1].text == "SYNTHESIS":
                depth, j = 1, i + 2
                while j < len(self.t) and depth:
                    if self.t[j].text in ("`ifdef", "`ifndef"):
                        depth += 1
                    elif self.t[j].text == "`endif":
                        depth -= 1
                    j += 1
                ranges.append((i, j - 1))
                i = j
            else:
                i += 1
        return ranges

    def is_excluded(self, i):
        return any(a <= i <= b for a, b in self.excluded)

    def read(self):
        i = 0
        while i < len(self.t):
            tok = self.t[i]
            if self.is_excluded(i):
                i += 1
                continue
            if tok.text in ("always_comb", "always_latch"):
                i = self.statement(i + 1, tok.text)
            elif tok.text == "always_ff" or tok.text == "always":
                j = i + 1
                if self.t[j].text == "@":
                    j = self.match(j + 1) + 1
                i = self.statement(j, "always_ff")
            elif tok.text == "assign":
                i = self.assignment(i + 1, "assign")
            elif tok.text == "function":
                i = self.function(i + 1)
            else:
                i += 1
        return self.slots

    def match(self, i):
        """Index of the bracket closing the one at i."""
        pairs = {"(": ")", "[": "]", "{": "}"}
        opener, depth = self.t[i].text, 0
        closer = pairs[opener]
        for j in range(i, len(self.t)):
            if self.t[j].text == opener:
                depth += 1
            elif self.t[j].text == closer:
                depth -= 1
                if depth == 0:
                    return j
        raise ParseError(f"unbalanced '{opener}' at line {self.t[i].line}")

    def add_slot(self, role, block, first, last, **extra):
        slot = Slot(role, block, first, last, **extra)
        try:
            slot.tree = ExprParser(self.t, first, last).parse()
        except ParseError as e:
            slot.error = str(e)
        self.slots.append(slot)
        return slot

    def function(self, i):
        # The header ends at the first ';' outside brackets; the body runs to endfunction.
        while self.t[i].text != ";":
            i = self.match(i) + 1 if self.t[i].text in "([{" else i + 1
        i += 1
        while self.t[i].text != "endfunction":
            i = self.statement(i, "function")
        return i + 1

    def statement(self, i, block):
        """Reads one statement starting at token i; returns the index after it."""
        text = self.t[i].text
        if text == "begin":
            i += 1
            if self.t[i].text == ":":
                i += 2
            while self.t[i].text != "end":
                i = self.statement(i, block)
            i += 1
            if i < len(self.t) and self.t[i].text == ":":
                i += 2
            return i
        if text in ("unique", "priority", "unique0"):
            return self.statement(i + 1, block)
        if text == "if":
            close = self.match(i + 1)
            self.add_slot("cond", block, i + 2, close - 1)
            i = self.statement(close + 1, block)
            if self.t[i].text == "else":
                i = self.statement(i + 1, block)
            return i
        if text in ("case", "casez", "casex"):
            i = self.match(i + 1) + 1
            while self.t[i].text != "endcase":
                # Case item labels (constants) up to the ':' at bracket depth 0, then one statement.
                while self.t[i].text != ":":
                    i = self.match(i) + 1 if self.t[i].text in "([{" else i + 1
                i = self.statement(i + 1, block)
            return i + 1
        if text == "for":
            return self.statement(self.match(i + 1) + 1, block)  # the header is elaboration-time
        if text == "return":
            end = self.find_semicolon(i)
            self.add_slot("return", block, i + 1, end - 1, stmt_last=end)
            return end + 1
        if text in DECL_WORDS or (self.t[i].kind == "ident" and self.t[i + 1].kind == "ident"):
            return self.find_semicolon(i) + 1  # a local declaration
        if text == ";":
            return i + 1
        return self.assignment(i, block)

    def find_semicolon(self, i):
        while self.t[i].text != ";":
            i = self.match(i) + 1 if self.t[i].text in "([{" else i + 1
        return i

    def assignment(self, i, block):
        """lhs op rhs ;   The operator (=, <= or a compound one) is the first one outside brackets."""
        end = self.find_semicolon(i)
        j = i
        while j < end and self.t[j].text not in ASSIGN_OPS:
            j = self.match(j) + 1 if self.t[j].text in "([{" else j + 1
        if j == end:
            raise ParseError(f"no assignment in the statement at line {self.t[i].line}")
        self.add_slot("rhs", block, j + 1, end - 1, lhs=(i, j - 1), assign_op=j, stmt_last=end)
        return end + 1


@dataclass
class SourceFile:
    path: str  # as given (relative to the RTL directory)
    text: str
    tokens: list
    slots: list


def read_source(path, text):
    tokens = tokenize(text)
    return SourceFile(path, text, tokens, ModuleReader(tokens).read())


def module_header_end(tokens):
    """Token index of the ';' that ends each module's header (after its port list), for the selector."""
    ends = []
    for i, tok in enumerate(tokens):
        if tok.text != "module":
            continue
        j = i + 2
        depth = 0
        while True:
            text = tokens[j].text
            if text in ("(", "[", "{"):
                depth += 1
            elif text in (")", "]", "}"):
                depth -= 1
            elif text == ";" and depth == 0 and tokens[j - 1].text == ")":
                ends.append(j)
                break
            j += 1
    return ends
