"""The expression language's parser (generator/expr.py): programs, sharing, widths, and errors with file:line:column."""

import random

import pytest

from conftest import ROOT
from generator.expr import ExprError, evaluate, load, load_all, parse


def prog(text, name="t"):
    return parse(text, f"{name}.expr")


def error(text):
    with pytest.raises(ExprError) as e:
        prog(text)
    return str(e.value)


def test_shipped_examples():
    six = load(ROOT / "expressions" / "six.expr")
    assert six.name == "six" and six.inputs == ["a", "b"] and [n for n, _ in six.outputs] == ["r"]
    assert [s.op for s in six.steps] == ["add"] * 6
    poly = load(ROOT / "expressions" / "poly.expr")
    assert sorted(s.op for s in poly.steps) == ["add"] * 3 + ["mullo"] * 4
    g = random.Random(1)
    for bits in (32, 64, 512):
        a, b = g.getrandbits(bits), g.getrandbits(bits)
        m = 1 << bits
        assert evaluate(six, {"a": a, "b": b}, bits)["r"] == (6 * a + 10 * b) % m
        assert evaluate(poly, {"a": a, "b": b}, bits)["r"] == ((a * a + b) * (b * b + b) + a * b) % m


def test_program_text_is_the_registry_form():
    p = prog("input a, b\nt = a * b\noutput r = t + a\noutput w = mulw(a, b)\n")
    assert p.text() == "mullo 1 0 1;add 1 0 2;mul 2 0 1;out 3;out 4"
    assert p.output_widths() == [1, 2]


def test_sharing_and_commutativity():
    p = prog("input a, b\nx = a * b + b * a\ny = a*b\noutput r = x + y\n")
    assert [s.op for s in p.steps].count("mullo") == 1      # a*b once, b*a is the same step
    assert evaluate(p, {"a": 7, "b": 9}, 64)["r"] == 3 * 63


def test_precedence_constants_and_functions():
    p = prog("input a\noutput r = 3 + a * 0x10 - (a - 1) * 2\noutput s = sqr(a)\noutput w = sqrw(a) + a\n")
    for a in (0, 1, 5, (1 << 64) - 1):
        out = evaluate(p, {"a": a}, 64)
        assert out["r"] == (3 + a * 16 - (a - 1) * 2) % (1 << 64)
        assert out["s"] == a * a % (1 << 64)
        assert out["w"] == a * a + a                        # width 2: a + a^2 < 2^128, zero-extended add
    widths = dict(zip([n for n, _ in p.outputs], p.output_widths()))
    assert widths == {"r": 1, "s": 1, "w": 2}
    assert any(s.op == "ext" for s in p.steps)


def test_dead_steps_removed_and_several_outputs():
    p = prog("input a, b\nunused = a * a * a\nt = a + b\noutput r = t\noutput s = t - b\n")
    assert [s.op for s in p.steps] == ["add", "sub"]
    assert p.outputs == [("r", 2), ("s", 3)]


def test_expr_name_line_and_file_name():
    assert prog("expr foo2\ninput a\noutput r = a\n").name == "foo2"
    assert prog("input a\noutput r = a\n", name="bar").name == "bar"


@pytest.mark.parametrize("text, where, words", [
    ("input a\noutput r = a + c\n", "t.expr:2:16", "unknown name 'c'"),
    ("input a\nx = y + a\ny = x + a\noutput r = y\n", "t.expr:2:5", "used before its definition (line 3, column 1)"),
    ("input a\nx = x + a\noutput r = x\n", "t.expr:2:5", "used before its definition"),
    ("input a\noutput r = a / 3\n", "t.expr:2:14", "unsupported operator '/'"),
    ("input a\noutput r = a ^ 2\n", "t.expr:2:14", "unsupported operator '^'"),
    ("input a\noutput r = a << 2\n", "t.expr:2:14", "unsupported operator '<<'"),
    ("input a\noutput r = -a\n", "t.expr:2:12", "unary '-'"),
    ("input a\noutput r = a + 4294967296\n", "t.expr:2:16", "bad constant '4294967296'"),
    ("input a\noutput r = a + 12ab\n", "t.expr:2:18", "unexpected 'ab'"),
    ("input a\noutput r = mulw(a, b, a)\n", "t.expr:2:20", "unknown name 'b'"),
    ("input a\noutput r = mulw(a)\n", "t.expr:2:12", "mulw() takes 2 arguments, got 1"),
    ("input a\noutput r = div(a, a)\n", "t.expr:2:12", "unknown function 'div'"),
    ("input a\noutput r = mulw(a, a) * a\n", "t.expr:2:23", "product of a double-width value"),
    ("input a\noutput r = (a + a\n", "t.expr:2:18", "expected ')'"),
    ("input a\nx = a\nx = a + a\noutput r = x\n", "t.expr:3:1", "'x' is already defined (line 2, column 1)"),
    ("input a, a\noutput r = a\n", "t.expr:1:10", "already defined"),
    ("input a\noutput r = a\noutput r = a + a\n", "t.expr:3:8", "given twice"),
    ("input a\nx a\noutput r = a\n", "t.expr:2:3", "expected '=' after 'x'"),
    ("input a\noutput r = a $ a\n", "t.expr:2:14", "unexpected character '$'"),
    ("output r = 1\n", "t.expr:2:1", "no 'input' line"),
    ("input a\nx = a\n", "t.expr:3:1", "no 'output' line"),
    ("input a\nx = a + a\ninput b\noutput r = x\n", "t.expr:3:1", "before the first computation"),
    ("expr Bad\ninput a\noutput r = a\n", "t.expr:1:6", "expression name 'Bad'"),
    ("input a,b,c,d,e\noutput p = a\noutput q = a\noutput r = a\noutput s = a\n", "t.expr:5:8", "at most 8"),
])
def test_errors_name_file_line_and_column(text, where, words):
    msg = error(text)
    assert msg.startswith(where + ":"), msg
    assert words in msg, msg


def test_duplicate_expression_names(tmp_path):
    for f in ("x.expr", "y.expr"):
        (tmp_path / f).write_text("expr same\ninput a\noutput r = a\n")
    with pytest.raises(ExprError, match="also defined by"):
        load_all([tmp_path / "x.expr", tmp_path / "y.expr"])
    with pytest.raises(ExprError, match="cannot read"):
        load(tmp_path / "missing.expr")


# ---- modular regions: E mod NAME (docs/expressions.md) ----

def test_modular_regions_program_and_semantics():
    """The issue's example and its neighbours: exact integers reduced mod m (differences going negative, inputs above
    m, constants inside a region, a residue reused by plain steps and by another modulus's region), against Python."""
    p = prog("input a, b, c, m, q\nt = a*b mod m\noutput r = (a*b + c) mod m\noutput s = (t*t - a - 5) mod m\n"
             "u = t * c + (c - a mod m)\noutput w = (t + u) mod q mod m\n")
    assert p.moduli() == [3, 4] and p.modular()
    assert {s.op for s in p.steps} >= {"redm", "addm", "subm", "mulm", "mullo", "add"}
    assert p.text().startswith("redm 1 0 3;redm 1 1 3;mulm 1 5 6 3;")
    assert [s.op for s in p.steps].count("mulm") == 2              # a*b once in both regions; t*t
    g = random.Random(7)
    for bits in (32, 64, 256):
        top = (1 << bits) - 1
        for k in range(300):
            a, b, c = (g.choice((0, top, g.getrandbits(bits), g.getrandbits(5))) for _ in range(3))
            m, q = (g.choice((1, 3, top, g.getrandbits(bits) | 1, (1 << g.randint(1, bits)) - 1)) for _ in range(2))
            out = evaluate(p, {"a": a, "b": b, "c": c, "m": m, "q": q}, bits)
            t = a * b % m
            u = (t * c + (c - a) % m) % (1 << bits)
            assert out == {"r": (a * b + c) % m, "s": (t * t - a - 5) % m, "w": (t + u) % q % m}


def test_modular_sharing_and_identity():
    """A value entering a region is reduced once; a residue of the same modulus enters as it is; `mod` binds loosest."""
    p = prog("input a, b, m\nx = a*b mod m\ny = (x + a*b) mod m\noutput r = y\noutput s = a + b mod m\n")
    ops = [s.op for s in p.steps]
    assert ops.count("redm") == 2 and ops.count("mulm") == 1        # redm a, redm b; a*b shared, x not reduced again
    assert evaluate(p, {"a": 10, "b": 20, "m": 7}, 64) == {"r": 2 * 200 % 7, "s": 30 % 7}


MODULAR_ERRORS = [
    ("input a, m\noutput r = a mod b\n", "t.expr:2:18", "expected the name of an input after 'mod', found 'b'"),
    ("input a, m\nt = a\noutput r = a mod t\n", "t.expr:3:18", "which is not an input"),
    ("input a, m\noutput r = a mod 7\n", "t.expr:2:18", "expected the name of an input after 'mod', found '7'"),
    ("input a, m\noutput r = a mod\n", "t.expr:2:17", "found the end of the line"),
    ("input a, m\noutput r = mod m\n", "t.expr:2:12", "expected an expression before 'mod'"),
    ("input a, m\noutput r = a * a mod m + a\n", "t.expr:2:24", "write (E mod m)"),
    ("input a, m\noutput r = mulw(a, a) mod m\n", "t.expr:2:12", "mulw() (a double-width product) in a modular region"),
    ("input a, m\noutput r = sqrw(a) + 1 mod m\n", "t.expr:2:12", "sqrw() (a double-width product) in a modular"),
    ("input a, m\nw = sqrw(a)\noutput r = (w + a) mod m\n", "t.expr:3:13", "a double-width value"),
    ("input a, mod\noutput r = a\n", "t.expr:1:10", "'mod' is a reserved word"),
    ("input a, m\nmod = a\noutput r = a\n", "t.expr:2:1", "'mod' is a reserved word"),
    ("input a, m\noutput r = (a mod m\n", "t.expr:2:20", "expected ')'"),
]


@pytest.mark.parametrize("text, where, words", MODULAR_ERRORS)
def test_modular_errors(text, where, words):
    test_errors_name_file_line_and_column(text, where, words)
