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


def thread_function(words, coefs, xs, k, chunk, cmax, head=None):
    """What a thread computes: its chunk's sum word by word, the carry out c and margin m, packed as the kernel does
    (the instance's first thread a constant; `head` says which threads start an instance, default k == 0)."""
    acc, out = 0, []
    for w in range(chunk):
        acc += sum(c * x[k * chunk + w] for c, x in zip(coefs, xs))
        out.append(acc & 0xFFFFFFFF)
        acc >>= 32
    s = sum(v << (32 * i) for i, v in enumerate(out))
    m = (1 << (32 * chunk)) - s
    m = m if m <= cmax else cmax + 1
    return out, (acc, INF) if (k == 0 if head is None else head) else (acc, m)


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


# ---- over several blocks: tiles with carry in 0, then the fix-up's scan of their functions (EXPR_GRID) ----
from generator.expr_plan import ID, apply, combine, is_constant   # noqa: E402


def tile_functions(words, coefs, xs, tile_words, chunk, cmax, tile):
    """The tile kernel on one tile: its words with carry in 0 (the one-block scan, the tile as the instance, only the
    instance's first tile starting with a constant) and the tile's function, folded over its threads in order."""
    ti = tile_words // chunk
    sub = [x[tile * tile_words:(tile + 1) * tile_words] for x in xs]
    fs, chunks = [], []
    for k in range(ti):
        out, f = thread_function(tile_words, coefs, sub, k, chunk, cmax, head=k == 0 and tile == 0)
        fs.append(f)
        chunks.append(out)
    cins = [0] + [apply(g, 0) for g in _inclusive(fs)][:-1]   # carry in 0 to the tile
    words_out = []
    for k in range(ti):
        s = sum(v << (32 * i) for i, v in enumerate(chunks[k])) + cins[k]
        words_out += [(s >> (32 * i)) & 0xFFFFFFFF for i in range(chunk)]
    total = ID
    for a, m in fs:
        total = combine(total, a | m << 16)
    return words_out, total


def _inclusive(fs):
    acc, out = ID, []
    for a, m in fs:
        acc = combine(acc, a | m << 16)
        out.append(acc)
    return out


def fixup(states, tiles, block):
    """The fix-up kernel: one thread per tile, `block` tiles per block, instances back to back; each block scans its
    tiles' functions (an instance's first tile forced constant), and its first tile's carry comes from looking back
    over the functions below it, `block` at a time, until the fold is a constant. Returns each tile's carry in."""
    cins = []
    for first in range(0, len(states), block):
        own = [(s | 0xFFFF0000) if g % tiles == 0 else s for g, s in enumerate(states[first:first + block], first)]
        excl, acc = [], ID
        for f in own:
            excl.append(acc)
            acc = combine(acc, f)
        tile0, below = first % tiles, ID
        if tile0 > 0:
            below = states[first - 1]
            if not is_constant(below):
                acc, hi = ID, tile0
                while hi > 0 and not is_constant(acc):
                    lo = max(hi - block, 0)
                    fold = ID
                    for f in states[first - tile0 + lo:first - tile0 + hi]:
                        fold = combine(fold, f)
                    acc = combine(fold, acc)
                    hi = lo
                below = acc
        for g, e in enumerate(excl, first):
            cins.append(0 if g % tiles == 0 else apply(e, apply(below, 0)))
    return cins


@pytest.mark.parametrize("coefs,tile_words,chunk,block", [((6, 10), 8, 4, 4), ((6, 10), 16, 4, 2), ((1026, 3, 1), 8, 2, 4),
                                                        ((1, 1), 4, 4, 3)])
def test_tiles_and_fixup_give_the_sum(coefs, tile_words, chunk, block):
    """Instances of several tiles whose fix-up blocks start inside instances and look back over more than a block: the
    tiles' words plus their carries in, rippled, are the exact sums (all-ones operands, near-powers, random)."""
    rng = random.Random(sum(coefs) * tile_words + block)
    cmax = sum(coefs)
    for words in (5 * tile_words, 3 * tile_words + chunk, 9 * tile_words):
        mod, tiles = 1 << (32 * words), -(-words // tile_words)
        padded = tiles * tile_words
        for pattern in ("random", "ones", "near", "ones_plus_one"):
            insts = []
            for _ in range(4):
                if pattern == "random":
                    xs = [rng.getrandbits(32 * words) for _c in coefs]
                elif pattern == "ones":
                    xs = [mod - 1 for _c in coefs]
                elif pattern == "ones_plus_one":
                    xs = [mod - 1] + [1] * (len(coefs) - 1)
                else:   # the sum just below a power of the word base: functions that depend on their carry in
                    rest = [rng.getrandbits(32 * words - 12) for _c in coefs[1:]]
                    xs = [((mod - 1 - sum(c * x for c, x in zip(coefs[1:], rest))) // coefs[0]) % mod] + rest
                insts.append(xs)
            states, outs = [], []
            for xs in insts:
                ws = [[(v >> (32 * i)) & 0xFFFFFFFF for i in range(padded)] for v in xs]
                words_out = []
                for tile in range(tiles):
                    w, f = tile_functions(padded, coefs, ws, tile_words, chunk, cmax, tile)
                    words_out += w
                    states.append(f)
                outs.append(words_out)
            cins = fixup(states, tiles, block)
            for n, xs in enumerate(insts):
                got = 0
                for tile in range(tiles):
                    part = sum(v << (32 * i) for i, v in enumerate(outs[n][tile * tile_words:(tile + 1) * tile_words]))
                    part = (part + cins[n * tiles + tile]) % (1 << (32 * tile_words))   # the ripple
                    got |= part << (32 * tile_words * tile)
                assert got % mod == sum(c * x for c, x in zip(coefs, xs)) % mod, (pattern, words, n)


def test_combine_has_an_identity():
    for f in ((3 | 5 << 16), (4 | INF << 16), (0 | 1 << 16)):
        assert combine(ID, f) == f and combine(f, ID) == f
        assert apply(ID, 7) == 7 and not is_constant(ID)
    assert is_constant(combine(2 | 5 << 16, 9 | INF << 16))   # a constant after anything is a constant
