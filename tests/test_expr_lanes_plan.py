"""The register-resident expression family (EXPR_LANES, templates/kernel_expr_lanes.j2) run word by word in Python: a
warp of 32 lanes holding 32/L instances, every value L x Q words, sums by one carry chain per lane and the ballot of
generate/propagate bits across the instance's lanes, products by the lanes pipeline's low half with block s taken by
lane s; whole programs (six, poly, a sum-and-difference chain) against generator/expr.py's reference. A carry lost
between lanes, or one leaking into the next instance of the warp, shows up as a wrong value. Also the family's
register count and its constraint rows."""

import random
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from generator import expr_lanes_plan, expr_plan, space  # noqa: E402
from generator.expr import load, parse  # noqa: E402
from generator.lanes_plan import lanes_chains, segment_masks  # noqa: E402
from generator.variant import Variant  # noqa: E402
from test_lanes_plan import Flag, close_block, lane_product, next_windows, run_rows  # noqa: E402

from test_lanes_karatsuba import MASK, WARP, add_words, ballot  # noqa: E402  (the warp model's primitives)


def chain(x, y, cin=0):
    """x + y + cin over one lane's Q words, as the template's add_cc / addc_cc chain: (words, carry out)."""
    return add_words(x, y, cin)


def carry_ins(g, p, sub, lanes, resolve=True):
    """The template's carry_in: each lane's carry from the lanes below it in its instance. `resolve=False` is a
    broken kernel (each lane takes only its neighbour's carry out, as if no carry propagated through a lane),
    which the tests below must catch."""
    top, first = segment_masks(lanes)
    G, P = ballot(g) & ~top & MASK, ballot(p) & ~top & MASK
    C0 = first if sub else 0
    if not resolve:
        return [((C0 >> i) & 1) | (i % lanes and g[i - 1]) for i in range(WARP)]
    X = G | P
    S = (X + G + C0) & MASK
    return [((S ^ X ^ G) >> i) & 1 for i in range(WARP)]


def warp_sum(xs, ys, sub, lanes, resolve=True):
    """One add or sub step over the warp: xs, ys are each lane's Q words."""
    parts = [chain(x, [(~w) & MASK for w in y] if sub else y) for x, y in zip(xs, ys)]
    g = [c for _d, c in parts]
    p = [all(w == MASK for w in d) for d, _c in parts]
    assert not any(a and b for a, b in zip(g, p)), "generate and propagate must be disjoint"
    cin = carry_ins(g, p, sub, lanes, resolve)
    return [chain(d, [0] * len(d), c)[0] for (d, _c), c in zip(parts, cin)]


def warp_mullo(xs, ys, lanes, q):
    """The pipeline's low half per instance; lane s of the instance takes block s (what lane 0 passes at step s)."""
    out = []
    for first in range(0, WARP, lanes):
        a = [w for l in range(lanes) for w in xs[first + l]]
        b = [w for l in range(lanes) for w in ys[first + l]]
        blocks = lane_product(a, b, lanes, q, False)
        out += [blocks[s * q:(s + 1) * q] for s in range(lanes)]
    return out


def square_cross(x, sq, skip_mask=False):
    """The square's pipeline for one instance (x: each lane's Q words): T's blocks, lane s taking block s. Lane l
    adds its products at step s only where sq.contributes(l, s) (the template's `lane > s ? bt : 0` inside
    `s < product_steps`); `skip_mask` is a broken kernel in which every lane adds A_l A_s at those steps."""
    lanes, q = sq.lanes, sq.q
    rows = lanes_chains(q, False)
    E = [[0] * (2 * q + 1) for _ in range(lanes)]
    O = [[0] * (2 * q - 1) for _ in range(lanes)]
    out = []
    for s in range(lanes):
        S, cs = [], []
        for l in range(lanes):
            f = Flag()
            if s < sq.product_steps:
                for row in range(q):
                    bt = x[s][row] if sq.contributes(l, s) or skip_mask else 0
                    run_rows(f, E[l], O[l], rows[row], x[l], bt)
            S.append(close_block(f, E[l], O[l], q))
            cs.append(f.c)
        out.append(S[0])
        next_windows(E, O, S, cs, lanes, q)
    return out


def own_square(xw, sq):
    """A lane's own square, 2Q words, as square_finish spells it: the off-diagonal chains, E + O, doubled by a shift,
    the diagonal added in one chain."""
    q = sq.q
    E, O = [0] * (2 * q + 1), [0] * (2 * q - 1)
    for row in range(q - 1):
        run_rows(Flag(), E, O, sq.own_rows[row], xw, xw[row])
    f = Flag()
    S = [E[0]] + [f.add(E[j], O[j - 1], j > 1) for j in range(1, 2 * q)]
    assert f.c == 0, "the off-diagonal sum is below 2^(64 Q - 1)"
    S = [((S[j] << 1) | (S[j - 1] >> 31 if j else 0)) & MASK for j in range(2 * q)]
    f = Flag()
    for i in range(q):
        p = xw[i] * xw[i]
        S[2 * i] = f.add(S[2 * i], p & MASK, i > 0)
        S[2 * i + 1] = f.add(S[2 * i + 1], p >> 32, True)
    assert f.c == 0, "a square fits its 2Q words"
    return S


def warp_square(xs, lanes, q, skip_mask=False):
    """A square step over the warp: T by the pipeline, each lane's own square, then 2 T + D with the sums' ballot."""
    sq = expr_lanes_plan.square_plan(lanes, q)
    T, D = [], []
    for first in range(0, WARP, lanes):
        x = xs[first:first + lanes]
        T += square_cross(x, sq, skip_mask)
        own = [own_square(w, sq) for w in x]
        D += [own[l // 2][(l % 2) * q:(l % 2 + 1) * q] for l in range(lanes)]
    T2 = []
    for i, block in enumerate(T):
        below = T[i - 1][q - 1] >> 31 if i % lanes else 0
        T2.append([((block[j] << 1) | (block[j - 1] >> 31 if j else below)) & MASK for j in range(q)])
    return warp_sum(T2, D, False, lanes)


def split(values, lanes, q):
    """Instances' values -> each lane's Q words (lane l of instance i at i L + l)."""
    return [[(v >> (32 * (l * q + j))) & MASK for j in range(q)] for v in values for l in range(lanes)]


def join(lane_words, lanes, q):
    return [sum(w << (32 * (l * q + j)) for l in range(lanes) for j, w in enumerate(lane_words[i * lanes + l]))
            for i in range(WARP // lanes)]


def run_program(prog, inputs, lanes, q, resolve=True):
    """The kernel's steps over one warp: inputs is {name: [value per instance]}; returns {output: [values]}."""
    vals = [split(inputs[name], lanes, q) for name in prog.inputs]
    for s in prog.steps:
        x = vals[s.args[0]] if s.args else None
        y = vals[s.args[1]] if len(s.args) > 1 else None
        if s.op in ("add", "sub"):
            vals.append(warp_sum(x, y, s.op == "sub", lanes, resolve))
        elif s.op == "mullo" and s.args[0] == s.args[1] and expr_lanes_plan.square_plan(lanes, q):
            vals.append(warp_square(x, lanes, q))
        elif s.op == "mullo":
            vals.append(warp_mullo(x, y, lanes, q))
        elif s.op == "const":
            vals.append([[s.value if l % lanes == 0 and j == 0 else 0 for j in range(q)] for l in range(WARP)])
        else:
            raise AssertionError(f"EXPR_LANES does not spell {s.op}")
    return {name: join(vals[v], lanes, q) for name, v in prog.outputs}


def patterns(bits, rng):
    """Values per instance of a warp: carries and borrows through every word and every lane boundary."""
    top = (1 << bits) - 1
    lane_edge = [top ^ ((1 << (bits // 2)) - 1), (1 << (bits // 2)) - 1]
    pool = [0, 1, top, top - 1, 1 << (bits - 1), top >> 1, top ^ 1] + lane_edge
    return pool + [rng.getrandbits(bits) for _ in range(8)] + [
        sum(MASK << (32 * i) for i in range(bits // 32) if rng.random() < 0.8) for _ in range(4)]


SQUARES = parse("expr squares\ninput a, b\nc = a * a\nd = sqr(c + b)\noutput r = d * d + c\noutput s = sqr(b)\n",
               "squares.expr")
SUMS = parse("expr chain\ninput a, b, c\nd = a - b\ne = d + c\nf = e - 1\noutput r = f + f - a\n"
             "output s = 0 - b\n", "chain.expr")
PROGRAMS = {"six": load(ROOT / "expressions" / "six.expr"), "poly": load(ROOT / "expressions" / "poly.expr"),
            "chain": SUMS, "squares": SQUARES}
SHAPES = [(1, 4), (2, 4), (4, 4), (8, 4), (32, 4), (2, 8), (4, 8), (16, 4), (2, 16)]


@pytest.mark.parametrize("lanes,q", SHAPES)
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_programs_against_reference(name, lanes, q):
    prog = PROGRAMS[name]
    bits = 32 * lanes * q
    rng = random.Random(lanes * 1000 + q)
    pool = patterns(bits, rng)
    per = WARP // lanes
    for trial in range(6):
        inputs = {n: [rng.choice(pool) for _ in range(per)] for n in prog.inputs}
        got = run_program(prog, inputs, lanes, q)
        for i in range(per):
            want = expr_plan_reference(prog, {n: inputs[n][i] for n in prog.inputs}, bits)
            for out in want:
                assert got[out][i] == want[out], f"{name} lanes {lanes} q {q} instance {i} output {out}"


def expr_plan_reference(prog, inputs, bits):
    from generator.expr import evaluate
    return evaluate(prog, inputs, bits)


@pytest.mark.parametrize("sub", [False, True], ids=["add", "sub"])
@pytest.mark.parametrize("lanes", [2, 4, 8, 32])
def test_sum_carries_across_lanes(sub, lanes):
    """all ones + 1 (add) and 2^(bits - 32 Q) - 0 as a + ~0 + 1 (sub) carry through every lane of every instance;
    the top lane's carry is dropped and does not reach the next instance of the warp; a model without the ballot's
    propagation gives a wrong sum (so the test can fail)."""
    q, bits = 4, 32 * lanes * 4
    top = (1 << bits) - 1
    per = WARP // lanes
    a = [1 << (bits - 32 * q) if sub else top] * per
    b = [0 if sub else 1] * per
    if per > 1:   # a neighbour that borrows through the top or carries only in lane 0
        a[1], b[1] = (3, 5) if sub else (top - 5, 1)
    want = [((x - y) if sub else (x + y)) & top for x, y in zip(a, b)]
    got = join(warp_sum(split(a, lanes, q), split(b, lanes, q), sub, lanes), lanes, q)
    assert got == want
    broken = join(warp_sum(split(a, lanes, q), split(b, lanes, q), sub, lanes, resolve=False), lanes, q)
    if sub or lanes > 2:   # add on 2 lanes needs no propagation through a lane
        assert broken != want, "a model that loses the carries through all-ones lanes must fail here"


def variant(op, bits, q, lanes, backend="cuda"):
    return Variant(op=op, bits=bits, limb="u32", q=q, ipb=space.LANES_BLOCK // lanes, backend=backend, lanes=lanes)


@pytest.fixture
def programs():
    saved = dict(expr_plan.PROGRAMS)
    expr_plan.PROGRAMS.clear()
    mix = load(ROOT / "tests" / "expressions" / "mix.expr")
    big = parse("expr big\ninput a, b, c, d, e\nf = a * b\ng = c * d\nh = e * f\noutput r = f + g + h + a + b + c + d"
                "\n", "big.expr")
    expr_plan.PROGRAMS.update({p.op: p for p in (PROGRAMS["poly"], PROGRAMS["six"], mix, big)})
    yield
    expr_plan.PROGRAMS.clear()
    expr_plan.PROGRAMS.update(saved)


def test_register_count_and_constraints(programs):
    """poly fits at Q = 8 and 16 (161 words: a, b and the product, plus the pipeline); full products are refused by
    a legal row; a program holding too many values beside a product is pruned."""
    poly = PROGRAMS["poly"]
    assert expr_lanes_plan.live_words(poly, 8) == 3 * 8 + 57
    assert expr_lanes_plan.live_words(poly, 16) == 161
    assert space.failed_constraint(variant("expr_poly", 2048, 16, 4)) is None
    assert space.failed_constraint(variant("expr_poly", 2048, 8, 8)) is None
    assert space.failed_constraint(variant("expr_six", 8192, 16, 16)) is None
    assert space.failed_constraint(variant("expr_mix", 2048, 8, 8)).name == "expr_lanes_ops"
    assert space.failed_constraint(variant("expr_big", 2048, 16, 4)).name == "expr_lanes_registers"
    assert space.failed_constraint(variant("expr_poly", 16384, 16, 32)).name == "expr_lanes_max_bits"
    assert space.family_of(variant("expr_poly", 2048, 8, 8)).template == "kernel_expr_lanes.j2"


@pytest.mark.parametrize("lanes,q", [(2, 4), (4, 4), (8, 4), (16, 4), (32, 4), (2, 8), (4, 8), (2, 16), (8, 16)])
def test_square_against_reference(lanes, q):
    """A square step (a * a) on L >= 2 lanes: T by the pipeline's first L // 2 steps with lanes above the step only,
    each lane's own square, 2 T + D with the ballot, word by word, for every instance of a warp, against a^2 mod
    2^bits; all ones, a top bit in every word (the doubling's shift across lanes), single bits at lane edges."""
    bits = 32 * lanes * q
    top = (1 << bits) - 1
    rng = random.Random(lanes * 7 + q)
    per = WARP // lanes
    pool = patterns(bits, rng) + [sum(0x80000000 << (32 * i) for i in range(bits // 32)), top << (bits // 2) & top,
                                  sum(MASK << (32 * (l * q + q - 1)) for l in range(lanes))]
    for trial in range(4):
        vals = [pool[(trial * per + i) % len(pool)] if trial < 2 else rng.choice(pool) for i in range(per)]
        got = join(warp_square(split(vals, lanes, q), lanes, q), lanes, q)
        assert got == [v * v & top for v in vals], f"lanes {lanes} q {q} trial {trial}"


def test_square_plan_can_fail():
    """A pipeline that lets every lane add its products (no `lane > s` mask) counts the off-diagonal blocks twice
    and the diagonal ones in T: the model must see it."""
    lanes, q = 4, 4
    bits = 32 * lanes * q
    vals = [(1 << bits) - 1 - i for i in range(WARP // lanes)]
    good = join(warp_square(split(vals, lanes, q), lanes, q), lanes, q)
    bad = join(warp_square(split(vals, lanes, q), lanes, q, skip_mask=True), lanes, q)
    want = [v * v % (1 << bits) for v in vals]
    assert good == want and bad != want


def test_square_work():
    """Word products per lane: L // 2 steps of Q^2 plus the own square (Q (Q + 1) / 2) against L Q^2."""
    assert expr_lanes_plan.square_plan(1, 16) is None
    assert expr_lanes_plan.square_plan(2, 16).word_products() == 256 + 136
    assert expr_lanes_plan.square_plan(16, 16).word_products() == 8 * 256 + 136
    sq = expr_lanes_plan.square_plan(8, 8)
    assert [s for s in range(8) if any(sq.contributes(l, s) for l in range(8))] == [0, 1, 2, 3]
