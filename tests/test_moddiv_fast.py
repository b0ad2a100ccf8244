"""templates/lib_moddiv.j2's divrem and mulmod at more sizes than tests/test_modarith_lib.py: N = 4, 5, 7 (the
unrolled register path, with non-power-of-two barrel shifts) and 64 (the rolled path), with divisors of every word
length 1..N whose top word is 1, 2^31, 0xFFFFFFFF or random, and dividends near multiples of them (q d - 1, q d,
q d + d - 1), checked against GMP by test_modarith_lib's driver."""

import random

import pytest

from test_modarith_lib import build_driver, run_cases

SIZES = (4, 5, 7, 64)


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    return build_driver(tmp_path_factory, "moddiv", SIZES)


def divisors(n, rng):
    """every word length k in 1..n, top word 1, 2^31, 2^32 - 1 or random, lower words 0, all ones or random"""
    out = []
    for k in range(1, n + 1):
        for top in (1, 1 << 31, 0xFFFFFFFF, rng.getrandbits(32) | 1):
            for low in (0, (1 << (32 * (k - 1))) - 1, rng.getrandbits(32 * (k - 1))):
                out.append((top << (32 * (k - 1))) | low)
    return out


def cases(n, rng):
    B = 32 * n
    X = 1 << (2 * B)
    out = []
    ds = divisors(n, rng)
    if n > 8:
        ds = rng.sample(ds, 60)
    for d in ds:
        qmax = (X - 1) // d
        q = rng.randint(1, qmax)
        for x in (d * q - 1, d * q, d * q + d - 1, d * qmax, X - 1, rng.getrandbits(2 * B),
                  rng.getrandbits(rng.randint(1, 2 * B))):
            if 0 <= x < X:
                out.append(("div", n, 0, [x, d]))
        a, b = rng.getrandbits(B), rng.getrandbits(B)
        out.append(("mulmod", n, 0, [a, b, d]))
        out.append(("mulmod", n, 0, [(1 << B) - 1, (1 << B) - 1, d]))
    return out


def test_divrem_mulmod_sizes(driver):
    rng = random.Random("moddiv-fast")
    run_cases(driver, [c for n in SIZES for c in cases(n, rng)])
