"""The register-resident multiplication's plan, run word by word in Python: generator/lanes_plan.py's chains and
the step pipeline of templates/kernel_mul_lanes.j2, with 32-bit words and a carry flag, against Python integers.
A carry that the plan lets overflow (a chain ending in a word that is not small) shows up here as a wrong product,
on every backend and without a GPU."""

import random
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from generator.lanes_plan import lanes_chains  # noqa: E402

MASK = (1 << 32) - 1


class Flag:
    """The carry flag of one lane's chains."""

    def __init__(self):
        self.c = 0

    def add(self, x, y, carry_in):
        s = x + y + (self.c if carry_in else 0)
        self.c = s >> 32
        return s & MASK


def run_rows(f, E, O, rows, xw, bt):
    """One row's chains into E and O (lib_lanes.j2's row_products), a carry into a chain's last word checked."""
    for ch in rows:
        arr = E if ch.sums == "E" else O
        for k, (i, half, j) in enumerate(ch.ops):
            p = xw[j] * bt
            arr[i] = f.add(arr[i], (p & MASK) if half == "lo" else p >> 32, k > 0)
        if ch.carry_to is not None:
            before = arr[ch.carry_to]
            arr[ch.carry_to] = f.add(arr[ch.carry_to], 0, True)
            assert arr[ch.carry_to] >= before, "a chain's carry overflowed its last word"


def close_block(f, e, o, q):
    """A lane's low Q words of E + O at the end of a step (final for the block it stands at), into e."""
    e[1] = f.add(e[1], o[0], False)
    for j in range(2, q):
        e[j] = f.add(e[j], o[j - 1], True)
    return e[:q]


def next_windows(E, O, S, cs, lanes, q):
    """lib_lanes.j2's next_window for every lane: the high words move down, the low block of the lane above (S) and
    the step's carry (cs) come in."""
    for l in range(lanes):
        e, o, f = E[l], O[l], Flag()
        oq = o[q - 1]
        E[l] = e[q:2 * q + 1] + [0] * q
        O[l] = o[q:2 * q - 1] + [0] * q
        incoming = S[(l + 1) % lanes] if l != lanes - 1 else [0] * q
        f.c = cs[l]
        for j in range(q):
            E[l][j] = f.add(E[l][j], incoming[j], True)
        E[l][q] = f.add(E[l][q], 0, True)
        E[l][0] = f.add(E[l][0], oq, False)
        for j in range(1, q):
            E[l][j] = f.add(E[l][j], 0, True)
        E[l][q] = f.add(E[l][q], 0, True)


def lane_product(a_words, b_words, lanes, q, full, skip=False):
    """The kernel's steps for one instance: returns the product's words (2n for mul, n for mullo). `skip`: lanes
    leave out the steps whose products land at or above word block `lanes` (the low half's shortcut)."""
    rows = lanes_chains(q, not full and lanes == 1)
    x = [a_words[l * q:(l + 1) * q] for l in range(lanes)]
    y = [b_words[l * q:(l + 1) * q] for l in range(lanes)]
    E = [[0] * (2 * q + 1) for _ in range(lanes)]
    O = [[0] * (2 * q - 1) for _ in range(lanes)]
    out = []
    for s in range(2 * lanes if full else lanes):
        S, cs = [], []
        for l in range(lanes):
            f = Flag()
            if s < lanes and not (skip and s + l >= lanes):
                for row in range(q):
                    run_rows(f, E[l], O[l], rows[row], x[l], y[s][row])
            S.append(close_block(f, E[l], O[l], q))
            cs.append(f.c)
        out += S[0]    # lane L - 1 receives lane 0's words and stores them
        next_windows(E, O, S, cs, lanes, q)
    return out


def words(value, n):
    return [(value >> (32 * i)) & MASK for i in range(n)]


def number(ws):
    return sum(w << (32 * i) for i, w in enumerate(ws))


SHAPES = [(1, 4), (1, 8), (1, 32), (2, 4), (2, 8), (4, 4), (4, 8), (8, 4)]   # (1, 32): the staged thread's mullo 1024


@pytest.mark.parametrize("lanes,q", SHAPES)
@pytest.mark.parametrize("full,skip", [(True, False), (False, False), (False, True)],
                         ids=["mul", "mullo", "mullo_skipping"])
def test_lanes_plan_against_python(lanes, q, full, skip):
    n = lanes * q
    rng = random.Random(lanes * 100 + q)
    top = (1 << (32 * n)) - 1
    values = [(top, top), (0, top), (1, top), (top, 1), (1 << (32 * n - 1), top), (top >> 1, top),
              (top ^ (top >> 32), top)]   # all ones: the largest partial sums and carries
    values += [(rng.getrandbits(32 * n), rng.getrandbits(32 * n)) for _ in range(20)]
    values += [(rng.choice([0, MASK]) * 0 + sum(MASK << (32 * i) for i in range(n) if rng.random() < 0.7), top)
               for _ in range(10)]
    for a, b in values:
        got = number(lane_product(words(a, n), words(b, n), lanes, q, full, skip))
        want = a * b if full else (a * b) & top
        assert got == want, f"lanes {lanes} q {q} {'mul' if full else 'mullo'}: a={a:#x} b={b:#x}"


@pytest.mark.parametrize("words", [16, 32])
def test_staged_thread_divide_exact(words):
    from generator.space import LANES
    assert max(LANES.qs) <= 32   # the largest staged thread this covers
    """lib_thread_io.j2's DIVIDE_EXACT: a staged thread (_t1, up to 32 words) finds the instance of word g of its warp's
    span (32 instances of n <= words words) as (g m) >> 16, m = ceil(2^16 / n)."""
    for n in range(1, words + 1):
        m = -(-65536 // n)
        assert all((g * m) >> 16 == g // n for g in range(32 * words)), n
