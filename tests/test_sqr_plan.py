"""The square a^2 (generator/sqr_plan.py) run word by word in Python against a * a: the owner schedule
(templates/kernel_sqr_owner.j2) on whole groups of 32 instances with its shared-memory layout and barriers, and the
one-thread schedule (templates/kernel_sqr_thread.j2), phase by phase as the templates spell them: change them together.
Also: every cross product and word square computed exactly once, the warps balanced, the staging's division exact,
and every variant of the two families rendering for both backends."""

import random
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from generator import space, sqr_plan  # noqa: E402
from generator.sqr_plan import (PAD, THREAD_MAX_WORDS, divide_magic, owner_plan, product_rows,  # noqa: E402
                                thread_plan, triangle_rows)
from generator.variant import Variant, parse_name  # noqa: E402

MASK = (1 << 32) - 1
WARP = 32


def word(x, i):
    return (x >> (32 * i)) & MASK


def number(ws):
    return sum(w << (32 * i) for i, w in enumerate(ws))


# ---- the step pieces, as the templates spell them (lib_lanes.j2 row_products, lib_sqr.j2) ----
def run_row(E, O, chains, x, bt):
    """One row's chains (lib_lanes.j2 row_products): mad_lo/hi_cc then madc_*, the carry into carry_to."""
    for ch in chains:
        arr = E if ch.sums == "E" else O
        c = 0
        for pos, half, j in ch.ops:
            p = x[j] * bt
            s = arr[pos] + ((p & MASK) if half == "lo" else p >> 32) + c
            arr[pos], c = s & MASK, s >> 32
        assert ch.carry_to is not None
        s = arr[ch.carry_to] + c
        assert s <= MASK, "a chain's carry overflowed its target word"
        arr[ch.carry_to] = s


def add_into_window(W, E, O, q):
    """lib_sqr.j2 add_sums: E + B O (below B^(2Q): no carry out of word 2Q - 1, E's top word zero) into W."""
    c = 0
    for j in range(1, 2 * q):
        s = E[j] + O[j - 1] + c
        E[j], c = s & MASK, s >> 32
    assert c == 0 and E[2 * q] == 0
    c = 0
    for j in range(2 * q):
        s = W[j] + E[j] + c
        W[j], c = s & MASK, s >> 32
    s = W[2 * q] + c
    assert s <= MASK
    W[2 * q] = s


def block_product(x, bwords, q):
    """Fresh E and O: x (a block) times the block whose words are bwords, row by row."""
    E, O = [0] * (2 * q + 1), [0] * (2 * q - 1)
    rows = product_rows(q)
    for row in range(q):
        run_row(E, O, rows[row], x, bwords[row])
    return E, O


def triangle(x, q):
    """Fresh E and O: tri(x), row t's b word x's own word t (lib_sqr.j2 triangle)."""
    E, O = [0] * (2 * q + 1), [0] * (2 * q - 1)
    for row, chains in enumerate(triangle_rows(q)):
        run_row(E, O, chains, x, x[row])
    return E, O


def double_window(W, q):
    """lib_sqr.j2 double_window: W <<= 1 over its 2Q + 1 words (its top word is small: no bit leaves)."""
    assert W[2 * q] >> 31 == 0
    for j in range(2 * q, 0, -1):
        W[j] = ((W[j] << 1) | (W[j - 1] >> 31)) & MASK
    W[0] = (W[0] << 1) & MASK


def add_squares(W, x, q):
    """lib_sqr.j2 add_squares: x's word squares into W's aligned pairs, the carry into W[2Q]."""
    c = 0
    for s in range(q):
        p = x[s] * x[s]
        for pos, half in ((2 * s, p & MASK), (2 * s + 1, p >> 32)):
            t = W[pos] + half + c
            W[pos], c = t & MASK, t >> 32
    t = W[2 * q] + c
    assert t <= MASK
    W[2 * q] = t


# ---- the owner kernel on one group ----
class Shared:
    """A group's shared memory, phase by phase: a read of a word another warp wrote in the same phase (between two
    barriers), or a write of a word another warp read or wrote, is a race; reading a word never written is a bug."""

    ALL = -1   # the staging and the final store: every thread of the group, by words, not by warps

    def __init__(self, words):
        self.m = [None] * words
        self.barrier()

    def barrier(self):
        self.writers, self.readers = {}, {}

    def write(self, w, addr, value):
        assert 0 <= addr < len(self.m)
        assert 0 <= value <= MASK
        others = (self.writers.get(addr, set()) | self.readers.get(addr, set())) - {w}
        assert not others, f"race: warp {w} writes word {addr}, which warps {others} touched in this phase"
        self.writers.setdefault(addr, set()).add(w)
        self.m[addr] = value

    def read(self, w, addr):
        assert 0 <= addr < len(self.m)
        others = self.writers.get(addr, set()) - {w}
        assert not others, f"race: warp {w} reads word {addr}, which warps {others} wrote in this phase"
        assert self.m[addr] is not None, f"warp {w} reads word {addr}, never written"
        self.readers.setdefault(addr, set()).add(w)
        return self.m[addr]


def owner_group(plan, values, n, live, margins=True):
    """kernel_sqr_owner.j2 on a group of 32 instances (values[i] for i < live; the others absent), run-time size n
    words: each live instance's 2n result words. `margins` False drops the carry that passes through a full block."""
    q, L = plan.q, plan.lanes
    mem = Shared(plan.group_words)
    rows = product_rows(q)
    tri = triangle_rows(q)

    def a_word(w, lane, u):   # a's word u of this lane's instance
        return mem.read(w, plan.a_at + u * PAD + lane)

    # stage: a transposed, zeros past n and for absent instances
    for i in range(WARP):
        for u in range(L * q):
            mem.write(Shared.ALL, plan.a_at + u * PAD + i, word(values[i], u) if i < live and u < n else 0)
    mem.barrier()
    # products: each warp's four blocks, the first three windows stored, the fourth kept
    kept = {}
    for w in range(plan.warps):
        for lane in range(WARP):
            for task, k in enumerate(plan.blocks_of(w)):
                W = [0] * plan.window
                for i, j in plan.pairs(k):
                    x = [a_word(w, lane, i * q + c) for c in range(q)]
                    E, O = block_product(x, [a_word(w, lane, j * q + row) for row in range(q)], q)
                    add_into_window(W, E, O, q)
                m = plan.diagonal(k)
                if m is not None:
                    x = [a_word(w, lane, m * q + c) for c in range(q)]
                    E, O = triangle(x, q)
                    add_into_window(W, E, O, q)
                double_window(W, q)
                if m is not None:
                    add_squares(W, x, q)
                if task < plan.STORED_TASKS:
                    if k < plan.product_blocks:
                        for j in range(plan.window):
                            mem.write(w, plan.window_at(k) + j * PAD + lane, W[j])
                    else:
                        assert not any(W)
                else:
                    kept[w, lane] = (k, W)
    mem.barrier()   # every warp done with a: the kept windows go over it
    for (w, lane), (k, W) in kept.items():
        assert k < plan.product_blocks
        for j in range(plan.window):
            mem.write(w, plan.window_at(k) + j * PAD + lane, W[j])
    mem.barrier()
    # the join's terms: block k = P_k[0, Q) + P_(k-1)[Q, 2Q) + P_(k-2)[2Q], its (carry, margin) code
    S = {}
    for w in range(plan.warps):
        for lane in range(WARP):
            for t, k in enumerate(plan.join_blocks(w)):
                win = lambda kk, j: mem.read(w, plan.window_at(kk) + j * PAD + lane)  # noqa: E731
                s = [win(k, j) for j in range(q)] if k < plan.product_blocks else [0] * q
                co = 0
                if k >= 1:
                    c = 0
                    for j in range(q):
                        v = s[j] + win(k - 1, q + j) + c
                        s[j], c = v & MASK, v >> 32
                    co = c
                if k >= 2:
                    c = win(k - 2, 2 * q)
                    for j in range(q):
                        v = s[j] + c
                        s[j], c = v & MASK, v >> 32
                    co += c
                assert co <= 2
                ones = all(s[j] == MASK for j in range(1, q))
                margin = (-s[0]) & MASK if ones and s[0] >= 0xFFFFFFFC else 5
                mem.write(w, plan.codes_at + k * PAD + lane, co | margin << 3)
                S[w, lane, t] = s
    mem.barrier()
    # the carries: one pass over the codes below the warp's blocks (ascending), each block's carry in added
    for w in range(plan.warps):
        for lane in range(WARP):
            cin, j = 0, 0
            for t, k in enumerate(plan.join_blocks(w)):
                while j < k:
                    code = mem.read(w, plan.codes_at + j * PAD + lane)
                    cin = (code & 7) + (1 if margins and cin >= code >> 3 else 0)
                    assert cin <= 3
                    j += 1
                s, c = S[w, lane, t], cin
                for jj in range(q):   # the carry out is the next block's, counted by that block's pass
                    v = s[jj] + c
                    s[jj], c = v & MASK, v >> 32
                assert k != 2 * L - 1 or c == 0   # a^2 < B^(2L): nothing leaves the top block
    mem.barrier()   # every warp done reading the windows: the results go over them
    for w in range(plan.warps):
        for lane in range(WARP):
            for t, k in enumerate(plan.join_blocks(w)):
                for j in range(q):
                    mem.write(w, (k * q + j) * PAD + lane, S[w, lane, t][j])
    mem.barrier()
    return {i: [mem.read(Shared.ALL, u * PAD + i) for u in range(2 * n)] for i in range(live)}


# ---- the one-thread kernel on one instance ----
def thread_square(plan, value, n, shift_in=True):
    """kernel_sqr_thread.j2 for one instance of run-time size n words: its 2n result words (the words each block
    leaves with below 2n). `shift_in` False drops the bit each block's doubling takes from the block below."""
    q, L = plan.q, plan.lanes
    region = [word(value, u) if u < n else 0 for u in range(plan.words)]   # this lane's row of a's region
    W = [0] * (2 * q + 1)
    tb = cd = 0
    x, xb = None, None
    out = []
    for k in range(2 * L):
        for i, j in plan.pairs(k):
            x, xb = region[i * q:(i + 1) * q], i
            E, O = block_product(x, region[j * q:(j + 1) * q], q)
            add_into_window(W, E, O, q)
        m = plan.diagonal(k)
        if m is not None:
            x, xb = region[m * q:(m + 1) * q], m
            E, O = triangle(x, q)
            add_into_window(W, E, O, q)
        # block k leaves: T's finished words doubled (the top bit of the block before shifted in), D_k, the carry
        assert xb == k // 2, "x does not hold the block whose word squares D_k needs"
        half = plan.square_half(k)
        xd = x[half * q // 2:(half + 1) * q // 2]
        o = [((W[j] << 1) | (W[j - 1] >> 31 if j else tb if shift_in else 0)) & MASK for j in range(q)]
        tb = W[q - 1] >> 31
        c = cd
        for s in range(q // 2):
            p = xd[s] * xd[s]
            for pos, h in ((2 * s, p & MASK), (2 * s + 1, p >> 32)):
                v = o[pos] + h + c
                o[pos], c = v & MASK, v >> 32
        assert c <= 1
        cd = c
        out += o
        W = W[q:] + [0] * q
    assert cd == 0 and (tb == 0 or not shift_in) and not any(W)
    return out[:2 * n]


# ---- operands ----
def operands(words, rng):
    """Adversarial and random values of `words` words: all ones (the largest carries of every chain and join), zero,
    one, single bits at both ends and at block edges, runs of ones across blocks, sparse words, random."""
    top = (1 << (32 * words)) - 1
    out = [top, 0, 1, top - 1, 1 << (32 * words - 1), top >> 1, top ^ (top >> 32)]
    out += [(1 << (32 * words // 2)) - 1, (1 << (32 * words // 2)) + 1, top >> 31]
    for b in rng.sample(range(32 * words), min(6, 32 * words)):
        out.append(1 << b)
    for _ in range(4):   # a run of ones crossing block edges
        lo = rng.randrange(32 * words)
        hi = rng.randrange(lo, 32 * words) + 1
        out.append(((1 << hi) - 1) ^ ((1 << lo) - 1))
    for _ in range(3):
        out.append(sum(MASK << (32 * i) for i in range(words) if rng.random() < 0.85))
        out.append(sum(rng.getrandbits(32) << (32 * i) for i in rng.sample(range(words), max(1, words // 8))))
    out += [rng.getrandbits(32 * words) for _ in range(8)]
    return out


def sizes_below(words, q):
    """Run-time sizes: the kernel's, one and three words less, a block and one word, one word."""
    return sorted({words, words - 1, words - 3, q + 1, 1} & set(range(1, words + 1)), reverse=True)


OWNER_SHAPES = [(2, 4), (2, 8), (2, 16), (4, 4), (4, 8), (4, 16), (8, 4), (8, 8), (16, 4), (16, 8)]
THREAD_SHAPES = [(1, 4), (1, 8), (1, 16), (2, 4), (2, 8), (2, 16), (3, 4), (3, 16), (4, 8), (4, 16), (8, 8)]


@pytest.mark.parametrize("lanes,q", OWNER_SHAPES)
def test_owner_square(lanes, q):
    plan = owner_plan(lanes, q)
    words = lanes * q
    rng = random.Random(lanes * 1000 + q)
    vals = operands(words, rng)
    for n in sizes_below(words, q):
        mod = 1 << (32 * n)
        group = [v % mod for v in vals]
        group = (group * 2)[:WARP] if len(group) < WARP else group
        for start in range(0, len(group), WARP):
            chunk = group[start:start + WARP]
            live = len(chunk)
            chunk = chunk + [rng.getrandbits(32 * n)] * (WARP - live)   # absent instances: staged as zeros
            got = owner_group(plan, chunk, n, live)
            for i in range(live):
                assert number(got[i]) == chunk[i] * chunk[i], (lanes, q, n, hex(chunk[i]))
    # a group with few instances: the absent lanes still take part
    got = owner_group(plan, [MASK] * WARP, words, 5)
    assert sorted(got) == list(range(5)) and all(number(g) == MASK * MASK for g in got.values())


@pytest.mark.parametrize("lanes,q", THREAD_SHAPES)
def test_thread_square(lanes, q):
    plan = thread_plan(lanes, q)
    words = lanes * q
    rng = random.Random(lanes * 77 + q)
    for n in sizes_below(words, q):
        mod = 1 << (32 * n)
        for v in operands(words, rng):
            v %= mod
            assert number(thread_square(plan, v, n)) == v * v, (lanes, q, n, hex(v))


def test_models_can_fail():
    """The models can fail: without the bit the doubling takes from the block below, or without the carries that pass
    through all-ones blocks in the join, squares of runs of ones come out wrong."""
    rng = random.Random(5)
    tp = thread_plan(2, 8)
    vals = operands(16, rng)
    assert any(number(thread_square(tp, v, 16, shift_in=False)) != v * v for v in vals)
    op = owner_plan(4, 4)
    vals = (operands(16, rng) * 2)[:WARP]
    got = owner_group(op, vals, 16, WARP, margins=False)
    assert any(number(got[i]) != vals[i] * vals[i] for i in range(WARP))


# ---- each cross product once ----
def products_of_chains(chains_by_row, xblock, bblock, q, own=False):
    """(u, v, half) for every word product the rows issue: x's word j (block xblock) times the row's b word."""
    out = []
    for row, chains in enumerate(chains_by_row):
        for ch in chains:
            for _pos, half, j in ch.ops:
                u, v = xblock * q + j, bblock * q + row
                out.append((min(u, v), max(u, v), half))
    return out


def expected_products(words):
    return sorted((u, v, h) for u in range(words) for v in range(u, words) for h in ("lo", "hi"))


def square_products(plan, k):
    """The word products block k issues: its pairs' rows, its triangle, its squares."""
    q = plan.q
    out = []
    for i, j in plan.pairs(k):
        out += products_of_chains(product_rows(q), i, j, q)
    m = plan.diagonal(k)
    if m is not None:
        out += products_of_chains(triangle_rows(q), m, m, q)
        out += [(m * q + s, m * q + s, h) for s in range(q) for h in ("lo", "hi")]
    return out


@pytest.mark.parametrize("lanes", [2, 4, 8, 16, 32])
@pytest.mark.parametrize("q", [4, 8, 16])
def test_each_cross_product_once(lanes, q):
    """Over every warp's blocks (owner) and over the thread's sequence: each a_u a_v (u < v) and each a_u^2 exactly
    once, low and high word; every product's two words land at the words u + v and u + v + 1 of its block's sums."""
    plan = owner_plan(lanes, q)
    got = sorted(p for w in range(plan.warps) for k in plan.blocks_of(w) if k < plan.product_blocks
                 for p in square_products(plan, k))
    assert got == expected_products(lanes * q)
    tp = thread_plan(lanes, q)
    got = sorted(p for k in range(tp.result_blocks) for p in square_products(tp, k))
    assert got == expected_products(lanes * q)
    assert plan.word_products == lanes * q * (lanes * q + 1) // 2
    # the chains' positions: a_j bt of row t at word t + j (E: index, O: index + 1), low word, then high
    for own, rows in ((False, product_rows(q)), (True, triangle_rows(q))):
        for t, chains in enumerate(rows):
            for ch in chains:
                off = 0 if ch.sums == "E" else 1
                for pos, half, j in ch.ops:
                    assert pos + off == t + j + (half == "hi")
                    assert j > t or not own   # the triangle: only the products above the diagonal


@pytest.mark.parametrize("lanes", [2, 4, 8, 16, 32])
@pytest.mark.parametrize("q", [8, 16])
def test_owner_schedule_balanced_and_layout(lanes, q):
    plan = owner_plan(lanes, q)
    assert sorted(k for w in range(plan.warps) for k in plan.blocks_of(w)) == list(range(2 * lanes))
    works = [plan.work(w) for w in range(plan.warps)]
    # a diagonal block costs Q (Q + 1) / 2, Q / 2 more than the half block product the pairing counts it as: a warp
    # with four of them does 2Q multiply-adds more than one with none, out of about L Q^2
    assert max(works) - min(works) <= 2 * q
    assert max(works) <= plan.word_products / plan.warps + 2 * q
    h = plan.warps
    for w in range(h):
        blocks = plan.blocks_of(w)
        # the stored windows lie below a's area, the kept one inside it
        for k in blocks[:plan.STORED_TASKS]:
            assert k >= plan.product_blocks or plan.window_at(k + 1) <= plan.a_at
        assert plan.a_at <= plan.window_at(blocks[3]) and blocks[3] < plan.product_blocks
    assert plan.a_at + lanes * q * PAD <= plan.part_words              # a within the windows
    assert 2 * lanes * q * PAD <= plan.part_words                      # the results over the windows
    assert plan.codes_at >= plan.part_words


def test_thread_stage_batches_end_at_the_warp():
    """kernel_sqr_thread.j2's fast staging: batches of stage_batch units per lane cover the N/4 units per lane exactly
    (a batch past them would load other warps' instances and store them outside the warp's region)."""
    for words in range(4, THREAD_MAX_WORDS + 1, 4):
        for q in (4, 8, 16):
            if words % q == 0:
                sp = thread_plan(words // q, q)
                assert (words // 4) % sp.stage_batch == 0 and 1 <= sp.stage_batch <= sp.STAGE_MAX_BATCH


def staged_words(sp, n, live, fast):
    """lib_sqr.j2 stage_thread's stores, address by address: {(instance, word): region address} for the warp's 32
    instances of n words (live of them present), every store checked to land inside the warp's region of a."""
    N, stride = sp.words, sp.words + 1
    out = {}

    def store(i, j, lw):
        addr = i * stride + j
        assert 0 <= i < WARP and 0 <= j < N and addr < WARP * stride, (i, j, lw)
        assert (i, j) not in out, f"word {j} of instance {i} stored twice"
        out[i, j] = addr

    if fast:   # n == N: 16-byte units, batches of stage_batch per lane
        units, B = N // 4, sp.stage_batch
        for k0 in range(0, units, B):
            for k in range(B):
                for lw in range(WARP):
                    e = 4 * ((k0 + k) * WARP + lw)
                    i = e // N
                    for d in range(4):
                        store(i, e - i * N + d, lw)
    else:      # word by word over the span of live n words, the instance by mulhi; each lane zeroes its row past n
        BW, lim = min(N, 32), live * n
        m = divide_magic(n)
        for k0 in range(0, N, BW):
            for k in range(BW):
                for lw in range(WARP):
                    e = (k0 + k) * WARP + lw
                    if e < lim:
                        i = (e * m) >> 32 if n > 1 else e
                        store(i, e - i * n, lw)
        for lw in range(WARP):
            for j in range(n, N):
                store(lw, j, lw)
    return out


@pytest.mark.parametrize("words,q", [(12, 4), (16, 16), (32, 16), (40, 8), (48, 16), (64, 16), (80, 16), (128, 16),
                                     (256, 16)])
def test_thread_staging_addresses(words, q):
    """Both staging paths store each word of the warp's instances exactly once, inside the warp's region: all N words
    of all 32 instances at the kernel's size; below it, the words of the live instances and every row past n."""
    sp = thread_plan(words // q, q)
    got = staged_words(sp, words, WARP, True)
    assert set(got) == {(i, j) for i in range(WARP) for j in range(words)}
    for n in sorted({words - 1, words - 3, words // 2 + 1, 1}):
        for live in (WARP, 5, 1):
            got = staged_words(sp, n, live, False)
            want = {(i, j) for i in range(live) for j in range(n)} | {(i, j) for i in range(WARP)
                                                                      for j in range(n, words)}
            assert set(got) == want, (n, live)


def test_thread_divide_exact():
    """kernel_sqr_thread.j2's staging: word g of the warp's span (32 instances of n words, g < 32 N, n <= N <=
    THREAD_MAX_WORDS) is in instance mulhi(g, m), m = divide_magic(n) (n = 1: g itself)."""
    N = THREAD_MAX_WORDS
    for n in range(2, N + 1):
        m = divide_magic(n)
        assert m <= MASK
        bad = [g for g in range(32 * N) if (g * m) >> 32 != g // n]
        assert not bad, (n, bad[:3])


# ---- the families: their variants render for both backends ----
def family_variants(fam, bits):
    from generator.space import CONSTRAINTS
    out = []
    for q in fam.qs:
        for ipb in fam.ipbs:
            for lanes in fam.lanes:
                for backend in ("cuda", "opencl"):
                    v = Variant(op="sqr", bits=bits, limb="u32", q=q, ipb=ipb, backend=backend, lanes=lanes,
                                owner=fam.owners == (True,), staged=fam.staged == (True,))
                    checks = [c for c in CONSTRAINTS if c.name not in ("known_op", "shared_memory",
                                                                        "multi_instance_block")] + list(fam.constraints)
                    legal = all(c.holds(v) for c in checks if c.kind == "legal")
                    legal = legal and 4 * (fam.shared_words(v) + 32 + (v.block if backend == "opencl" else 0)) \
                        <= 227 * 1024
                    if legal:
                        out.append((v, [c.name for c in checks if c.kind == "prune" and not c.holds(v)]))
    return out


# what the prune rules leave for the tuner (CUDA; OpenCL alike): the measured winners (generator/sqr_plan.py)
UNPRUNED = {
    512: {"sqr_512_u32_q16_i128_t1"},
    1024: {"sqr_1024_u32_q16_i128_t1"},
    2048: {"sqr_2048_u32_q16_i128_t1"},
    4096: {"sqr_4096_u32_q16_i128_t1", "sqr_4096_u32_q16_i32_o8", "sqr_4096_u32_q8_i32_o16"},
    8192: {"sqr_8192_u32_q16_i64_t1", "sqr_8192_u32_q16_i32_o16", "sqr_8192_u32_q8_i32_o32"},
}


@pytest.mark.parametrize("bits", [384, 512, 1024, 1536, 2048, 4096, 8192])
def test_families_render(bits):
    """Every legal variant renders for both backends; the unpruned ones are the measured winners, and a size no block
    of 16 words divides keeps Q = 4 or 8 (plan.variants_for keeps the least-pruned)."""
    from generator.render import environment
    env = environment()
    legal = []
    for fam in (space.SQR_OWNER, space.SQR_THREAD):
        for v, pruned in family_variants(fam, bits):
            assert parse_name(v.name) == v
            src = env.get_template(fam.template).render(v=v, **fam.render_context(v))
            assert f"KERNEL({v.block}) {v.name}(" in src
            assert "(void)b;" in src   # b is a: never read
            legal.append((len(pruned), v.name.rsplit("_", 1)[0], v.backend))
    assert legal, f"no legal sqr variant at {bits} bits"
    fewest = min(p for p, _n, _b in legal)
    kept = {n for p, n, b in legal if p == fewest and b == "cuda"}
    if bits in UNPRUNED:
        assert fewest == 0 and kept == UNPRUNED[bits]
    else:
        assert kept and all("_t1" in n for n in kept)
