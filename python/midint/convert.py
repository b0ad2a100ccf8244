"""Python ints <-> uint32 limb arrays. With the optional C extension (midint._convert, built with the package when a
compiler and Python's headers are there) one C pass over the ints' own digits; without it, one int.to_bytes /
int.from_bytes per integer over one joined buffer (no Python loop over limbs). Both give the same arrays, ints and
errors; MIDINT_PURE_PYTHON=1 forces the pure path (python/README.md has the measured cost of each). The extension
shares a large list's rows between threads (MIDINT_CONVERT_THREADS of them, default the CPUs this process may use, at
most 8; 1 turns it off)."""

import importlib
import math
import operator
import os
import sys

import numpy as np

from ._errors import type_error, value_error

_LITTLE = sys.byteorder == "little"


def _load_native():
    """(the C extension module or None, a sentence saying which path the conversions take and why)."""
    if os.environ.get("MIDINT_PURE_PYTHON", "") not in ("", "0"):
        return None, "pure Python (MIDINT_PURE_PYTHON is set)"
    if not _LITTLE:
        return None, "pure Python (a big-endian host: the C extension writes little-endian words only)"
    try:
        _convert = importlib.import_module("._convert", __package__)
    except ImportError as e:
        return None, f"pure Python (the C extension midint._convert is not available: {e})"
    return _convert, f"C extension midint._convert ({_convert.LAYOUT})"


_native, PATH = _load_native()

# Threads for the extension's passes: each takes at least _WORDS_PER_THREAD words (a thread costs ~30 us to start; a
# word ~2 ns to convert), and more than 8 gain little once memory's bandwidth is the limit.
_WORDS_PER_THREAD = 1 << 16


def _thread_count():
    env = os.environ.get("MIDINT_CONVERT_THREADS", "")
    if env:
        try:
            count = int(env)
        except ValueError:
            raise value_error(f"MIDINT_CONVERT_THREADS={env!r} is not a whole number of threads") from None
        if count < 1:
            raise value_error(f"MIDINT_CONVERT_THREADS={env!r}: at least 1 thread")
        return count
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return min(cpus, 8)


_THREADS = _thread_count()


def _threads(count, words):
    """Threads for a pass over count rows of words words."""
    return max(1, min(_THREADS, count * words // _WORDS_PER_THREAD))


def _checked(values, bits, name):
    """values as a list of ints, or the error naming the first that is not a non-negative int below 2^bits."""
    out = []
    for i, v in enumerate(values):
        if not isinstance(v, int):
            try:
                v = operator.index(v)   # NumPy integers and other exact integer types
            except TypeError:
                raise type_error(f"{name}[{i}] is a {type(v).__name__}, not an int") from None
        if v < 0:
            raise value_error(f"{name}[{i}] is negative ({v}); midint's integers are unsigned")
        if v.bit_length() > bits:
            raise value_error(f"{name}[{i}] has {v.bit_length()} bits, more than bits={bits} (not truncated: "
                              f"reduce it mod 2^{bits} yourself if that is what you mean)")
        out.append(v)
    return out


def widest_bits(values, name="a"):
    """The largest bit length among values (0 when there are none or all are 0), or the error naming the first that
    is not a non-negative int (NumPy integers and other types with __index__ are taken by their value)."""
    if not isinstance(values, (list, tuple)):
        values = list(values)
    if _native is not None:
        bits, bad = _native.widest_bits(values, _threads(len(values), 1))
        if bad < 0:
            return bits
    return max((v.bit_length() for v in _checked(values, math.inf, name)), default=0)


def _out_array(out, count, words):
    """out= of ints_to_limbs, checked: a writable, aligned, C-contiguous native uint32 array of shape (count, words)."""
    if not isinstance(out, np.ndarray) or out.dtype != np.uint32:
        kind = f"dtype {out.dtype}" if isinstance(out, np.ndarray) else f"a {type(out).__name__}"
        raise type_error(f"out is {kind}; ints_to_limbs writes into a NumPy uint32 array")
    if out.shape != (count, words):
        raise value_error(f"out has shape {out.shape}; {count} ints of {32 * words} bits need ({count}, {words})")
    if not (out.flags.c_contiguous and out.flags.aligned):
        raise value_error("out is not C-contiguous and aligned; ints_to_limbs writes rows in place")
    if not out.flags.writeable:
        raise value_error("out is read-only")
    return out


def ints_to_limbs(values, bits, name="a", out=None):
    """A uint32 array of shape (len(values), bits/32): each int's little-endian 32-bit words; read-only when made
    here, or `out` (a C-contiguous uint32 array of that shape) filled in place. Negative ints, ints of more than
    `bits` bits and non-integers are refused (ValueError / TypeError) with nothing written; NumPy integers and other
    types with __index__ are taken by their value."""
    if bits <= 0 or bits % 32:
        raise value_error(f"bits={bits} is not a positive multiple of 32", "MIDINT_ERR_INVALID_BITS")
    if not isinstance(values, (list, tuple)):
        values = list(values)   # one pass over a generator or other iterable, so that len() and the items agree
    words = bits // 32
    if out is not None:
        out = _out_array(out, len(values), words)
    if _native is not None:
        arr = out if out is not None else np.empty((len(values), words), np.uint32)
        # a caller's out is checked whole before it is written; a fresh array is written in the same pass
        threads = _threads(len(values), words)
        if _native.ints_to_limbs(values, arr, words, out is not None, threads) >= 0:
            # an item the extension does not take: the pure checks raise their error, or give exact ints (NumPy
            # integers converted), which it then takes
            if _native.ints_to_limbs(_checked(values, bits, name), arr, words, False, threads) >= 0:
                raise AssertionError("midint._convert refused ints that passed the checks")
        if out is None:
            arr.flags.writeable = False   # as the pure path's (a view of bytes): the same array either way
        return arr
    arr = _pure_ints_to_limbs(values, bits, name)
    if out is None:
        return arr
    out[...] = arr
    return out


def _pure_ints_to_limbs(values, bits, name):
    nbytes = bits // 8
    try:
        data = b"".join([v.to_bytes(nbytes, "little") for v in values])
    except (OverflowError, AttributeError, TypeError):
        # the slow path only runs to name the culprit, or to accept NumPy integers (which lack to_bytes)
        data = b"".join([v.to_bytes(nbytes, "little") for v in _checked(values, bits, name)])
    arr = np.frombuffer(data, dtype="<u4").reshape(len(values), bits // 32)
    return arr if _LITTLE else arr.astype(np.uint32)


def reserving():
    """Whether reserve_ints makes ints ahead here (the extension, on a digit layout)."""
    return getattr(_native, "reserve_ints", None) is not None


def reserve_ints(count, words):
    """Ints made ahead of their values for a later limbs_to_ints(arr, reserved) of count rows of words words, so
    that CPython's allocations can run while a device call does (the extension on the digit layouts); else None."""
    make = getattr(_native, "reserve_ints", None)
    return make(count, words) if make is not None and count else None


def limbs_to_ints(arr, reserved=None):
    """The ints held by a uint32 array of shape (count, words): one per row (C extension: one pass over the rows;
    pure path: int.from_bytes over a memoryview of each row, no copy of the rows). reserved: reserve_ints(count,
    words)'s ints, filled instead of new ones (once)."""
    arr = np.require(arr, dtype="<u4", requirements=("C", "A"))
    if arr.ndim != 2:
        raise value_error(f"limbs_to_ints wants a 2-D (count, words) array, got shape {arr.shape}")
    n = arr.shape[1] * 4
    if n == 0 or arr.shape[0] == 0:
        return [0] * arr.shape[0]
    if _native is not None:
        return _native.limbs_to_ints(arr, arr.shape[1], _threads(arr.shape[0], arr.shape[1]), reserved)
    mv = memoryview(arr).cast("B")
    fb = int.from_bytes
    return [fb(mv[i:i + n], "little") for i in range(0, len(mv), n)]


def words_to_ints(arr):
    """A 1-D uint32 array (carries, borrows) as a list of ints."""
    return arr.tolist()
