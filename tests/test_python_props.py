"""Property-based tests (hypothesis) of the Python package: the laws add, sub, mul and mullo obey (and divrem,
mod, gcd, modinv, mulmod), checked on small
batches of generated values at the sizes this build serves (few examples: each runs a kernel on PoCL)."""

import math

import pytest

from python_support import ctx, midint, sizes_for  # noqa: F401  (ctx: fixture)

hypothesis = pytest.importorskip("hypothesis", reason="hypothesis is not installed (pip install hypothesis)")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def batches(ctx, op, operands=2):
    """A strategy of (bits, [list of ints] * operands): a served size, 1 to 5 instances, values anywhere in
    [0, 2^bits) with the extremes and all-ones runs (carries through many words) favoured."""
    sizes = sizes_for(ctx.backend, op)

    def values(bits):
        top = (1 << bits) - 1
        edge = st.sampled_from([0, 1, top, top - 1, 1 << (bits - 1)])
        runs = st.integers(1, bits).map(lambda k: (1 << k) - 1)   # all-ones below bit k
        return st.one_of(edge, runs, st.integers(0, top))

    return st.sampled_from(sizes).flatmap(
        lambda bits: st.integers(1, 5).flatmap(
            lambda n: st.tuples(st.just(bits), *[st.lists(values(bits), min_size=n, max_size=n)
                                                 for _ in range(operands)])))


def test_add_commutes_and_carries(ctx):
    @SETTINGS
    @given(batches(ctx, "add"))
    def prop(case):
        bits, a, b = case
        r1, c1 = ctx.add(a, b, bits, return_carry=True)
        r2, c2 = ctx.add(b, a, bits, return_carry=True)
        assert r1 == r2 and c1 == c2
        assert [r + (c << bits) for r, c in zip(r1, c1)] == [x + y for x, y in zip(a, b)]
    prop()


def test_sub_then_add_is_identity(ctx):
    """a - b + b = a mod 2^bits, and the borrow of a - b equals the carry of (a - b) + b."""
    @SETTINGS
    @given(batches(ctx, "sub"))
    def prop(case):
        bits, a, b = case
        d, borrow = ctx.sub(a, b, bits, return_borrow=True)
        s, carry = ctx.add(d, b, bits, return_carry=True)
        assert s == a
        assert borrow == carry == [int(x < y) for x, y in zip(a, b)]
    prop()


def test_mul_commutes_and_is_exact(ctx):
    @SETTINGS
    @given(batches(ctx, "mul"))
    def prop(case):
        bits, a, b = case
        r = ctx.mul(a, b, bits)
        assert r == ctx.mul(b, a, bits) == [x * y for x, y in zip(a, b)]
    prop()


def test_mullo_is_the_low_half_of_mul(ctx):
    """mullo = mul's low half, on NumPy arrays (the low bits/32 words of each full product)."""
    @SETTINGS
    @given(batches(ctx, "mullo"))
    def prop(case):
        bits, a, b = case
        if bits > ctx.max_bits("mul"):
            return
        na, nb = midint.ints_to_limbs(a, bits), midint.ints_to_limbs(b, bits)
        full, low = ctx.mul(na, nb), ctx.mullo(na, nb)
        assert (full[:, :bits // 32] == low).all()
        assert midint.limbs_to_ints(low) == [x * y % (1 << bits) for x, y in zip(a, b)]
    prop()


def test_mul_distributes_over_add(ctx):
    """a*(b+c) = a*b + a*c mod 2^bits through the library alone (mullo and add)."""
    @SETTINGS
    @given(batches(ctx, "mullo", operands=3))
    def prop(case):
        bits, a, b, c = case
        if bits > ctx.max_bits("add"):
            return
        left = ctx.mullo(a, ctx.add(b, c, bits), bits)
        right = ctx.add(ctx.mullo(a, b, bits), ctx.mullo(a, c, bits), bits)
        assert left == right
    prop()


def test_divrem_recombines(ctx):
    """q d + rem = a and rem < d for dividends of up to 2 bits bits (abits derived), and mod is divrem's rem."""
    @SETTINGS
    @given(batches(ctx, "divrem", operands=3))
    def prop(case):
        bits, hi, lo, d = case
        a = [x << bits | y for x, y in zip(hi, lo)]
        d = [y or 1 for y in d]   # the divisor must be nonzero
        q, r = ctx.divrem(a, d, bits=bits)
        assert all(x * y + z == w and z < y for x, y, z, w in zip(q, d, r, a))
        assert ctx.mod(a, d, bits=bits) == r
    prop()


def test_gcd_divides_and_modinv_inverts(ctx):
    """gcd(a, b) divides both and is gcd(b, a); where it is 1 (b > 1), modinv(a, b) a = 1 mod b (mulmod)."""
    @SETTINGS
    @given(batches(ctx, "gcd"))
    def prop(case):
        bits, a, b = case
        g = ctx.gcd(a, b, bits=bits)
        assert g == ctx.gcd(b, a, bits=bits) == [math.gcd(x, y) for x, y in zip(a, b)]
        m = [y or 1 for y in b]
        inv, ok = ctx.modinv(a, m, bits=bits, return_ok=True)
        assert ok == [int(math.gcd(x, y) == 1) for x, y in zip(a, m)]
        assert ctx.mulmod(inv, a, m, bits=bits) == [int(k and y > 1) for k, y in zip(ok, m)]
    prop()
