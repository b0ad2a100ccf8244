"""Programs of additions alone as one linear combination (expr_plan.linear_outputs, lib_expr_regs.j2 `linear`): the
coefficients, and the one carry scan over (carry, margin) functions run thread by thread in Python against the
exact sums, instances side by side so a carry leaking between them fails."""

import random
from pathlib import Path

import pytest

from generator.expr import load
from generator.expr_plan import INF, compose, linear_outputs

ROOT = Path(__file__).resolve().parent.parent


def test_six_is_one_combination():
    p = load(ROOT / "expressions" / "six.expr")
    assert linear_outputs(p) == ((7, ((0, 6), (1, 10))),)
    for f in ("tests/expressions/sums.expr", "expressions/poly.expr"):   # subtraction, constants, products
        assert linear_outputs(load(ROOT / f)) is None


def thread_function(words, coefs, xs, k, chunk, cmax):
    """What a thread computes: its chunk's sum word by word, the carry out c and margin m, packed as the kernel does
    (the instance's first thread a constant)."""
    acc, out = 0, []
    for w in range(chunk):
        acc += sum(c * x[k * chunk + w] for c, x in zip(coefs, xs))
        out.append(acc & 0xFFFFFFFF)
        acc >>= 32
    s = sum(v << (32 * i) for i, v in enumerate(out))
    m = (1 << (32 * chunk)) - s
    m = m if m <= cmax else cmax + 1
    return out, (acc, INF) if k == 0 else (acc, m)


def scan_carries(fs, warp=32):
    """Exclusive carries: Kogge-Stone in each warp of `warp` lanes, then the warps' totals folded in order."""
    incl = list(fs)
    for base in range(0, len(fs), warp):
        lanes = incl[base:base + warp]
        d = 1
        while d < len(lanes):
            lanes = [compose(f, lanes[i - d]) if i >= d else f for i, f in enumerate(lanes)]
            d *= 2
        incl[base:base + warp] = lanes
    out, x_warp = [], 0
    for base in range(0, len(fs), warp):
        lanes = incl[base:base + warp]
        vals = [a + (x_warp >= m) for a, m in lanes]
        out += [x_warp] + vals[:-1]
        x_warp = vals[-1]
    return out


@pytest.mark.parametrize("ti,chunk", [(1, 16), (4, 8), (24, 4), (64, 8), (256, 2)])
def test_one_scan_gives_the_sum(ti, chunk):
    rng = random.Random(ti * 100 + chunk)
    coefs = (6, 10)
    cmax = sum(coefs)
    words = ti * chunk
    count = max(2, 96 // ti)
    mod = 1 << (32 * words)
    for pattern in ("random", "ones", "near"):
        insts = []
        for _ in range(count):
            if pattern == "random":
                a, b = rng.getrandbits(32 * words), rng.getrandbits(32 * words)
            elif pattern == "ones":
                a, b = mod - 1, mod - 1
            else:   # 6a + 10b just below a power of the word base: long runs of all ones in the sum
                b = rng.getrandbits(32 * words - 8)
                a = ((mod - 1 - 10 * b) // 6) % mod
            insts.append((a, b))
        fs, chunks = [], []
        for a, b in insts:
            xs = [[(v >> (32 * i)) & 0xFFFFFFFF for i in range(words)] for v in (a, b)]
            for k in range(ti):
                out, f = thread_function(words, coefs, xs, k, chunk, cmax)
                chunks.append(out)
                fs.append(f)
        cins = scan_carries(fs)
        for n, (a, b) in enumerate(insts):
            got = 0
            for k in range(ti):
                t = n * ti + k
                s = sum(v << (32 * i) for i, v in enumerate(chunks[t])) + (0 if k == 0 else cins[t])
                got |= (s % (1 << (32 * chunk))) << (32 * chunk * k)
            assert got == (6 * a + 10 * b) % mod, (pattern, n)


def test_compose_keeps_constants_and_thresholds():
    assert compose((3, 5), (7, INF)) == (4, INF)       # a constant carry of 7 passes the later margin
    assert compose((3, 5), (4, 2)) == (3, 2)           # 4 + [x >= 2] reaches 5 exactly when x >= 2
    assert compose((3, 5), (2, 1)) == (3, INF)         # never reaches 5


def test_large_slots_are_not_staged():
    """Above LINEAR_DIRECT_BYTES of slots a linear program loads its own words (six at 262144 bits), below it stages."""
    from generator import expr_plan
    expr_plan.PROGRAMS.setdefault("expr_six", load(ROOT / "expressions" / "six.expr"))
    staged = expr_plan.layout("expr_six", 256, 16, 1)    # 131072 bits: 256 threads of 16 words
    direct = expr_plan.layout("expr_six", 512, 16, 1)    # 262144 bits
    assert staged.linear and not staged.direct and staged.slots
    assert direct.linear and direct.direct and not direct.slots and direct.words == 3 * expr_plan.WARP
