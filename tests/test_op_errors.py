"""Every operation's argument checks, read from its descriptor (the table of operations): counts that must be below
bits refused with the first bad instance named and nothing written, outputs that may not overlap an input refused,
in place where the row allows it, the generic call (midint_run) the same as the operation's own function."""

import ctypes

import pytest

from python_support import ctx, midint, np, sizes_for  # noqa: F401  (ctx: fixture)

# operations with a modulus object (midint.Modulus) are checked by test_python_modarith.py's shared-modulus tests
OPS = [op for op in midint.OPS if not midint.OPS[op].moduli]
CANARY = 0xDEADBEEF


def spec_of(op):
    return midint.OPS[op]


def args_for(spec, count, w, rng):
    """Inputs (random; a width scalar's input default_per_n x n words), valid by the row's rules (a nonzero input's
    top word set, an odd one's bit 0), and the scalars: a width its default (default_per_n x bits), the rest 1."""
    scalars = {p.name: p.default_per_n * 32 * w if p.width else 1 for p in spec.scalars}
    ins = []
    for p in spec.inputs:
        x = rng.integers(0, 1 << 32, (count, p.words(32 * w, scalars)), dtype=np.uint32)
        if p.nonzero:
            x[:, -1] |= 1
        if p.odd:
            x[:, 0] |= 1
        ins.append(x)
    return ins, scalars


def out_shape(spec, count, bits, scalars=None):
    p = spec.outputs[0]
    return (count, p.words(bits, scalars)) if p.is_number else (count,)


@pytest.mark.parametrize("op", [op for op in OPS if any(p.below_bits for p in midint.OPS[op].params)])
def test_counts_below_bits(ctx, op):
    """A scalar count of bits or more, and one per-instance count of bits or more, are refused naming the value and
    the instance; the output is not touched (host and device calls)."""
    spec, rng = spec_of(op), np.random.default_rng(5)
    bits = sizes_for(ctx.backend, op)[0]
    count, w = 5, bits // 32
    ins, scalars = args_for(spec, count, w, rng)
    out = np.full(out_shape(spec, count, bits), CANARY, np.uint32)
    per = [p for p in spec.buffers if p.fallback]
    for name in (p.name for p in spec.scalars if p.below_bits):
        with pytest.raises(ValueError) as e:
            getattr(ctx, spec.method)(*ins, **{**scalars, name: bits}, out=out)
        assert e.value.status == "MIDINT_ERR_INVALID_ARGUMENT" and f"{name} is {bits}" in str(e.value)
        assert (out == CANARY).all()
    for p in per:
        counts = [0, 1, bits - 1, bits, 3]   # instance 3 is the first bad one
        with pytest.raises(ValueError) as e:
            getattr(ctx, spec.method)(*ins, **{p.fallback: counts}, out=out)
        assert e.value.status == "MIDINT_ERR_INVALID_ARGUMENT" and f"{p.name}[3] is {bits}" in str(e.value)
        assert (out == CANARY).all()
        # the same through device buffers: the library reads the counts back before anything runs
        d_ins = [ctx.to_device(x) for x in ins]
        d_out = ctx.to_device(out) if out.ndim == 2 else None
        if d_out is not None:
            with pytest.raises(ValueError) as e:
                getattr(ctx, spec.method)(*d_ins, **{p.fallback: counts}, out=d_out)
            assert f"{p.name}[3] is {bits}" in str(e.value)
            assert (d_out.get() == CANARY).all()
        # every count below bits: accepted
        getattr(ctx, spec.method)(*ins, **{p.fallback: [0, 1, bits - 1, 31, 32]}, out=out)


@pytest.mark.parametrize("op", OPS)
def test_in_place_as_the_row_says(ctx, op):
    """out= an input is accepted exactly where the row allows it (the result then lands there) and refused with
    MIDINT_ERR_OVERLAP elsewhere, nothing written."""
    spec, rng = spec_of(op), np.random.default_rng(6)
    bits = sizes_for(ctx.backend, op)[0]
    count, w = 4, bits // 32
    res = spec.outputs[0]
    for k, p in enumerate(spec.inputs):
        ins, scalars = args_for(spec, count, w, rng)
        if not res.is_number or res.words(bits, scalars) != ins[k].shape[1]:
            continue   # a result of another width cannot be an input's buffer (the shapes differ)
        want = first(getattr(ctx, spec.method)(*[x.copy() for x in ins], **scalars))
        allowed = bool(res_in_place(op, k))
        target = ins[k]
        before = target.copy()
        if allowed:
            got = first(getattr(ctx, spec.method)(*ins, **scalars, out=target))
            assert got is target and (np.asarray(got) == np.asarray(want)).all()
        else:
            with pytest.raises(ValueError) as e:
                getattr(ctx, spec.method)(*ins, **scalars, out=target)
            assert e.value.status == "MIDINT_ERR_OVERLAP", str(e.value)
            assert (target == before).all()


def first(got):
    """The result (the first output) of a call that may return several."""
    return got[0] if isinstance(got, tuple) else got


def res_in_place(op, k):
    """Whether the result may be input k's buffer: the in-place mask the library reports (midint_op_describe)."""
    lib = midint._lib.load()
    d = ctypes.cast(lib.midint_op_describe(midint.OPS[op].code), ctypes.POINTER(midint.ops._OpInfo)).contents
    params = [d.params[i] for i in range(d.nparams)]
    inputs = [i for i, p in enumerate(params) if p.kind == 0 and (p.words_per_n or p.width_scalar >= 0)]
    result = next(p for p in params if p.kind == 1)
    return result.in_place >> inputs[k] & 1


@pytest.mark.parametrize("op", OPS)
def test_unknown_and_generic_call(ctx, op):
    """midint_run with the operation's buffers is the operation's own call (its messages name it); an unknown code
    is refused as unknown, never taken for another operation."""
    lib, spec = midint._lib.load(), spec_of(op)
    bufs = (ctypes.c_void_p * 8)()
    scal = (ctypes.c_uint * 8)()
    st = lib.midint_run(ctx._h, spec.code, 1, 33, bufs, scal)
    assert midint._lib.load().midint_status_name(st).decode() in ("MIDINT_ERR_NULL_POINTER", "MIDINT_ERR_INVALID_BITS")
    assert lib.midint_last_error(ctx._h).decode().startswith(f"midint_{op}:")
    st = lib.midint_run(ctx._h, len(OPS) + 7, 1, 64, bufs, scal)
    assert lib.midint_status_name(st).decode() == "MIDINT_ERR_INVALID_ARGUMENT"
    assert "unknown operation" in lib.midint_last_error(ctx._h).decode()
