"""mulmod's division in radix 2^49 (2^43 at 256 bits) on the FP64 pipe (lib_mulmod_fdiv.j2, CUDA) modelled in Python,
so that CI (no GPU) checks its arithmetic: the exact split of a limb product into two bit patterns (integers here),
the remainder's unnormalized limbs, each digit's estimate by the same IEEE double operations (an fma rounded once,
through fractions), the bias of 2 and of 2^-10, and the final subtraction. The model asserts the bounds the template's
header argues (every q M[i] below 2^(r + 52), q never above the true digit, the digits below 4.3 beta, R below 2m at
the end) on adversarial and random moduli of the widths the branch takes, at every size space.MULMOD_FDIV_BITS gives
it; the GPU tests (test_variants' mulmod) check the kernel."""

import math
import random
import re
import sys
from fractions import Fraction
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from generator.space import (MULMOD_FDIV_BITS, MULMOD_FDIV_RADIX, MULMOD_FDIV_SKIP_FIRST_BITS,  # noqa: E402
                             fdiv_bounds_hold, fdiv_first_zero_bits, fdiv_limbs, fdiv_min_bits, fdiv_radix)
from fp64_model import fma, limbs, to_i64  # noqa: E402


def mulmod_fdiv(a, b, m, words, bias=2.0, first=None):
    """The template's mfdiv_mulmod on Python integers: the product's limbs, then the digits K .. 0 (less `bias`) and 0
    again; digit K's step left out for moduli of at least 2^first (the template's where
    space.MULMOD_FDIV_SKIP_FIRST_BITS names the size: x < 2^(64 words) <= m beta^K)."""
    r, k = fdiv_radix(words), fdiv_limbs(words)
    if first is None:
        first = fdiv_first_zero_bits(words) if 32 * words in MULMOD_FDIV_SKIP_FIRST_BITS else 64 * words
    assert m >> fdiv_min_bits(words), "the branch takes moduli of at least 2^fdiv_min_bits"
    A, B, M = limbs(a, k, r), limbs(b, k, r), limbs(m, k, r)
    x = a * b
    R = limbs(x, 2 * k, r) + [0, 0]   # the template's offs[k] - S[k]: exact integers here, unnormalized below
    assert sum(v << (r * i) for i, v in enumerate(R)) == x
    beta = float(1 << r)
    inv = beta / fma(float(M[k - 1]), beta, float(M[k - 2]))
    for step in range(k + 2):
        j = k - step if step <= k else 0
        if step == 0 and m >> first:
            continue
        t = to_i64((R[j + k + 1] << r) + R[j + k])   # 64-bit wrapping, as the kernel
        rhat = fma(float(t), beta, float(R[j + k - 1]))
        q = max(math.floor(fma(rhat, inv, -bias if step <= k else -2.0 ** -10)), 0)
        rest = sum(v << (r * i) for i, v in enumerate(R))
        exact = Fraction(rest, m << (r * j))
        assert q <= exact, "an estimate above the true digit would leave R negative"
        assert exact < Fraction(43, 10) * (1 << r) if step <= k else exact < 5, "a digit above its bound"
        for i in range(k):   # R -= q m beta^j, limb by limb as the split's two parts
            p = q * M[i]
            assert p < 1 << (r + 52), "the split needs q M[i] < 2^(radix + 52)"
            R[j + i] -= p & ((1 << r) - 1)
            R[j + i + 1] -= p >> r
            assert abs(R[j + i]) < 1 << 57 and abs(R[j + i + 1]) < 1 << 57
    x = sum(v << (r * i) for i, v in enumerate(R))
    assert 0 <= x < 2 * m
    return x - m if x >= m else x


def moduli(words, rng):
    bits = 32 * words
    lo = fdiv_min_bits(words)
    yield (1 << bits) - 1
    yield (1 << (bits - 1)) + 1
    yield 1 << lo                                   # the smallest the branch takes
    yield (1 << lo) + (1 << (lo - 1)) - 1
    yield (1 << bits) - (1 << (bits - fdiv_radix(words))) + 1      # a long run of ones on top
    yield (1 << lo) | 1
    for _ in range(6):
        yield rng.getrandbits(bits) | (1 << (bits - 1))
    for _ in range(6):
        w = lo + 1 + rng.randrange(bits - lo)
        yield rng.getrandbits(w) | (1 << (w - 1))


def operands(m, bits, rng):
    top = (1 << bits) - 1
    yield top, top
    yield m - 1, m - 1
    yield 0, top
    yield 1, m - 1
    yield m, m + 1 if m + 1 <= top else m
    yield top, m - 1
    yield 1 << (bits - 1), (1 << (bits - 1)) + 1
    for _ in range(4):
        yield rng.getrandbits(bits), rng.getrandbits(bits)


def test_template_constants_match_the_model():
    """The shared split's constants (lib_fp64_columns.j2) at the division's radices (space.MULMOD_FDIV_RADIX) and at
    lib_modshared_f52.j2's 52: 2^(radix + 52) for the high part's binade (ulp 2^radix), that plus 2^52 for the low
    part's, the exponent fields; and the digits' biases in lib_mulmod_fdiv.j2."""
    jinja2 = pytest.importorskip("jinja2")
    fc = jinja2.Environment(loader=jinja2.FileSystemLoader(str(ROOT / "templates"))).get_template(
        "lib_fp64_columns.j2").module
    for radix in sorted(set(MULMOD_FDIV_RADIX.values())) + [52]:
        field = {43: 0x45e, 49: 0x464, 52: 0x467}[radix]
        assert int(float(str(fc.two_hi(radix)))) == 2 ** (radix + 52)   # exact in a double and in the literal
        assert int(float(str(fc.two_hi_52(radix)))) == 2 ** (radix + 52) + 2 ** 52
        assert str(fc.hi_pat(radix)) == f"(0x{field:x}ull << 52)" and field == 1023 + radix + 52
    assert str(fc.lo_pat()) == "(0x433ull << 52)" and 0x433 == 1023 + 52
    src = (ROOT / "templates" / "lib_mulmod_fdiv.j2").read_text()
    assert "-2.0 : -0.0009765625" in src   # the digits' bias and the second pass's 2^-10


@pytest.mark.parametrize("bits", MULMOD_FDIV_BITS)
@pytest.mark.parametrize("seed", range(2))
def test_mulmod_fdiv_model_against_python(bits, seed):
    rng = random.Random(seed)
    words = bits // 32
    assert fdiv_bounds_hold(words)
    n = 0
    for m in moduli(words, rng):
        for a, b in operands(m, bits, rng):
            assert mulmod_fdiv(a, b, m, words) == a * b % m, (hex(a), hex(b), hex(m))
            n += 1
    assert n == 18 * 11


def test_model_catches_a_wrong_bias():
    """Without the bias an estimate passes the true digit (R would go negative): the model's bounds catch it, so this
    test's checks can fail."""
    rng = random.Random(7)
    m = (1 << 1024) - 1
    with pytest.raises(AssertionError, match="above the true digit"):
        for _ in range(50):
            mulmod_fdiv(rng.getrandbits(1024), rng.getrandbits(1024), m, 32, bias=0.0)


def test_model_catches_a_wrong_first_step():
    """Digit K's step left out for moduli 2^3 below the template's bound (384 bits: 2^376): the next digit passes its
    bound on the largest products, so the skip's bound is one the model checks."""
    words = 12
    assert 32 * words in MULMOD_FDIV_SKIP_FIRST_BITS
    first = fdiv_first_zero_bits(words)
    top = (1 << (32 * words)) - 1
    m = (1 << (first - 3)) + 1   # x / (m beta^(K - 1)) near 8 beta, against the bound's 4.3 beta
    assert mulmod_fdiv(top, top, m, words) == top * top % m
    with pytest.raises(AssertionError, match="a digit above its bound"):
        mulmod_fdiv(top, top, m, words, first=first - 3)


def test_bounds_refuse_radix_49_at_256_bits(monkeypatch):
    """At 256 bits 49-bit limbs leave the top one 11 bits, below what the estimate needs, so space.MULMOD_FDIV_RADIX
    gives that size 43: the bounds' check tells the two apart."""
    import generator.space as space
    assert space.fdiv_bounds_hold(8) and space.fdiv_radix(8) == 43
    monkeypatch.setitem(space.MULMOD_FDIV_RADIX, 256, 49)
    assert not space.fdiv_bounds_hold(8)
