"""The library's operations as Python sees them, read from the library itself (midint_op_count, midint_op_describe:
the table of operations the generator made, generator/ops.py), never a second list kept here."""

import ctypes
import keyword
from collections.abc import Mapping
from dataclasses import dataclass

from . import _lib

INPUT, OUTPUT, SCALAR, MODULUS = 0, 1, 2, 3   # midint_param_kind
RULE_NONZERO, RULE_ODD, RULE_WIDTH, RULE_FLAG = 1, 2, 4, 8   # midint_param_info.rules (MIDINT_RULE_*)
MAX_WIDTH_BITS = 1 << 26   # MIDINT_MAX_WIDTH_BITS: the most bits a width scalar may give


@dataclass(frozen=True)
class Param:
    """One parameter after (ctx, count, bits): a buffer of count instances (words_per_n * bits/32 + words_fixed words
    each, or, where `width_scalar` names a scalar of the operation, that scalar's value / 32 words: a dividend of abits
    bits, an exponent of ebits bits) or a scalar. `fallback`: for an optional input, the scalar that serves every
    instance when it is left out. `rules` (MIDINT_RULE_*): what its values must be (see nonzero, odd, width, flag),
    each rule read for the kind of parameter it belongs to only (nonzero and odd: inputs; width and flag: scalars).
    `max_per_n`/`default_per_n`: a width scalar's bound (max_per_n * bits; 0: MAX_WIDTH_BITS only) and the tests'
    and benchmarks' choice (default_per_n * bits). `in_place`: for an output, the inputs whose buffer it may be exactly
    (out= that input)."""
    name: str
    kind: int
    words_per_n: int
    words_fixed: int
    optional: bool
    fallback: str | None
    below_bits: bool
    signed: bool
    width_scalar: str | None = None
    rules: int = 0
    max_per_n: int = 0
    default_per_n: int = 0
    in_place: tuple = ()

    @property
    def is_buffer(self):
        return self.kind != SCALAR

    @property
    def is_number(self):
        """A buffer of one integer per instance: bits-bit (n or 2n words) or a width scalar's width."""
        return self.is_buffer and bool(self.words_per_n or self.width_scalar is not None)

    @property
    def modulus(self):
        """A modulus for the whole batch: a midint.Modulus (ctx.modulus(m, bits)), not an array of instances."""
        return self.kind == MODULUS

    @property
    def nonzero(self):
        """An input whose every instance must be nonzero (a divisor, a modulus)."""
        return self.kind == INPUT and bool(self.rules & RULE_NONZERO)

    @property
    def odd(self):
        """An input whose every instance must be odd (powm's modulus)."""
        return self.kind == INPUT and bool(self.rules & RULE_ODD)

    @property
    def width(self):
        """A scalar that is a buffer's width in bits: a positive multiple of 32, at most max_bits(bits)."""
        return self.kind == SCALAR and bool(self.rules & RULE_WIDTH)   # not read on buffers (see the class)

    @property
    def flag(self):
        """A scalar that is 0 or 1 (powm's secret)."""
        return self.kind == SCALAR and bool(self.rules & RULE_FLAG)

    def max_bits(self, bits):
        """A width scalar's largest value at `bits`: max_per_n * bits, or MAX_WIDTH_BITS where max_per_n is 0."""
        return self.max_per_n * bits if self.max_per_n else MAX_WIDTH_BITS

    def words(self, bits, scalars=None):
        """Words per instance at `bits`; for a buffer with a width scalar, scalars[width_scalar] / 32 (`scalars`:
        {name: value}, e.g. the values of a call or of midint.reference.expected). Without that value: the most it
        can hold, max_per_n * bits / 32 (or MAX_WIDTH_BITS / 32), so reducing a result to it changes nothing."""
        if self.width_scalar is not None:
            v = None if scalars is None else scalars.get(self.width_scalar)
            return (v if v is not None else (self.max_per_n * bits if self.max_per_n else MAX_WIDTH_BITS)) // 32
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
        """The inputs that are an integer per instance, in C order: bits-bit ones and those a width scalar sizes
        (divrem's dividend, powm's exponent); the positional arguments of ctx.NAME. (Per-instance counts, like shl's
        shifts, are not among them: they stand for a scalar.)"""
        return tuple(p for p in self.params if p.kind == INPUT and p.is_number)

    @property
    def moduli(self):
        """The modulus objects it takes (midint.Modulus), positional after the inputs in C order."""
        return tuple(p for p in self.params if p.kind == MODULUS)

    @property
    def outputs(self):
        return tuple(p for p in self.params if p.kind == OUTPUT)

    @property
    def scalars(self):
        return tuple(p for p in self.params if p.kind == SCALAR)

    @property
    def widths(self):
        """The scalars that are a buffer's width in bits (divrem's abits, powm's ebits)."""
        return tuple(p for p in self.scalars if p.width)

    def param(self, name):
        return next(p for p in self.params if p.name == name)

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
                             bool(p.is_signed), raw[p.width_scalar].name.decode() if p.width_scalar >= 0 else None,
                             p.rules, p.max_per_n, p.default_per_n,
                             tuple(q.name.decode() for j, q in enumerate(raw) if p.in_place >> j & 1)) for p in raw)
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
