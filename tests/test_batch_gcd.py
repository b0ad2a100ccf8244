"""Batch GCD (runtime/batch_gcd.c, midint_batch_gcd; Python's ctx.batch_gcd and midint.batch_gcd; the example
examples/batch_gcd.c) against the definition, gcd(N_i, product of the others), computed with Python's ints: planted
weak keys (pairs sharing a prime, a repeated modulus, a modulus sharing both its primes), random moduli of mixed
widths, N = 1, 2, 3 and counts that are no power of two; a zero modulus and a product too large refused up front."""

import math
import random
import subprocess

import numpy as np
import pytest

from conftest import BACKENDS, ROOT, driver_env, largest_bits, require_backend
from generator.ntt import is_prime   # Miller-Rabin over fixed bases: enough for test primes
from python_support import midint

NEEDS = ("mul", "mullo", "sqr", "add", "shr", "mod", "divrem", "gcd")


def prime(rnd, bits):
    n = rnd.getrandbits(bits) | (1 << (bits - 1)) | 1
    while not is_prime(n):
        n += 2
    return n


def reference(moduli):
    out = []
    for i, m in enumerate(moduli):
        rest = math.prod(moduli[:i] + moduli[i + 1:])
        out.append(math.gcd(m, rest))
    return out


def weak_keys(rnd, count, bits):
    """count RSA-like moduli, products of two bits/2-bit primes, with planted weaknesses where count allows: ms[1]
    shares a prime with ms[0], ms[3] repeats ms[2], and ms[4] shares one prime with ms[5] and the other with ms[6]."""
    fresh = iter([prime(rnd, bits // 2) for _ in range(2 * count + 6)])
    ms = [next(fresh) * next(fresh) for _ in range(count)]
    p0 = next(fresh)
    if count >= 2:
        ms[0], ms[1] = p0 * next(fresh), p0 * next(fresh)
    if count >= 4:
        ms[3] = ms[2]
    if count >= 7:
        a, b = ms[5] // 1, ms[6] // 1
        pa, pb = next(fresh), next(fresh)
        ms[4], ms[5], ms[6] = pa * pb, pa * (a % (1 << (bits // 2)) | 1), pb * (b % (1 << (bits // 2)) | 1)
    return ms


def require_ops(backend):
    require_backend(backend)
    missing = [op for op in NEEDS if not largest_bits(backend, op)]
    if missing:
        pytest.skip(f"this build has no {', '.join(missing)} on {backend} (make gen)")


MAX_PARTS = 16   # runtime/batch_gcd.c


def tree_fits(ctx, levels, bits):
    """Whether a tree of 2^levels moduli is within the build's sizes (midint_batch_gcd's own test): the root's children
    (half the product) divided, the fractions below them (the same width) multiplied and added, their children
    squared, the leaves' fractions (twice the moduli's width) multiplied, the gcds at the moduli's width."""
    top = bits << levels
    big = min(ctx.max_bits(op) for op in ("mul", "mullo", "add", "mod", "divrem"))
    return (top // 2 <= big and top // 4 <= ctx.max_bits("sqr") and (not levels or 2 * bits <= ctx.max_bits("mul"))
            and bits <= min(ctx.max_bits("gcd"), ctx.max_bits("shr")))


def fits(ctx, count, bits, part=None):
    """Whether the batch is answered: in one tree, or split into at most MAX_PARTS parts of a power of two (at least
    4) moduli that fit (`part`: MIDINT_TEST_GCD_PART's)."""
    levels = max(count - 1, 0).bit_length()
    p = levels
    while p > 2 and part and 2 ** p > part:
        p -= 1
    while p > 2 and not tree_fits(ctx, p, bits):
        p -= 1
    return tree_fits(ctx, p, bits) and (p == levels or -(-count // 2 ** p) <= MAX_PARTS)


def check(ctx, moduli, bits=None, as_array=False, part=None):
    """ctx.batch_gcd against the definition where the build's sizes hold the batch, else its refusal."""
    width = bits or max(32, -(-max(m.bit_length() for m in moduli) // 32) * 32)
    arg = midint.ints_to_limbs(moduli, width) if as_array else moduli
    if not fits(ctx, len(moduli), width, part):
        with pytest.raises(midint.MidintError, match="split the batch"):
            ctx.batch_gcd(arg)
        return None
    got = ctx.batch_gcd(arg)
    if as_array:
        assert isinstance(got, np.ndarray)
        got = midint.limbs_to_ints(got)
    assert got == reference(moduli), (len(moduli), width)
    return got


@pytest.mark.parametrize("backend", BACKENDS)
def test_batch_gcd_against_the_definition(backend):
    require_ops(backend)
    rnd = random.Random(25)
    with midint.Context(backend) as ctx:
        # (260 of 256 bits: the root's children are 65536 bits, past the division kernels, so their fractions come from
        # one division of large numbers with a three-block quotient)
        for count, bits in ((1, 128), (2, 128), (3, 192), (7, 256), (12, 512), (20, 256), (260, 256)):
            ms = weak_keys(rnd, count, bits)
            # mixed widths: every third modulus past the planted ones shortened (kept odd and nonzero)
            ms = [m if i < 7 or i % 3 else (m >> rnd.randrange(1, 60)) | 1 for i, m in enumerate(ms)]
            got = check(ctx, ms)
            if got is not None and count >= 6:
                assert sum(g != 1 for g in got) >= 4   # the planted weaknesses show
        # random moduli of any width (some small, some sharing small factors), as a NumPy array
        check(ctx, [rnd.getrandbits(rnd.randrange(1, 300)) | 1 for _ in range(9)], bits=320, as_array=True)
        assert midint.batch_gcd([15, 21, 35, 11], backend=backend) == [15, 21, 35, 1]
        # the scaled remainder tree's rounding at its worst: all-ones moduli (products nearest their words' bound),
        # tiny moduli among them (the leaf's N_i least), 1 and 2, and a count of 2^k + 1 (a root child of one leaf)
        top = (1 << 256) - 1
        check(ctx, [top, top, 3, 1, top >> 1, 2, 5, (1 << 255) + 1, top], bits=256)
        check(ctx, [top, 7, top - 2, 1], bits=256, as_array=True)


@pytest.mark.parametrize("backend", BACKENDS)
def test_batch_gcd_wrapped_levels(backend, monkeypatch):
    """Every level of the remainder tree through wrapped products (runtime/wrap_product.c; by default only from
    parents' fractions of 4096 words): where 6 w passes the transform's 4096 points (270 moduli of 256 bits: the top
    level) the products fold, elsewhere they do not; all-ones moduli, repeated and with small factors of theirs among
    them, for the rounding's worst case."""
    require_ops(backend)
    monkeypatch.setenv("MIDINT_TEST_WRAP_FROM", "1")
    rnd = random.Random(26)
    with midint.Context(backend) as ctx:
        for count, bits in ((3, 192), (20, 256)):
            got = check(ctx, weak_keys(rnd, count, bits))
            assert got is None or sum(g != 1 for g in got) >= 2   # the planted weaknesses show
        top = (1 << 256) - 1
        check(ctx, [top, top, 3, 1, top >> 1, 2, 5, (1 << 255) + 1, top] * 30, bits=256)


@pytest.mark.parametrize("backend", BACKENDS)
def test_batch_gcd_kept_buffers(backend):
    """A context keeps a call's device buffers for the next (within the workspace cap): calls of other sizes after
    it take them, holding an earlier call's words, and give the same answers; with a cap too small to keep any,
    every call allocates and frees its own."""
    require_ops(backend)
    rnd = random.Random(27)
    big, small, tiny = weak_keys(rnd, 40, 256), weak_keys(rnd, 9, 512), weak_keys(rnd, 9, 64)
    with midint.Context(backend) as ctx:
        first = check(ctx, big)
        assert check(ctx, small) is None or check(ctx, big) == first
        # 1 KB: below these trees' buffers (3 KB and more), and no kernel of theirs takes workspace (the root's
        # children of at most 512 bits are within every build's division kernels)
        ctx.set_workspace_bytes(1024)
        check(ctx, tiny)
        check(ctx, tiny[:5])
        check(ctx, tiny)


@pytest.mark.parametrize("backend", BACKENDS)
def test_batch_gcd_split_batches(backend, monkeypatch):
    """A batch past the context's sizes runs in parts of a power of two moduli, each part's tree taking the other
    parts' products in at its root (MIDINT_TEST_GCD_PART makes the parts small): weak keys whose shared primes and
    repeats cross the parts, a last part of one modulus, mixed widths, all-ones moduli; past 16 parts, refused."""
    require_ops(backend)
    rnd = random.Random(28)
    for part in (4, 8):
        monkeypatch.setenv("MIDINT_TEST_GCD_PART", str(part))
        with midint.Context(backend) as ctx:
            for count, bits in ((5, 256), (9, 256), (23, 512), (33, 192)):
                ms = weak_keys(rnd, count, bits)
                p, q = prime(rnd, bits // 2), prime(rnd, bits // 2)
                ms[1], ms[count - 1] = p * q, p * prime(rnd, bits // 2)     # a prime shared across the parts
                ms[count - 2] = ms[2]                                       # a modulus repeated in another part
                ms = [(m >> rnd.randrange(1, 40)) | 1 if 3 <= i < count - 2 and i % 4 == 3 else m  # mixed widths
                      for i, m in enumerate(ms)]
                got = check(ctx, ms, part=part)
                assert got is None or (got[1] == p and got[count - 1] == p and got[count - 2] == ms[2])
            top = (1 << 256) - 1
            check(ctx, [top, 3, top, 1, top >> 1, 2, 5, top, (1 << 255) + 1, top, top - 2], bits=256, part=part)
    monkeypatch.setenv("MIDINT_TEST_GCD_PART", "4")
    with midint.Context(backend) as ctx:
        with pytest.raises(midint.MidintError, match="at most 16 parts"):
            ctx.batch_gcd([rnd.getrandbits(64) | 1 for _ in range(65)])
    # parts sized by the device's memory (MIDINT_TEST_DEVICE_BYTES: as if it had that much free): 40 moduli of 256
    # bits take about 176 KB in one tree and 45 KB in parts of 16; too little even for parts of 4 is refused, saying
    # how much it needs
    monkeypatch.delenv("MIDINT_TEST_GCD_PART")
    ms = weak_keys(rnd, 40, 256)
    p = prime(rnd, 128)
    ms[3], ms[38] = p * prime(rnd, 128), p * prime(rnd, 128)   # in the first part and the third
    monkeypatch.setenv("MIDINT_TEST_DEVICE_BYTES", "60000")
    with midint.Context(backend) as ctx:
        check(ctx, ms)
    monkeypatch.setenv("MIDINT_TEST_DEVICE_BYTES", "1000")
    with midint.Context(backend) as ctx:
        with pytest.raises(midint.MidintMemoryError, match=r"need about \d+ bytes of device memory in parts of 4"):
            ctx.batch_gcd(ms)


@pytest.mark.parametrize("backend", BACKENDS)
def test_batch_gcd_refusals(backend):
    require_ops(backend)
    with midint.Context(backend) as ctx:
        with pytest.raises(midint.MidintValueError, match=r"moduli\[2\] is zero"):
            ctx.batch_gcd([3, 5, 0, 7])
        # moduli past the gcds' largest size: not even a part of 4 fits
        wide = ctx.max_bits("gcd") // 32 + 1
        with pytest.raises(midint.MidintError, match="split the batch"):
            ctx.batch_gcd(np.ones((5, wide), np.uint32))


@pytest.mark.parametrize("backend", BACKENDS)
def test_batch_gcd_example(backend):
    """examples/batch_gcd.c: moduli in hex, one per line; prints each weak one with its shared factor."""
    require_ops(backend)
    exe = ROOT / "build" / "examples" / "batch_gcd"
    assert exe.exists(), f"{exe} is missing: run `make`"
    rnd = random.Random(7)
    ms = weak_keys(rnd, 6, 256)
    text = "\n".join(f"{m:x}" for m in ms) + "\n\n"
    proc = subprocess.run([str(exe), backend], input=text, capture_output=True, text=True, timeout=600,
                          env=driver_env())
    assert proc.returncode == 0, proc.stderr
    want = {f"{i} {ms[i]:x} {g:x}" for i, g in enumerate(reference(ms)) if g != 1}
    got = {line for line in proc.stdout.splitlines() if line and not line.startswith("#")}
    assert got == want
