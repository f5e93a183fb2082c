"""A small SystemVerilog reader for mutation analysis: tokens with their offsets, the procedural statements of
each module (always_comb, always_ff, assign, function bodies) and a parser of their expressions into trees whose
nodes know their source span, the if / else if chains, and the declarations of each module with the scope each
is visible in (to find the signals a read could be swapped with).

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
    else_if: "Slot" = None  # cond slots: the condition of the `else if` that follows this one in its chain


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

    def statement(self, i, block, else_of=None):
        """Reads one statement starting at token i; returns the index after it. `else_of` is the cond slot of the
        `if` whose `else` this statement follows: an `if` here continues that chain."""
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
            slot = self.add_slot("cond", block, i + 2, close - 1)
            if else_of is not None:
                else_of.else_if = slot
            i = self.statement(close + 1, block)
            if self.t[i].text == "else":
                i = self.statement(i + 1, block, else_of=slot)
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


# ---- Declarations ----------------------------------------------------------------------------------------------

@dataclass
class Decl:
    """A name declared in a module: a port, a variable, a function argument, a parameter or a loop variable."""
    name: str
    type_text: str  # the declared data type as written, spaces normalized: "logic[31:0]", "logic signed[7:0]", "desc_t"
    unpacked: str  # unpacked dimensions after the name ("[Depth]"), "" for none
    kind: str  # input, output, inout, var, argument, function var, param, loop, event
    scope: tuple  # (first, last) token range in which the name is visible: module, function, begin-end or for loop
    token: int  # token index of the name


@dataclass
class DeclError:
    """A declaration the reader could not read: its names are unknown, so no read in its scope is resolved."""
    token: int
    scope: tuple
    message: str


BUILTIN_TYPES = {"logic", "bit", "reg", "wire", "int", "integer", "byte", "shortint", "longint"}
DECL_PREFIXES = {"automatic", "static", "const", "var"}
DIRECTIONS = {"input", "output", "inout"}
# Words that start an item or a statement which is not a declaration, and words a type name cannot be.
KEYWORDS = BUILTIN_TYPES | DECL_PREFIXES | DIRECTIONS | {
    "assign", "always", "always_comb", "always_ff", "always_latch", "initial", "final", "if", "else", "case", "casez",
    "casex", "endcase", "for", "foreach", "while", "do", "repeat", "forever", "return", "begin", "end", "module",
    "endmodule", "function", "endfunction", "task", "endtask", "generate", "endgenerate", "typedef", "import",
    "export", "unique", "unique0", "priority", "default", "assert", "assume", "cover", "property", "endproperty",
    "posedge", "negedge", "or", "and", "not", "disable", "iff", "inside", "break", "continue", "package",
    "endpackage", "interface", "endinterface", "modport", "struct", "union", "enum", "packed", "localparam",
    "parameter", "genvar", "signed", "unsigned", "void", "null"}
# Tokens after which a new module item or statement starts (a declaration can only start there).
ITEM_BOUNDARIES = {";", "begin", "end", "endfunction", "endcase", "generate", "endgenerate"}


def canonical(tokens):
    """Token texts joined with a space only between two words, so that spacing does not make types differ."""
    out = ""
    for tok in tokens:
        if out and tok.kind in ("ident", "number") and (out[-1].isalnum() or out[-1] in "_$"):
            out += " "
        out += tok.text
    return out


class DeclReader:
    """The declarations of a file's modules, with the token range each is visible in: ANSI ports and parameter
    ports, module and generate-block variables, locals of procedural blocks, function arguments and variables,
    localparams, genvars and for-loop variables. A declaration it cannot read is a DeclError, never a guess.

    Scopes are token ranges: a module, a function, a begin-end block, a for loop. They nest, so the declaration
    a name refers to at token s is the visible one (its scope holds s, its name comes before s) of the innermost
    scope."""

    def __init__(self, tokens, excluded):
        self.t = tokens
        self.excluded = excluded
        self.decls, self.errors = [], []
        self.scopes = []  # (first, last) token ranges

    def is_excluded(self, i):
        return any(a <= i <= b for a, b in self.excluded)

    def match(self, i):
        pairs = {"(": ")", "[": "]", "{": "}"}
        opener, depth = self.t[i].text, 0
        for j in range(i, len(self.t)):
            if self.t[j].text == opener:
                depth += 1
            elif self.t[j].text == pairs[opener]:
                depth -= 1
                if depth == 0:
                    return j
        raise ParseError(f"unbalanced '{opener}' at line {self.t[i].line}")

    def read(self):
        self._scopes()
        for first, last in self.scopes:
            if self.t[first].text == "module" and not self.is_excluded(first):
                self._module(first, last)
        return self.decls, self.errors

    def _closing(self, i, closer):
        for j in range(i, len(self.t)):
            if self.t[j].text == closer:
                return j
        raise ParseError(f"'{self.t[i].text}' at line {self.t[i].line} without '{closer}'")

    def _dims_before(self, j):
        """The index before the bracket groups that end at token j (j itself when it is no ']')."""
        while j >= 0 and self.t[j].text == "]":
            depth = 0
            while j >= 0:
                depth += {"]": 1, "[": -1}.get(self.t[j].text, 0)
                j -= 1
                if depth == 0:
                    break
        return j

    # ---- scopes ----
    def _scopes(self):
        """Ranges of modules, functions and begin-end blocks (begin and end matched with a stack)."""
        begins = []
        for i, tok in enumerate(self.t):
            if tok.text in ("module", "function"):
                self.scopes.append((i, self._closing(i, "end" + tok.text)))
            elif tok.text == "begin":
                begins.append(i)
            elif tok.text == "end":
                if not begins:
                    raise ParseError(f"'end' without 'begin' at line {tok.line}")
                self.scopes.append((begins.pop(), i))

    def _block_end(self, begin):
        return next(last for first, last in self.scopes if first == begin)

    def scope_of(self, i):
        """The innermost scope holding token i."""
        return max((s for s in self.scopes if s[0] <= i <= s[1]), key=lambda s: s[0])

    def _kind(self, i):
        """A variable's kind: in a function, a function var (a function computes from its arguments); anywhere
        else var: a local of an always block is as much an internal variable of the module as a module-level
        one."""
        if any(a <= i <= b and self.t[a].text == "function" for a, b in self.scopes):
            return "function var"
        return "var"

    def add(self, name_tok, type_text, unpacked, kind, scope):
        self.decls.append(Decl(self.t[name_tok].text, type_text, unpacked, kind, scope, name_tok))

    def error(self, i, message):
        self.errors.append(DeclError(i, self.scope_of(i), f"line {self.t[i].line}: {message}"))

    # ---- a module ----
    def _module(self, m, end):
        scope = (m, end)
        i = m + 2
        while self.t[i].text == "import":
            i = self._semicolon(i) + 1
        if self.t[i].text == "#":
            close = self.match(i + 1)
            self._parameters(i + 2, close - 1, scope)
            i = close + 1
        if self.t[i].text == "(":
            close = self.match(i)
            self._ports(i + 1, close - 1, scope, "port")
            i = close + 1
        if self.t[i].text != ";":
            self.error(i, f"module header: expected ';', found '{self.t[i].text}'")
        self._items(i + 1, end)
        # Clocks and resets (names in an event control) are not data: a swap would change timing, not values.
        events = set()
        for j in range(m, end):
            if self.t[j].text == "@" and self.t[j + 1].text == "(":
                events.update(self.t[k].text for k in range(j + 2, self.match(j + 1)) if self.t[k].kind == "ident")
        for d in self.decls:
            if d.scope == scope and d.name in events:
                d.kind = "event"

    def _semicolon(self, i):
        while self.t[i].text != ";":
            i = self.match(i) + 1 if self.t[i].text in "([{" else i + 1
        return i

    def _items(self, i, end):
        """Module items and statements up to `end`: declarations start after an item boundary."""
        at_start = True
        while i < end:
            tok = self.t[i]
            if self.is_excluded(i) or tok.kind == "directive":
                i, at_start = i + 1, True
                continue
            text = tok.text
            if text == "typedef":  # a type, no variable (struct fields are not signals of the module)
                i, at_start = self._semicolon(i) + 1, True
            elif text == "function":
                i, at_start = self._function(i), True
            elif text == "for" and self.t[i + 1].text == "(":
                i, at_start = self._for(i), True
            elif text in ("localparam", "parameter") and at_start:
                end_param = self._semicolon(i)
                self._parameters(i, end_param - 1, self.scope_of(i))
                i, at_start = end_param + 1, True
            elif text == "genvar" and at_start:
                end_genvar = self._semicolon(i)
                for a, b in self._split(i + 1, end_genvar - 1):
                    if a == b and self.t[a].kind == "ident":
                        self.add(a, "", "", "loop", self.scope_of(i))
                    else:
                        self.error(a, f"genvar not read: '{canonical(self.t[a:b + 1])[:80]}'")
                i, at_start = end_genvar + 1, True
            elif at_start and self._starts_declaration(i):
                i, at_start = self._declaration(i), True
            elif text in ("begin", "end") and self.t[i + 1].text == ":":
                i, at_start = i + 3, True  # begin : label
            elif text == "@" and self.t[i + 1].text == "(":
                i, at_start = self.match(i + 1) + 1, True
            elif text in "([{":
                i, at_start = self.match(i) + 1, False
            else:
                i, at_start = i + 1, text in ITEM_BOUNDARIES

    def _starts_declaration(self, i):
        """Whether the item at i is a declaration: a built-in type or prefix, or a type name (a word that is no
        keyword, with optional package scope and packed dimensions) followed by a name and then ; , = or [.
        An instance (`mod u (`, `mod #(`) and a statement (`x = `, `x[i] <=`) are not."""
        text = self.t[i].text
        if text in BUILTIN_TYPES or text in DECL_PREFIXES or text in DIRECTIONS:
            return True
        if self.t[i].kind != "ident" or text in KEYWORDS:
            return False
        j = i + 1
        while self.t[j].text == "::" and self.t[j + 1].kind == "ident":
            j += 2
        while self.t[j].text == "[":
            j = self.match(j) + 1
        return self.t[j].kind == "ident" and self.t[j].text not in KEYWORDS and \
            self.t[j + 1].text in (";", ",", "=", "[")

    def _type(self, i):
        """(index after the data type, its canonical text) of the type at i, or None. A type is a built-in one
        with optional signing, or a type name with optional package scope, then packed dimensions."""
        first = i
        if self.t[i].text in BUILTIN_TYPES:
            i += 1
            if self.t[i].text in ("signed", "unsigned"):
                i += 1
        elif self.t[i].kind == "ident" and self.t[i].text not in KEYWORDS:
            i += 1
            while self.t[i].text == "::" and self.t[i + 1].kind == "ident":
                i += 2
        else:
            return None  # an implicit type (`input [3:0] a`): not this RTL's style, not read
        while self.t[i].text == "[":
            i = self.match(i) + 1
        return i, canonical(self.t[first:i])

    def _declaration(self, i):
        """type name [dims] [= init] {, name [dims] [= init]} ;  Returns the index after the ';'."""
        start = i
        direction = None
        if self.t[i].text in DIRECTIONS:
            direction = self.t[i].text  # a non-ANSI port or an old-style function argument: not this RTL's style
        while self.t[i].text in DECL_PREFIXES:
            i += 1
        typed = self._type(i)
        end = self._semicolon(start)
        if direction is not None or typed is None:
            self.error(start, f"declaration not read: '{canonical(self.t[start:end + 1])[:80]}'")
            return end + 1
        i, type_text = typed
        scope = self.scope_of(start)
        kind = self._kind(start)
        while True:
            if self.t[i].kind != "ident" or self.t[i].text in KEYWORDS:
                self.error(start, f"declaration not read: '{canonical(self.t[start:end + 1])[:80]}'")
                return end + 1
            name, i = i, i + 1
            dims = i
            while self.t[i].text == "[":
                i = self.match(i) + 1
            unpacked = canonical(self.t[dims:i])
            if self.t[i].text == "=":
                while self.t[i].text not in (",", ";"):
                    i = self.match(i) + 1 if self.t[i].text in "([{" else i + 1
            self.add(name, type_text, unpacked, kind, scope)
            if self.t[i].text == ";":
                return i + 1
            if self.t[i].text != ",":
                self.error(start, f"declaration not read: '{canonical(self.t[start:end + 1])[:80]}'")
                return end + 1
            i += 1

    def _split(self, first, last):
        """Token ranges of the comma-separated items of first..last (commas inside brackets do not split)."""
        items, i, start = [], first, first
        while i <= last:
            if self.t[i].text in "([{":
                i = self.match(i) + 1
                continue
            if self.t[i].text == ",":
                items.append((start, i - 1))
                start = i + 1
            i += 1
        if start <= last:
            items.append((start, last))
        return items

    def _parameters(self, first, last, scope):
        """Parameter names of a #( ) list or a localparam/parameter statement: each item's name is the word
        before its '=' (after optional unpacked dimensions)."""
        for a, b in self._split(first, last):
            eq = next((j for j in range(a, b + 1) if self.t[j].text == "="), b + 1)
            j = self._dims_before(eq - 1)
            if j < a or self.t[j].kind != "ident" or self.t[j].text in KEYWORDS:
                self.error(a, f"parameter not read: '{canonical(self.t[a:b + 1])[:80]}'")
            else:
                self.add(j, "", "", "param", scope)

    def _ports(self, first, last, scope, what):
        """ANSI ports (what = "port") or function arguments (what = "argument"): each item is
        [direction] [type] name [unpacked dims]; a missing direction or type is the previous item's (IEEE
        1800-2017 23.2.2.3), a function argument's direction defaults to input."""
        direction, type_text = ("input" if what == "argument" else None), None
        for a, b in self._split(first, last):
            i = a
            if self.t[i].text in DIRECTIONS:
                direction, type_text = self.t[i].text, None
                i += 1
            while self.t[i].text in DECL_PREFIXES:
                i += 1
            # The name is the last word before the unpacked dimensions; what comes before it is the type.
            j = self._dims_before(b)
            if j < i or self.t[j].kind != "ident" or self.t[j].text in KEYWORDS or direction is None:
                self.error(a, f"{what} not read: '{canonical(self.t[a:b + 1])[:80]}'")
                continue
            if j > i:
                typed = self._type(i)
                if typed is None or typed[0] != j:
                    self.error(a, f"{what} not read: '{canonical(self.t[a:b + 1])[:80]}'")
                    continue
                type_text = typed[1]
            elif type_text is None:
                self.error(a, f"{what} without a type: '{canonical(self.t[a:b + 1])[:80]}'")
                continue
            kind = direction if what == "port" else "argument"
            self.add(j, type_text, canonical(self.t[j + 1:b + 1]), kind, scope)

    def _function(self, f):
        """function [automatic] type name ( args ) ;  Returns the index after the header."""
        scope = self.scope_of(f)
        end = self._semicolon(f)
        close = end - 1
        if self.t[close].text != ")":
            self.error(f, "function header without an argument list: its arguments are not read")
            return end + 1
        opener = next(j for j in range(f, close) if self.t[j].text == "(" and self.match(j) == close)
        if opener + 1 <= close - 1:
            self._ports(opener + 1, close - 1, scope, "argument")
        return end + 1

    def _for(self, f):
        """for (int i = ...; ...; ...) and for (genvar i = ...): the loop variable is visible in the loop, the
        header and the body. A body that is no begin-end block is taken to reach the end of the enclosing scope:
        that only hides more reads of the name (they stay unresolved), it never resolves one wrongly."""
        close = self.match(f + 1)
        j = f + 2
        if self.t[j].text in ("int", "integer", "genvar", "automatic"):
            while self.t[j].text in ("int", "integer", "genvar", "automatic", "unsigned"):
                j += 1
            body = close + 1
            last = self._block_end(body) if self.t[body].text == "begin" else self.scope_of(f)[1]
            self.add(j, "", "", "loop", (f, last))
        return close + 1


@dataclass
class SourceFile:
    path: str  # as given (relative to the RTL directory)
    text: str
    tokens: list
    slots: list
    decls: list = field(default_factory=list)
    decl_errors: list = field(default_factory=list)
    by_name: dict = field(default_factory=dict, repr=False)  # name -> its declarations, from decls

    def __post_init__(self):
        for d in self.decls:
            self.by_name.setdefault(d.name, []).append(d)

    def resolve(self, name, at):
        """The declaration `name` refers to at token `at`: the visible one of the innermost scope, or None."""
        visible = [d for d in self.by_name.get(name, ()) if d.scope[0] <= at <= d.scope[1] and d.token < at]
        return max(visible, key=lambda d: d.scope[0]) if visible else None

    def visible(self, at):
        """Every declaration visible at token `at` that no inner one hides."""
        return [d for d in self.decls if d.scope[0] <= at <= d.scope[1] and d.token < at
                and self.resolve(d.name, at) is d]

    def shadowed_by_error(self, decl, at):
        """Whether a declaration the reader could not read might hide `decl` at token `at`: it is in a scope
        inside decl's that holds `at` (one in decl's own scope cannot reuse its name)."""
        return any(e.scope[0] > decl.scope[0] and e.scope[0] <= at <= e.scope[1] and e.token < at
                   for e in self.decl_errors)


def read_source(path, text):
    tokens = tokenize(text)
    reader = ModuleReader(tokens)
    slots = reader.read()
    decls, errors = DeclReader(tokens, reader.excluded).read()
    return SourceFile(path, text, tokens, slots, decls, errors)


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
