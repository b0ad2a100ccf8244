"""divrem and mod on lanes by the division in radix 2^r on the FP64 pipe (kernel_div_lanes_fdiv.j2, CUDA) modelled in
Python, so that CI (no GPU) checks its arithmetic: the normalization by sh, the warp's top digit J, the window's slots
(L P of them, Z below position 0 holding the limbs that enter next; each kept as the kernel keeps it, the split's bit
patterns less the limb mod 2^64, read through its exponent fields s KOFF), each step's estimate from the top three slots by
the same IEEE double operations (fma rounded once, through fractions), the window moving up a slot as q D's two parts
come off, the last estimate at digit 0 in place, and the final subtraction. It asserts the bounds the template's header
and space.div_fdiv_bounds_hold argue (q never above the true digit, digits below 4.3 beta, q D's limbs below
2^(r + 52), the unnormalized limbs below 2^62, R below 2 D at the end) and that the staged dividend's limbs read no
word already overwritten, at every size space.DIV_LANES_FDIV_RADIX names; the GPU tests (test_variants' divrem and
mod) check the kernel."""

import math
import random
import sys
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from generator.space import (DIV_LANES_FDIV_RADIX, MOD_DIV_LANES_Q, div_fdiv_bounds_hold,  # noqa: E402
                             div_fdiv_context)
from fp64_model import fma, limbs, to_i64  # noqa: E402


def context(bits):
    """The kernel's parameters at `bits` (its lanes from modld's Q there)."""
    lanes = bits // 32 // MOD_DIV_LANES_Q.get(bits, 32)
    v = SimpleNamespace(op="divrem", backend="cuda", bits=bits, words=bits // 32, lanes=lanes)
    return lanes, div_fdiv_context(v)


def div_lanes_fdiv(x, d, bits, bias=2.0, warp_top=0, last_koff=1):
    """The template's steps on Python integers, its slots as it keeps them (patterns less the limb, mod 2^64): (q, r).
    The steps start at the larger of the instance's own top digit J and `warp_top`, as for an instance whose warp has
    a larger J. `last_koff`: the exponent fields the last estimate's parts add to each slot, in KOFFs (the kernel's 1)."""
    lanes, f = context(bits)
    r, k, slots = f["radix"], f["limbs"], f["slots"]
    mask, beta = (1 << r) - 1, float(1 << r)
    width, n = lanes * slots, bits // 32
    z = width - k - 2
    assert 0 < d < 1 << bits and 0 <= x < 1 << (2 * bits)
    sh = bits - d.bit_length()                      # 32 (N - words(d)) + clz(d's top word)
    big_d, y = d << sh, x << sh
    m = limbs(big_d, k, r)
    assert m[k - 1] >> (69 - r), "D's top limb below 2^(69 - r)"

    def dm(i):                                      # D's limb i, 0 off D
        return m[i] if 0 <= i < k else 0

    def ylimb(i):
        return (y >> (r * i)) & mask if i >= 0 else 0

    nx, nd = (x.bit_length() + 31) // 32, (d.bit_length() + 31) // 32
    c = 32 * nd - d.bit_length()
    e = 32 * (nx - nd) + c + 1
    j_top = (e + r - 1) // r - 1 if e > 0 else 0
    j_top = max(j_top, warp_top)
    assert (j_top + 1) + 1 <= lanes * f["digit_slots"], "the digit row holds every digit and a carry"
    inv = beta / fma(float(m[k - 1]), beta, float(m[k - 2]))
    lo_pat, hi_pat = 0x433 << 52, (1023 + r + 52) << 52   # the split's parts' exponent fields (lib_fp64_columns.j2)
    koff = (lo_pat + hi_pat) % (1 << 64)
    # S[s]: slot s's patterns less its limb, mod 2^64, as the kernel keeps it; the limb is s KOFF - S[s] (plus one KOFF
    # after the last estimate, which takes its parts in place)
    S = [(s * koff - ylimb(j_top - z + s)) % (1 << 64) for s in range(width)]
    late = 0

    def value(s):
        return to_i64((s + late) * koff - S[s])

    exact_r, quot = y, 0

    def estimate(r2, r1, r0, b):
        t = to_i64((r2 << r) + r1)                  # wrapping, as the kernel
        rhat = fma(float(t), beta, float(to_i64(r0)))
        return max(math.floor(fma(rhat, inv, -b)), 0)

    def take(q, j, lo_at, hi_at):
        nonlocal exact_r, quot
        digit = Fraction(exact_r, big_d << (r * j))
        assert q <= digit, "an estimate above the true digit would leave R negative"
        exact_r -= (q * big_d) << (r * j)
        quot += q << (r * j)
        for s in range(width):                       # q D's low part at lo_at(s), high part at hi_at(s)
            lo, hi = q * dm(lo_at(s)), q * dm(hi_at(s))
            assert lo < 1 << (r + 52) and hi < 1 << (r + 52), "the split needs q D[i] < 2^(radix + 52)"
            S[s] = (S[s] + lo_pat + (lo & mask) + hi_pat + (hi >> r)) % (1 << 64)
            assert abs(to_i64((s + 1) * koff - S[s])) < 1 << 62, "an unnormalized limb past its bound"

    r2 = 0
    for j in range(j_top, -1, -1):
        r2 = value(width - 1)
        q = estimate(r2, value(width - 2), value(width - 3), bias)
        assert Fraction(exact_r, big_d << (r * j)) < Fraction(43, 10) * (1 << r), "a digit above its bound"
        take(q, j, lambda s: s - z, lambda s: s - z - 1)
        # up a slot (its patterns now those of the slot above); the top one leaves (position K + 2 from here)
        S = [-ylimb(j - z - 1) % (1 << 64)] + S[:-1]
    q0 = estimate(r2, value(width - 1), value(width - 2), 2.0 ** -10 if bias else 0.0)
    assert exact_r < 5 * big_d
    take(q0, 0, lambda s: s - z - 1, lambda s: s - z - 2)
    late = last_koff
    assert 0 <= exact_r < 2 * big_d, "R at least 2 D after digit 0's second estimate"
    rem = sum(value(s) << (r * (s - z - 1)) for s in range(z + 1, width)) % (1 << (r * (k + 1)))
    assert rem == exact_r, "the slots' limbs, normalized, are not the remainder"
    if rem >= big_d:
        rem -= big_d
        quot += 1
    assert rem % (1 << sh) == 0
    return quot, rem >> sh


def divisors(bits, rng):
    yield (1 << bits) - 1                           # all ones: D's limbs at their largest
    yield 1 << (bits - 1)
    yield 1
    yield 3
    yield (1 << 32) - 1
    yield (1 << (bits // 2)) + 1
    yield (1 << (bits - 1)) + 1
    yield rng.getrandbits(bits) | (1 << (bits - 1))
    w = 33 + rng.randrange(bits - 33)
    yield rng.getrandbits(w) | (1 << (w - 1))


def dividends(d, bits, rng):
    top = (1 << (2 * bits)) - 1
    yield top
    yield 0
    yield d - 1
    yield d
    yield d + 1
    q = rng.getrandbits(bits)
    yield min(d * q + d - 1, top)
    yield rng.getrandbits(2 * bits)
    yield rng.getrandbits(bits)


# above this the model takes seconds a division (hundreds of slots and steps): a few cases there
FULL_MAX_BITS = 8192


@pytest.mark.parametrize("bits", [b for b in sorted(DIV_LANES_FDIV_RADIX) if b <= FULL_MAX_BITS])
def test_div_lanes_fdiv_model_against_python(bits):
    assert div_fdiv_bounds_hold(bits)
    rng = random.Random(bits)
    n = 0
    for d in divisors(bits, rng):
        for x in dividends(d, bits, rng):
            assert div_lanes_fdiv(x, d, bits) == divmod(x, d), (hex(x), hex(d))
            n += 1
    assert n == 9 * 8


@pytest.mark.parametrize("bits", [b for b in sorted(DIV_LANES_FDIV_RADIX) if b > FULL_MAX_BITS])
def test_div_lanes_fdiv_model_large(bits):
    """The largest sizes on their hardest cases: D's limbs at their largest under the largest dividend, the most
    steps (a divisor of one word), a dividend one below a multiple of a random divisor."""
    assert div_fdiv_bounds_hold(bits)
    rng = random.Random(bits)
    top = (1 << (2 * bits)) - 1
    d = rng.getrandbits(bits) | (1 << (bits - 1))
    for x, d in ((top, (1 << bits) - 1), (top, (1 << 32) - 1), (d * rng.getrandbits(bits) + d - 1, d)):
        assert div_lanes_fdiv(x, d, bits) == divmod(x, d), (hex(x), hex(d))


def test_extra_steps_of_the_warp():
    """An instance whose warp starts at the largest top digit a warp can have (a dividend of 2N words by a divisor of
    one), far above its own: the extra steps' digits are 0 and the result the same."""
    rng = random.Random(5)
    for bits in sorted(DIV_LANES_FDIV_RADIX):
        r = DIV_LANES_FDIV_RADIX[bits]
        d = rng.getrandbits(bits) | (1 << (bits - 1))
        x = rng.getrandbits(bits + 40)
        assert div_lanes_fdiv(x, d, bits, warp_top=-(-2 * bits // r) - 1) == divmod(x, d)


def test_model_catches_a_wrong_offset():
    """The limbs read without the last estimate's exponent fields are off by one KOFF each: the model's remainder check
    catches it, so the pattern bookkeeping is one the tests above check."""
    with pytest.raises(AssertionError, match="not the remainder"):
        div_lanes_fdiv((1 << 8191) + 12345, (1 << 4095) + 7, 4096, last_koff=0)


def test_template_keeps_the_models_offsets():
    """The template's slots carry the exponent fields the model does: s KOFF (KOFF the split's two fields) from the
    start, the top three slots' at the estimates, and one KOFF more after the last estimate."""
    src = (ROOT / "templates" / "kernel_div_lanes_fdiv.j2").read_text()
    for form in ('{% set KOFF = "(" ~ fc.lo_pat() ~ " + " ~ fc.hi_pat(R) ~ ")" -%}',
                 "S[i] = (u64)s * DLF_KOFF - dlf_limb_",
                 "const u64 f_top = (u64){{ L * P - 1 }}u * DLF_KOFF, f_top1 = (u64){{ L * P - 2 }}u * DLF_KOFF;",
                 "const u64 f_top2 = (u64){{ L * P - 3 }}u * DLF_KOFF;",
                 "V[i] = (long long)((u64)(lane * {{ P }}u + i + 1u) * DLF_KOFF - S[i]);",
                 '"-2.0"', '"-0.0009765625"'):
        assert form in src, form


def test_model_catches_a_wrong_bias():
    """Without the bias an estimate passes the true digit: the model's bounds catch it, so the tests above can fail."""
    rng = random.Random(7)
    d = (1 << 4096) - 1
    with pytest.raises(AssertionError, match="above the true digit"):
        for _ in range(20):
            div_lanes_fdiv(rng.getrandbits(8192), d, 4096, bias=0.0)


@pytest.mark.parametrize("bits", sorted(DIV_LANES_FDIV_RADIX))
def test_staged_limbs_read_below_what_is_written(bits):
    """The template builds the dividend's limbs over its staged words, L at a time from the top, limb k over words 2 k
    and 2 k + 1: every limb below a group reads (three words from its bit r k - sh) only words below the group's."""
    lanes, f = context(bits)
    r = f["radix"]
    for sh in (0, 1, 31, 32, bits - 1):
        for k0 in range(lanes, lanes * f["digit_slots"], lanes):
            assert max(((r * k - sh) >> 5) + 2 for k in range(k0)) < 2 * k0


def test_bounds_refuse_a_radix_whose_top_limb_is_short(monkeypatch):
    """At 8192 bits 49-bit limbs leave D's top one 9 bits, below the 2^20 the estimate needs: the size takes 48."""
    import generator.space as space
    assert space.div_fdiv_bounds_hold(8192)
    monkeypatch.setitem(space.DIV_LANES_FDIV_RADIX, 8192, 49)
    assert not space.div_fdiv_bounds_hold(8192)
