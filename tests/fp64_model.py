"""The pieces the FP64 division's Python models share (tests/test_mulmod_fdiv_model.py, test_div_lanes_fdiv_model.py):
the FP64 unit's fma, 64-bit wrapping, limbs of r bits."""

from fractions import Fraction


def fma(a, b, c):
    """a b + c rounded once to the nearest double, as the FP64 unit's fma."""
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def limbs(x, k, r):
    """x's k lowest limbs of r bits."""
    return [(x >> (r * i)) & ((1 << r) - 1) for i in range(k)]


def to_i64(v):
    """v mod 2^64 as a signed 64-bit integer."""
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v
