"""Fused expressions from Python (ctx.expr) against Python's integers: the shipped six and poly on lists of ints,
NumPy arrays and DeviceArrays, adversarial values, and the errors of a wrong name or arity."""

import random

import pytest

from conftest import read_variants
from python_support import adversarial_pairs, ctx, midint, np  # noqa: F401  (ctx: fixture)

FORMULAS = {"six": lambda a, b: 6 * a + 10 * b, "poly": lambda a, b: (a * a + b) * (b * b + b) + a * b}


def expr_sizes(backend, name, limit=4096):
    """The sizes generated for expression `name` up to `limit` (cheap on PoCL), else the smallest."""
    gen = sorted({v["bits"] for v in read_variants() if v["backend"] == backend and v["op"] == f"expr_{name}"})
    return [s for s in gen if s <= limit] or gen[:1]


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_expr_against_python(ctx, name):
    if name not in ctx.expressions():
        pytest.skip(f"{name} was not generated (make gen EXPRS=...)")
    e = ctx.expressions()[name]
    assert e.inputs == ("a", "b") and len(e.outputs) == 1 and e.output_words == (1,)
    sizes = expr_sizes(ctx.backend, name)
    if not sizes:
        pytest.skip(f"no size of {name} was generated for {ctx.backend}")
    rng = random.Random(name)
    for bits in sizes:
        pairs = adversarial_pairs(bits, rng)
        a, b = [p[0] for p in pairs], [p[1] for p in pairs]
        want = [FORMULAS[name](x, y) % (1 << bits) for x, y in zip(a, b)]
        assert ctx.expr(name, a, b, bits=bits) == want
        na = np.array([[(x >> (32 * k)) & 0xFFFFFFFF for k in range(bits // 32)] for x in a], np.uint32)
        nb = np.array([[(y >> (32 * k)) & 0xFFFFFFFF for k in range(bits // 32)] for y in b], np.uint32)
        got = ctx.expr(name, na, nb)
        assert isinstance(got, np.ndarray) and got.shape == na.shape
        assert [int.from_bytes(row.tobytes(), "little") for row in got] == want
        da, db = midint.DeviceArray(ctx, na.shape), midint.DeviceArray(ctx, nb.shape)
        da.set(na)
        db.set(nb)
        got = ctx.expr(name, da, db).get()
        assert [int.from_bytes(row.tobytes(), "little") for row in got] == want


def test_expr_errors(ctx):
    with pytest.raises(ValueError, match="no expression"):
        ctx.expr("no_such_expression", [1], [2], bits=512)
    name = next(iter(ctx.expressions()), None)
    if name is None:
        pytest.skip("no expression was generated")
    with pytest.raises(ValueError, match="takes 2 inputs"):
        ctx.expr(name, [1], bits=512)
    with pytest.raises(ValueError, match="negative|fit"):
        ctx.expr(name, [-1], [2], bits=expr_sizes(ctx.backend, name)[0])


def test_modular_expression_against_python(ctx):
    """expressions/mac.expr, r = (a b + c) mod m, from Python: odd moduli 1, 3, 2^k - 1, the largest of the width and
    random ones against inputs above them; an even or zero modulus refused naming its instance, the output untouched."""
    name = "mac"
    if name not in ctx.expressions():
        pytest.skip("mac was not generated (make gen EXPRS=...,expressions/mac.expr)")
    e = ctx.expressions()[name]
    assert e.inputs == ("a", "b", "c", "m") and e.output_words == (1,)
    rng = random.Random(name)
    for bits in expr_sizes(ctx.backend, name):
        top = (1 << bits) - 1
        pairs = adversarial_pairs(bits, rng)
        ms = [1, 3, top, (1 << rng.randrange(1, bits + 1)) - 1] + [rng.getrandbits(bits) | 1 for _ in pairs]
        ms = ms[:len(pairs)]
        a, b = [p[0] for p in pairs], [p[1] for p in pairs]
        c = [top if k % 3 == 0 else rng.getrandbits(bits) for k in range(len(pairs))]
        want = [(x * y + z) % m for x, y, z, m in zip(a, b, c, ms)]
        assert ctx.expr(name, a, b, c, ms, bits=bits) == want
        bad = list(ms)
        bad[5] = 0 if bits % 64 else 2 * (ms[5] // 2)
        out = np.full((len(pairs), bits // 32), 0xDEADBEEF, np.uint32)
        to = lambda xs: np.array([[(x >> (32 * k)) & 0xFFFFFFFF for k in range(bits // 32)] for x in xs], np.uint32)
        with pytest.raises(ValueError, match=r"inputs\[3\] \(m\)\[5\] is (even|zero); every m must be odd"):
            ctx.expr(name, to(a), to(b), to(c), to(bad), out=out)
        assert (out == 0xDEADBEEF).all()
