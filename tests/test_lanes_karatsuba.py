"""One Karatsuba level over the register-resident pipeline (`_k1` variants), run word by word in Python: the
differences |a0 - a1| and |b0 - b1| with their borrows resolved across lanes by a ballot, the two half-lane
pipelines of each group, the join of the five terms with its ripple step and ballot, exactly as
templates/kernel_mul_lanes_k.j2 and generator/lanes_plan.py spell them, against Python integers. A lost carry or
borrow, a wrong sign or a carry that leaks between the instances of one warp shows up as a wrong product."""

import random
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from generator.lanes_plan import karatsuba_plan, lanes_chains  # noqa: E402

MASK = (1 << 32) - 1
WARP = 32


def add_words(x, y, cin):
    """x + y + cin over equal-length word lists: (words, carry out), as one add_cc / addc_cc chain."""
    out, c = [], cin
    for u, v in zip(x, y):
        s = u + v + c
        out.append(s & MASK)
        c = s >> 32
    return out, c


def ballot(bits):
    """The warp's 32 predicate bits as one word, lane i at bit i."""
    return sum(1 << i for i, b in enumerate(bits) if b)


def carry_in(g, p, c0, seg):
    """lanes_plan.carry_in_bits over the whole warp: each lane's carry in, from the lanes below it in its segment
    of `seg` lanes (generate g, propagate p, disjoint; c0: the carry into the segment's first lane). The top lane
    of a segment is masked out, so nothing crosses into the next instance's segment."""
    top = ballot([i % seg == seg - 1 for i in range(WARP)])
    G, P, C0 = ballot(g) & ~top, ballot(p) & ~top, ballot([c and i % seg == 0 for i, c in enumerate(c0)])
    X = G | P
    S = (X + G + C0) & MASK
    return [(((S ^ X ^ G) >> i) & 1) for i in range(WARP)]


def pipeline(xs, ys, q, p, steps):
    """The pipeline of kernel_mul_lanes.j2 on the h = len(xs) lanes of one group: lane k multiplies xs[k] by
    ys[s] at the product steps s < p; returns the block lane 0 passes at each of `steps` steps (the one lane h - 1
    receives and stores)."""
    h = len(xs)
    rows = lanes_chains(q, False)
    E = [[0] * (2 * q + 1) for _ in range(h)]
    O = [[0] * (2 * q - 1) for _ in range(h)]
    out = []
    for s in range(steps):
        S, cs = [], []
        for k in range(h):
            e, o, c = E[k], O[k], 0
            if s < p:
                for row in range(q):
                    bt = ys[s][row]
                    for ch in rows[row]:
                        arr = e if ch.sums == "E" else o
                        c = 0
                        for i, half, j in ch.ops:
                            prod = xs[k][j] * bt
                            t = arr[i] + ((prod & MASK) if half == "lo" else prod >> 32) + c
                            arr[i], c = t & MASK, t >> 32
                        if ch.carry_to is not None:
                            t = arr[ch.carry_to] + c
                            assert t <= MASK, "a chain's carry overflowed its last word"
                            arr[ch.carry_to] = t
            e[1:q], c = add_words(e[1:q], o[0:q - 1], 0)
            cs.append(c)
            S.append(e[:q])
        out.append(S[0])
        for k in range(h):
            e, o = E[k], O[k]
            oq = o[q - 1]
            E[k] = e[q:2 * q + 1] + [0] * q
            O[k] = o[q:2 * q - 1] + [0] * q
            incoming = S[(k + 1) % h] if k != h - 1 else [0] * q
            words, c = add_words(E[k][:q], incoming, cs[k])
            E[k][:q] = words
            assert E[k][q] + c <= MASK
            E[k][q] += c
            words, c = add_words(E[k][:q], [oq] + [0] * (q - 1), 0)
            E[k][:q] = words
            assert E[k][q] + c <= MASK
            E[k][q] += c
    return out


def abs_diff(lo, hi, seg):
    """|lo - hi| per lane block for every lane of the warp (lane i holds block i % seg of its segment), and each
    lane's sign (lo < hi): lo + ~hi + 1 per block, the borrows resolved by one ballot, then the conditional
    negation (x ^ mask) + 1 by another."""
    d, bo, z = [], [], []
    for x, y in zip(lo, hi):
        w, c = add_words(x, [v ^ MASK for v in y], 1)
        d.append(w)
        bo.append(1 - c)
        z.append(all(v == 0 for v in w))
    bi = carry_in(bo, z, [0] * WARP, seg)
    # the borrow out of each lane after its borrow in; the segment's top lane's is the sign
    bout = [bo[i] | (z[i] & bi[i]) for i in range(WARP)]
    sign = [bout[i - i % seg + seg - 1] for i in range(WARP)]
    for i in range(WARP):   # d - bi: d + all ones + (1 - bi)
        d[i], _ = add_words(d[i], [MASK] * len(d[i]), 1 - bi[i])
    e = [[v ^ (MASK if sign[i] else 0) for v in d[i]] for i in range(WARP)]
    ones = [all(v == MASK for v in w) for w in e]
    inc = carry_in([0] * WARP, ones, sign, seg)
    for i in range(WARP):
        e[i], _ = add_words(e[i], [0] * len(e[i]), inc[i])
    return e, sign


def karatsuba_warp(a_list, b_list, lanes, q, full):
    """One warp of `_k1` instances (32 / lanes of them, or one): returns each instance's result words."""
    kp = karatsuba_plan(lanes, q, full)
    h, m, C = kp.half, kp.half_words, kp.chunk
    per_warp = max(1, WARP // lanes)
    insts = [(a_list[i], b_list[i]) for i in range(per_warp)]
    # lane t of the warp: instance t // lanes, lane l = t % lanes, group g = l // h, lane within the group k
    X = [insts[t // lanes][0][(t % lanes) * q:(t % lanes + 1) * q] if t // lanes < per_warp else [0] * q
         for t in range(WARP)]
    Y = [insts[t // lanes][1][(t % lanes) * q:(t % lanes + 1) * q] if t // lanes < per_warp else [0] * q
         for t in range(WARP)]
    partner = [t ^ h for t in range(WARP)]
    lo_a = [X[partner[t]] if (t % lanes) >= h else X[t] for t in range(WARP)]
    hi_a = [X[t] if (t % lanes) >= h else X[partner[t]] for t in range(WARP)]
    lo_b = [Y[partner[t]] if (t % lanes) >= h else Y[t] for t in range(WARP)]
    hi_b = [Y[t] if (t % lanes) >= h else Y[partner[t]] for t in range(WARP)]
    da, sa = abs_diff(lo_a, hi_a, h)
    db, sb = abs_diff(lo_b, hi_b, h)
    results = []
    for inst in range(per_warp):
        base = inst * lanes
        tau = 1 if sa[base] == sb[base] else 0      # subtract |Da||Db| (same signs) or add it
        mask = MASK if tau else 0
        U = [None] * (4 * m)
        MA, MB = [None] * (2 * m), [None] * (2 * m)
        for g in range(2):
            gb = base + g * h
            # the half products a0 b0 (group 0) and a1 b1 (group 1), emitted blocks into U
            out = pipeline([X[gb + k] for k in range(h)], [Y[gb + k] for k in range(h)], q, h, kp.p_steps)
            for s, blk in enumerate(out):
                U[(g * 2 * h + s) * q:(g * 2 * h + s + 1) * q] = blk
            # the middle product's half: |Da| times |Db|'s blocks g h/2 .. g h/2 + h/2 - 1
            ys = [db[gb + g * (h // 2) + s] for s in range(h // 2)]
            out = pipeline([da[gb + k] for k in range(h)], ys, q, h // 2, kp.m_steps)
            dest, at = (MA, 0) if g == 0 else (MB, h // 2)
            for s, blk in enumerate(out):
                if s < kp.m_store[g]:
                    dest[(at + s) * q:(at + s + 1) * q] = [v ^ mask for v in blk]
        # the join: owner lane l sums its C result words; words the pipelines left out read as the mask
        chunks, carries = [], []
        for l in range(lanes):
            acc, cacc = [0] * C, 0
            terms = [[U[w] for w in range(l * C, l * C + C)]]
            if kp.middle_from <= l * C < kp.middle_to:
                terms.append([U[w - m] for w in range(l * C, l * C + C)])
                terms.append([U[w + m] for w in range(l * C, l * C + C)])
                terms.append([MA[w - m] if MA[w - m] is not None else mask for w in range(l * C, l * C + C)])
                terms.append([MB[w - m] if MB[w - m] is not None else mask for w in range(l * C, l * C + C)])
            terms.append([kp.constant(w) if tau else 0 for w in range(l * C, l * C + C)])
            for term in terms:
                assert None not in term, "the join read a word no pipeline wrote"
                acc, c = add_words(acc, term, 0)
                cacc += c
            chunks.append(acc)
            carries.append(cacc)
        # ripple one step: each lane adds the carry of the lane below (lane 0: none); then the ballot
        gen, prop = [0] * WARP, [0] * WARP
        for l in range(lanes):
            cin = carries[l - 1] if l > 0 else 0
            assert cin <= MASK
            chunks[l], o = add_words(chunks[l], [cin] + [0] * (C - 1), 0)
            gen[base % WARP + l] = o
            prop[base % WARP + l] = all(v == MASK for v in chunks[l])
            assert not (gen[base % WARP + l] and prop[base % WARP + l])
        ci = carry_in(gen, prop, [0] * WARP, lanes)
        words = []
        for l in range(lanes):
            w, _ = add_words(chunks[l], [0] * C, ci[base % WARP + l])
            words += w
        results.append(words)
    return results


def words(value, n):
    return [(value >> (32 * i)) & MASK for i in range(n)]


def number(ws):
    return sum(w << (32 * i) for i, w in enumerate(ws))


# (lanes, Q): every shape generated for 2048..8192 bits (L = 4 .. 32, Q = 8 or 16), and the smallest (Q = 4)
SHAPES = [(4, 4), (4, 8), (8, 8), (4, 16), (16, 8), (8, 16), (32, 8), (16, 16)]


def operand_pairs(n, rng):
    top = (1 << (32 * n)) - 1
    half = 1 << (16 * n)
    vals = [(top, top), (0, top), (1, top), (top, 1), (1 << (32 * n - 1), top), (top >> 1, top),
            (top ^ (top >> 32), top), (half - 1, top), (top - (half - 1), top),     # a0 = 0 or a1 = 0 ...
            (half - 1, half - 1), (top - half + 1, top - half + 1), (half + 1, half + 1),  # a0 = a1 +- small
            (half * (half - 1), half - 1), (half * 5 + 5, half * 5 + 6), (half * 5 + 6, half * 5 + 5),
            ((half - 1) * half + 1, half * 3 + 2)]
    vals += [(rng.getrandbits(32 * n), rng.getrandbits(32 * n)) for _ in range(12)]
    vals += [(sum(MASK << (32 * i) for i in range(n) if rng.random() < 0.7),
              sum(MASK << (32 * i) for i in range(n) if rng.random() < 0.7)) for _ in range(6)]
    return vals


@pytest.mark.parametrize("lanes,q", SHAPES)
@pytest.mark.parametrize("full", [True, False], ids=["mul", "mullo"])
def test_karatsuba_plan_against_python(lanes, q, full):
    n = lanes * q
    rng = random.Random(lanes * 1000 + q)
    vals = operand_pairs(n, rng)
    per_warp = max(1, WARP // lanes)
    top = (1 << (32 * n)) - 1
    # the instances of one warp differ, so a carry leaking from one segment into the next shows
    for i in range(0, len(vals), per_warp):
        group = (vals[i:i + per_warp] + vals[:per_warp])[:per_warp]
        got = karatsuba_warp([words(a, n) for a, _ in group], [words(b, n) for _, b in group], lanes, q, full)
        for (a, b), r in zip(group, got):
            want = a * b if full else (a * b) & top
            assert number(r) == want, f"lanes {lanes} q {q} {'mul' if full else 'mullo'}: a={a:#x} b={b:#x}"


def test_carry_in_matches_the_recurrence():
    """The ballot formula against the lane-by-lane recurrence c(i+1) = g(i) or (p(i) and c(i)), per segment."""
    rng = random.Random(5)
    for seg in (2, 4, 8, 16, 32):
        for _ in range(300):
            g = [rng.random() < 0.3 for _ in range(WARP)]
            p = [(not g[i]) and rng.random() < 0.6 for i in range(WARP)]
            c0 = [rng.random() < 0.5 for _ in range(WARP)]
            got = carry_in(g, p, c0, seg)
            for base in range(0, WARP, seg):
                c = int(c0[base])
                for i in range(base, base + seg):
                    assert got[i] == c, (seg, base, i)
                    c = int(g[i] or (p[i] and c))
