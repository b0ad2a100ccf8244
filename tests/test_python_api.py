"""The Python package (python/midint) against Python's own integers: every operation, input kind and size this
build serves, adversarial values, in place, empty batches, and every kind of bad input."""

import random

import pytest

from python_support import (MOD_OPS, OPS, call_args, ctx, input_bits, midint, np, operands, reference,  # noqa: F401
                            result_shape, sizes_for)
from conftest import OPERATIONS, read_variants  # noqa: E402


def cases(ctx, op):
    """(bits, [one list of values per input]) per size served: adversarial and random values, valid by the row's
    rules (operands)."""
    sizes = sizes_for(ctx.backend, op)
    if not sizes:
        pytest.skip(f"no {op} variant generated for {ctx.backend}")
    rng = random.Random(f"{op}-{ctx.backend}")
    return [(bits, operands(op, bits, rng)) for bits in sizes]


def call(ctx, op, ins, bits, pass_bits=True, **kw):
    """ctx.<op> on its inputs `ins`, its per-instance counts for `bits` and its flag outputs asked for: every output
    as a list (a 1-tuple where it has one)."""
    ins, extra = call_args(op, list(ins), bits, count_of(ins[0]))
    got = getattr(ctx, midint.OPS[op].method)(*ins, bits=bits if pass_bits else None, **extra, **kw)
    return got if isinstance(got, tuple) else (got,)


def count_of(x):
    """Instances of an operand: a list's length, an array's rows; the wrappers below by their interface."""
    if isinstance(x, list):
        return len(x)
    cai = getattr(x, "__cuda_array_interface__", None)
    return cai["shape"][0] if cai is not None else x.x.shape[0] if isinstance(x, _DLPackOnly) else x.shape[0]


def check(op, ins, bits, got):
    """got: every output of the call (as lists of ints) against the reference, instance by instance."""
    spec = midint.OPS[op]
    for i, values in enumerate(zip(*ins)):
        want = reference(op, values, bits, i)
        for p, g, w in zip(spec.outputs, got, want):
            args = " ".join(f"{q.name}={x:#x}" for q, x in zip(spec.inputs, values))
            assert g[i] == w, f"{op} {bits} bits, instance {i}: {args}: {p.name} {g[i]:#x}, want {w:#x}"
    assert all(len(g) == len(ins[0]) for g in got) and len(got) == len(spec.outputs)


def limbs(op, ins, bits, convert=lambda x: x):
    """The inputs as limb arrays, each of its width (input_bits), through `convert` (to_device, cupy.asarray)."""
    return [convert(midint.ints_to_limbs(x, w)) for x, w in zip(ins, input_bits(op, bits))]


def to_ints(p, host):
    """An output array of parameter p as ints: limbs, or one (signed) word per instance."""
    host = np.asarray(host)
    if host.ndim == 2:
        return midint.limbs_to_ints(host)
    return (host.view(np.int32) if p.signed else host).tolist()


def outs_to_ints(op, got, host=lambda r: r):
    """Every output of a call (arrays of any kind, through `host` to NumPy) as lists of ints."""
    return [to_ints(p, host(r)) for p, r in zip(midint.OPS[op].outputs, got)]


@pytest.mark.parametrize("op", OPS)
def test_lists_of_ints(ctx, op):
    for bits, ins in cases(ctx, op):
        got = call(ctx, op, ins, bits)
        assert all(isinstance(g, list) and all(type(v) is int for v in g) for g in got)
        for p, g in zip(midint.OPS[op].outputs, got):
            assert not p.optional or set(g) <= {0, 1}
        check(op, ins, bits, got)


@pytest.mark.parametrize("op", OPS)
def test_lists_of_ints_reserved(ctx, op, monkeypatch):
    """Every call on lists with its results' ints made while the library call runs on another thread (the
    extension's reserve_ints, here from the first word on): the same results."""
    monkeypatch.setattr(midint.context, "_RESERVE_WORDS", 1)
    made = []
    monkeypatch.setattr(midint.context, "reserve_ints", lambda *a: made.append(a) or midint.convert.reserve_ints(*a))
    for bits, ins in cases(ctx, op):
        got = call(ctx, op, ins, bits)
        assert all(isinstance(g, list) and all(type(v) is int for v in g) for g in got)
        check(op, ins, bits, got)
    assert made or not midint.convert.reserving() or not any(p.is_number for p in midint.OPS[op].outputs)


@pytest.mark.parametrize("op", OPS)
def test_numpy_arrays(ctx, op):
    for bits, ins in cases(ctx, op):
        got = call(ctx, op, limbs(op, ins, bits), bits, pass_bits=False)   # bits from the arrays' width
        spec, count = midint.OPS[op], len(ins[0])
        assert isinstance(got[0], np.ndarray) and got[0].dtype == (np.int32 if spec.outputs[0].signed else np.uint32)
        assert got[0].shape == result_shape(op, count, bits)
        for p, g in zip(spec.outputs[1:], got[1:]):
            assert g.dtype == np.uint32 and g.shape == ((count, p.words(bits)) if p.is_number else (count,))
        check(op, ins, bits, outs_to_ints(op, got))


@pytest.mark.parametrize("op", OPS)
def test_device_arrays(ctx, op):
    """midint.DeviceArray: the _device calls on either backend; results stay on the device."""
    for bits, ins in cases(ctx, op):
        got = call(ctx, op, limbs(op, ins, bits, ctx.to_device), bits, pass_bits=False)
        assert all(isinstance(g, midint.DeviceArray) for g in got)
        check(op, ins, bits, outs_to_ints(op, got, lambda r: r.get()))


class _CudaArray:
    """Only __cuda_array_interface__, borrowed from a CUDA DeviceArray: the generic CUDA path without CuPy."""

    def __init__(self, d):
        self.d, self.__cuda_array_interface__ = d, d.__cuda_array_interface__


@pytest.mark.parametrize("op", OPS)
def test_cuda_array_interface(ctx, op):
    if ctx.backend != "cuda":
        pytest.skip("__cuda_array_interface__ arrays run on a CUDA context only (this one is OpenCL)")
    for bits, ins in cases(ctx, op):
        got = call(ctx, op, [_CudaArray(d) for d in limbs(op, ins, bits, ctx.to_device)], bits, pass_bits=False)
        check(op, ins, bits, outs_to_ints(op, got, lambda r: np.asarray(r.get() if hasattr(r, "get") else r)))


@pytest.mark.parametrize("op", OPS)
def test_cupy_arrays(ctx, op):
    if ctx.backend != "cuda":
        pytest.skip("CuPy arrays run on a CUDA context only (this one is OpenCL)")
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    for bits, ins in cases(ctx, op):
        cins = limbs(op, ins, bits, cp.asarray)
        stream = cp.cuda.Stream(non_blocking=True)
        with stream:   # the call runs on CuPy's current stream
            got = call(ctx, op, cins, bits, pass_bits=False)
            assert all(isinstance(g, cp.ndarray) for g in got)
            host = outs_to_ints(op, got, cp.asnumpy)
        check(op, ins, bits, host)
        # DLPack from CuPy: the capsule path
        got = call(ctx, op, [_DLPackOnly(x) for x in cins], bits, pass_bits=False)
        check(op, ins, bits, outs_to_ints(op, got, cp.asnumpy))


class _DLPackOnly:
    """Only __dlpack__ / __dlpack_device__ of another array: the DLPack path."""

    def __init__(self, x):
        self.x = x

    def __dlpack__(self, **kw):
        return self.x.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.x.__dlpack_device__()


def test_dlpack_host_array(ctx):
    """A CPU DLPack array (NumPy's, seen only through __dlpack__) goes the host path."""
    bits = sizes_for(ctx.backend, "add")[-1]
    a, b = [(1 << bits) - 1, 5], [1, 7]
    got = ctx.add(_DLPackOnly(midint.ints_to_limbs(a, bits).copy()), _DLPackOnly(midint.ints_to_limbs(b, bits).copy()))
    assert midint.limbs_to_ints(got) == [0, 12]


IN_PLACE = [(op.name, o, i) for op in OPERATIONS for o, i in op.in_place if op.name in OPS]   # OPS: see python_support


@pytest.mark.parametrize("op,output,input", IN_PLACE)
def test_in_place(ctx, op, output, input):
    """out= an input's array, for every (output, input) pair the row allows: the result lands there (NumPy and
    DeviceArray; an output after the first through out= a tuple, None for the others)."""
    spec = midint.OPS[op]
    bits = sizes_for(ctx.backend, op)[-1 if op not in MOD_OPS else 0]   # MOD_OPS: the cheap size (powm)
    rng = random.Random(op)
    ins = operands(op, bits, rng, [(rng.getrandbits(bits), rng.getrandbits(bits)) for _ in range(5)])
    k = [p.name for p in spec.inputs].index(input)
    returned = [p.name for p in spec.outputs if not p.optional]
    want = [reference(op, values, bits, i)[[p.name for p in spec.outputs].index(output)]
            for i, values in enumerate(zip(*ins))]
    for convert, host in ((lambda x: x.copy(), lambda r: r), (ctx.to_device, lambda r: r.get())):
        arrays = limbs(op, ins, bits, convert)
        target = arrays[k]
        out = target if returned[0] == output else tuple(target if n == output else None for n in returned)
        got = getattr(ctx, spec.method)(*arrays, out=out)
        got = got if isinstance(got, tuple) else (got,)
        assert got[returned.index(output)] is target
        assert midint.limbs_to_ints(host(target)) == want


def test_out_reused_and_pinned(ctx):
    bits = sizes_for(ctx.backend, "mul")[-1]
    a, b = [3, (1 << bits) - 1], [5, (1 << bits) - 1]
    pa, pb = ctx.pinned_empty((2, bits // 32)), ctx.pinned_empty((2, bits // 32))
    pa[:], pb[:] = midint.ints_to_limbs(a, bits), midint.ints_to_limbs(b, bits)
    out = ctx.pinned_empty((2, bits // 16))
    assert ctx.mul(pa, pb, out=out) is out
    assert midint.limbs_to_ints(out) == [x * y for x, y in zip(a, b)]


@pytest.mark.parametrize("op", OPS)
def test_empty_batch(ctx, op):
    bits = sizes_for(ctx.backend, op)[-1]
    n = len(midint.OPS[op].inputs)
    assert all(g == [] for g in call(ctx, op, [[]] * n, bits))
    empty = [np.empty((0, w // 32), np.uint32) for w in input_bits(op, bits)]
    got = call(ctx, op, empty, bits, pass_bits=False)[0]
    assert got.shape == result_shape(op, 0, bits)
    with pytest.raises(ValueError, match="MIDINT_ERR_INVALID_BITS"):
        call(ctx, op, [[]] * n, 33)


def test_conversion_roundtrip():
    rng = random.Random(7)
    for bits in (32, 96, 512, 4096):
        vals = [0, 1, (1 << bits) - 1] + [rng.getrandbits(bits) for _ in range(20)]
        arr = midint.ints_to_limbs(vals, bits)
        assert arr.shape == (len(vals), bits // 32) and arr.dtype == np.uint32
        assert arr[2].tolist() == [0xFFFFFFFF] * (bits // 32) and arr[1, 0] == 1 and arr[1, 1:].sum() == 0
        assert midint.limbs_to_ints(arr) == vals
    assert midint.ints_to_limbs([np.uint64(5), np.int32(7)], 64).tolist() == [[5, 0], [7, 0]]


# ---- bad inputs: the exception class, the library's status name, nothing written ----

def err(excinfo, cls, status):
    assert isinstance(excinfo.value, cls) and isinstance(excinfo.value, midint.MidintError)
    assert excinfo.value.status == status, str(excinfo.value)


def plain_call(ctx, op):
    """f(ins, bits=None, **kw): ctx.<op>(*ins, bits=bits, **kw) for any operation, the inputs `ins` leaves out
    filled with ones (a valid divisor, odd modulus and exponent) of the first one's kind and shape, the scalars it
    needs 0 (widths derived, flags 0)."""
    spec = midint.OPS[op]

    def f(ins, bits=None, **kw):
        ins, first = list(ins), ins[0]
        for _ in spec.inputs[len(ins):]:
            ins.append([1] * len(first) if isinstance(first, list) else np.ones(first.shape, np.uint32))
        scalars = {p.name: 0 for p in spec.scalars if not (p.width or p.flag)}
        return getattr(ctx, spec.method)(*ins[:len(spec.inputs)], bits=bits, **scalars, **kw)
    return f


def sized_input(op):
    """The position of the input checked against another one: the first of bits bits after the first input (m of
    powm, whose exponent has a width of its own), else the second."""
    spec = midint.OPS[op]
    return next((k for k, p in enumerate(spec.inputs) if k and p.width_scalar is None), 1)


@pytest.mark.parametrize("op", OPS)
def test_bad_ints(ctx, op):
    spec = midint.OPS[op]
    bits = sizes_for(ctx.backend, op)[-1]
    f, binary, k = plain_call(ctx, op), len(spec.inputs) > 1, sized_input(op)
    with pytest.raises(ValueError) as e:
        f([[1, -1], [1, 1]], bits)
    err(e, midint.MidintValueError, "MIDINT_ERR_INVALID_ARGUMENT")
    assert f"{spec.inputs[0].name}[1] is negative" in str(e.value)
    if binary:
        ins = [[1, 1] for _ in spec.inputs]
        ins[k] = [1, 1 << bits]
        with pytest.raises(ValueError) as e:
            f(ins, bits)   # one bit too many: refused, never truncated
        assert f"{spec.inputs[k].name}[1] has" in str(e.value)
    with pytest.raises(TypeError) as e:
        f([[1, 2.0], [1, 1]], bits)
    err(e, midint.MidintTypeError, "MIDINT_ERR_INVALID_ARGUMENT")
    with pytest.raises(ValueError) as e:
        f([[1], [1]])
    err(e, midint.MidintValueError, "MIDINT_ERR_INVALID_BITS")
    with pytest.raises(ValueError) as e:
        f([[1], [1]], bits + 1)
    err(e, midint.MidintValueError, "MIDINT_ERR_INVALID_BITS")
    with pytest.raises(ValueError) as e:
        f([[1], [1]], ctx.max_bits(op) + 32)
    err(e, midint.MidintValueError, "MIDINT_ERR_BITS_TOO_LARGE")
    for b in (-32, 1 << 32):
        with pytest.raises(ValueError):
            f([[1], [1]], b)
    with pytest.raises(TypeError):
        f([[1], [1]], 512.0)
    if binary:
        ins = [[1, 2] for _ in spec.inputs]
        ins[k] = [1]
        with pytest.raises(ValueError) as e:
            f(ins, bits)
        err(e, midint.MidintValueError, "MIDINT_ERR_INVALID_COUNT")


@pytest.mark.parametrize("op", OPS)
def test_bad_arrays(ctx, op):
    spec = midint.OPS[op]
    bits = sizes_for(ctx.backend, op)[-1]
    w = bits // 32
    f, binary, k = plain_call(ctx, op), len(spec.inputs) > 1, sized_input(op)
    good = [np.ones((3, width // 32), np.uint32) for width in input_bits(op, bits)]
    bad = {
        "dtype int64": (np.ones((3, w), np.int64), TypeError),
        "dtype uint64": (np.ones((3, w // 2), np.uint64), TypeError),
        "big-endian": (np.ones((3, w), ">u4"), TypeError),
        "1-D": (np.ones(3 * w, np.uint32), ValueError),
        "3-D": (np.ones((3, w, 1), np.uint32), ValueError),
        "not contiguous": (np.ones((3, 2 * w), np.uint32)[:, ::2], ValueError),
        # beside an array, a list is another kind; alone it is a batch of ints that lacks bits=
        "a list": ([1, 2, 3], TypeError if binary else ValueError),
        "a str": ("123", TypeError),
    }
    if binary:   # against the other operands (alone, a DeviceArray is a device call)
        bad.update({"a DeviceArray": (ctx.to_device(good[k]), TypeError),
                    "other length": (np.ones((4, w), np.uint32), ValueError)})
    if sum(p.width_scalar is None for p in spec.inputs) > 1:
        # a width unlike another bits-wide operand's (divrem's d alone sets bits: a wider d is another size, served
        # where the build has a larger variant)
        bad["other width"] = (np.ones((3, w + 1), np.uint32), ValueError)
    for what, (x, cls) in bad.items():
        ins = list(good) if binary else [x]
        ins[k if binary else 0] = x
        with pytest.raises(cls) as e:
            f(ins)
        assert isinstance(e.value, midint.MidintError), what
    with pytest.raises(ValueError) as e:
        f(good, bits + 32)
    err(e, midint.MidintValueError, "MIDINT_ERR_INVALID_BITS")
    shape = result_shape(op, 3, bits)
    wider = shape[:-1] + (shape[-1] + 1,)
    for out, cls in ((np.zeros(wider, np.uint32), ValueError), (np.zeros(shape, np.int64), (TypeError, ValueError)),
                     ([0, 0, 0], (TypeError, ValueError))):
        with pytest.raises(cls):
            f(good, out=out)
    ro = np.zeros(shape, np.uint32)
    ro.flags.writeable = False
    with pytest.raises(ValueError):
        f(good, out=ro)
    f(good, out=np.zeros(shape, np.int32 if spec.outputs[0].signed else np.uint32))   # the right one: accepted


def test_overlap_refused_nothing_written(ctx):
    bits = sizes_for(ctx.backend, "mul")[-1]
    w = bits // 32
    buf = np.full((4, 2 * w), 0xDEADBEEF, np.uint32)
    a = buf[:2].reshape(4, w)         # a is the first half of the output's memory
    before = buf.copy()
    with pytest.raises(ValueError) as e:
        ctx.mul(a, np.ones((4, w), np.uint32), out=buf)
    err(e, midint.MidintValueError, "MIDINT_ERR_OVERLAP")
    assert (buf == before).all()


def test_context_errors(ctx):
    with pytest.raises(ValueError) as e:
        midint.Context("vulkan")
    err(e, midint.MidintValueError, "MIDINT_ERR_UNKNOWN_BACKEND")
    with pytest.raises(RuntimeError) as e:
        midint.Context(ctx.backend, 9999)
    err(e, midint.MidintDeviceError, "MIDINT_ERR_NO_DEVICE")
    with pytest.raises(MemoryError) as e:
        ctx.empty((1 << 62,))
    err(e, midint.MidintMemoryError, "MIDINT_ERR_OUT_OF_MEMORY")
    with pytest.raises(ValueError) as e:
        ctx.force_variant("mul_99_u32_q1_i1_opencl")
    err(e, midint.MidintValueError, "MIDINT_ERR_UNKNOWN_VARIANT")
    with pytest.raises(ValueError):
        ctx.selected_variant("div", 512, 1)


# Test hooks that take a count (runtime/hooks.c): a malformed value refuses the context, naming the variable
MALFORMED_HOOKS = [("MIDINT_TEST_NTT_PIECE", "0", "a positive number of words"),
                   ("MIDINT_TEST_TILE_WORDS", "x", "a positive number of words"),
                   ("MIDINT_TEST_BIGDIV", "1", "the Newton base's words, at least 2"),
                   ("MIDINT_TEST_WRAP_FROM", "4294967296", "a positive number of words"),
                   ("MIDINT_TEST_SPLIT_FROM", "0", "a positive number of words"),
                   ("MIDINT_TEST_HALF_FROM", "y", "a positive number of words"),
                   ("MIDINT_TEST_GCD_PART", "12", "a power of two of at least 4 moduli"),
                   ("MIDINT_TEST_GCD_PART", "2", "a power of two of at least 4 moduli"),
                   ("MIDINT_TEST_DEVICE_BYTES", "-", "a positive number of bytes")]


@pytest.mark.parametrize("name, value, expected", MALFORMED_HOOKS)
def test_malformed_count_hooks(ctx, monkeypatch, name, value, expected):
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError) as e:
        midint.Context(ctx.backend)
    err(e, midint.MidintValueError, "MIDINT_ERR_INVALID_ARGUMENT")
    assert f"{name} is '{value}'; expected {expected}" in str(e.value)
    monkeypatch.setenv(name, "16" if name != "MIDINT_TEST_DEVICE_BYTES" else "1000000")   # a good value opens
    midint.Context(ctx.backend).close()


def test_closed_context_and_its_buffers():
    c = midint.Context(ctx_backend_here())
    d = c.to_device([1, 2], 512)
    with c as same:
        assert same is c
    assert c.closed and d.handle is None
    with pytest.raises(ValueError, match="closed"):
        c.add([1], [1], 512)
    with pytest.raises(ValueError, match="freed"):
        d.get()
    c.close()   # twice is fine


def test_info(ctx):
    """generated_sizes names what the build has (all of OPS in the default build; fewer after make gen GENFLAGS="--ops
    ..."), max_bits and selected_variant agree with it."""
    sizes = midint.generated_sizes(ctx.backend)
    assert set(sizes) == {v["op"] for v in read_variants() if v["backend"] == ctx.backend}
    assert all(sizes[op] for op in sizes)
    assert all(op in OPS or op.startswith("expr_") or midint.OPS[op].moduli for op in sizes)
    if "mul" not in sizes:
        pytest.skip(f"no mul variant generated for {ctx.backend} in this build")
    assert ctx.max_bits("mul") == sizes["mul"][-1]
    bits = sizes["mul"][0]
    assert ctx.selected_variant("mul", bits, 100).endswith("_" + ctx.backend)
    assert ctx.tuning_status and midint.registry_id() and midint.library_path().endswith("libmidint.so")


def ctx_backend_here():
    """The backend of this machine for tests that open their own context: CUDA when it runs, else OpenCL."""
    from conftest import available
    for b in ("cuda", "opencl"):
        if available(b):
            return b
    pytest.skip("no backend runs here")
