"""ctx.expr(..., out=...) against Python's integers: kept NumPy and DeviceArray outputs (six, poly, and mix's four
outputs when it was generated), in place, the same objects returned, and every out= error with nothing written."""

import random

import pytest

from python_support import adversarial_pairs, ctx, midint, np  # noqa: F401  (ctx: fixture)
from test_python_api import _CudaArray
from test_python_expr import FORMULAS, expr_sizes

GUARD = 0xDEADBEEF   # what the memory around and under an output holds before a call


def limbs(values, bits):
    return midint.ints_to_limbs(values, bits).copy()


def ints(arr):
    return midint.limbs_to_ints(np.asarray(arr))


def mix_reference(a, b, c, bits):
    """tests/expressions/mix.expr in Python ints: outputs (lo, wide, same, neg); wide is 2*bits wide."""
    m, m2 = 1 << bits, 1 << (2 * bits)
    d = (a - b) % m
    s = d * d % m
    return (s + 3 * c - 0xFFFFFFFF) % m, (d * c + b * b - s) % m2, s, -a % m


def cases(name, bits):
    """(a, b) value lists: the adversarial pairs (carries through every word, extremes, random)."""
    pairs = adversarial_pairs(bits, random.Random(f"{name}{bits}"))
    return [p[0] for p in pairs], [p[1] for p in pairs]


def generated(ctx, name):
    if name not in ctx.expressions():
        pytest.skip(f"{name} was not generated (make gen EXPRS=...)")
    return ctx.expressions()[name]


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_expr_out_numpy(ctx, name):
    """out= a row range of a larger guarded array (C-contiguous): the result lands there, the guard rows stay,
    the given object comes back; counts of 1, 5 and all the cases (none fills a block)."""
    generated(ctx, name)
    for bits in expr_sizes(ctx.backend, name):
        a, b = cases(name, bits)
        w = bits // 32
        for count in (1, 5, len(a)):
            want = [FORMULAS[name](x, y) % (1 << bits) for x, y in zip(a[:count], b[:count])]
            na, nb = limbs(a[:count], bits), limbs(b[:count], bits)
            buf = np.full((count + 2, w), GUARD, np.uint32)
            out = buf[1:count + 1]
            assert ctx.expr(name, na, nb, out=out) is out
            assert ints(out) == want, (bits, count)
            assert (buf[0] == GUARD).all() and (buf[-1] == GUARD).all()
            # a tuple or list of one array is the same call; the bare array comes back
            out2 = np.full((count, w), GUARD, np.uint32)
            assert ctx.expr(name, na, nb, out=(out2,)) is out2
            assert ints(out2) == want
            out3 = np.full((count, w), GUARD, np.uint32)
            assert ctx.expr(name, na, nb, bits=bits, out=[out3]) is out3
            assert ints(out3) == want


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_expr_out_in_place(ctx, name):
    """An output of the inputs' width may be exactly an input: out=a and out=b, NumPy and DeviceArray."""
    generated(ctx, name)
    bits = expr_sizes(ctx.backend, name)[-1]
    a, b = cases(name, bits)
    want = [FORMULAS[name](x, y) % (1 << bits) for x, y in zip(a, b)]
    for which in (0, 1):
        arrs = [limbs(a, bits), limbs(b, bits)]
        assert ctx.expr(name, *arrs, out=arrs[which]) is arrs[which]
        assert ints(arrs[which]) == want
        assert ints(arrs[1 - which]) == (b if which == 0 else a)
        devs = [ctx.to_device(a, bits), ctx.to_device(b, bits)]
        assert ctx.expr(name, *devs, out=devs[which]) is devs[which]
        assert devs[which].to_ints() == want
        assert devs[1 - which].to_ints() == (b if which == 0 else a)


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_expr_out_device_array(ctx, name):
    """DeviceArray inputs write a kept DeviceArray (the context's own buffers, OpenCL and CUDA alike)."""
    generated(ctx, name)
    bits = expr_sizes(ctx.backend, name)[0]
    a, b = cases(name, bits)
    want = [FORMULAS[name](x, y) % (1 << bits) for x, y in zip(a, b)]
    da, db = ctx.to_device(a, bits), ctx.to_device(b, bits)
    out = ctx.to_device(np.full((len(a), bits // 32), GUARD, np.uint32))
    assert ctx.expr(name, da, db, out=out) is out
    assert out.to_ints() == want


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_expr_out_cuda_arrays(ctx, name):
    """CUDA arrays (__cuda_array_interface__ alone, and CuPy when installed) write the given CUDA array, which comes
    back as it is (not wrapped); a DeviceArray out= for them is of another kind."""
    if ctx.backend != "cuda":
        pytest.skip("CUDA arrays run on a CUDA context only (this one is OpenCL)")
    generated(ctx, name)
    bits = expr_sizes(ctx.backend, name)[0]
    a, b = cases(name, bits)
    want = [FORMULAS[name](x, y) % (1 << bits) for x, y in zip(a, b)]
    da, db, dout = ctx.to_device(a, bits), ctx.to_device(b, bits), ctx.empty((len(a), bits // 32))
    out = _CudaArray(dout)
    assert ctx.expr(name, _CudaArray(da), _CudaArray(db), out=out) is out
    assert dout.to_ints() == want
    with pytest.raises(TypeError, match="kind"):
        ctx.expr(name, _CudaArray(da), _CudaArray(db), out=dout)
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    ca, cb = cp.asarray(limbs(a, bits)), cp.asarray(limbs(b, bits))
    cout = cp.full((len(a), bits // 32), GUARD, dtype=cp.uint32)
    with cp.cuda.Stream(non_blocking=True):   # the call runs on CuPy's current stream
        assert ctx.expr(name, ca, cb, out=cout) is cout
        host = cp.asnumpy(cout)
    assert ints(host) == want
    assert ctx.expr(name, ca, cb, out=ca) is ca   # in place
    assert ints(cp.asnumpy(ca)) == want


def test_expr_out_mix(ctx):
    """Several outputs of two widths (tests/expressions/mix.expr, when generated): out= a tuple in the order of
    the output names, returned as that tuple's arrays; two outputs in one buffer are refused."""
    e = generated(ctx, "mix")
    assert e.outputs == ("lo", "wide", "same", "neg") and e.output_words == (1, 2, 1, 1)
    bits = expr_sizes(ctx.backend, "mix")[0]
    a, b = cases("mix", bits)
    c = a[::-1]
    want = list(zip(*(mix_reference(x, y, z, bits) for x, y, z in zip(a, b, c))))
    n, w = len(a), bits // 32
    ins = [limbs(v, bits) for v in (a, b, c)]
    outs = [np.full((n, k * w), GUARD, np.uint32) for k in e.output_words]
    got = ctx.expr("mix", *ins, out=outs)
    assert isinstance(got, tuple) and len(got) == 4 and all(g is o for g, o in zip(got, outs))
    assert [ints(o) for o in outs] == [list(v) for v in want]
    # in place: lo into c, neg into a (outputs of the inputs' width)
    ins = [limbs(v, bits) for v in (a, b, c)]
    got = ctx.expr("mix", *ins, out=(ins[2], np.empty((n, 2 * w), np.uint32), np.empty((n, w), np.uint32), ins[0]))
    assert got[0] is ins[2] and got[3] is ins[0]
    assert [ints(o) for o in got] == [list(v) for v in want]
    # device buffers
    dins = [ctx.to_device(v, bits) for v in (a, b, c)]
    douts = tuple(ctx.empty((n, k * w)) for k in e.output_words)
    assert all(g is o for g, o in zip(ctx.expr("mix", *dins, out=douts), douts))
    assert [o.to_ints() for o in douts] == [list(v) for v in want]
    # the same array for two outputs, and the wide output over an input: refused, nothing written
    ins = [limbs(v, bits) for v in (a, b, c)]
    same, wide = np.full((n, w), GUARD, np.uint32), np.full((n, 2 * w), GUARD, np.uint32)
    with pytest.raises(ValueError) as err:
        ctx.expr("mix", *ins, out=(same, wide, same, np.empty((n, w), np.uint32)))
    assert err.value.status == "MIDINT_ERR_OVERLAP"
    assert (same == GUARD).all() and (wide == GUARD).all()
    two = np.full((2 * n, w), GUARD, np.uint32)   # wide's memory holds the first input
    with pytest.raises(ValueError) as err:
        ctx.expr("mix", two[:n], *ins[1:], out=(np.empty((n, w), np.uint32), two.reshape(n, 2 * w),
                                                np.empty((n, w), np.uint32), np.empty((n, w), np.uint32)))
    assert err.value.status == "MIDINT_ERR_OVERLAP"
    assert (two == GUARD).all()


def _errors_for(ctx, name, bits, count):
    """(out, exception, status or message pattern) that ctx.expr(name, numpy inputs, out=out) must refuse."""
    w = bits // 32
    ok = lambda rows=count, words=w, dtype=np.uint32: np.full((rows, words), 0x5EED, dtype)  # noqa: E731
    ro = ok()
    ro.flags.writeable = False
    return {
        "two arrays for one output": ((ok(), ok()), ValueError, "holds 2 arrays"),
        "an empty tuple": ((), ValueError, "holds 0 arrays"),
        "one word too wide": (ok(words=w + 1), ValueError, "shape"),
        "one word too narrow": (ok(words=w - 1), ValueError, "shape"),
        "one row too many": (ok(rows=count + 1), ValueError, "shape"),
        "a full product's width": (ok(words=2 * w), ValueError, "shape"),
        "int32": (ok(dtype=np.int32), TypeError, "dtype"),
        "uint64": (ok(dtype=np.uint64), TypeError, "dtype"),
        "1-D": (np.full(count * w, GUARD, np.uint32), ValueError, "shape"),
        "not contiguous": (np.full((count, 2 * w), GUARD, np.uint32)[:, ::2], ValueError, "C-contiguous"),
        "read-only": (ro, ValueError, "read-only"),
        "a list of ints": (list(range(count)), ValueError, "holds .* arrays"),
        "an int": (7, TypeError, "int"),
        "a DeviceArray for NumPy inputs": (ctx.empty((count, w)), TypeError, "NumPy"),
    }


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_expr_out_errors(ctx, name):
    generated(ctx, name)
    bits = expr_sizes(ctx.backend, name)[0]
    a, b = cases(name, bits)
    count, w = len(a), bits // 32
    na, nb = limbs(a, bits), limbs(b, bits)
    for what, (out, cls, pattern) in _errors_for(ctx, name, bits, count).items():
        arrays = [o for o in (out if isinstance(out, tuple) else (out,)) if isinstance(o, np.ndarray)]
        before = [o.copy() for o in arrays]
        with pytest.raises(cls, match=pattern) as err:
            ctx.expr(name, na, nb, out=out)
        assert isinstance(err.value, midint.MidintError), what
        assert all((x == y).all() for x, y in zip(before, arrays)), what
    assert ints(na) == a and ints(nb) == b
    # DeviceArray inputs want a device out=, not NumPy
    da, db = ctx.to_device(na), ctx.to_device(nb)
    host = np.full((count, w), GUARD, np.uint32)
    with pytest.raises(TypeError, match="kind"):
        ctx.expr(name, da, db, out=host)
    assert (host == GUARD).all()
    wide = ctx.to_device(np.full((count, w + 1), GUARD, np.uint32))
    with pytest.raises(ValueError, match="shape"):
        ctx.expr(name, da, db, out=wide)
    assert (wide.get() == GUARD).all()
    # lists of ints: the outputs come back as new lists, out= is refused
    with pytest.raises(TypeError, match="out= takes arrays"):
        ctx.expr(name, a, b, bits=bits, out=host)
    assert (host == GUARD).all()
    # an output overlapping an input without being it: the library's MIDINT_ERR_OVERLAP, nothing written
    buf = np.full((count + 1, w), GUARD, np.uint32)
    buf[:count] = na
    before = buf.copy()
    with pytest.raises(ValueError) as err:
        ctx.expr(name, buf[:count], nb, out=buf[1:])
    assert isinstance(err.value, midint.MidintValueError) and err.value.status == "MIDINT_ERR_OVERLAP"
    assert (buf == before).all()
