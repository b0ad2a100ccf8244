"""Python ints <-> uint32 limb arrays, vectorised: one int.to_bytes / int.from_bytes per integer over one joined
buffer (no Python loop over limbs), so the cost is a few C calls per integer (python/README.md has the measured
cost per integer and size)."""

import operator
import sys

import numpy as np

from ._errors import type_error, value_error

_LITTLE = sys.byteorder == "little"


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


def ints_to_limbs(values, bits, name="a"):
    """A read-only uint32 array of shape (len(values), bits/32): each int's little-endian 32-bit words.
    Negative ints, ints of more than `bits` bits and non-integers are refused (ValueError / TypeError)."""
    if bits <= 0 or bits % 32:
        raise value_error(f"bits={bits} is not a positive multiple of 32", "MIDINT_ERR_INVALID_BITS")
    if not hasattr(values, "__len__"):
        values = list(values)
    nbytes = bits // 8
    try:
        data = b"".join([v.to_bytes(nbytes, "little") for v in values])
    except (OverflowError, AttributeError, TypeError):
        # the slow path only runs to name the culprit, or to accept NumPy integers (which lack to_bytes)
        data = b"".join([v.to_bytes(nbytes, "little") for v in _checked(values, bits, name)])
    arr = np.frombuffer(data, dtype="<u4").reshape(len(values), bits // 32)
    return arr if _LITTLE else arr.astype(np.uint32)


def limbs_to_ints(arr):
    """The ints held by a uint32 array of shape (count, words): one int.from_bytes per row over a memoryview of
    the array (no copy of the rows)."""
    arr = np.ascontiguousarray(arr, dtype="<u4")
    if arr.ndim != 2:
        raise value_error(f"limbs_to_ints wants a 2-D (count, words) array, got shape {arr.shape}")
    n = arr.shape[1] * 4
    if n == 0 or arr.shape[0] == 0:
        return [0] * arr.shape[0]
    mv = memoryview(arr).cast("B")
    fb = int.from_bytes
    return [fb(mv[i:i + n], "little") for i in range(0, len(mv), n)]


def words_to_ints(arr):
    """A 1-D uint32 array (carries, borrows) as a list of ints."""
    return arr.tolist()
