"""Heavier checks of templates/lib_modgcd.j2 (gcd and modinv by blocks of 30 binary-gcd steps on 64-bit stand-ins):
the rendered lib for N = 4, 5 and 64 against GMP through tests/test_modarith_lib.py's driver, on worst cases for the
block bound (consecutive Fibonacci numbers, 2^k - 1 against 1, long runs of ones or zeros, very unequal lengths), and a
Python model of the blocks that checks the bound ceil((64N - 1) / 30) the C loops stop at."""

import math
import random

import pytest

from test_modarith_lib import build_driver, run_cases

SIZES = (4, 5, 64)


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    return build_driver(tmp_path_factory, "modgcd", SIZES)


def fib_pair(bits):
    """The largest consecutive Fibonacci numbers below 2^bits."""
    a, b = 1, 1
    while a + b < (1 << bits):
        a, b = b, a + b
    return a, b


def hard_pairs(n, rng):
    B = 32 * n
    top = (1 << B) - 1
    fa, fb = fib_pair(B)
    out = [(fa, fb), (fb, fa), (fb - 1, fb), (top, 1), (1, top), (top, top - 2), (top - 2, top), (top, 3),
           ((1 << (B - 1)) + 1, (1 << (B - 1)) - 1), (top, (1 << (B - 1)) - 1), ((1 << (B - 1)) - 1, top)]
    for k in (B - 1, B // 2, 33, 31, 2):
        out += [((1 << k) - 1, 1), (1, (1 << k) - 1), ((1 << k) - 1, top), (top, (1 << k) + 1)]
    for _ in range(6):
        # runs of ones and zeros
        x, pos = 0, 0
        while pos < B:
            run = rng.randint(1, 3 * 32)
            if rng.random() < 0.5:
                x |= ((1 << run) - 1) << pos
            pos += run
        out.append((x & top | 1, rng.getrandbits(B) | 1))
        out.append((rng.getrandbits(B), x & top | 1))
        # one operand much shorter than the other
        out.append((rng.getrandbits(B) | (1 << (B - 1)), rng.getrandbits(rng.randint(1, 40)) | 1))
        out.append((rng.getrandbits(rng.randint(1, 40)) | 1, rng.getrandbits(B) | (1 << (B - 1)) | 1))
        # shared factors, powers of two
        g = rng.getrandbits(rng.randint(1, B // 2)) | 1
        out.append(((g * rng.getrandbits(B // 2)) << rng.randrange(20) & top, (g * rng.getrandbits(B // 3)) & top))
    return out


def test_hard_cases(driver):
    rng = random.Random("modgcd-hard")
    cases = []
    for n in SIZES:
        B = 32 * n
        top = (1 << B) - 1
        for a, b in hard_pairs(n, rng):
            cases.append(("gcd", n, 0, [a, b]))
            cases.append(("gcd", n, 0, [b, a]))
            for m, x in ((b, a), (a, b), (b | 1, a), (a | 1, b), ((b & ~1) or 2, a | 1), ((a & ~1) or 2, b | 1)):
                cases.append(("inv", n, 0, [x & top, m & top]))
        for _ in range(200 if n < 64 else 40):
            a, b = rng.getrandbits(rng.randint(1, B)), rng.getrandbits(rng.randint(1, B))
            cases.append(("gcd", n, 0, [a, b]))
            cases.append(("inv", n, 0, [a, b | 1]))
            cases.append(("inv", n, 0, [a, (b & ~1) or 2]))
    run_cases(driver, cases)


# ---- a Python model of the blocks (the same stand-ins and steps as the C) and the bound on their number ----

def blocks(a, b, n):
    """Blocks lib_modgcd runs on N-word (a, b), b odd, until a = 0; checks the gcd on the way."""
    g0 = math.gcd(a, b)
    count = 0
    mask30 = (1 << 30) - 1
    while a != 0:
        count += 1
        ln = max(a.bit_length(), b.bit_length())
        if ln <= 64:
            xa, xb = a, b
        else:
            # top 32 bits at the top word's position (word w >= 2) over the low 30 bits
            w = (ln - 1) // 32
            s = 32 * (w + 1) - 32 - 32   # bits of words below w - 1
            sh = (32 * (w + 1)) - ln     # clz of the top word of a | b
            xa = (((a >> s) << sh >> 32) & 0xffffffff) << 30 | (a & mask30)
            xb = (((b >> s) << sh >> 32) & 0xffffffff) << 30 | (b & mask30)
        f0, g0_, f1, g1 = 1, 0, 0, 1
        for _ in range(30):
            if xa & 1:
                if xa < xb:
                    xa, xb, f0, g0_, f1, g1 = xb, xa, f1, g1, f0, g0_
                xa -= xb
                f0, g0_ = f0 - f1, g0_ - g1
            xa >>= 1
            f1, g1 = 2 * f1, 2 * g1
        assert abs(f0) + abs(g0_) <= 1 << 30 and abs(f1) + abs(g1) <= 1 << 30
        na, nb = f0 * a + g0_ * b, f1 * a + g1 * b
        assert na % (1 << 30) == 0 and nb % (1 << 30) == 0
        a, b = abs(na) >> 30, abs(nb) >> 30
        assert a < (1 << 32 * n) and b < (1 << 32 * n)
    assert b == g0
    return count


def test_block_bound():
    rng = random.Random("modgcd-bound")
    for n in SIZES + (8, 16):
        bound = (64 * n - 1 + 29) // 30
        worst = 0
        pairs = hard_pairs(n, rng) + [(rng.getrandbits(32 * n), rng.getrandbits(32 * n) | 1) for _ in range(100)]
        for a, b in pairs:
            for x, y in ((a, b | 1), (b, a | 1)):
                worst = max(worst, blocks(x, y, n))
        assert worst <= bound, (n, worst, bound)
