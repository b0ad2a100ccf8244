"""Expressions (docs/expressions.md): parse an .expr file into a straight-line program of steps over big integers."""

from dataclasses import dataclass, field
from pathlib import Path
import re

MAX_CONSTANT = (1 << 32) - 1      # "small constants": one 32-bit word
MAX_IO = 8                        # inputs + outputs of one expression (the kernel ABI's io0..io7, runtime/launch.h)
NAME_RE = re.compile(r"[a-z][a-z0-9]{0,15}$")   # expression names: the op field of a variant name (expr_NAME)
IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# Functions: name -> (arity, step op, result width). `*` is mullo; sqr, mulw and sqrw are spelled as calls.
FUNCTIONS = {"sqr": (1, "mullo"), "mulw": (2, "mul"), "sqrw": (1, "mul")}
SUPPORTED = "+ - * ( ), E mod NAME and the functions sqr(x), mulw(x, y), sqrw(x)"
RESERVED = ("input", "output", "expr", "mod")

# Modular regions (`E mod m`, m an input): inside one, + - * are these steps over residues of m (kept as plain values
# reduced lazily or in Montgomery form by the kernel, per modulus: generator/expr_mod_plan.py, docs/expressions.md);
# a value entering the region is reduced first (redm). Each takes the
# modulus as its last argument and makes a value of width 1 below m.
MODULAR_OPS = {"+": "addm", "-": "subm", "*": "mulm"}
MODULAR_STEPS = frozenset({"redm", "addm", "subm", "mulm"})


class ExprError(ValueError):
    """A malformed expression file; the message starts with file:line:column."""


@dataclass(frozen=True)
class Step:
    """One operation of the program. `args` are value indices: inputs are 0 .. ninputs-1, step i is ninputs + i.
    op: add, sub (mod 2^(width bits)), mullo (low half), mul (full product: width 2), ext (zero-extend to width
    2), const (`value`, width 1); the modular steps (width 1, the modulus m last): redm x m = x mod m, addm x y m,
    subm x y m, mulm x y m = x + y, x - y, x y mod m (non-negative). Widths are in units of `bits`."""

    op: str
    width: int
    args: tuple = ()
    value: int = 0

    def text(self) -> str:
        tail = [str(self.value)] if self.op == "const" else [str(a) for a in self.args]
        return " ".join([self.op, str(self.width)] + tail)


@dataclass
class Program:
    name: str
    inputs: list                   # input names, in call order
    steps: list                    # Step
    outputs: list                  # (name, value index)
    source: str = ""               # the file, for messages
    widths: list = field(default_factory=list)   # width of every value

    @property
    def op(self) -> str:
        """The operation name in variant names: expr_NAME."""
        return "expr_" + self.name

    def width_of(self, value: int) -> int:
        return self.widths[value]

    def output_widths(self) -> list:
        return [self.widths[v] for _n, v in self.outputs]

    def text(self) -> str:
        """The program as the registry stores it (the test reference interprets it): steps, then the outputs."""
        return ";".join([s.text() for s in self.steps] + [f"out {v}" for _n, v in self.outputs])

    def kinds(self) -> set:
        """The step ops used (add, mullo, ...)."""
        return {s.op for s in self.steps}

    def moduli(self) -> list:
        """The inputs serving as a modulus (the last argument of a modular step), in input order."""
        return sorted({s.args[-1] for s in self.steps if s.op in MODULAR_STEPS})

    def modular(self) -> bool:
        """Whether the program has modular steps (`E mod m`)."""
        return bool(self.kinds() & MODULAR_STEPS)

    def last_uses(self) -> dict:
        """value -> index of the last step reading it (outputs count as read after every step)."""
        last = {}
        for i, s in enumerate(self.steps):
            for a in s.args:
                last[a] = i
        for _n, v in self.outputs:
            last[v] = len(self.steps)
        return last


# ---- tokens ----
_TOKEN_RE = re.compile(r"\s*(?:(?P<num>0[xX][0-9A-Fa-f_]+|[0-9][0-9_]*)|(?P<id>[A-Za-z_][A-Za-z0-9_]*)"
                       r"|(?P<op>\*\*|<<|>>|[-+*/%^(),=&|~!<>]))")


def _tokens(where, line: str):
    """(kind, text, column) for each token of `line`; kind num, id or op."""
    pos, out = 0, []
    while pos < len(line):
        if line[pos:].strip() == "":
            break
        m = _TOKEN_RE.match(line, pos)
        if not m:
            col = pos + len(line[pos:]) - len(line[pos:].lstrip()) + 1
            raise ExprError(f"{where(col)}: unexpected character '{line[col - 1]}'")
        kind = m.lastgroup
        out.append((kind, m.group(kind), m.start(kind) + 1))
        pos = m.end()
    return out


class _Parser:
    """Recursive descent over one line's tokens; builds steps through the program builder."""

    def __init__(self, builder, where, tokens, line_end_col):
        self.b, self.where, self.toks, self.i, self.end_col = builder, where, tokens, 0, line_end_col
        self.mod = None           # the modulus (an input's value) of the region being parsed, or None

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None, self.end_col)

    def take(self):
        t = self.peek()
        self.i += 1
        return t

    def expect(self, text):
        kind, tok, col = self.take()
        if tok != text:
            raise ExprError(f"{self.where(col)}: expected '{text}', found " + (f"'{tok}'" if tok else "the end of the line"))

    def unsupported(self, tok, col):
        raise ExprError(f"{self.where(col)}: unsupported operator '{tok}' (supported: {SUPPORTED})")

    def region_ahead(self):
        """The modulus of a `mod NAME` ending the expression that starts here (at this depth of parentheses, before
        a ')' or ',' closing it), or None: `mod` has the lowest precedence, so what stands left of it is parsed as a
        modular region (exact integers reduced mod m) from its first token."""
        depth = 0
        for j in range(self.i, len(self.toks)):
            kind, tok, col = self.toks[j]
            if tok == "(":
                depth += 1
            elif tok in (")", ","):
                if depth == 0:
                    return None
                depth -= 1 if tok == ")" else 0
            elif depth == 0 and kind == "id" and tok == "mod":
                return self.modulus(j, j == self.i)
        return None

    def modulus(self, j, first=False):
        """The input named after the `mod` at token j (first: nothing stands before it)."""
        _k, _t, col = self.toks[j]
        kind, tok, ncol = self.toks[j + 1] if j + 1 < len(self.toks) else (None, None, self.end_col)
        if first:
            raise ExprError(f"{self.where(col)}: expected an expression before 'mod'")
        if kind != "id" or self.b.lookup_input(tok) is None:
            found = f"'{tok}'" if tok else "the end of the line"
            why = (", which is not an input (the modulus must be an input, so that every instance brings its own)"
                   if kind == "id" else "")
            raise ExprError(f"{self.where(ncol)}: expected the name of an input after 'mod', found {found}{why}")
        return self.b.lookup_input(tok)

    def expr(self):
        outer = self.mod
        region = self.region_ahead()
        self.mod = outer if region is None else region
        left, lcol = self.term()
        while True:
            kind, tok, col = self.peek()
            if tok in ("+", "-"):
                self.take()
                right, rcol = self.term()
                left = self.b.arith("add" if tok == "+" else "sub", left, right, self.where(col), self.mod)
            elif kind == "id" and tok == "mod":
                # E mod m: E was parsed in m's region; a further `mod p` reduces that residue again
                m = self.modulus(self.i)
                self.take()
                self.take()
                left = self.b.enter(left, m, self.where(col))
                kind2, tok2, col2 = self.peek()
                if tok2 is not None and tok2 not in (")", ",") and tok2 != "mod":
                    raise ExprError(f"{self.where(col2)}: unexpected '{tok2}' after 'mod {self.toks[self.i - 1][1]}': "
                                    "mod applies to everything left of it; write (E mod m) to use the residue in a "
                                    "larger expression")
            elif kind == "op" and tok not in (")", ","):
                self.unsupported(tok, col)
            else:
                self.mod = outer
                return left, lcol

    def term(self):
        left, lcol = self.factor()
        while True:
            kind, tok, col = self.peek()
            if tok == "*":
                self.take()
                right, _ = self.factor()
                left = self.b.product("mullo", left, right, self.where(col), self.mod)
            elif tok in ("/", "%", "**", "^", "<<", ">>", "&", "|"):
                self.unsupported(tok, col)
            else:
                return left, lcol

    def factor(self):
        kind, tok, col = self.take()
        if kind == "num":
            try:
                value = int(tok.replace("_", ""), 0)
            except ValueError:
                raise ExprError(f"{self.where(col)}: bad constant '{tok}'") from None
            if value > MAX_CONSTANT:
                raise ExprError(f"{self.where(col)}: bad constant '{tok}': constants are at most {MAX_CONSTANT} "
                                "(one 32-bit word)")
            return self.enter(self.b.const(value), col), col
        if kind == "id":
            if self.peek()[1] == "(":
                return self.call(tok, col), col
            if tok == "mod":
                raise ExprError(f"{self.where(col)}: expected an expression before 'mod'")
            return self.enter(self.b.lookup(tok, self.where(col)), col), col
        if tok == "(":
            value, _ = self.expr()
            self.expect(")")
            return self.enter(value, col), col
        if tok in ("-", "~", "!"):
            raise ExprError(f"{self.where(col)}: unsupported operator: unary '{tok}' (write 0 - x for the negation "
                            "mod 2^bits)" if tok == "-" else f"{self.where(col)}: unsupported operator '{tok}' "
                            f"(supported: {SUPPORTED})")
        if tok is None:
            raise ExprError(f"{self.where(col)}: expected a name, a constant or '(', found the end of the line")
        if kind == "op" and tok not in (")", ","):
            self.unsupported(tok, col)
        raise ExprError(f"{self.where(col)}: expected a name, a constant or '(', found '{tok}'")

    def call(self, fname, col):
        if fname not in FUNCTIONS:
            raise ExprError(f"{self.where(col)}: unknown function '{fname}' (supported: {SUPPORTED})")
        arity, op = FUNCTIONS[fname]
        self.expect("(")
        args = [self.expr()[0]]
        while self.peek()[1] == ",":
            self.take()
            args.append(self.expr()[0])
        self.expect(")")
        if len(args) != arity:
            raise ExprError(f"{self.where(col)}: {fname}() takes {arity} argument{'s' if arity > 1 else ''}, "
                            f"got {len(args)}")
        if arity == 1:
            args = args * 2
        return self.b.product(op, args[0], args[1], self.where(col), self.mod, fname)

    def enter(self, value, col):
        """A value used inside a modular region: reduced mod the region's modulus (once; a residue of it as it is)."""
        return value if self.mod is None else self.b.enter(value, self.mod, self.where(col))


class _Builder:
    """The program under construction: values by name, steps shared by hash-consing (identical operations on
    the same values are one step, so `a*b` written twice, or `b*a`, is computed once)."""

    def __init__(self):
        self.inputs, self.steps, self.widths, self.memo = [], [], [], {}
        self.residue = {}          # value -> the modulus it is a residue of (a modular step's result)

    def value(self, step: Step) -> int:
        if step.op in ("add", "mullo", "mul"):          # commutative: one canonical order
            step = Step(step.op, step.width, tuple(sorted(step.args)), step.value)
        if step.op in ("addm", "mulm"):                 # commutative in x, y; the modulus stays last
            step = Step(step.op, step.width, tuple(sorted(step.args[:2])) + step.args[2:], step.value)
        if step not in self.memo:
            self.steps.append(step)
            self.widths.append(step.width)
            self.memo[step] = len(self.inputs) + len(self.steps) - 1
            if step.op in MODULAR_STEPS:
                self.residue[self.memo[step]] = step.args[-1]
        return self.memo[step]

    def lookup_input(self, name):
        """The value of input `name`, or None."""
        return self.inputs.index(name) if name in self.inputs else None

    def enter(self, v, m, where):
        """v as a residue of m: itself when it is one already, else redm v m (v taken as the integer it is)."""
        if self.widths[v] != 1:
            raise ExprError(f"{where}: unsupported: a double-width value (the result of mulw or sqrw) in a modular "
                            "region (E mod m takes values of `bits` bits)")
        return v if self.residue.get(v) == m else self.value(Step("redm", 1, (v, m)))

    def const(self, value):
        return self.value(Step("const", 1, (), value))

    def widen(self, v, width):
        return v if self.widths[v] >= width else self.value(Step("ext", width, (v,)))

    def arith(self, op, x, y, where, mod=None):
        if mod is not None:     # operands entered the region already (_Parser.enter)
            return self.value(Step(MODULAR_OPS["+" if op == "add" else "-"], 1, (x, y, mod)))
        w = max(self.widths[x], self.widths[y])
        return self.value(Step(op, w, (self.widen(x, w), self.widen(y, w))))

    def product(self, op, x, y, where, mod=None, fname="*"):
        if mod is not None:
            if op == "mul":
                raise ExprError(f"{where}: unsupported: {fname}() (a double-width product) in a modular region; "
                                "write x * y there (the product mod m)")
            return self.value(Step("mulm", 1, (x, y, mod)))
        for v in (x, y):
            if self.widths[v] != 1:
                raise ExprError(f"{where}: unsupported: a product of a double-width value (the result of mulw or sqrw);"
                                " products take values of `bits` bits")
        return self.value(Step(op, 2 if op == "mul" else 1, (x, y)))


def parse(text: str, filename: str = "<expr>", default_name: str | None = None) -> Program:
    """Parse an expression file. Raises ExprError with file:line:column."""
    b = _Builder()
    names: dict = {}          # name -> value index
    defined_at: dict = {}     # name -> (line, column)
    outputs, expr_name, expr_at = [], None, None
    lines = text.splitlines()
    later = {}                # names defined on a later line: for "used before its definition"
    for lineno, raw in enumerate(lines, 1):
        m = re.match(r"\s*(?:output\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=", raw.split("#", 1)[0])
        if m and m.group(1) not in later:
            later[m.group(1)] = (lineno, m.start(1) + 1)

    def lookup(name, where_text):
        if name in names:
            return names[name]
        if name in later:
            line, col = later[name]
            raise ExprError(f"{where_text}: '{name}' is used before its definition (line {line}, column {col}); "
                            "definitions must come first, so no value can depend on itself")
        raise ExprError(f"{where_text}: unknown name '{name}'")

    b.lookup = lookup
    for lineno, raw in enumerate(lines, 1):
        line = raw.split("#", 1)[0].rstrip()

        def where(col, lineno=lineno):
            return f"{filename}:{lineno}:{col}"

        toks = _tokens(where, line)
        if not toks:
            continue
        kind, tok, col = toks[0]

        def define(name, ncol, value):
            if name in names or name in defined_at:
                pl, pc = defined_at[name]
                raise ExprError(f"{where(ncol)}: '{name}' is already defined (line {pl}, column {pc})")
            names[name] = value
            defined_at[name] = (lineno, ncol)

        if tok == "expr" and kind == "id" and len(toks) >= 2 and toks[1][0] == "id" and (len(toks) == 2 or toks[2][1] != "="):
            if len(toks) != 2:
                raise ExprError(f"{where(toks[2][2])}: expected 'expr NAME'")
            if expr_name is not None:
                raise ExprError(f"{where(col)}: a second 'expr' line (the first is line {expr_at})")
            expr_name, expr_at = toks[1][1], lineno
            if not NAME_RE.match(expr_name):
                raise ExprError(f"{where(toks[1][2])}: expression name '{expr_name}': lower-case letters and digits, "
                                "starting with a letter, at most 16")
            continue
        if tok == "input" and kind == "id" and (len(toks) == 1 or toks[1][1] != "="):
            if b.steps:
                raise ExprError(f"{where(col)}: inputs are declared before the first computation")
            rest = toks[1:]
            if not rest:
                raise ExprError(f"{where(len(line) + 1)}: expected input names after 'input'")
            for i, (k2, t2, c2) in enumerate(rest):
                if i % 2 == 1:
                    if t2 != ",":
                        raise ExprError(f"{where(c2)}: expected ',' between input names, found '{t2}'")
                    continue
                if k2 != "id":
                    raise ExprError(f"{where(c2)}: expected an input name, found '{t2}'")
                if t2 in FUNCTIONS:
                    raise ExprError(f"{where(c2)}: '{t2}' is a function name")
                if t2 in RESERVED:
                    raise ExprError(f"{where(c2)}: '{t2}' is a reserved word")
                b.inputs.append(t2)
                b.widths.append(1)
                define(t2, c2, len(b.inputs) - 1)
            if len(rest) % 2 == 0:
                raise ExprError(f"{where(rest[-1][2])}: expected an input name after ','")
            continue
        is_output = tok == "output" and kind == "id" and len(toks) >= 2 and toks[1][0] == "id"
        head = toks[1:] if is_output else toks
        hkind, name, ncol = head[0]
        if hkind != "id":
            raise ExprError(f"{where(ncol)}: expected a name at the start of a definition, found '{name}'")
        if name in FUNCTIONS or name in RESERVED:
            raise ExprError(f"{where(ncol)}: '{name}' is a reserved word")
        if len(head) == 1 and is_output:          # output of an existing value
            outputs.append((name, lookup(name, where(ncol)), where(ncol)))
            continue
        if len(head) < 2 or head[1][1] != "=":
            found = f"'{head[1][1]}'" if len(head) >= 2 else "the end of the line"
            raise ExprError(f"{where(head[1][2] if len(head) >= 2 else len(line) + 1)}: expected '=' after '{name}', "
                            f"found {found}")
        p = _Parser(b, where, head[2:], len(line) + 1)
        value, _ = p.expr()
        kind2, tok2, col2 = p.peek()
        if tok2 is not None:
            raise ExprError(f"{where(col2)}: unexpected '{tok2}' after the expression")
        if is_output:
            outputs.append((name, value, where(ncol)))
            if name in names:
                pl, pc = defined_at[name]
                raise ExprError(f"{where(ncol)}: '{name}' is already defined (line {pl}, column {pc})")
            defined_at[name] = (lineno, ncol)
        else:
            define(name, ncol, value)

    end = f"{filename}:{len(lines) + 1}:1"
    if not b.inputs:
        raise ExprError(f"{end}: no 'input' line: an expression reads at least one input")
    if not outputs:
        raise ExprError(f"{end}: no 'output' line: an expression writes at least one output")
    seen = {}
    for oname, _v, owhere in outputs:
        if oname in seen:
            raise ExprError(f"{owhere}: output '{oname}' is given twice")
        seen[oname] = owhere
    if len(b.inputs) + len(outputs) > MAX_IO:
        raise ExprError(f"{outputs[-1][2]}: {len(b.inputs)} inputs and {len(outputs)} outputs: at most {MAX_IO} "
                        "buffers in all")
    name = expr_name or default_name or Path(filename).stem
    if not NAME_RE.match(name):
        raise ExprError(f"{filename}:1:1: expression name '{name}' (from the file name): lower-case letters and "
                        "digits, starting with a letter, at most 16; add an 'expr NAME' line")
    prog = Program(name=name, inputs=list(b.inputs), steps=list(b.steps),
                   outputs=[(n, v) for n, v, _w in outputs], source=filename, widths=list(b.widths))
    return _dead_steps_removed(prog)


def _dead_steps_removed(p: Program) -> Program:
    """Drop steps no output depends on, renumbering the values."""
    nin = len(p.inputs)
    live = {v for _n, v in p.outputs}
    for i in range(len(p.steps) - 1, -1, -1):
        if nin + i in live:
            live.update(p.steps[i].args)
    remap = {i: i for i in range(nin)}
    steps, widths = [], list(p.widths[:nin])
    for i, s in enumerate(p.steps):
        if nin + i in live:
            remap[nin + i] = nin + len(steps)
            steps.append(Step(s.op, s.width, tuple(remap[a] for a in s.args), s.value))
            widths.append(s.width)
    return Program(p.name, p.inputs, steps, [(n, remap[v]) for n, v in p.outputs], p.source, widths)


def load(path) -> Program:
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise ExprError(f"{path}: cannot read: {e.strerror}") from None
    return parse(text, str(path))


def load_all(paths) -> list:
    """Parse every file; two expressions of one name are refused."""
    progs, where = [], {}
    for p in paths:
        prog = load(p)
        if prog.name in where:
            raise ExprError(f"{p}: expression '{prog.name}' is also defined by {where[prog.name]}")
        where[prog.name] = str(p)
        progs.append(prog)
    return progs


def evaluate(p: Program, inputs: dict, bits: int) -> dict:
    """Reference semantics in Python ints (for the unit tests): output name -> value."""
    vals = [inputs[n] % (1 << bits) for n in p.inputs]
    for s in p.steps:
        x = [vals[a] for a in s.args]
        # a modular step reduces mod its modulus (x[-1]; Python's % of a positive m is in [0, m)), the others mod
        # 2^(width bits)
        mod = x[-1] if s.op in MODULAR_STEPS else 1 << (bits * s.width)
        vals.append({"add": lambda: x[0] + x[1], "sub": lambda: x[0] - x[1], "mullo": lambda: x[0] * x[1],
                     "mul": lambda: x[0] * x[1], "ext": lambda: x[0], "const": lambda: s.value,
                     "redm": lambda: x[0], "addm": lambda: x[0] + x[1], "subm": lambda: x[0] - x[1],
                     "mulm": lambda: x[0] * x[1]}[s.op]() % mod)
    return {n: vals[v] for n, v in p.outputs}
