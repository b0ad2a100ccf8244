"""The FP64 Montgomery product of powm's lanes (lib_modlanes_f52.j2, CUDA) modelled on integers, so that CI (no GPU)
checks its arithmetic: the exact split of a limb product into its two bit patterns, the 64-bit column sums of raw
patterns, the exponent fields dropped mod 2^52 and subtracted from the carries by the template's own counts
(MF_PAIR, MF_LO2, MF_HI2, read from the template), the windows passed between lanes (a turn's columns at a time), and
the lanes' carry rounds.
The model follows mf_montmul step by step, and mf_montsqr (each cross product once, its exponent counts the
template's tables; its rows interleaved, or a step's square rows first and its reductions in turns) against it; the
GPU tests (test_variants' powm) check the kernels themselves."""

import random
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from generator.space import MOD_LANES_F52_ROLLS, mod_lanes_f52_limbs  # noqa: E402
from test_modlanes_ct import render_f52  # noqa: E402  (the template rendered at L lanes of q words)

# (q words, L lanes) of the generated kernels: 16 words (10 limbs) at 512-4096 bits, 8 (5 limbs) at 256 bits on one
# lane, 12 (8 limbs) at 1536 and 3072 bits
SHAPES = ((16, 1), (16, 2), (16, 4), (16, 8), (8, 1), (12, 4), (12, 8))
MASK52 = (1 << 52) - 1
MASK64 = (1 << 64) - 1
EXP_LO, EXP_HI = 0x433 << 52, 0x467 << 52   # the bit patterns of 2^52 and 2^104: the patterns' exponent fields


def template_consts():
    src = (ROOT / "templates" / "lib_modlanes_f52.j2").read_text()
    return {k: int(v, 16) for k, v in re.findall(r"#define (MF_PAIR|MF_LO2|MF_HI2) (0x[0-9a-f]+)u", src)}


def split(a, b):
    """The bit patterns of h = fma_rd(a, b, 2^104) and l = fma(a, b, 2^104 + 2^52 - h), as the FP64 unit makes them
    (exact: a b < 2^104)."""
    assert 0 <= a < 1 << 52 and 0 <= b < 1 << 52
    return EXP_HI + (a * b >> 52), EXP_LO + (a * b & MASK52)


def limbs_out(W, L, D, count):
    """The product's end: lane k's column j less its exponent fields count(k, j) mod 2^12 and carried in the lane,
    then L - 1 rounds passing a lane's carry up; the limbs in order."""
    limbs, carry = [[0] * D for _ in range(L)], [0] * L
    for k in range(L):
        cy = 0
        for j in range(D):
            v = (W[k][j] + cy) & MASK64
            limbs[k][j] = v & MASK52
            cy = ((v >> 52) - (count(k, j) & 0xFFF)) & 0xFFF
        carry[k] = cy
    for _round in range(L - 1):
        cin = [0] + carry[:-1]
        for k in range(L):
            cy = cin[k]
            for j in range(D):
                v = limbs[k][j] + cy
                limbs[k][j], cy = v & MASK52, v >> 52
            carry[k] = cy
    return [x for lane in limbs for x in lane]


def pass_turn(W, c0, L, D, U):
    """The end of a turn of U rows (mf_montmul): lane 0's carry into its column U, the lane above's low U columns
    (final) into columns D .. D + U - 1 (lane L - 1 takes none), the window moved down U columns."""
    passed = [W[(k + 1) % L][:U] for k in range(L)]
    for k in range(L):
        W[k][U] = (W[k][U] + c0[k]) & MASK64
        c0[k] = 0
        for j in range(U):
            W[k][D + j] = (W[k][D + j] + (passed[k][j] if k != L - 1 else 0)) & MASK64
        W[k][:] = W[k][U:] + [0] * U


def reduce_row(W, c0, M, L, D, r, t, minv, count):
    """Row r's reduction (the template's reduce_row and the carry after it): q from lane 0's column r with its carry
    (t), q M's patterns into every lane's columns, column r's carry less its exponent `count` into c0 on lane 0."""
    q = (t[0] & MASK52) * minv & MASK52   # lane 0's, shuffled to all
    pm = [[split(M[k * D + j], q) for j in range(D)] for k in range(L)]
    for k in range(L):
        for j in range(1, D):
            W[k][r + j] += pm[k][j][1] + pm[k][j - 1][0]
        W[k][r] = t[k] + pm[k][0][1]
        W[k][r + D] += pm[k][D - 1][0]
        W[k] = [x & MASK64 for x in W[k]]
        carry = ((W[k][r] >> 52) - count) & 0xFFF
        c0[k] = carry if k == 0 else 0
    assert W[0][r] & MASK52 == 0, "lane 0's column is not cleared by its reduction factor"


def square_row(W, A, L, D, s, r, diag):
    """Row r of a squaring's step s (the template's square_row): lane k's limbs j >= r times lane s's limb r, the
    products j > r added twice; column 2r's low part of the square only where `diag`."""
    b = A[s * D + r]
    for k in range(L):
        pa = {j: split(A[k * D + j], b) for j in range(r, D)}
        if diag:
            W[k][2 * r] += pa[r][1]
        for j in range(r + 1, D):
            lo, hi = pa[j][1], pa[j - 1][0]
            W[k][r + j] += 2 * lo + hi if j == r + 1 else 2 * (lo + hi)
        W[k][r + D] += pa[D - 1][0] * (1 if r == D - 1 else 2)
        W[k] = [x & MASK64 for x in W[k]]


def montmul(A, B, M, L, D, c, rolls=1):
    """mf_montmul on L lanes of D limbs, each step's D rows in `rolls` turns: A, B, M as lists of L D limbs; returns
    the result's limbs."""
    N, U = L * D, D // rolls
    minv = (-pow(M[0], -1, 1 << 52)) % (1 << 52)
    W = [[0] * (2 * D) for _ in range(L)]
    c0 = [0] * L
    for s in range(L):
        for p in range(rolls):
            off_s = (s * D + p * U) * c["MF_PAIR"] + c["MF_LO2"]
            for r in range(U):
                b = B[s * D + p * U + r]   # lane s's limb pU + r, shuffled to all
                pa = [[split(A[k * D + j], b) for j in range(D)] for k in range(L)]
                t = [(W[k][r] + pa[k][0][1] + c0[k]) & MASK64 for k in range(L)]
                for k in range(L):
                    for j in range(1, D):
                        W[k][r + j] += pa[k][j][1] + pa[k][j - 1][0]
                    W[k][r + D] += pa[k][D - 1][0]
                reduce_row(W, c0, M, L, D, r, t, minv, off_s + r * c["MF_PAIR"])
            pass_turn(W, c0, L, D, U)
    return limbs_out(W, L, D, lambda k, j: c["MF_HI2"] + c["MF_PAIR"] * (2 * N - 1 - (N + k * D + j)))


def to_limbs(x, n):
    return [x >> (52 * i) & MASK52 for i in range(n)]


def from_limbs(v):
    return sum(x << (52 * i) for i, x in enumerate(v))


@pytest.mark.parametrize("q,lanes", SHAPES)
def test_f52_montmul_model(q, lanes):
    """Random and edge operands at 32 q L bits: the result is A B / R' mod M, below 2M for A, B < 2M and below
    2^(32 q L) + M for A, B < 2^(32 q L) (R^2 mod m's squarings), as mf_montmul states."""
    D, c, rolls = mod_lanes_f52_limbs(q), template_consts(), MOD_LANES_F52_ROLLS[q]
    assert c == {"MF_PAIR": (2 * (0x433 + 0x467)) & 0xFFF, "MF_LO2": 2 * 0x433, "MF_HI2": 2 * 0x467}
    N, bits = lanes * D, 32 * q * lanes
    R = 1 << (52 * N)
    rng = random.Random(q * lanes)
    mods = [(1 << bits) - 1, (1 << (bits - 1)) + 1, 3, 1, rng.getrandbits(bits) | 1 | 1 << (bits - 1),
            rng.getrandbits(bits // 2) | 1]
    for m in mods:
        for a, b in ((2 * m - 1, 2 * m - 1), (0, 2 * m - 1), (1, 1), (rng.randrange(2 * m), rng.randrange(2 * m)),
                     ((1 << bits) - 1, (1 << bits) - 1), (rng.getrandbits(bits), rng.getrandbits(bits))):
            limbs = montmul(to_limbs(a, N), to_limbs(b, N), to_limbs(m, N), lanes, D, c, rolls)
            unrolled = montmul(to_limbs(a, N), to_limbs(b, N), to_limbs(m, N), lanes, D, c)
            assert limbs == unrolled, "the turns change the product"
            r = from_limbs(limbs)
            assert (r * R - a * b) % m == 0, (hex(m), hex(a), hex(b))
            assert r < (2 * m if max(a, b) < 2 * m else (1 << bits) + m), (hex(m), hex(a), hex(b))


def sqr_counts(src):
    """mf_montsqr's tables X and Y of exponent-field counts, as the template renders them."""
    body = src[src.index("DEVICE void mf_montsqr_t"):]
    return [[int(x.strip().rstrip("u"), 16) for x in re.search(r"const u32 %s\[\d+\] = \{([^}]*)\}" % name, body).group(1).split(",")]
            for name in ("X", "Y")]


def montsqr(A, M, L, D, X, Y):
    """mf_montsqr on L lanes of D limbs: row r of step s takes lane k's limbs j >= r times lane s's limb r, the
    products j > r added twice; the counts X, Y are the template's."""
    minv = (-pow(M[0], -1, 1 << 52)) % (1 << 52)
    W = [[0] * (2 * D) for _ in range(L)]
    c0 = [0] * L
    for s in range(L):
        for r in range(D):
            # column r: only row 0 adds to its own column (the square's low part), before its factor is taken
            low0 = [split(A[k * D], A[s * D])[1] if r == 0 else 0 for k in range(L)]
            t = [(W[k][r] + low0[k] + c0[k]) & MASK64 for k in range(L)]
            square_row(W, A, L, D, s, r, r > 0)
            reduce_row(W, c0, M, L, D, r, t, minv, s * X[r] + Y[r])
        pass_turn(W, c0, L, D, D)
    return limbs_out(W, L, D, lambda k, j: (L - k) * X[j] - Y[j])


def montsqr_turns(A, M, L, D, X, Y, rolls):
    """mf_montsqr with its reductions in `rolls` turns: a step's square rows first (all of them, unrolled in the
    template), then its D reductions in turns of U = D / rolls rows as mf_montmul's, the window passed and moved down
    after each turn; row pU + r's count s X[pU + r] + Y[pU + r]."""
    U = D // rolls
    minv = (-pow(M[0], -1, 1 << 52)) % (1 << 52)
    W = [[0] * (2 * D) for _ in range(L)]
    c0 = [0] * L
    for s in range(L):
        for r in range(D):
            square_row(W, A, L, D, s, r, True)
        for p in range(rolls):
            for r in range(U):
                t = [(W[k][r] + c0[k]) & MASK64 for k in range(L)]
                reduce_row(W, c0, M, L, D, r, t, minv, s * X[p * U + r] + Y[p * U + r])
            pass_turn(W, c0, L, D, U)
    return limbs_out(W, L, D, lambda k, j: (L - k) * X[j] - Y[j])


@pytest.mark.parametrize("q,lanes", SHAPES)
def test_f52_montsqr_model(q, lanes):
    """mf_montsqr with the template's counts gives mf_montmul(A, A) limb for limb, on random and edge operands below
    2M and below 2^(32 q L) (R^2 mod m's squarings), with its rows interleaved and with its reductions in every count
    of turns that divides D."""
    D, c = mod_lanes_f52_limbs(q), template_consts()
    X, Y = sqr_counts(render_f52(lanes, q))
    N, bits = lanes * D, 32 * q * lanes
    R = 1 << (52 * N)
    rng = random.Random(100 + q * lanes)
    mods = [(1 << bits) - 1, (1 << (bits - 1)) + 1, 3, 1, rng.getrandbits(bits) | 1 | 1 << (bits - 1),
            rng.getrandbits(bits // 2) | 1]
    for m in mods:
        for a in (2 * m - 1, 0, 1, rng.randrange(2 * m), (1 << bits) - 1, rng.getrandbits(bits),
                  int("01" * (bits // 2), 2)):
            A, Mv = to_limbs(a, N), to_limbs(m, N)
            r = montsqr(A, Mv, lanes, D, X, Y)
            assert r == montmul(A, A, Mv, lanes, D, c), (hex(m), hex(a))
            for turns in [t for t in range(1, D + 1) if D % t == 0]:
                assert montsqr_turns(A, Mv, lanes, D, X, Y, turns) == r, (turns, hex(m), hex(a))
            assert (from_limbs(r) * R - a * a) % m == 0, (hex(m), hex(a))


@pytest.mark.parametrize("table,index", (("X", 3), ("Y", 0), ("Y", 7)))
def test_f52_montsqr_counts_matter(table, index):
    """A count one off in either table makes the model's squaring wrong: the test above would catch it."""
    D, lanes = 10, 2
    X, Y = sqr_counts(render_f52(lanes))
    (X if table == "X" else Y)[index] += 1
    rng = random.Random(7)
    m = rng.getrandbits(1024) | 1 | 1 << 1023
    a = rng.randrange(2 * m)
    with pytest.raises(AssertionError):
        r = montsqr(to_limbs(a, 20), to_limbs(m, 20), lanes, D, X, Y)
        assert (from_limbs(r) * (1 << 1040) - a * a) % m == 0


@pytest.mark.parametrize("table,key,turns", (("MOD_LANES_F52_ROLLS", 16, 3), ("MOD_LANES_F52_SQR_ROLLS", (16, 2), 3),
                                             ("MOD_LANES_F52_ROLLS", 16, 0)))
def test_turns_that_do_not_divide_a_step_are_refused(monkeypatch, table, key, turns):
    """A count of turns that does not divide a step's 10 rows (or no turn at all for the product) would drop rows
    silently: the generator refuses the kernel, naming the table."""
    from types import SimpleNamespace
    import generator.space as space
    v = SimpleNamespace(op="powm", backend="cuda", bits=1024, words=32, q=16, lanes=2, name="powm_1024_t")
    assert space._mod_lanes_context(v)["f52"]
    monkeypatch.setitem(getattr(space, table), key, turns)
    with pytest.raises(ValueError, match=table):
        space._mod_lanes_context(v)
