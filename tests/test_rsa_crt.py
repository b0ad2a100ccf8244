"""RSA-2048 decryption by CRT (examples/rsa_crt.c): the example on a small batch (c mod p and q and two powm with
secret = 1 on device buffers, then the recombination, fused where the build generated expressions/crt_h.expr and
crt_m.expr, else on the host API: sub, add, mod, mulmod, mul, add), every message checked against the one GMP
encrypted; and the two expressions' programs against the recombination in Python integers."""

import random
import subprocess
from pathlib import Path

import pytest

from conftest import driver_env
from generator.expr import evaluate, load
from generator.ntt import is_prime   # Miller-Rabin over fixed bases: enough for test primes

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "build" / "examples" / "rsa_crt"


def test_rsa_crt_small_batch():
    if not EXAMPLE.exists():
        pytest.fail(f"{EXAMPLE.relative_to(ROOT)} is missing: run `make`")
    proc = subprocess.run([str(EXAMPLE), "5", "2"], capture_output=True, text=True, timeout=600,
                          env=driver_env())
    assert proc.returncode == 0 and "pass:" in proc.stdout, proc.stdout + proc.stderr


def _prime(rng, bits):
    """A random prime of exactly `bits` bits."""
    while True:
        n = rng.getrandbits(bits) | (1 << (bits - 1)) | 1
        if is_prime(n):
            return n


@pytest.mark.parametrize("bits", [64, 256, 1024])
def test_crt_expressions_recombine(bits):
    """crt_h then crt_m give back m from m1 = m mod p and m2 = m mod q, for messages 0, 1, n - 1, p, q and random
    ones (m1 below, equal to and above m2), at the width of the primes; m is twice as wide."""
    rng = random.Random(bits)
    crt_h, crt_m = load(ROOT / "expressions/crt_h.expr"), load(ROOT / "expressions/crt_m.expr")
    for _ in range(3):
        p, q = _prime(rng, bits), _prime(rng, bits)
        if p == q:
            continue
        p, q = max(p, q), min(p, q)
        n, qinv = p * q, pow(q, -1, p)
        for m in [0, 1, n - 1, p, q, p + 1] + [rng.randrange(n) for _ in range(20)]:
            m1, m2 = m % p, m % q
            h = evaluate(crt_h, {"m1": m1, "m2": m2, "p": p, "qinv": qinv}, bits)["h"]
            assert h == qinv * (m1 - m2) % p
            assert evaluate(crt_m, {"m2": m2, "h": h, "q": q}, bits)["m"] == m
