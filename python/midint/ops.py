"""The library's operations as Python sees them, read from the library itself (midint_op_count, midint_op_describe:
the table of operations the generator made, generator/ops.py), never a second list kept here."""

import ctypes
import keyword
from collections.abc import Mapping
from dataclasses import dataclass

from . import _lib

INPUT, OUTPUT, SCALAR = 0, 1, 2   # midint_param_kind


@dataclass(frozen=True)
class Param:
    """One parameter after (ctx, count, bits): a buffer of count instances (words_per_n * bits/32 + words_fixed words
    each) or a scalar. `fallback`: for an optional input, the scalar that serves every instance when it is left out."""
    name: str
    kind: int
    words_per_n: int
    words_fixed: int
    optional: bool
    fallback: str | None
    below_bits: bool
    signed: bool

    @property
    def is_buffer(self):
        return self.kind != SCALAR

    def words(self, bits):
        return self.words_per_n * (bits // 32) + self.words_fixed


@dataclass(frozen=True)
class OpSpec:
    """One operation: its code, its parameters in the C functions' order, the reference the tests compute with GMP and
    a one-line summary. Python calls it as ctx.NAME (ctx.and_, ctx.or_, ctx.not_ for Python's keywords)."""
    name: str
    code: int
    params: tuple
    reference: str
    summary: str

    @property
    def buffers(self):
        return tuple(p for p in self.params if p.is_buffer)

    @property
    def inputs(self):
        """The inputs of bits-bit integers, in order: the positional arguments of ctx.NAME."""
        return tuple(p for p in self.params if p.kind == INPUT and p.words_per_n)

    @property
    def outputs(self):
        return tuple(p for p in self.params if p.kind == OUTPUT)

    @property
    def scalars(self):
        return tuple(p for p in self.params if p.kind == SCALAR)

    @property
    def method(self):
        return self.name + "_" if keyword.iskeyword(self.name) else self.name


class _ParamInfo(ctypes.Structure):
    """midint_param_info (runtime/midint.h)."""
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_int), ("words_per_n", ctypes.c_uint),
                ("words_fixed", ctypes.c_uint), ("optional", ctypes.c_uint), ("fallback", ctypes.c_int),
                ("below_bits", ctypes.c_uint), ("is_signed", ctypes.c_uint), ("in_place", ctypes.c_uint),
                ("slots", ctypes.c_uint), ("width_scalar", ctypes.c_int), ("rules", ctypes.c_uint),
                ("max_per_n", ctypes.c_uint), ("default_per_n", ctypes.c_uint)]


class _OpInfo(ctypes.Structure):
    """midint_op_info (runtime/midint.h)."""
    _fields_ = [("name", ctypes.c_char_p), ("op", ctypes.c_int), ("nparams", ctypes.c_uint),
                ("params", ctypes.POINTER(_ParamInfo)), ("reference", ctypes.c_char_p), ("summary", ctypes.c_char_p)]


def _read(lib):
    out = {}
    for code in range(lib.midint_op_count()):
        d = ctypes.cast(lib.midint_op_describe(code), ctypes.POINTER(_OpInfo)).contents
        raw = [d.params[i] for i in range(d.nparams)]
        params = tuple(Param(p.name.decode(), p.kind, p.words_per_n, p.words_fixed, bool(p.optional),
                             raw[p.fallback].name.decode() if p.fallback >= 0 else None, bool(p.below_bits),
                             bool(p.is_signed)) for p in raw)
        out[d.name.decode()] = OpSpec(d.name.decode(), d.op, params, (d.reference or b"").decode(),
                                      (d.summary or b"").decode())
    return out


class _Operations(Mapping):
    """{name: OpSpec} of the library's operations, read from it at first use (so `import midint` works without it)."""

    def __init__(self):
        self._ops = None

    def _load(self):
        if self._ops is None:
            self._ops = _read(_lib.load())
        return self._ops

    def __getitem__(self, name):
        return self._load()[name]

    def __iter__(self):
        return iter(self._load())

    def __len__(self):
        return len(self._load())

    def __repr__(self):
        return f"midint.OPS({', '.join(self._load())})"


OPS = _Operations()
