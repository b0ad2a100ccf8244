"""Division and modular arithmetic from Python (ctx.divrem, mod, mulmod, powm, gcd, modinv) against Python's own
integers (divmod, pow, math.gcd, pow(a, -1, m)): edge values of every operand, width scalars derived and given (the
dividend's abits, the exponent's ebits), ints and NumPy arrays and DeviceArrays, in place, and the errors (a zero
divisor or even modulus named by instance, bad widths and flags), nothing written where a call is refused. Small on
purpose: sizes up to 1024 bits and few instances (powm at 1024 bits costs ~10-50 ms an instance on PoCL)."""

import math
import random
import sys
from pathlib import Path

import pytest

from conftest import ROOT, largest_bits, read_variants
from python_support import ctx, midint, np, sizes_for  # noqa: F401  (ctx: fixture)

sys.path.insert(0, str(ROOT))
from generator.space import MOD_SHARED_F52_BITS  # noqa: E402

CANARY = 0xDEADBEEF


def sizes(ctx, op, limit=1024):
    got = [s for s in sizes_for(ctx.backend, op) if s <= limit]
    if not got:
        pytest.skip(f"no {op} variant up to {limit} bits generated for {ctx.backend}")
    return got


def moduli(bits, rng, odd=False):
    """Divisors / moduli at their edges: 1, 3, 2^k - 1, 2^k, 2^k + 1, the largest value, random ones of every
    length; made odd (bit 0 set) where the operation wants it."""
    top = (1 << bits) - 1
    ms = [1, 3, 2, top, top - 1, 1 << (bits - 1), (1 << (bits - 1)) + 1, rng.getrandbits(bits) | 1 << (bits - 1),
          rng.getrandbits(bits // 2) | 1]
    for k in sorted({32, bits // 2, bits - 32}):
        ms += [(1 << k) - 1, 1 << k, (1 << k) + 1]
    ms = [m | 1 if odd else m for m in ms]
    return list(dict.fromkeys(m for m in ms if 0 < m <= top))


def limbs(values, bits):
    return midint.ints_to_limbs(values, bits).copy()


# ---- divrem and mod ----

def dividends(d, abits, rng):
    """Dividends of abits bits around divisor d: 0, d - 1, d, d + 1, d q + d - 1, d q, all-ones, random."""
    top = (1 << abits) - 1
    q = rng.getrandbits(max(1, abits - d.bit_length()))
    xs = [0, d - 1, d, d + 1, d * q + d - 1, d * q, top, rng.getrandbits(abits), rng.getrandbits(abits // 2)]
    return [x for x in xs if 0 <= x <= top]


def divrem_batch(bits, abits, rng):
    a, d = [], []
    for m in moduli(bits, rng):
        xs = dividends(m, abits, rng)
        a += xs
        d += [m] * len(xs)
    return a, d


def test_divrem_and_mod_ints(ctx):
    rng = random.Random("divrem")
    for bits in sizes(ctx, "divrem"):
        a, d = divrem_batch(bits, 2 * bits, rng)
        want = [divmod(x, y) for x, y in zip(a, d)]
        q, r = ctx.divrem(a, d, bits=bits)   # abits derived: 2 bits (some dividend is wider than bits)
        assert [(x, y) for x, y in zip(q, r)] == want, bits
        assert ctx.mod(a, d, bits=bits) == [w[1] for w in want]
        small = [x % (1 << bits) for x in a]   # every dividend within bits: abits = bits
        assert ctx.divrem(small, d, bits=bits) == tuple(map(list, zip(*[divmod(x, y) for x, y in zip(small, d)])))
        assert ctx.mod(small, d, bits, 2 * bits) == [x % y for x, y in zip(small, d)]   # abits given (positionally)


def test_divrem_arrays_and_widths(ctx):
    """abits from the dividend array's width: 2 bits, bits, bits + 32 and a width below bits; q is abits wide."""
    rng = random.Random("divrem-arrays")
    bits = sizes(ctx, "divrem")[-1]
    for abits in (2 * bits, bits, bits + 32, 64):
        a, d = divrem_batch(bits, abits, rng)
        na, nd = limbs(a, abits), limbs(d, bits)
        q, r = ctx.divrem(na, nd)
        assert q.shape == (len(a), abits // 32) and r.shape == (len(a), bits // 32)
        assert midint.limbs_to_ints(q) == [x // y for x, y in zip(a, d)], abits
        assert midint.limbs_to_ints(r) == [x % y for x, y in zip(a, d)], abits
        assert midint.limbs_to_ints(ctx.mod(na, nd, abits=abits)) == [x % y for x, y in zip(a, d)]
        dq, dr = ctx.divrem(ctx.to_device(na), ctx.to_device(nd))   # device calls
        assert dq.shape == q.shape and (dq.get() == q).all() and (dr.get() == r).all()
        assert ctx.divrem(a, d, bits=bits, abits=abits)[0] == midint.limbs_to_ints(q)


def test_divrem_in_place(ctx):
    """q over a and rem over d at once (out= a tuple), and mod's r over d."""
    rng = random.Random("divrem-in-place")
    bits = sizes(ctx, "divrem")[0]
    a, d = divrem_batch(bits, 2 * bits, rng)
    na, nd = limbs(a, 2 * bits), limbs(d, bits)
    q, r = ctx.divrem(na, nd, out=(na, nd))
    assert q is na and r is nd
    assert midint.limbs_to_ints(na) == [x // y for x, y in zip(a, d)]
    assert midint.limbs_to_ints(nd) == [x % y for x, y in zip(a, d)]
    nd = limbs(d, bits)
    assert ctx.mod(limbs(a, 2 * bits), nd, out=nd) is nd
    assert midint.limbs_to_ints(nd) == [x % y for x, y in zip(a, d)]
    dd = ctx.to_device(d, bits)
    q, r = ctx.divrem(ctx.to_device(a, 2 * bits), dd, out=(None, dd))
    assert r is dd and dd.to_ints() == [x % y for x, y in zip(a, d)] and q.to_ints() == [x // y for x, y in zip(a, d)]


def test_divrem_error_from_the_call_thread(ctx, monkeypatch):
    """A call on lists whose results' ints are made beside it (another thread runs the library call): its error
    is raised here, as without."""
    monkeypatch.setattr(midint.context, "_RESERVE_WORDS", 1)
    bits = sizes(ctx, "divrem")[0]
    with pytest.raises(ValueError, match=r"d\[3\] is zero; every d must be nonzero"):
        ctx.divrem([5, 6, 7, 8, 9], [1, 2, 3, 0, 0], bits=bits)
    assert ctx.divrem([5, 6], [2, 7], bits=bits) == ([2, 0], [1, 6])


def test_divrem_errors(ctx):
    bits = sizes(ctx, "divrem")[0]
    w = bits // 32
    a, d = [5, 6, 7, 8, 9], [1, 2, 3, 0, 0]
    na, nd = limbs(a, 2 * bits), limbs(d, bits)
    q, r = np.full((5, 2 * w), CANARY, np.uint32), np.full((5, w), CANARY, np.uint32)
    for args in ((a, d), (na, nd)):
        with pytest.raises(ValueError) as e:
            ctx.divrem(*args, bits=bits, out=(q, r) if args[0] is na else None)
        assert isinstance(e.value, midint.MidintValueError) and e.value.status == "MIDINT_ERR_INVALID_ARGUMENT"
        assert "d[3] is zero; every d must be nonzero" in str(e.value)
    assert (q == CANARY).all() and (r == CANARY).all()
    dr = ctx.to_device(r)
    with pytest.raises(ValueError, match=r"d\[3\] is zero"):   # the library reads the device's divisors back
        ctx.mod(ctx.to_device(na), ctx.to_device(nd), out=dr)
    assert (dr.get() == CANARY).all()
    with pytest.raises(ValueError, match=r"mod: d\[0\] is zero"):
        ctx.mod([1], [0], bits=bits)
    # widths: above 2 bits, not a multiple of 32, zero; a dividend wider than its width
    for abits in (2 * bits + 32, bits + 1, 0):
        with pytest.raises(ValueError, match=f"abits is {abits}"):
            ctx.divrem([1], [1], bits=bits, abits=abits)
    with pytest.raises(ValueError, match=r"a\[1\] has .* bits, more than abits="):
        ctx.divrem([1, 1 << bits], [1, 1], bits=bits, abits=bits)
    with pytest.raises(ValueError, match=r"a\[0\] has .* bits; a holds at most"):
        ctx.mod([1 << (2 * bits), 1], [1, 1], bits=bits)
    with pytest.raises(ValueError, match=f"abits is {2 * bits + 32}"):   # an array wider than 2 bits
        ctx.divrem(np.ones((2, 2 * w + 1), np.uint32), np.ones((2, w), np.uint32))
    with pytest.raises(ValueError, match="abits=64 but a holds"):
        ctx.divrem(na, nd, abits=64)
    with pytest.raises(ValueError, match=r"q \(0, 0\)|shape"):   # out= of a's width, not bits'
        ctx.divrem(na, limbs([1] * 5, bits), out=np.zeros((5, w), np.uint32))


# ---- mulmod ----

def test_mulmod(ctx):
    rng = random.Random("mulmod")
    for bits in sizes(ctx, "mulmod"):
        top = (1 << bits) - 1
        a, b, m = [], [], []
        for mod in moduli(bits, rng):
            for x, y in ((0, top), (top, top), (mod - 1, mod - 1), (mod, 5), (mod + 1 & top, mod + 1 & top),
                         (rng.getrandbits(bits), rng.getrandbits(bits))):
                a.append(x), b.append(y), m.append(mod)
        want = [x * y % z for x, y, z in zip(a, b, m)]
        assert ctx.mulmod(a, b, m, bits=bits) == want, bits
        nm = limbs(m, bits)
        assert ctx.mulmod(limbs(a, bits), limbs(b, bits), nm, out=nm) is nm   # in place over the modulus
        assert midint.limbs_to_ints(nm) == want
    with pytest.raises(ValueError, match=r"m\[1\] is zero; every m must be nonzero"):
        ctx.mulmod([1, 2], [3, 4], [5, 0], bits=bits)


# ---- powm ----

def test_powm(ctx):
    """Odd moduli at their edges, exponents 0, 1, 2, all-ones, random, and wider than the modulus; secret=0 and 1."""
    rng = random.Random("powm")
    for bits in sizes(ctx, "powm"):
        few = bits >= 1024   # ~10-50 ms an instance on PoCL at 1024 bits with a 1024-bit exponent
        base, exp, m = [], [], []
        ms = moduli(bits, rng, odd=True)
        for k, mod in enumerate(ms[:4] if few else ms):
            es = [0, 1, 2, (1 << bits) - 1, rng.getrandbits(bits)] if not few else [0, 1, 2, rng.getrandbits(bits)]
            for j, e in enumerate(es):
                base.append([0, 1, 2, mod - 1, mod, rng.getrandbits(bits)][(k + j) % 6])
                exp.append(e)
                m.append(mod)
        want = [pow(x, e, z) for x, e, z in zip(base, exp, m)]
        got = ctx.powm(base, exp, m, bits=bits)   # ebits: the smallest multiple of 32 holding every exponent
        assert got == want, bits
        assert ctx.powm(base, exp, m, bits=bits, secret=1) == want, bits
        nb, nm = limbs(base, bits), limbs(m, bits)
        ne = limbs(exp, bits)
        assert ctx.powm(nb, ne, nm, out=nb) is nb and midint.limbs_to_ints(nb) == want   # in place over base
        if not few:   # exponents wider than the modulus (ebits = 2 bits) and narrower (ebits = 32)
            wide = [rng.getrandbits(2 * bits) for _ in m]
            assert ctx.powm(base, wide, m, bits=bits) == [pow(x, e, z) for x, e, z in zip(base, wide, m)]
            ne = limbs([e & 0xFFFFFFFF for e in wide], 32)
            got = ctx.powm(limbs(base, bits), ne, limbs(m, bits), secret=1)
            assert midint.limbs_to_ints(got) == [pow(x, e & 0xFFFFFFFF, z) for x, e, z in zip(base, wide, m)]


def test_powm_errors(ctx):
    bits = sizes(ctx, "powm")[0]
    out = np.full((3, bits // 32), CANARY, np.uint32)
    for m, what in (([5, 7, 4], r"m\[2\] is even; every m must be odd"), ([0, 7, 5], r"m\[0\] is zero")):
        with pytest.raises(ValueError, match=what) as e:
            ctx.powm(limbs([2, 3, 4], bits), limbs([5, 6, 7], 32), limbs(m, bits), out=out)
        assert e.value.status == "MIDINT_ERR_INVALID_ARGUMENT"
        assert (out == CANARY).all()
    with pytest.raises(ValueError, match="secret is 2; it must be 0 or 1"):
        ctx.powm([2], [3], [5], bits=bits, secret=2)
    for ebits in (0, 33, (1 << 26) + 32):
        with pytest.raises(ValueError, match=f"ebits is {ebits}"):
            ctx.powm([2], [3], [5], bits=bits, ebits=ebits)
    with pytest.raises(ValueError, match=r"exp\[1\] has 33 bits, more than ebits=32"):
        ctx.powm([2, 2], [3, 1 << 32], [5, 5], bits=bits, ebits=32)
    with pytest.raises(ValueError, match="ebits=64 but exp holds"):
        ctx.powm(limbs([2], bits), limbs([3], 32), limbs([5], bits), ebits=64)


# ---- gcd ----

def test_gcd(ctx):
    rng = random.Random("gcd")
    for bits in sizes(ctx, "gcd"):
        top = (1 << bits) - 1
        g = rng.getrandbits(bits // 2) | 1
        pairs = [(0, 0), (0, 5), (7, 0), (top, top), (top, 0), (1, top), (12, 18), (1 << (bits - 1), 1 << 40),
                 (g * rng.getrandbits(bits // 2 - 1), g * rng.getrandbits(bits // 2 - 1)), (g << 7, g << 3),
                 (top, (1 << (bits // 2)) - 1), (rng.getrandbits(bits), rng.getrandbits(bits))]
        a, b = [p[0] for p in pairs], [p[1] for p in pairs]
        want = [math.gcd(x, y) for x, y in pairs]
        assert ctx.gcd(a, b, bits=bits) == want, bits
        nb = limbs(b, bits)
        assert ctx.gcd(limbs(a, bits), nb, out=nb) is nb and midint.limbs_to_ints(nb) == want


# ---- modinv ----

def inverse(a, m):
    if m == 1:
        return 0, 1
    try:
        return pow(a, -1, m), 1
    except ValueError:
        return 0, 0


def test_modinv(ctx):
    rng = random.Random("modinv")
    for bits in sizes(ctx, "modinv"):
        a, m = [], []
        for mod in moduli(bits, rng):
            for x in (0, 1, 2, 3, mod - 1, mod, rng.getrandbits(bits), (mod * 3) & ((1 << bits) - 1)):
                a.append(x), m.append(mod)
        want = [inverse(x, y) for x, y in zip(a, m)]
        assert any(ok for _, ok in want) and not all(ok for _, ok in want)
        r, ok = ctx.modinv(a, m, bits=bits, return_ok=True)
        assert list(zip(r, ok)) == want, bits
        assert ctx.modinv(a, m, bits=bits) == [w[0] for w in want]
        na = limbs(a, bits)
        got, nok = ctx.modinv(na, limbs(m, bits), out=na, return_ok=True)
        assert got is na and midint.limbs_to_ints(na) == [w[0] for w in want]
        assert nok.dtype == np.uint32 and nok.tolist() == [w[1] for w in want]
        okbuf = np.full(len(a), CANARY, np.uint32)
        assert ctx.modinv(limbs(a, bits), limbs(m, bits), out=(None, okbuf), return_ok=True)[1] is okbuf
        assert okbuf.tolist() == [w[1] for w in want]
    with pytest.raises(ValueError, match=r"m\[1\] is zero; every m must be nonzero"):
        ctx.modinv([1, 2], [3, 0], bits=bits)


def test_modinv_and_gcd_on_lanes(ctx):
    """The lanes kernels (modlg, CUDA, from 1536 bits for modinv and 3072 for gcd) at their edges, each variant forced:
    moduli that fit 30 bits (the cofactors start at 2^30 mod P), 2^30 +- 1, 2^32 +- 1, the largest value; even moduli
    with odd a small and large (P = a in the even path); full-width random operands (the most blocks, so the unreduced
    cofactors reach their largest bound). Skips where no lanes variant of either is generated (OpenCL: the thread per
    instance, which test_variants.py covers at these sizes)."""
    lanes = [v for v in read_variants() if v["backend"] == ctx.backend and v["op"] in ("modinv", "gcd")
             and v["lanes"] not in ("-", "1")]
    if not lanes:
        pytest.skip(f"no modinv or gcd variant on lanes for {ctx.backend}")
    rng = random.Random("modinv_lanes")
    for v in lanes:
        bits, top = v["bits"], (1 << v["bits"]) - 1
        small = [3, 5, 7, (1 << 29) + 1, (1 << 30) - 1, (1 << 30) + 1, (1 << 31) - 1, (1 << 32) - 1, (1 << 32) + 1]
        big = [top, top - 2, (1 << (bits - 1)) + 1, rng.getrandbits(bits) | 1, rng.getrandbits(bits // 2) | 1]
        a, m = [], []
        for mod in small + big:
            for x in (1, 2, mod - 1, rng.getrandbits(bits) % mod, rng.getrandbits(bits)):
                a.append(x), m.append(mod)
        for mod in (1 << (bits - 1), top - 1, 6, 1 << 31, rng.getrandbits(bits) & ~1 | 2):
            for x in (1, 3, (1 << 30) - 1, (1 << 30) + 1, rng.getrandbits(bits) | 1, top):
                a.append(x), m.append(mod)
        try:
            ctx.force_variant(v["name"])
            if v["op"] == "modinv":
                want = [inverse(x, y) for x, y in zip(a, m)]
                r, ok = ctx.modinv(a, m, bits=bits, return_ok=True)
                assert list(zip(r, ok)) == want, v["name"]
            else:
                assert ctx.gcd(a, m, bits=bits) == [math.gcd(x, y) for x, y in zip(a, m)], v["name"]
        finally:
            ctx.force_variant(None)


def test_out_tuple_errors(ctx):
    bits = sizes(ctx, "divrem")[0]
    with pytest.raises(ValueError, match="out= holds 1 entries; the call returns 2 outputs"):
        ctx.divrem(limbs([1], 2 * bits), limbs([1], bits), out=(np.zeros((1, bits // 16), np.uint32),))


# ---- a modulus shared by the batch (ctx.modulus: midint.Modulus; mulmod_shared, powm_shared) ----

def shared_operands(m, bits, rng, count):
    """Operands against one modulus: 0, 1, m - 1, m, m + 1, all-ones, multiples of m, random of every length; a
    count that fills no block of threads."""
    top = (1 << bits) - 1
    xs = [0, 1, m - 1, m, m + 1, top, top - 1, m * rng.getrandbits(max(1, bits - m.bit_length())),
          rng.getrandbits(bits), rng.getrandbits(bits // 2)]
    xs = [x for x in xs if 0 <= x <= top]
    return (xs + [rng.getrandbits(rng.randint(1, bits)) for _ in range(count)])[:count]


def test_mulmod_shared_ints(ctx):
    """a b mod m with one modulus for the batch, odd and even, at its edges (1, 3, 2^k - 1, 2^k, 2^k + 1, the
    largest, around 2^(bits - 32)), inputs at and above m; through ctx.mulmod_shared and ctx.mulmod given the Modulus
    (every kernel path: Barrett, Montgomery, the division, and at 96 and 224 bits the padded kernel's division; on
    CUDA at MOD_SHARED_F52_BITS Barrett in radix 2^52, from 2^(52 (K - 1)) where it starts to apply)."""
    rng = random.Random("mulmod_shared")
    for bits in sizes(ctx, "mulmod_shared") + [224]:
        w = 1 << (bits - 32)   # around 2^(bits - 32): where Barrett's reduction starts to apply (top word nonzero)
        f = 1 << 52 * ((bits + 51) // 52 - 1)   # and where radix 2^52's does (m above 2^(52 (K - 1)))
        edges = [w - 1, w, w + 1, w * 0xFFFFFFFF] + [f - 1, f, f + 1, 2 * f - 1] * (f > 1)
        for m in dict.fromkeys(moduli(bits, rng) + [e for e in edges if 0 < e < 1 << bits]):
            mod = ctx.modulus(m, bits)
            assert (mod.bits, mod.odd) == (bits, bool(m & 1))
            a, b = shared_operands(m, bits, rng, 13), shared_operands(m, bits, rng, 13)[::-1]
            want = [x * y % m for x, y in zip(a, b)]
            assert ctx.mulmod_shared(a, b, mod) == want, (bits, m)
            assert ctx.mulmod(a, b, mod, bits=bits) == want, (bits, m)
            mod.free()


def test_powm_shared_ints(ctx):
    """base^exp mod m for one odd modulus, both schedules (secret 0 and 1), exponents 0, 1, 2, all-ones, random."""
    rng = random.Random("powm_shared")
    for bits in sizes(ctx, "powm_shared", 512):
        for m in moduli(bits, rng, odd=True)[:8]:
            mod = ctx.modulus(m, bits)
            base = shared_operands(m, bits, rng, 7)
            exp = [0, 1, 2, (1 << 64) - 1] + [rng.getrandbits(64) for _ in range(3)]
            for secret in (0, 1):
                want = [pow(x, e, m) for x, e in zip(base, exp)]
                assert ctx.powm_shared(base, exp, mod, ebits=64, secret=secret) == want, (bits, m, secret)
                assert ctx.powm(base, exp, mod, ebits=64, secret=secret) == want, (bits, m, secret)


def test_shared_arrays_in_place(ctx):
    """NumPy arrays and DeviceArrays, the result in place of a; the modulus's bits taken from the arrays."""
    rng = random.Random("shared arrays")
    bits = sizes(ctx, "mulmod_shared")[0]
    m = rng.getrandbits(bits) | 1 << (bits - 1) | 1
    mod = ctx.modulus(m, bits)
    a, b = shared_operands(m, bits, rng, 9), shared_operands(m, bits, rng, 9)
    want = [x * y % m for x, y in zip(a, b)]
    got = ctx.mulmod(limbs(a, bits), limbs(b, bits), mod)
    assert midint.limbs_to_ints(got) == want
    x = limbs(a, bits)
    ctx.mulmod_shared(x, limbs(b, bits), mod, out=x)
    assert midint.limbs_to_ints(x) == want
    da, db = ctx.to_device(limbs(a, bits)), ctx.to_device(limbs(b, bits))
    ctx.mulmod_shared(da, db, mod, out=da)
    assert da.to_ints() == want


def f52_bits(ctx):
    """The sizes where mulmod_shared's thread per instance takes Barrett in radix 2^52 (CUDA: space.MOD_SHARED_F52_BITS)
    for the moduli that fill the object's top limb, which the lanes' Montgomery products then cede to it."""
    return MOD_SHARED_F52_BITS if ctx.backend == "cuda" else ()


def test_selected_variant_for_a_modulus(ctx):
    """ctx.selected_variant(op, bits, count, modulus=): none and an odd Modulus answer the plain choice (at the radix
    2^52 sizes, a short odd one: a full-width one goes to the thread per instance); an even one names a variant that
    takes even moduli: forced, the call with it runs and is right (a variant for odd moduli only refuses it). Where the
    plain choice is on lanes (`_wL`, L > 1: mulmod_shared's odd-only lanes), the even choice differs. A Modulus of
    another context or a freed one is refused."""
    rng = random.Random("selected_modulus")
    for bits in [b for b in sizes(ctx, "mulmod_shared") if b <= 4096]:
        top = 1 << (bits - 1)
        odd, even = ctx.modulus(top | rng.getrandbits(bits - 1) | 1, bits), ctx.modulus(top | 6, bits)
        plain = ctx.selected_variant("mulmod_shared", bits, 64)
        short = ctx.modulus(rng.getrandbits(bits // 2) | 1, bits)
        assert ctx.selected_variant("mulmod_shared", bits, 64, modulus=short) == plain
        short.free()
        wide = ctx.selected_variant("mulmod_shared", bits, 64, modulus=odd)
        assert wide == plain if bits not in f52_bits(ctx) else wide.split("_")[-2] == "w1", (bits, wide, plain)
        if bits in f52_bits(ctx):   # a call of fewer words keeps the lanes: the thread's radix 2^52 is at its own size
            fewer = ctx.modulus((top >> 32) | rng.getrandbits(bits - 33) | 1, bits - 32)
            assert (ctx.selected_variant("mulmod_shared", bits - 32, 64, modulus=fewer)
                    == ctx.selected_variant("mulmod_shared", bits - 32, 64)), bits
            a = shared_operands(fewer.value, bits - 32, rng, 9)
            assert ctx.mulmod_shared(a, a[::-1], fewer) == [x * y % fewer.value for x, y in zip(a, a[::-1])]
            fewer.free()
        chosen = ctx.selected_variant("mulmod_shared", bits, 64, modulus=even)
        if plain.split("_")[-2] != "w1":
            assert chosen != plain, (bits, plain)
        a, b = shared_operands(even.value, bits, rng, 9), shared_operands(even.value, bits, rng, 9)[::-1]
        try:
            ctx.force_variant(chosen)
            assert ctx.mulmod_shared(a, b, even) == [x * y % even.value for x, y in zip(a, b)], (bits, chosen)
        finally:
            ctx.force_variant(None)
        odd.free()
        with pytest.raises(ValueError, match="not a live Modulus of this context"):
            ctx.selected_variant("mulmod_shared", bits, 64, modulus=odd)
        with pytest.raises(ValueError, match="not a live Modulus of this context"):
            ctx.selected_variant("mulmod_shared", bits, 64, modulus=7)
        other = midint.Context(ctx.backend)
        try:   # the C function itself refuses another context's object, as the calls do
            theirs = other.modulus(7, bits)
            op = midint.OPS["mulmod_shared"].code
            assert ctx._lib.midint_selected_variant_modulus(ctx._h, op, bits, 64, theirs.handle) is None
            assert "another context" in ctx._lib.midint_last_error(ctx._h).decode()
        finally:
            other.close()
        even.free()


def test_shared_modulus_errors(ctx):
    """Refused: m < 1, m too wide for bits, bits not a multiple of 32, a call at other bits than the modulus's, an
    even modulus for powm, a freed one, another context's, an array where a Modulus is wanted; nothing written."""
    bits = sizes(ctx, "mulmod_shared")[0]
    for m, why in ((0, "at least 1"), (-5, "at least 1"), (1.5, "not an int")):
        with pytest.raises(ValueError, match=why):
            ctx.modulus(m, bits)
    with pytest.raises(ValueError):
        ctx.modulus(1 << bits, bits)
    with pytest.raises(ValueError, match="MIDINT_ERR_INVALID_BITS"):
        ctx.modulus(7, 33)
    even = ctx.modulus(6, bits)
    a = limbs([5, 7, 9], bits)
    r = np.full_like(a, CANARY)
    with pytest.raises(ValueError, match="m is even; powm_shared needs an odd modulus"):
        ctx.powm_shared(a, a[:, :1].copy(), even, ebits=32, out=r)
    assert (r == CANARY).all()
    if bits * 2 <= ctx.max_bits("mulmod_shared"):
        wide = limbs([5, 7, 9], bits * 2)
        with pytest.raises(ValueError, match=f"m was made for {bits} bits; this call has bits {bits * 2}"):
            ctx.mulmod_shared(wide, wide, even)
    with pytest.raises(TypeError, match="must be a midint.Modulus"):
        ctx.mulmod_shared(a, a, a)
    other = midint.Context(ctx.backend)
    try:
        theirs = other.modulus(7, bits)
        with pytest.raises(ValueError, match="another context"):
            ctx.mulmod_shared(a, a, theirs)
    finally:
        other.close()
    assert theirs.handle is None   # freed with its context
    even.free()
    with pytest.raises(ValueError, match="freed"):
        ctx.mulmod_shared(a, a, even)


# ---- above 8192 bits: the arrays in the workspace ----

def test_sizes_beyond_private_memory(ctx):
    """Where the build generates the modular operations above space.MOD_PRIVATE_MAX_BITS (the default sizes: 16384 and
    32768), max_bits says the largest generated size (divrem and mod: more), a device call of it reports its workspace (kernel_mod_thread.j2's
    scratch mode: generator/mod_scratch.py's words per instance, for as many instances as the cap holds) where smaller
    sizes report none, and a modulus object is made at that size and refused above it. Where the size's call goes
    elsewhere (CUDA: divrem and mod to a lanes kernel, no workspace; mulmod to mul then mod, the product's 2 n words
    an instance; mulmod_shared the same and the modulus's copies, 3 n), it reports that."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from generator import mod_scratch, space
    from generator.ops import OPERATIONS
    ops = [op.name for op in OPERATIONS if {"modt", "mods"} & set(op.families)]
    big = {op: largest_bits(ctx.backend, op) for op in ops}
    big = {op: b for op, b in big.items() if b > space.MOD_PRIVATE_MAX_BITS}
    if not big:
        pytest.skip(f"no modular operation generated above {space.MOD_PRIVATE_MAX_BITS} bits on {ctx.backend}")
    lanes = {v["name"]: v["lanes"] for v in read_variants()}
    for op, top in big.items():
        # divrem and mod go on past their kernels as the division of large numbers (tests/test_bigdiv.py)
        assert ctx.max_bits(op) == top <= space.MOD_MAX_BITS or op in ("divrem", "mod") and ctx.max_bits(op) > top
        chosen = lanes.get(ctx.selected_variant(op, top, 3))
        if chosen not in ("-", "1"):
            # another path serves the size here: a register-resident lanes kernel (CUDA's divrem and mod at 32768
            # bits: no workspace), or mul then mod (CUDA's mulmod and mulmod_shared, whose mod is such a kernel: the
            # product's words, and mulmod_shared's copies of its modulus, one an instance: runtime/dispatch.c)
            composed = 3 if op == "mulmod_shared" else 2
            assert ctx.workspace_size(op, top, 3) == (0 if chosen else 3 * 4 * composed * (top // 32)), (op, chosen)
            continue
        words = mod_scratch.kernel_words(op, top // 32)
        assert ctx.workspace_size(op, top, 3) == 3 * 4 * words, op
        assert ctx.workspace_size(op, top - 32, 1) == 4 * words, op   # padded: the same kernel
        assert ctx.workspace_size(op, space.MOD_PRIVATE_MAX_BITS, 3) == 0, op
        ctx.set_workspace_bytes(4 * words)
        try:
            assert ctx.workspace_size(op, top, 5) == 4 * words, op   # one instance per pass
        finally:
            ctx.set_workspace_bytes(1 << 30)
    if "mulmod_shared" in big:
        top = big["mulmod_shared"]
        m = ctx.modulus((1 << top) - 1, bits=top)
        assert m.bits == top
        with pytest.raises(midint.MidintError):
            ctx.modulus(3, bits=top + 32)
