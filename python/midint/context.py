"""midint.Context: the library's batched operations (midint.OPS: add, sub, mul, mullo, sqr, shifts, bitwise, cmp ...)
on lists of Python ints, NumPy arrays, CUDA device arrays (CuPy, __cuda_array_interface__, DLPack) and the context's
own device buffers (DeviceArray), over the C library."""

import ctypes
import operator
import threading
import weakref
from dataclasses import dataclass

import numpy as np

from . import _dlpack, _lib
from ._errors import MidintMemoryError, MidintValueError, from_status, type_error, value_error
from .convert import ints_to_limbs, limbs_to_ints, reserve_ints, reserving, widest_bits
from .ops import INPUT, MODULUS, OPS, OUTPUT

BACKEND_CODES = {None: 0, "auto": 0, "cuda": 1, "opencl": 2}   # midint_backend
BACKEND_NAMES = {1: "cuda", 2: "opencl"}


@dataclass(frozen=True)
class Expression:
    """A generated fused expression: its input and output names, result words per operand word of each output
    (2: a full product) and its program (the steps the kernel runs)."""
    name: str
    inputs: tuple
    outputs: tuple
    output_words: tuple
    program: str


def _cupy():
    """CuPy when it is installed (imported on first need only: importing it costs seconds)."""
    global _cupy_mod
    if _cupy_mod is False:
        try:
            import cupy
            _cupy_mod = cupy
        except Exception:   # not installed, or installed without a usable CUDA: no CuPy outputs
            _cupy_mod = None
    return _cupy_mod


_cupy_mod = False


class _Operand:
    """An input or output after its kind is known: kind ("ints", "numpy", "cuda", "buffer"), the object, its data
    pointer (host address, CUDA pointer or cl_mem), count, words per integer (None for ints), and what must stay
    referenced while the pointer is used."""
    __slots__ = ("kind", "obj", "ptr", "count", "words", "keep", "device_id")

    def __init__(self, kind, obj, ptr, count, words, keep=None, device_id=None):
        self.kind, self.obj, self.ptr, self.count, self.words = kind, obj, ptr, count, words
        self.keep, self.device_id = keep, device_id


def _shape2(shape, name):
    if len(shape) != 2:
        raise value_error(f"{name} has shape {tuple(shape)}; midint wants (count, bits/32) of uint32")
    return shape


def _numpy_operand(x, name, writable=False):
    if x.dtype != np.uint32:
        raise type_error(f"{name} has dtype {x.dtype}; midint wants native uint32 limbs (x.astype(np.uint32) "
                         f"converts, if the values are limbs)")
    count, words = _shape2(x.shape, name)
    if not x.flags.c_contiguous:
        raise value_error(f"{name} is not C-contiguous; midint reads arrays in place, without copies: pass "
                          f"np.ascontiguousarray({name})")
    if writable and not x.flags.writeable:
        raise value_error(f"{name} is read-only")
    return _Operand("numpy", x, x.ctypes.data, count, words)


def _cai_operand(x, cai, name, writable=False):
    if cai.get("typestr") not in ("<u4", "|u4", "=u4"):
        raise type_error(f"{name} has typestr {cai.get('typestr')}; midint wants uint32 limbs ('<u4')")
    count, words = _shape2(cai["shape"], name)
    strides = cai.get("strides")
    if strides is not None and any(n > 1 and s != w for n, s, w in zip((count, words), strides, (4 * words, 4))):
        raise value_error(f"{name} is not C-contiguous (strides {strides}); copy it first (cupy.ascontiguousarray)")
    if cai.get("mask") is not None:
        raise value_error(f"{name} has a mask; midint takes plain arrays")
    ptr, readonly = cai["data"]
    if writable and readonly:
        raise value_error(f"{name} is read-only")
    dev = getattr(getattr(x, "device", None), "id", None)
    return _Operand("cuda", x, ptr or 0, count, words, device_id=dev if isinstance(dev, int) else None)


def _dlpack_operand(x, name, writable=False):
    v = _dlpack.view(x)
    if v.device_type == _dlpack.KDL_CPU:
        return _numpy_operand(np.from_dlpack(x), name, writable)
    if v.device_type not in (_dlpack.KDL_CUDA, _dlpack.KDL_CUDA_MANAGED):
        raise type_error(f"{name} lives on DLPack device type {v.device_type}; midint takes host (CPU) and "
                         f"CUDA arrays")
    if not v.is_uint32():
        raise type_error(f"{name} has DLPack dtype (code, bits, lanes) {v.dtype}; midint wants uint32 limbs")
    count, words = _shape2(v.shape, name)
    if not v.is_c_contiguous():
        raise value_error(f"{name} is not C-contiguous (strides {v.strides}); copy it first")
    return _Operand("cuda", x, v.ptr, count, words, keep=v, device_id=v.device_id)


class _Freed:
    """An object holding something of a Context's (a device buffer, a modulus) that free() releases; collected, it
    frees itself."""

    def __del__(self):
        try:
            self.free()
        except Exception:   # interpreter shutdown
            pass


class DeviceArray(_Freed):
    """Device memory owned by a Context (midint_buffer_alloc): uint32 limbs of shape (count, words), or (count,)
    for carries. A CUDA pointer or an OpenCL cl_mem: the way to keep data on the device between calls without
    CuPy, on either backend. On CUDA it exports __cuda_array_interface__, so CuPy, Numba or PyTorch can read it
    without a copy. It is freed when dropped, by free(), or when its context closes."""

    def __init__(self, ctx, shape):
        self.ctx, self.shape, self.dtype = ctx, _shape_arg(shape), np.dtype(np.uint32)
        self.nbytes = _nbytes(self.shape)
        h = ctypes.c_void_p()
        ctx._call(ctx._lib.midint_buffer_alloc, ctx._h, max(self.nbytes, 4), ctypes.byref(h))
        self.handle = h.value
        ctx._buffers.add(self)

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        state = "freed" if self.handle is None else f"{self.ctx.backend} buffer"
        return f"<midint.DeviceArray shape={self.shape} uint32, {state}>"

    def _live(self):
        if self.handle is None:
            raise value_error("this DeviceArray was freed (free(), or its context was closed)")
        return self.handle

    def get(self):
        """A NumPy copy of the contents (waits for the work enqueued before it)."""
        host = np.empty(self.shape, np.uint32)
        if self.nbytes:
            self.ctx._call(self.ctx._lib.midint_buffer_read, self.ctx._h, host.ctypes.data, self._live(),
                           self.nbytes)
        return host

    def set(self, host):
        """Copy a NumPy uint32 array of this shape in."""
        host = np.asarray(host)
        if host.dtype != np.uint32 or host.shape != self.shape or not host.flags.c_contiguous:
            raise value_error(f"set() wants a C-contiguous uint32 array of shape {self.shape}, got {host.dtype} "
                              f"{host.shape}")
        if self.nbytes:
            self.ctx._call(self.ctx._lib.midint_buffer_write, self.ctx._h, self._live(), host.ctypes.data,
                           self.nbytes)

    def to_ints(self):
        """The integers held (a list of ints; for a (count,) carry array, its 0/1 values)."""
        host = self.get()
        return host.tolist() if host.ndim == 1 else limbs_to_ints(host)

    def free(self):
        if self.handle is not None and self.ctx._h is not None:
            with self.ctx._lock:
                self.ctx._lib.midint_buffer_free(self.ctx._h, self.handle)
        self.handle = None

    @property
    def __cuda_array_interface__(self):
        if self.ctx.backend != "cuda":
            raise AttributeError("an OpenCL DeviceArray has no __cuda_array_interface__")
        # stream 1: midint's device calls without a stream run on the legacy default stream
        return {"shape": self.shape, "typestr": "<u4", "data": (self._live(), False), "version": 3,
                "strides": None, "stream": 1}


class _Pinned:
    """Page-locked host memory of a context (midint_host_alloc), the base of the NumPy array pinned_empty gives."""

    def __init__(self, ctx, shape):
        shape = _shape_arg(shape)
        self.ctx, self.nbytes = ctx, _nbytes(shape)
        p = ctypes.c_void_p()
        ctx._call(ctx._lib.midint_host_alloc, ctx._h, max(self.nbytes, 4), ctypes.byref(p))
        self.ptr = p.value
        self.__array_interface__ = {"shape": tuple(shape), "typestr": "<u4", "data": (self.ptr, False),
                                    "version": 3}

    def __del__(self):
        try:
            if self.ctx._h is not None:
                with self.ctx._lock:
                    self.ctx._lib.midint_host_free(self.ctx._h, self.ptr)
        except Exception:   # interpreter shutdown
            pass


class Modulus(_Freed):
    """A modulus shared by a whole batch (midint_modulus_create): made once on a context for one size (ctx.modulus(m,
    bits)), checked (m >= 1) and uploaded with what the kernels would otherwise compute per instance. The *_shared
    operations take it (ctx.mulmod_shared(a, b, mod), ctx.powm_shared(base, exp, mod)), and so do ctx.mulmod and
    ctx.powm in place of their array of moduli. Calls take it at its own bits; powm needs an odd m. It belongs to its
    context: free() it (or let it be collected, or close the context)."""

    def __init__(self, ctx, m, bits=None):
        if isinstance(m, bool) or not isinstance(m, int) or m < 1:
            raise value_error(f"modulus: m={m!r} is not an int >= 1 (a modulus is at least 1)",
                              "MIDINT_ERR_INVALID_ARGUMENT")
        if bits is None:
            bits = _bits_holding(m.bit_length())
        _bits_arg(bits)
        limbs = ints_to_limbs([m], bits, "m")
        h = ctypes.c_void_p()
        ctx._call(ctx._lib.midint_modulus_create, ctx._h, ctypes.byref(h), bits, limbs.ctypes.data)
        self.ctx, self.handle, self.bits, self.value, self.odd = ctx, h.value, bits, m, bool(m & 1)
        ctx._moduli.add(self)

    def free(self):
        """Release the device copy (calls that use it must have completed; asynchronous ones: synchronize first)."""
        ctx = self.ctx
        with ctx._lock:
            if self.handle is not None and ctx._h is not None:
                ctx._lib.midint_modulus_free(self.handle)
            self.handle = None

    def __repr__(self):
        return f"<midint.Modulus {self.bits} bits, {'odd' if self.odd else 'even'}{'' if self.handle else ', freed'}>"


class Context:
    """A midint context on one device: `Context(backend=None, device=0)`, backend None/"auto" (CUDA when a CUDA
    device is present, else OpenCL), "cuda" or "opencl". Use it as a context manager or close() it. One thread
    at a time uses a context (calls are serialised by a lock); open one context per thread for concurrency."""

    def __init__(self, backend=None, device=0):
        if backend not in BACKEND_CODES:
            raise value_error(f"backend={backend!r}: choose None, 'auto', 'cuda' or 'opencl'",
                              "MIDINT_ERR_UNKNOWN_BACKEND")
        self._lib = _lib.load()
        # reentrant: a DeviceArray dropped (and freed) by Python code running under the lock must not deadlock
        self._lock = threading.RLock()
        self._h = None
        self._buffers = weakref.WeakSet()
        self._moduli = weakref.WeakSet()
        h = ctypes.c_void_p()
        st = self._lib.midint_open(ctypes.byref(h), BACKEND_CODES[backend], int(device))
        if st:
            raise from_status(self._lib, st, self._lib.midint_last_error(None).decode(errors="replace"))
        self._h = h.value
        self.device = int(device)
        self.backend = BACKEND_NAMES[self._lib.midint_context_backend(self._h)]
        self.device_name = self._lib.midint_device_name(self._h).decode(errors="replace")

    # ---- lifetime ----
    def close(self):
        """Free the context's device buffers, pinned memory and the context itself (DeviceArrays and pinned
        arrays of it must not be used after)."""
        if self._h is None:
            return
        with self._lock:
            for buf in list(self._buffers):
                self._lib.midint_buffer_free(self._h, buf.handle)
                buf.handle = None
            for mod in list(self._moduli):   # they belong to the context: freed before it
                mod.free()
            self._lib.midint_close(self._h)   # also frees what is left of the pinned memory
            self._h = None

    @property
    def closed(self):
        return self._h is None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:   # interpreter shutdown
            pass

    def __repr__(self):
        state = "closed" if self._h is None else f"{self.backend} device {self.device}: {self.device_name}"
        return f"<midint.Context {state}>"

    # ---- calls into the library ----
    def _call(self, fn, *args):
        """fn(*args) under the context's lock; a failure raises with the library's status name and message."""
        with self._lock:
            if self._h is None:
                raise value_error("the midint context is closed")
            st = fn(*args)
            if st:
                raise from_status(self._lib, st, self._lib.midint_last_error(self._h).decode(errors="replace"))

    def _op_code(self, op):
        spec = OPS.get(op)
        if spec is None:
            raise value_error(f"unknown operation {op!r}: one of {', '.join(OPS)}")
        return spec.code

    # ---- what the context offers ----
    def max_bits(self, op):
        """Largest `bits` the operation accepts on this context."""
        return self._lib.midint_max_bits(self._h, self._op_code(op))

    @property
    def tuning_status(self):
        """Which dispatch table is in use: "default rule", "tuned table PATH (N entries)" or why one was refused."""
        return self._lib.midint_tuning_status(self._h).decode(errors="replace")

    def load_tuning(self, path=None):
        """Load a tuned table (None: drop the loaded one)."""
        self._call(self._lib.midint_load_tuning, self._h, None if path is None else str(path).encode())

    def force_variant(self, name=None):
        """Force a variant by name for its operation (None: clear every forced variant)."""
        self._call(self._lib.midint_force_variant, self._h, None if name is None else name.encode())

    def selected_variant(self, op, bits, count, modulus=None):
        """The variant a call (op, bits, count) would use now; with `modulus` (a Modulus of this context), for a call
        taking it (its parity and width pick among the variants; without it, the choice for a short odd modulus). "mul+mod" where
        mulmod runs as a product and its remainder (CUDA, 1024-32768 bits, except at 1024 bits for moduli of at least
        1000 bits, which this answer assumes; docs/dispatch.md)."""
        if modulus is not None and (not isinstance(modulus, Modulus) or modulus.ctx is not self
                                    or modulus.handle is None):
            raise value_error(f"selected_variant: modulus={modulus!r} is not a live Modulus of this context",
                              "MIDINT_ERR_INVALID_ARGUMENT")
        with self._lock:
            name = self._lib.midint_selected_variant_modulus(self._h, self._op_code(op), bits, count,
                                                             None if modulus is None else modulus.handle)
            if name is None:
                raise MidintValueError("MIDINT_ERR_INVALID_ARGUMENT",
                                       self._lib.midint_last_error(self._h).decode(errors="replace"))
        return name.decode()

    def workspace_size(self, op, bits, count):
        """Device workspace bytes a device call would use (the library's checks of bits and count apply)."""
        n = ctypes.c_size_t()
        self._call(self._lib.midint_workspace_size, self._h, self._op_code(op), bits, count, ctypes.byref(n))
        return n.value

    def set_workspace_bytes(self, nbytes):
        self._call(self._lib.midint_set_workspace_bytes, self._h, nbytes)

    def set_staging_bytes(self, nbytes):
        self._call(self._lib.midint_set_staging_bytes, self._h, nbytes)

    def synchronize(self, stream=None):
        """Wait for the work midint enqueued on `stream` (None: the default stream / the context's queue)."""
        self._call(self._lib.midint_synchronize, self._h, _stream_ptr(stream))

    # ---- batch GCD (docs/batch_gcd.md) ----
    def batch_gcd(self, moduli, bits=None):
        """For each modulus, its gcd with the product of all the others (Bernstein's batch GCD on the device): 1 where
        it shares no factor with the rest, the shared prime where two RSA moduli share one, the modulus itself where
        it shares both or is repeated. `moduli`: a list of ints >= 1 (any widths: `bits` defaults to the smallest
        multiple of 32 that holds the widest; the result is a list of ints) or a NumPy uint32 (count, words) array
        (the result likewise)."""
        if isinstance(moduli, np.ndarray):
            arr = np.ascontiguousarray(_numpy_operand(moduli, "moduli").obj)
            bits = 32 * arr.shape[1]
        else:
            moduli = list(moduli)
            if bits is None:
                bits = _bits_holding(widest_bits(moduli, "moduli"))
            arr = ints_to_limbs(moduli, bits, "moduli")
        out = np.empty_like(arr)
        self._call(self._lib.midint_batch_gcd, self._h, arr.shape[0], bits, arr.ctypes.data, out.ctypes.data)
        return out if isinstance(moduli, np.ndarray) else limbs_to_ints(out)

    # ---- a modulus shared by a batch ----
    def modulus(self, m, bits=None):
        """A Modulus for whole batches: m (an int >= 1) at `bits` (default: the smallest multiple of 32 that holds
        m), for ctx.mulmod_shared / ctx.powm_shared, or ctx.mulmod / ctx.powm in place of their moduli."""
        return Modulus(self, m, bits)

    # ---- memory ----
    def empty(self, shape):
        """An uninitialised DeviceArray of uint32, shape (count, words) or (count,)."""
        return DeviceArray(self, shape)

    def to_device(self, x, bits=None):
        """A DeviceArray holding x: a NumPy uint32 (count, words) array, or a list of ints (bits= required)."""
        if isinstance(x, np.ndarray):
            host = _numpy_operand(x, "x").obj
        else:
            if bits is None:
                raise value_error("bits= is required to put a list of ints on the device")
            host = ints_to_limbs(x, bits, "x")
        d = DeviceArray(self, host.shape)
        d.set(host)
        return d

    def pinned_empty(self, shape):
        """A NumPy uint32 array in page-locked memory of this context (faster host-device copies for the host
        calls). It belongs to the context: do not use it after close()."""
        return np.asarray(_Pinned(self, tuple(shape)))

    # ---- operations: the library's table (midint.OPS), each as ctx.NAME ----
    def __getattr__(self, name):
        """ctx.add, ctx.sqr, ctx.shl, ctx.and_ ...: every operation the library has (midint.OPS, read from it)."""
        spec = _spec_of_method(name) if not name.startswith("_") else None
        if spec is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

        def call(*args, **kw):
            return self._run(spec, args, kw)
        call.__name__ = spec.method
        call.__doc__ = _op_doc(spec)
        return call

    def __dir__(self):
        return sorted(set(super().__dir__()) | {s.method for s in OPS.values()})

    def run(self, op, *args, **kw):
        """The operation named `op` (e.g. "add"), as ctx.<op>(*args, **kw)."""
        spec = OPS.get(op)
        if spec is None:
            raise value_error(f"unknown operation {op!r}: one of {', '.join(OPS)}")
        return self._run(spec, args, kw)

    # ---- fused expressions (docs/expressions.md) ----
    def expressions(self):
        """The generated expressions: {name: Expression(name, inputs, outputs, output_words, program)}."""
        out = {}
        for i in range(self._lib.midint_expr_count()):
            d = ctypes.cast(self._lib.midint_expr_info(i), ctypes.POINTER(_lib.ExprDesc)).contents
            name = d.name.decode()
            out[name] = Expression(name, tuple(d.inputs[k].decode() for k in range(d.ninputs)),
                                   tuple(d.outputs[k].decode() for k in range(d.noutputs)),
                                   tuple(d.output_words[k] for k in range(d.noutputs)), d.program.decode())
        return out

    def expr(self, name, *inputs, bits=None, out=None, stream=None):
        """Evaluate the generated expression `name` on its inputs (in the order of its input names), all of one
        kind (lists of ints, NumPy arrays, CUDA arrays, DeviceArrays) and length; returns its outputs (one, or a
        tuple in the order of its output names) in that kind. Outputs of full products are twice as wide.
        out= (arrays only): the output array, or a tuple/list of them in the order of the output names, written
        and returned; an output of the inputs' width may be exactly one of the inputs (in place)."""
        e = self.expressions().get(name)
        if e is None:
            raise value_error(f"no expression {name!r} was generated (these were: {', '.join(self.expressions())}; "
                              f"make gen EXPRS=...)")
        if len(inputs) != len(e.inputs):
            raise value_error(f"expression {name} takes {len(e.inputs)} inputs ({', '.join(e.inputs)}); "
                              f"{len(inputs)} given", "MIDINT_ERR_INVALID_ARGUMENT")
        if self._h is None:
            raise value_error("the midint context is closed")
        ins = [self._operand(x, n) for x, n in zip(inputs, e.inputs)]
        kind, count = ins[0].kind, ins[0].count
        if any(o.kind != kind for o in ins):
            raise type_error(f"expr {name}: inputs of different kinds; pass them all as one kind")
        if any(o.count != count for o in ins):
            raise value_error(f"expr {name}: inputs of different lengths", "MIDINT_ERR_INVALID_COUNT")
        if kind == "ints":
            if out is not None:
                raise type_error(f"expr {name}: out= takes arrays; with lists of ints the outputs come back as new "
                                 f"lists (pass NumPy arrays to write into kept ones)")
            if bits is None:
                raise value_error(f"expr {name}: bits= is required with lists of ints", "MIDINT_ERR_INVALID_BITS")
            _bits_arg(bits)
            ins = [_numpy_operand(ints_to_limbs(o.obj, bits, n), n) for o, n in zip(ins, e.inputs)]
        else:
            words = ins[0].words
            if any(o.words != words for o in ins) or (bits is not None and bits != 32 * words):
                raise value_error(f"expr {name}: the inputs hold {[o.words for o in ins]} words per integer; they "
                                  f"must all hold bits/32", "MIDINT_ERR_INVALID_BITS")
            bits = 32 * words
            _bits_arg(bits)
        if kind == "cuda":
            stream = self._cuda_inputs(f"expr {name}", ins, e.inputs, stream)
        host = kind in ("ints", "numpy")
        shapes = [(count, w * bits // 32) for w in e.output_words]
        if out is None:
            alloc = (lambda shape: np.empty(shape, np.uint32)) if host else self._device_alloc(kind)
            outs = [alloc(shape) for shape in shapes]
            ptrs = [o.ctypes.data if host else _device_ptr(o) for o in outs]
        else:
            given = self._expr_outs(e, kind, shapes, out)
            outs, ptrs = [o.obj for o in given], [o.ptr for o in given]
        if count:
            optr = (ctypes.c_void_p * len(outs))(*ptrs)
            iptr = (ctypes.c_void_p * len(ins))(*[o.ptr for o in ins])
            args = [self._h, name.encode(), count, bits, len(outs), optr, len(ins), iptr]
            if host:
                self._call(self._lib.midint_expr, *args)
            else:
                self._call(self._lib.midint_expr_device, *args, _stream_ptr(stream))
        if kind == "ints":
            outs = [limbs_to_ints(o) for o in outs]
        elif kind == "cuda" and out is None:
            outs = [_like(ins[0].obj, o) for o in outs]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _expr_outs(self, e, kind, shapes, out):
        """The out= of expression e as _Operands, checked before anything runs: one array per output (a bare
        array when it has one), each of the inputs' kind and of its output's shape (the binary ops' out= checks)."""
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        if len(outs) != len(shapes):
            raise value_error(f"expr {e.name}: out= holds {len(outs)} arrays; the expression has {len(shapes)} "
                              f"outputs ({', '.join(e.outputs)})")
        return [self._out_operand(o, kind, shape, f"expr {e.name}", f"out ({oname})")
                for o, oname, shape in zip(outs, e.outputs, shapes)]

    def _out_operand(self, out, kind, shape, what, label="out"):
        """Check an out= array for inputs of `kind`: NumPy for host inputs, a device array of the inputs' kind
        for device ones; uint32, C-contiguous, writable, of `shape` (count, words). `what` names the call."""
        if kind in ("ints", "numpy"):
            if not isinstance(out, np.ndarray):
                raise type_error(f"{label} is a {type(out).__name__}; with host inputs out= is a NumPy uint32 array")
            o = _numpy_operand(out, label, writable=True)
        else:
            o = self._operand(out, label, writable=True)
            if o.kind != kind:
                raise type_error(f"{label} is of kind {o.kind}; the inputs are of kind {kind}")
        if (o.count, o.words) != tuple(shape):
            raise value_error(f"{label} has shape ({o.count}, {o.words}); {what} writes {tuple(shape)}")
        return o

    # ---- the one path every operation takes ----
    def _operand(self, x, name, writable=False):
        if isinstance(x, DeviceArray):
            if x.ctx is not self:
                raise value_error(f"{name} is a DeviceArray of another context")
            if len(x.shape) != 2:
                raise value_error(f"{name} has shape {x.shape}; midint wants (count, bits/32)")
            return _Operand("buffer", x, x._live(), x.shape[0], x.shape[1])
        if isinstance(x, np.ndarray):
            return _numpy_operand(x, name, writable)
        cai = getattr(x, "__cuda_array_interface__", None)
        if cai is not None:
            return _cai_operand(x, cai, name, writable)
        if hasattr(x, "__dlpack__"):
            return _dlpack_operand(x, name, writable)
        if isinstance(x, (list, tuple)) and not writable:
            return _Operand("ints", x, None, len(x), None)
        what = "an output (out=)" if writable else "an input"
        raise type_error(f"{name} is a {type(x).__name__}; {what} is a list of ints, a NumPy uint32 array, a "
                         f"CUDA device array (CuPy, __cuda_array_interface__, DLPack) or a midint.DeviceArray")

    def _check_bits(self, spec, bits, count):
        """The library's own checks of bits and count (midint_workspace_size runs the call's checks and
        dispatch without doing work), before any Python int is converted."""
        n = ctypes.c_size_t()
        self._call(self._lib.midint_workspace_size, self._h, spec.code, bits, count, ctypes.byref(n))

    def _run(self, spec, args, kw):
        """ctx.<op>(*inputs, *scalars, bits=None, *optional scalars, out=None, stream=None, return_<flag>=False,
        **scalars): the operation's inputs of integers positionally, then the scalars it needs (or by name), bits,
        then those it may leave out (a width: derived from the operands, _widths; a flag: 0); a scalar whose
        operation takes a per-instance array instead (shl's shift, shifts) may be given a sequence or array of
        counts."""
        if self._h is None:
            raise value_error("the midint context is closed")
        shared = OPS.get(spec.name + "_shared")
        if not spec.moduli and shared and any(isinstance(x, Modulus) for x in (*args, *kw.values())):
            spec = shared   # ctx.mulmod(a, b, mod) with a Modulus: the operation of a shared modulus
        call = _Call(spec, args, kw)
        for p in spec.moduli:
            mod = call.moduli[p.name]
            if mod.ctx is not self or mod.handle is None:
                why = "made on another context" if mod.handle is not None else "freed"
                raise value_error(f"{spec.name}: {p.name} is a Modulus {why}", "MIDINT_ERR_INVALID_ARGUMENT")
        ins = [self._operand(x, p.name) for x, p in zip(call.inputs, spec.inputs)]
        kinds = {o.kind for o in ins}
        if len(kinds) > 1:
            raise type_error(f"{spec.name}: operands of different kinds ({', '.join(o.kind for o in ins)}); pass "
                             f"them all as one kind")
        kind, count = ins[0].kind, ins[0].count
        if any(o.count != count for o in ins):
            raise value_error(f"{spec.name}: operands of different lengths ({', '.join(str(o.count) for o in ins)})",
                              "MIDINT_ERR_INVALID_COUNT")
        bits = call.bits
        if bits is not None:
            _bits_arg(bits)
        if kind == "ints" and bits is None and spec.moduli:
            bits = call.moduli[spec.moduli[0].name].bits   # lists of ints: the modulus's size
        if kind == "ints":
            if bits is None:
                raise value_error(f"{spec.name}: bits= is required with lists of ints (the width of the modular "
                                  f"arithmetic)", "MIDINT_ERR_INVALID_BITS")
            self._check_bits(spec, bits, max(count, 1))
            values = self._int_widths(spec, call, ins, bits)
            ins = [_numpy_operand(ints_to_limbs(values.get(p.name, o.obj), 32 * p.words(bits, call.scalars), p.name),
                                  p.name) for o, p in zip(ins, spec.inputs)]
        else:
            sized = [(o, p) for o, p in zip(ins, spec.inputs) if p.width_scalar is None]   # bits/32 words each
            if sized:
                words = sized[0][0].words
                if any(o.words != words for o, _ in sized):
                    raise value_error(f"{spec.name}: operands of different widths ("
                                      f"{', '.join(f'{p.name}: {o.words}' for o, p in sized)} words per integer)",
                                      "MIDINT_ERR_INVALID_BITS")
                if bits is None:
                    bits = 32 * words
                elif bits != 32 * words:
                    raise value_error(f"{spec.name}: bits={bits} but the arrays hold {words} words ({32 * words} "
                                      f"bits) per integer", "MIDINT_ERR_INVALID_BITS")
            elif bits is None:
                raise value_error(f"{spec.name}: bits= is required (no operand is bits wide)",
                                  "MIDINT_ERR_INVALID_BITS")
            _bits_arg(bits)
            self._array_widths(spec, call, ins, bits)
            if count == 0:
                self._check_bits(spec, bits, 1)
        host = kind in ("ints", "numpy")
        if kind == "cuda":
            call.stream = self._cuda_inputs(spec.name, ins, [p.name for p in spec.inputs], call.stream)
        counts = {name: self._counts_operand(v, kind, count, spec, name) for name, v in call.per_instance.items()}
        outs, given = self._outputs(spec, call, kind, count, bits, host)
        reserved = {}
        if count:
            bufs, given_ins = [], iter(ins)
            for p in spec.buffers:
                if p.kind == OUTPUT:
                    o = outs.get(p.name)
                    bufs.append(None if o is None else o.ctypes.data if host else _device_ptr(o))
                elif p.kind == MODULUS:
                    bufs.append(call.moduli[p.name].handle)
                elif p.is_number:
                    bufs.append(next(given_ins).ptr)
                else:
                    c = counts.get(p.name)
                    bufs.append(None if c is None else c.ctypes.data if host else _device_ptr(c))
            bptr = (ctypes.c_void_p * max(len(bufs), 1))(*bufs)
            sptr = (ctypes.c_uint * max(len(spec.scalars), 1))(*[call.scalars[p.name] for p in spec.scalars])
            if host:
                run = lambda: self._call(self._lib.midint_run, self._h, spec.code, count, bits, bptr, sptr)  # noqa: E731
                rows = _reserved_rows(spec, outs, count) if kind == "ints" else []
                if rows:
                    reserved = _beside(run, lambda: {name: reserve_ints(count, w) for name, w in rows})
                else:
                    run()
            else:
                self._call(self._lib.midint_run_device, self._h, spec.code, count, bits, bptr, sptr,
                           _stream_ptr(call.stream))
        results = []
        for p in spec.outputs:
            if p.name not in outs:
                continue
            r = outs[p.name]
            if kind == "ints":
                r = limbs_to_ints(r, reserved.get(p.name)) if p.is_number else \
                    (r.view(np.int32) if p.signed else r).tolist()
            elif kind == "numpy" and p.signed and p.name not in given:
                r = r.view(np.int32)
            elif kind == "cuda" and p.name not in given:
                r = _like(ins[0].obj, r)
            results.append(r)
        return results[0] if len(results) == 1 else tuple(results)

    def _int_widths(self, spec, call, ins, bits):
        """The width scalars of a call on lists of ints (call.scalars[name] set where None): a width given is
        checked, one left out is derived from the values: for a width bounded by a multiple of bits (divrem's and
        mod's abits, at most 2 bits) the smallest multiple of bits that holds every value (bits, else 2 bits); for
        an unbounded one (powm's ebits) the smallest positive multiple of 32 that holds every value. A value wider
        than its width is refused here, naming the instance. Returns {input name: its values as a list of ints}."""
        out = {}
        for s in spec.widths:
            users = [(o, p) for o, p in zip(ins, spec.inputs) if p.width_scalar == s.name]
            widest = {}
            for o, p in users:
                out[p.name] = o.obj
                widest[p.name] = widest_bits(o.obj, p.name)   # refuses non-ints and negatives, naming the first
            need = max(widest.values(), default=0)
            most, v = s.max_bits(bits), call.scalars[s.name]
            if v is None:
                v = bits * max(1, -(-need // bits)) if s.max_per_n else _bits_holding(need)
                limit, why = most, f"; {{p}} holds at most {most} bits ({s.name} {_width_bound(s)}, bits={bits})"
            else:
                _check_width(spec, s, v, bits)
                limit, why = v, f", more than {s.name}={v}"
            for o, p in users:
                if widest[p.name] > limit:   # the first too wide, found only to name it
                    bad, n = next((i, n) for i, n in enumerate(operator.index(x).bit_length() for x in o.obj)
                                  if n > limit)
                    raise value_error(f"{spec.name}: {p.name}[{bad}] has {n} bits" + why.format(p=p.name))
            call.scalars[s.name] = v
        return out

    def _array_widths(self, spec, call, ins, bits):
        """The width scalars of a call on arrays: each from its operand's words per integer (32 x words); one given
        must agree with it; both checked against the scalar's bounds."""
        for o, p in zip(ins, spec.inputs):
            if p.width_scalar is None:
                continue
            s, w = spec.param(p.width_scalar), 32 * o.words
            given = call.scalars[s.name]
            if given is not None and given != w:
                raise value_error(f"{spec.name}: {s.name}={given} but {p.name} holds {o.words} words ({w} bits) per "
                                  f"integer")
            _check_width(spec, s, w, bits, f" ({p.name} holds {o.words} words per integer)" if given is None else "")
            call.scalars[s.name] = w

    def _outputs(self, spec, call, kind, count, bits, host):
        """({output name: array}, names given by out=) for the outputs the call writes: the required ones, and the
        optional ones asked for (return_<name>=True); out= arrays (the first output's, or one per output returned)
        checked before anything runs."""
        outs, given = {}, call.outs(spec)
        alloc = (lambda shape: np.empty(shape, np.uint32)) if host else self._device_alloc(kind)
        for p in spec.outputs:
            if p.optional and not call.returns.get(p.name):
                continue
            shape = (count, p.words(bits, call.scalars)) if p.is_number else (count,)
            out = given.get(p.name)
            if out is not None:
                label = "out" if isinstance(call.out, np.ndarray) or not isinstance(call.out, (tuple, list)) \
                    else f"out ({p.name})"
                if len(shape) == 2:
                    self._out_operand(out, "numpy" if host else kind, shape, spec.name, label)
                elif not (isinstance(out, np.ndarray) and host and out.shape == shape and
                          out.dtype in (np.uint32, np.int32) and out.flags.c_contiguous and out.flags.writeable):
                    raise value_error(f"{label} must be a writable C-contiguous NumPy (u)int32 array of shape "
                                      f"{shape}")
                outs[p.name] = out   # returned as given (an int32 array for a signed result stays one)
            else:
                outs[p.name] = alloc(shape)
        return outs, set(given)

    def _counts_operand(self, v, kind, count, spec, name):
        """Per-instance counts (a sequence, a NumPy array or, for device calls, a device array of count uint32) as
        an array the call can read where its inputs are."""
        if kind in ("ints", "numpy") or not (isinstance(v, DeviceArray) or hasattr(v, "__cuda_array_interface__")):
            try:
                host = np.asarray(v, dtype=np.int64)
            except (TypeError, ValueError):
                raise type_error(f"{spec.name}: {name} must be a sequence of ints") from None
            if host.shape != (count,):
                raise value_error(f"{spec.name}: {name} holds {host.size} values for {count} instances")
            if host.size and (host.min() < 0 or host.max() >= 1 << 32):
                raise value_error(f"{spec.name}: {name} holds values outside 0 .. 2^32 - 1",
                                  "MIDINT_ERR_INVALID_ARGUMENT")
            host = np.ascontiguousarray(host, dtype=np.uint32)
            if kind in ("ints", "numpy"):
                return host
            d = self._device_alloc(kind)((count,))
            d.set(host)   # DeviceArray and CuPy arrays alike
            return d
        o = self._operand(v, name) if not isinstance(v, DeviceArray) else None
        shape = v.shape if isinstance(v, DeviceArray) else (o.count,)
        if tuple(shape) != (count,):
            raise value_error(f"{spec.name}: {name} has shape {tuple(shape)}; it must be ({count},)")
        return v

    def _cuda_inputs(self, what, ins, names, stream):
        """Checks of CUDA array inputs (a CUDA context, the context's device) and the stream to use: CuPy's
        current one for CuPy inputs when none is given."""
        if self.backend != "cuda":
            raise type_error(f"{what}: CUDA device arrays need a CUDA context; this one runs "
                             f"{self.backend} (use NumPy arrays or midint.DeviceArray)")
        for o, name in zip(ins, names):
            if o.device_id is not None and o.device_id != self.device:
                raise value_error(f"{name} is on CUDA device {o.device_id}; this context runs on device "
                                  f"{self.device}")
        cp = _cupy()
        from_cupy = cp is not None and isinstance(ins[0].obj, cp.ndarray)
        if stream is None and from_cupy:
            stream = cp.cuda.get_current_stream().ptr   # ordered with the caller's CuPy work
        return stream

    def _device_alloc(self, kind):
        if kind == "cuda":
            cp = _cupy()
            if cp is not None:
                def alloc(shape):
                    with cp.cuda.Device(self.device):   # the context's device, whichever is CuPy's current one
                        return cp.empty(shape, dtype=cp.uint32)
                return alloc
        return lambda shape: DeviceArray(self, shape)


def _bits_arg(bits):
    """bits as the C API's unsigned: an int in its range (ctypes would wrap a negative or huge value silently);
    the library checks the rest (a positive multiple of 32, generated for the operation)."""
    if not isinstance(bits, int) or isinstance(bits, bool):
        raise type_error(f"bits must be an int, got {type(bits).__name__}")
    if not 0 <= bits < 1 << 32:
        raise value_error(f"bits={bits} is out of range; it must be a positive multiple of 32",
                          "MIDINT_ERR_INVALID_BITS")


# Lists of ints: results of at least this many words in all have their ints made while the device call runs.
_RESERVE_WORDS = 1 << 16


def _reserved_rows(spec, outs, count):
    """[(output name, words)] of a call on lists whose results' ints are worth making while the device call runs
    (large enough, and the conversions able to: convert.reserve_ints); else []."""
    rows = [(p.name, outs[p.name].shape[1]) for p in spec.outputs if p.is_number and p.name in outs]
    return rows if reserving() and sum(count * w for _, w in rows) >= _RESERVE_WORDS else []


def _beside(call, work):
    """work() here while call() (a library call: ctypes lets go of the GIL during it) runs on a thread of its own;
    work's result, after call has returned. call's exception is raised here once both are done."""
    failed, started = [], threading.Event()

    def target():
        started.set()
        try:
            call()
        except BaseException as e:   # raised in the caller's thread below
            failed.append(e)

    worker = threading.Thread(target=target, name="midint call", daemon=True)
    worker.start()
    try:
        started.wait()   # the call is about to let go of the GIL: work() holds it for long stretches
        result = work()
    finally:
        worker.join()   # also on an interrupt here: nothing of the call is left running when this returns
    if failed:
        raise failed[0]
    return result


def _bits_holding(nbits):
    """The smallest positive multiple of 32 that holds nbits bits."""
    return 32 * max(1, -(-nbits // 32))


def _width_bound(s):
    return f"at most {s.max_per_n} x bits" if s.max_per_n else "at most MAX_WIDTH_BITS = 2^26"


def _check_width(spec, s, v, bits, why=""):
    """A width scalar's value: a positive multiple of 32 within its bound (the library's own check, made before any
    value is converted or written)."""
    most = s.max_bits(bits)
    if v <= 0 or v % 32 or v > most:
        raise value_error(f"{spec.name}: {s.name} is {v}{why}; it must be a positive multiple of 32 and at most "
                          f"{most} ({_width_bound(s)}, bits={bits})")


def _shape_arg(shape):
    """shape as a tuple of non-negative ints (an int alone: (n,))."""
    try:
        shape = (operator.index(shape),) if not hasattr(shape, "__len__") else tuple(operator.index(d) for d in shape)
    except TypeError:
        raise type_error(f"shape {shape!r} is not a tuple of ints") from None
    if any(d < 0 for d in shape) or not 1 <= len(shape) <= 2:
        raise value_error(f"shape {shape} must be (count, words) or (count,), non-negative")
    return shape


def _nbytes(shape):
    """Bytes of a uint32 array of `shape`, refused before ctypes would wrap it to size_t."""
    n = 4
    for d in shape:
        n *= d
    if n >= 1 << 63:
        raise MidintMemoryError("MIDINT_ERR_OUT_OF_MEMORY", f"{n} bytes for shape {shape} is more than any memory")
    return n


def _device_ptr(x):
    if isinstance(x, DeviceArray):
        return x._live()
    return x.__cuda_array_interface__["data"][0]


def _stream_ptr(stream):
    """A stream argument as the C API's void*: None, an int, or an object with .ptr (CuPy) or .cuda_stream
    (PyTorch)."""
    if stream is None or isinstance(stream, int):
        return stream or None
    for attr in ("ptr", "cuda_stream"):
        if hasattr(stream, attr):
            return getattr(stream, attr) or None
    raise type_error(f"stream is a {type(stream).__name__}; pass an int (cudaStream_t) or a CuPy/PyTorch stream")


def _like(template, arr):
    """arr (a CuPy array) in the framework of `template` when that is not CuPy but can take DLPack (e.g. PyTorch:
    torch.from_dlpack); otherwise arr itself."""
    cp = _cupy()
    if cp is None or isinstance(template, cp.ndarray) or not isinstance(arr, cp.ndarray):
        return arr
    import sys
    mod = sys.modules.get(type(template).__module__.split(".")[0])
    conv = getattr(mod, "from_dlpack", None)
    return conv(arr) if conv is not None else arr


def _spec_of_method(name):
    """The operation a Context attribute names: ctx.add, ctx.and_ (Python's keywords get a trailing underscore)."""
    try:
        ops = OPS._load()
    except Exception:   # no library: no operations (the attribute error says so)
        return None
    for spec in ops.values():
        if spec.method == name:
            return spec
    return None


def _operands(spec):
    """ctx.<op>'s positional operands: its inputs of integers and its modulus objects, in the C order."""
    return tuple(p for p in spec.params if p in spec.inputs or p.kind == MODULUS)


def _op_doc(spec):
    """ctx.<op>'s docstring from the library's descriptor."""
    ins = ", ".join(p.name for p in _operands(spec))
    needed = ", ".join(p.name for p in spec.scalars if not (p.width or p.flag))
    later = ", ".join(f"{p.name}={'None' if p.width else '0'}" for p in spec.scalars if p.width or p.flag)
    flags = ", ".join(f"return_{p.name}=False" for p in spec.outputs if p.optional)
    sig = ", ".join(x for x in (ins, needed, "bits=None", later, "*", "out=None", flags, "stream=None") if x)
    per = [p for p in spec.buffers if p.fallback]
    if per:
        sig += "; " + ", ".join(f"{p.fallback}= may be a sequence of counts, one per instance ({p.name})" for p in per)
    notes = []
    for p in spec.inputs:
        if p.width_scalar is not None:
            s = spec.param(p.width_scalar)
            notes.append(f"{p.name} is {s.name} bits wide ({s.name}: a positive multiple of 32, {_width_bound(s)}; "
                         f"None: from the arrays' width, or for ints the smallest "
                         f"{'multiple of bits' if s.max_per_n else 'multiple of 32'} that holds every {p.name})")
        if p.nonzero or p.odd:
            notes.append(f"every {p.name} must be {'odd' if p.odd else 'nonzero'}")
    for p in spec.moduli:
        notes.append(f"{p.name} is a midint.Modulus of the call's bits (ctx.modulus){', odd' if p.rules & 2 else ''}")
    if len([p for p in spec.outputs if not p.optional]) > 1 or any(p.optional for p in spec.outputs):
        notes.append("out= may be a tuple with one array (or None) per output returned")
    extra = "; ".join(notes)
    return f"ctx.{spec.method}({sig}): {spec.summary}{' (' + extra + ')' if extra else ''} (reference: " \
           f"{spec.reference})"


class _Call:
    """The arguments of ctx.<op>(...) sorted out from the operation's descriptor: its inputs, scalars, per-instance
    arrays that stand for a scalar, which optional outputs to return, and bits/out/stream.

    Positionally: the inputs, then the scalars every call must give (shl's shift), then bits, then the scalars that
    may be left out: widths (divrem's abits, powm's ebits: None here, derived from the operands by _run) and flags
    (powm's secret: 0)."""

    def __init__(self, spec, args, kw):
        kw = dict(kw)
        self.bits, self.out, self.stream = kw.pop("bits", None), kw.pop("out", None), kw.pop("stream", None)
        optional = [p for p in spec.outputs if p.optional]
        self.returns = {p.name: bool(kw.pop("return_" + p.name, False)) for p in optional}
        if "return_carry" in kw and len(optional) == 1:   # sub: return_carry as well as return_borrow
            self.returns[optional[0].name] |= bool(kw.pop("return_carry"))
        operands = _operands(spec)   # the inputs and modulus objects, in C order
        n_in = len(operands)
        given = list(args[:n_in]) + [kw.pop(p.name) for p in operands[len(args):] if p.kind == MODULUS and p.name in kw]
        if len(given) < n_in:
            raise value_error(f"{spec.name} takes {n_in} input{'s' if n_in != 1 else ''} "
                              f"({', '.join(p.name for p in operands)}); {len(given)} given",
                              "MIDINT_ERR_INVALID_ARGUMENT")
        self.inputs = [x for x, p in zip(given, operands) if p.kind == INPUT]
        self.moduli = {p.name: x for x, p in zip(given, operands) if p.kind == MODULUS}
        for name, x in self.moduli.items():
            if not isinstance(x, Modulus):
                raise type_error(f"{spec.name}: {name} must be a midint.Modulus (ctx.modulus(m, bits)), not "
                                 f"{type(x).__name__}")
        extra = args[n_in:]   # required scalars, bits, optional scalars (ctx.add(a, b, 512), ctx.shl(a, 3, 512))
        leave_out = {p.name for p in spec.scalars if p.width or p.flag}
        order = ([p.name for p in spec.scalars if p.name not in leave_out] + ["bits"] +
                 [p.name for p in spec.scalars if p.name in leave_out])
        if len(extra) > len(order):
            raise type_error(f"{spec.name} takes {n_in + len(order)} positional arguments ("
                             f"{', '.join([p.name for p in spec.inputs] + order)}); {len(args)} given")
        values = dict(zip(order, extra))
        if "bits" in values:
            if self.bits is not None:
                raise type_error(f"{spec.name}() got bits twice")
            self.bits = values.pop("bits")
        by_fallback = {p.fallback: p for p in spec.buffers if p.fallback}
        known = {p.name for p in spec.scalars} | {p.name for p in by_fallback.values()}
        for k, v in kw.items():
            if k not in known:
                raise type_error(f"{spec.name}() got an unexpected keyword argument {k!r}")
            if k in values:
                raise type_error(f"{spec.name}() got {k} twice")
            values[k] = v
        self.scalars, self.per_instance = {}, {}
        for p in spec.scalars:
            v, fb = values.get(p.name), by_fallback.get(p.name)
            if fb is not None and fb.name in values:
                self.per_instance[fb.name] = values[fb.name]
                v = 0 if v is None else v
            elif fb is not None and v is not None and not isinstance(v, int):   # an array: one count per instance
                self.per_instance[fb.name], v = v, 0
            if v is None and p.flag:
                v = 0
            if v is None and p.width:   # derived from the operands (Context._widths)
                self.scalars[p.name] = None
                continue
            if v is None:
                raise type_error(f"{spec.name}() needs {p.name}" + (f" (or {fb.name}: one per instance)" if fb else ""))
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 1 << 32:
                raise value_error(f"{spec.name}: {p.name}={v!r} is not an int in 0 .. 2^32 - 1",
                                  "MIDINT_ERR_INVALID_ARGUMENT")
            if p.flag and v > 1:
                raise value_error(f"{spec.name}: {p.name} is {v}; it must be 0 or 1")
            self.scalars[p.name] = v

    def outs(self, spec):
        """{output name: array} given by out=: one array (the first output's), or a tuple or list of arrays (None:
        allocate that one) for the outputs the call returns, in order."""
        if self.out is None:
            return {}
        returned = [p for p in spec.outputs if not p.optional or self.returns.get(p.name)]
        if not isinstance(self.out, (tuple, list)):
            return {returned[0].name: self.out}
        if len(self.out) != len(returned):
            raise value_error(f"{spec.name}: out= holds {len(self.out)} entries; the call returns {len(returned)} "
                              f"output{'s' if len(returned) != 1 else ''} ({', '.join(p.name for p in returned)}): "
                              f"pass one array, or a tuple of one array (or None) per output")
        return {p.name: o for p, o in zip(returned, self.out) if o is not None}
