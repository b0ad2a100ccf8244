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
