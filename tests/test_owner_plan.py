"""The balanced low half (`_oL`, generator/owner_plan.py, templates/kernel_mullo_owner.j2) run block by block in Python:
the warps' blocks cover the triangle once, the shared-memory layout holds, and the join's (carry, margin) codes give
a * b mod 2^bits on operands chosen to stress them."""

import random
from pathlib import Path

import pytest

from generator.expr import load
from generator.owner_plan import PAD, expr_slots, expr_steps, expr_supported, owner_plan

SHAPES = [(lanes, q) for lanes in (2, 4, 8, 16, 32) for q in (4, 8, 16)]


def blocks(x, lanes, q):
    return [(x >> (32 * q * i)) & ((1 << (32 * q)) - 1) for i in range(lanes)]


def partials(plan, a, b):
    """Each block's window as the template sums it: full products (2Q + 1 words), the top block mod B^Q."""
    q, bq = plan.q, 1 << (32 * plan.q)
    ab, bb = blocks(a, plan.lanes, q), blocks(b, plan.lanes, q)
    out = {}
    for w in range(plan.warps):
        for k in plan.blocks_of(w):
            s = sum(ab[i] * bb[j] for i, j in plan.products(k))
            out[k] = s % bq if plan.truncated(k) else s
    return out


def join(plan, part, margins=True, z=None, sub=False):
    """Result block k = P_k[0, Q) + P_(k-1)[Q, 2Q) + P_(k-2)[2Q] (+ z_k, or + ~z_k and 1 at block 0: a fused sum) +
    carry in, the carries from the codes as the template finds them (one pass over the lower blocks; `margins` False
    drops the carry that passes through a full block)."""
    q = plan.q
    bq = 1 << (32 * q)
    word = lambda x, j: (x >> (32 * j)) & 0xFFFFFFFF
    zb = blocks(z, plan.lanes, q) if z is not None else None
    sums, codes = [], []
    for k in range(plan.lanes):
        s = part[k] % bq
        if k >= 1:
            s += part[k - 1] >> (32 * q) & (bq - 1)
        if k >= 2:
            s += word(part[k - 2], 2 * q)
        if zb is not None:
            s += (bq - 1 - zb[k]) + (k == 0) if sub else zb[k]
        c, s = s // bq, s % bq
        assert c <= (2 if zb is None else 3)
        m = bq - s if bq - s <= 4 else 5
        sums.append(s)
        codes.append((c, m))
    result = 0
    for k in range(plan.lanes):
        cin = 0
        for c, m in codes[:k]:
            cin = c + (1 if margins and cin >= m else 0)
            assert cin <= 4
        result |= ((sums[k] + cin) % bq) << (32 * q * k)
    return result


def operands(lanes, q, rng):
    n = 32 * lanes * q
    top = (1 << n) - 1
    yield top, top                                   # (B^L - 1)^2: the longest carry runs
    yield top, 1
    yield 0, top
    yield 1 << (n - 1), 1 << (n - 1)
    yield top, (1 << (n // 2)) + 1                   # full blocks meeting carries from below
    yield (1 << (n // 2)) - 1, (1 << (n // 2)) + 1   # B^(L/2) squared minus one: all ones in the low half
    for _ in range(6):
        yield rng.getrandbits(n), rng.getrandbits(n)
    for _ in range(4):                               # runs of all-ones words with random breaks
        a = sum((0xFFFFFFFF if rng.random() < 0.9 else rng.getrandbits(32)) << (32 * i) for i in range(n // 32))
        yield a, top - rng.getrandbits(16)


@pytest.mark.parametrize("lanes,q", SHAPES)
def test_schedule_balanced_and_covering(lanes, q):
    plan = owner_plan(lanes, q)
    seen = [k for w in range(plan.warps) for k in plan.blocks_of(w)]
    assert sorted(seen) == list(range(lanes))                     # every block once
    h = plan.warps
    for w in range(h):
        first, second = plan.blocks_of(w)
        assert first < h <= second                                 # the layout's split (first partials own place)
        work = len(plan.products(first)) + len(plan.products(second)) * (0.5 if plan.truncated(second) else 1)
        assert lanes / 2 <= work <= lanes + 1                      # about L block products per warp
    assert sum(len(plan.products(k)) for k in range(lanes)) == lanes * (lanes + 1) // 2
    # the second blocks' partials (from block h on) go over a and b once every warp is done with them
    assert plan.lanes * plan.window * PAD - plan.part_words <= 2 * plan.operand_words
    assert plan.lanes * q * PAD <= 2 * plan.operand_words            # the results, over a and b at the end


@pytest.mark.parametrize("lanes,q", SHAPES)
def test_join_gives_the_low_half(lanes, q):
    plan = owner_plan(lanes, q)
    rng = random.Random(lanes * 100 + q)
    mod = 1 << (32 * lanes * q)
    for a, b in operands(lanes, q, rng):
        assert join(plan, partials(plan, a, b)) == a * b % mod, (hex(a), hex(b))


@pytest.mark.parametrize("lanes,q", SHAPES)
@pytest.mark.parametrize("sub", [False, True])
def test_fused_join_gives_product_plus_or_minus(lanes, q, sub):
    """x y + z and x y - z in one join (owner_plan.expr_steps), z all ones, zero and random."""
    plan = owner_plan(lanes, q)
    rng = random.Random(lanes * 7 + q + sub)
    mod = 1 << (32 * lanes * q)
    for a, b in operands(lanes, q, rng):
        for z in (mod - 1, 0, 1, rng.getrandbits(32 * lanes * q)):
            want = (a * b - z if sub else a * b + z) % mod
            assert join(plan, partials(plan, a, b), z=z, sub=sub) == want, (hex(a), hex(b), hex(z))


def test_join_without_margins_fails():
    """The model can fail: a join that ignores a carry passing through an all-ones block is wrong on (B^L - 1)^2."""
    plan = owner_plan(8, 4)
    mod = 1 << (32 * 8 * 4)
    bad = [(a, b) for a, b in operands(8, 4, random.Random(1)) if join(plan, partials(plan, a, b), False) != a * b % mod]
    assert bad


EXPRESSIONS = Path(__file__).resolve().parent.parent / "expressions"


def test_expression_slots_never_overlap_live_values():
    """expr_slots: a value keeps its slot from its definition to its last use; a step's result may only take the slot
    of an operand read for the last time by that very step (written after the step's barriers)."""
    for f in ("poly.expr", "six.expr"):
        p = load(EXPRESSIONS / f)
        if not expr_supported(p):
            assert f == "six.expr"   # sums only: the register family's
            continue
        slot, count = expr_slots(p)
        steps = expr_steps(p)
        born = {s.dst: j for j, s in enumerate(steps)}
        last = {}
        for j, s in enumerate(steps):
            for a in s.reads():
                last[a] = j
        last.update({val: len(steps) for _n, val in p.outputs})
        for v in slot:
            for u in slot:
                if u != v and slot[u] == slot[v] and born.get(u, -1) < born.get(v, -1):
                    # u is dead when v is written: u's last use is at or before v's defining step
                    assert last[u] <= born[v], (f, u, v)
        if f == "poly.expr":   # every sum fused into the product before it: 4 steps, 4 slots
            assert count == 4 and [s.z is not None for s in steps] == [True, True, False, True]
        assert all(val in slot for _n, val in p.outputs)
