"""The operations' reference in Python: evaluates an operation's `reference` text (midint.OPS[op].reference, from the
table of operations; the same language as tests/drivers/reference.c, docs/operations.md) over Python ints, so the
benchmark and the tests hold no per-operation formulas."""

import math
import re

FUNCTIONS = {
    "add": lambda w, x, y: x + y,
    "sub": lambda w, x, y: x - y,
    "mul": lambda w, x, y: x * y,
    "and": lambda w, x, y: x & y,
    "or": lambda w, x, y: x | y,
    "xor": lambda w, x, y: x ^ y,
    "shl": lambda w, x, s: x << s,
    "shr": lambda w, x, s: x >> s,
    "cmp": lambda w, x, y: (x > y) - (x < y),
    "lt": lambda w, x, y: int(x < y),
    "not": lambda w, x: (1 << w) - 1 - x,
    "div": lambda w, x, y: x // y,
    "mod": lambda w, x, y: x % y,
    "powm": lambda w, x, y, z: pow(x, y, z),
    "gcd": lambda w, x, y: math.gcd(x, y),
    "invert": lambda w, x, y: _invert(x, y)[0],
    "invertible": lambda w, x, y: _invert(x, y)[1],
}


def _invert(x, m):
    """(x^-1 mod m, 1), or (0, 0) where there is none (as mpz_invert: m = 1 gives (0, 1))."""
    if m == 1:
        return 0, 1
    try:
        return pow(x, -1, m), 1
    except ValueError:
        return 0, 0


def _tokens(text):
    return re.findall(r"\(|\)|[A-Za-z_][A-Za-z0-9_]*|\d+", text)


def _eval(tokens, values, bits):
    tok = tokens.pop(0)
    if tok == "(":
        name = tokens.pop(0)
        if name not in FUNCTIONS:
            raise ValueError(f"unknown reference function {name!r}")
        args = []
        while tokens[0] != ")":
            args.append(_eval(tokens, values, bits))
        tokens.pop(0)
        return FUNCTIONS[name](bits, *args)
    if tok.isdigit():
        return int(tok)
    if tok == "W":
        return bits
    return values[tok]


def evaluate(reference, values, bits):
    """{output: value} of reference text "r=(add a b);carry=(shr (add a b) W)" for `values` ({name: int}) at `bits`;
    each value is the exact result, before reduction to the output's width."""
    out = {}
    for part in reference.split(";"):
        name, expr = part.split("=", 1)
        out[name.strip()] = _eval(_tokens(expr), values, bits)
    return out


def reduce(value, words, signed=False):
    """A value as the library stores it in `words` 32-bit words: mod 2^(32 words); as int32 when signed."""
    v = value % (1 << (32 * words))
    return v - (1 << 32) if signed and v >= 1 << 31 else v


def expected(spec, values, bits):
    """The outputs of operation `spec` (midint.OPS[op]) for `values` ({input or scalar name: int}) at `bits`, as the
    library stores them: {output name: value}."""
    values = dict(values)
    for p in spec.buffers:   # an optional input left out: its scalar serves every instance
        if p.fallback and p.name not in values:
            values[p.name] = values[p.fallback]
    got = evaluate(spec.reference, values, bits)
    return {p.name: reduce(got[p.name], p.words(bits, values), p.signed) for p in spec.outputs}
