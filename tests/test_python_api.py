"""The Python package (python/midint) against Python's own integers: every operation, input kind and size this
build serves, adversarial values, in place, empty batches, and every kind of bad input."""

import random

import pytest

from python_support import (OPS, adversarial_pairs, call_args, ctx, midint, np, reference, result_shape,  # noqa: F401
                            shift_of, sizes_for)
from conftest import OPERATIONS  # noqa: E402


def cases(ctx, op):
    """(bits, a list, b list) per size served, adversarial and random values."""
    sizes = sizes_for(ctx.backend, op)
    if not sizes:
        pytest.skip(f"no {op} variant generated for {ctx.backend}")
    rng = random.Random(f"{op}-{ctx.backend}")
    out = []
    for bits in sizes:
        pairs = adversarial_pairs(bits, rng)
        out.append((bits, [p[0] for p in pairs], [p[1] for p in pairs]))
    return out


def call(ctx, op, a, b, bits, pass_bits=True, **kw):
    """ctx.<op> on a (and b where it takes two inputs), its per-instance counts for `bits` and its flag output asked
    for: (result, flag or None)."""
    ins, extra = call_args(op, list(range(count_of(a))), None, bits)   # the counts: only their number matters
    ins = (a, b)[:len(ins)]
    got = getattr(ctx, midint.OPS[op].method)(*ins, bits=bits if pass_bits else None, **extra, **kw)
    return got if isinstance(got, tuple) else (got, None)


def count_of(x):
    """Instances of an operand: a list's length, an array's rows; the wrappers below by their interface."""
    if isinstance(x, list):
        return len(x)
    cai = getattr(x, "__cuda_array_interface__", None)
    return cai["shape"][0] if cai is not None else x.x.shape[0] if isinstance(x, _DLPackOnly) else x.shape[0]


def check(op, a, b, bits, got, carry):
    for i, (x, y) in enumerate(zip(a, b)):
        want, want_carry = reference(op, x, y, bits, i)
        assert got[i] == want, f"{op} {bits} bits, instance {i}: a={x:#x} b={y:#x}: got {got[i]:#x}, want {want:#x}"
        if want_carry is not None:
            assert carry[i] == want_carry, f"{op} {bits} bits, instance {i}: carry {carry[i]}, want {want_carry}"
    assert len(got) == len(a)


def to_ints(op, host):
    """A result array as ints: limbs, or one (signed) word per instance."""
    host = np.asarray(host)
    if host.ndim == 2:
        return midint.limbs_to_ints(host)
    return (host.view(np.int32) if midint.OPS[op].outputs[0].signed else host).tolist()


@pytest.mark.parametrize("op", OPS)
def test_lists_of_ints(ctx, op):
    for bits, a, b in cases(ctx, op):
        got, carry = call(ctx, op, a, b, bits)
        assert isinstance(got, list) and all(type(v) is int for v in got)
        assert carry is None or (isinstance(carry, list) and set(carry) <= {0, 1})
        check(op, a, b, bits, got, carry)


@pytest.mark.parametrize("op", OPS)
def test_numpy_arrays(ctx, op):
    for bits, a, b in cases(ctx, op):
        na, nb = midint.ints_to_limbs(a, bits), midint.ints_to_limbs(b, bits)
        got, carry = call(ctx, op, na, nb, bits, pass_bits=False)   # bits from the arrays' width
        signed = midint.OPS[op].outputs[0].signed
        assert isinstance(got, np.ndarray) and got.dtype == (np.int32 if signed else np.uint32)
        assert got.shape == result_shape(op, len(a), bits)
        assert carry is None or (carry.dtype == np.uint32 and carry.shape == (len(a),))
        check(op, a, b, bits, to_ints(op, got), None if carry is None else carry.tolist())


@pytest.mark.parametrize("op", OPS)
def test_device_arrays(ctx, op):
    """midint.DeviceArray: the _device calls on either backend; results stay on the device."""
    for bits, a, b in cases(ctx, op):
        da, db = ctx.to_device(a, bits), ctx.to_device(b, bits)
        got, carry = call(ctx, op, da, db, bits, pass_bits=False)
        assert isinstance(got, midint.DeviceArray) and (carry is None or isinstance(carry, midint.DeviceArray))
        check(op, a, b, bits, to_ints(op, got.get()), None if carry is None else carry.to_ints())


class _CudaArray:
    """Only __cuda_array_interface__, borrowed from a CUDA DeviceArray: the generic CUDA path without CuPy."""

    def __init__(self, d):
        self.d, self.__cuda_array_interface__ = d, d.__cuda_array_interface__


@pytest.mark.parametrize("op", OPS)
def test_cuda_array_interface(ctx, op):
    if ctx.backend != "cuda":
        pytest.skip("__cuda_array_interface__ arrays run on a CUDA context only (this one is OpenCL)")
    for bits, a, b in cases(ctx, op):
        da, db = ctx.to_device(a, bits), ctx.to_device(b, bits)
        got, carry = call(ctx, op, _CudaArray(da), _CudaArray(db), bits, pass_bits=False)
        host = np.asarray(got.get() if hasattr(got, "get") else got)
        check(op, a, b, bits, to_ints(op, host),
              None if carry is None else np.asarray(carry.get() if hasattr(carry, "get") else carry).tolist())


@pytest.mark.parametrize("op", OPS)
def test_cupy_arrays(ctx, op):
    if ctx.backend != "cuda":
        pytest.skip("CuPy arrays run on a CUDA context only (this one is OpenCL)")
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    for bits, a, b in cases(ctx, op):
        ca, cb = cp.asarray(midint.ints_to_limbs(a, bits)), cp.asarray(midint.ints_to_limbs(b, bits))
        stream = cp.cuda.Stream(non_blocking=True)
        with stream:   # the call runs on CuPy's current stream
            got, carry = call(ctx, op, ca, cb, bits, pass_bits=False)
            assert isinstance(got, cp.ndarray) and (carry is None or isinstance(carry, cp.ndarray))
            host, hc = cp.asnumpy(got), None if carry is None else cp.asnumpy(carry).tolist()
        check(op, a, b, bits, to_ints(op, host), hc)
        # DLPack from CuPy: the capsule path
        got, carry = call(ctx, op, _DLPackOnly(ca), _DLPackOnly(cb), bits, pass_bits=False)
        check(op, a, b, bits, to_ints(op, cp.asnumpy(got)), None if carry is None else cp.asnumpy(carry).tolist())


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


IN_PLACE = [op.name for op in OPERATIONS if ("r", "a") in op.in_place and ("r", "b") in op.in_place]


@pytest.mark.parametrize("op", IN_PLACE)
def test_in_place(ctx, op):
    bits = sizes_for(ctx.backend, op)[-1]
    rng = random.Random(op)
    a = [rng.getrandbits(bits) for _ in range(5)]
    b = [rng.getrandbits(bits) for _ in range(5)]
    na, nb = midint.ints_to_limbs(a, bits).copy(), midint.ints_to_limbs(b, bits).copy()
    r = getattr(ctx, midint.OPS[op].method)(na, nb, out=na)
    assert r is na
    assert midint.limbs_to_ints(na) == [reference(op, x, y, bits)[0] for x, y in zip(a, b)]
    da, db = ctx.to_device(a, bits), ctx.to_device(b, bits)
    assert getattr(ctx, midint.OPS[op].method)(da, db, out=db) is db
    assert db.to_ints() == [reference(op, x, y, bits)[0] for x, y in zip(a, b)]


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
    assert call(ctx, op, [], [], bits)[0] == []
    empty = np.empty((0, bits // 32), np.uint32)
    got = call(ctx, op, empty, empty, bits, pass_bits=False)[0]
    assert got.shape == result_shape(op, 0, bits)
    with pytest.raises(ValueError, match="MIDINT_ERR_INVALID_BITS"):
        call(ctx, op, [], [], 33)


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
    """ctx.<op>(a, b, bits, **kw) for any operation: b only where it takes two inputs, its scalars 0."""
    spec = midint.OPS[op]

    def f(a, b, bits=None, **kw):
        scalars = {p.name: 0 for p in spec.scalars}
        return getattr(ctx, spec.method)(*(a, b)[:len(spec.inputs)], bits=bits, **scalars, **kw)
    return f, len(spec.inputs) == 2


@pytest.mark.parametrize("op", OPS)
def test_bad_ints(ctx, op):
    bits = sizes_for(ctx.backend, op)[-1]
    f, binary = plain_call(ctx, op)
    with pytest.raises(ValueError) as e:
        f([1, -1], [1, 1], bits)
    err(e, midint.MidintValueError, "MIDINT_ERR_INVALID_ARGUMENT")
    assert "a[1] is negative" in str(e.value)
    if binary:
        with pytest.raises(ValueError) as e:
            f([1, 1], [1, 1 << bits], bits)   # one bit too many: refused, never truncated
        assert "b[1] has" in str(e.value)
    with pytest.raises(TypeError) as e:
        f([1, 2.0], [1, 1], bits)
    err(e, midint.MidintTypeError, "MIDINT_ERR_INVALID_ARGUMENT")
    with pytest.raises(ValueError) as e:
        f([1], [1])
    err(e, midint.MidintValueError, "MIDINT_ERR_INVALID_BITS")
    with pytest.raises(ValueError) as e:
        f([1], [1], bits + 1)
    err(e, midint.MidintValueError, "MIDINT_ERR_INVALID_BITS")
    with pytest.raises(ValueError) as e:
        f([1], [1], ctx.max_bits(op) + 32)
    err(e, midint.MidintValueError, "MIDINT_ERR_BITS_TOO_LARGE")
    for b in (-32, 1 << 32):
        with pytest.raises(ValueError):
            f([1], [1], b)
    with pytest.raises(TypeError):
        f([1], [1], 512.0)
    if binary:
        with pytest.raises(ValueError) as e:
            f([1, 2], [1], bits)
        err(e, midint.MidintValueError, "MIDINT_ERR_INVALID_COUNT")


@pytest.mark.parametrize("op", OPS)
def test_bad_arrays(ctx, op):
    bits = sizes_for(ctx.backend, op)[-1]
    w = bits // 32
    f, binary = plain_call(ctx, op)
    good = np.ones((3, w), np.uint32)
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
    if binary:   # against the other operand (alone, a DeviceArray is a device call)
        bad.update({"a DeviceArray": (ctx.to_device(good), TypeError),
                    "other length": (np.ones((4, w), np.uint32), ValueError),
                    "other width": (np.ones((3, w + 1), np.uint32), ValueError)})
    for what, (x, cls) in bad.items():
        with pytest.raises(cls) as e:
            f(good, x) if binary else f(x, None)
        assert isinstance(e.value, midint.MidintError), what
    with pytest.raises(ValueError) as e:
        f(good, good, bits + 32)
    err(e, midint.MidintValueError, "MIDINT_ERR_INVALID_BITS")
    shape = result_shape(op, 3, bits)
    wider = shape[:-1] + (shape[-1] + 1,)
    for out, cls in ((np.zeros(wider, np.uint32), ValueError), (np.zeros(shape, np.int64), (TypeError, ValueError)),
                     ([0, 0, 0], (TypeError, ValueError))):
        with pytest.raises(cls):
            f(good, good, out=out)
    ro = np.zeros(shape, np.uint32)
    ro.flags.writeable = False
    with pytest.raises(ValueError):
        f(good, good, out=ro)


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
    sizes = midint.generated_sizes(ctx.backend)
    assert set(OPS) <= set(sizes) and all(sizes[op] for op in OPS)
    assert all(op in OPS or op.startswith("expr_") for op in sizes)
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
