"""The classical full square (kernel_mul.j2 rendered for sqr, templates/lib_sqr_classical.j2) run word by word in
Python: each region's cross products once, doubled, plus its diagonal squares, then mul's overflow and summing phases
(lib_mul.j2's product), against Python's a * a. The model follows the template statement by statement: change them
together."""

import random

import pytest

RQS = (2, 4, 8)          # limbs per region (the generated ones are 4 and 8; 2 is the smallest the summing bound allows)
WIDTHS = (32, 64)        # u32 and u64 limbs
TIS = (1, 2, 3, 4, 5, 7, 8, 16, 17)   # threads per instance: the run-time sizes below a kernel's give any ti


class Chain:
    """A carry chain of the prelude's primitives on limbs of `width` bits; addc (no .cc) must not lose a carry."""

    def __init__(self, width):
        self.b = 1 << width
        self.cc = 0
        self.mads = 0                      # multiply-adds issued (mad/madc lo and hi)

    def _add(self, x, y, cin):
        s = x + y + cin
        self.cc = s // self.b
        return s % self.b

    def mad_lo(self, x, y, c, first):
        self.mads += 1
        return self._add(x * y % self.b, c, 0 if first else self.cc)

    def mad_hi(self, x, y, c, first):
        self.mads += 1
        return self._add(x * y // self.b, c, 0 if first else self.cc)

    def addc_cc(self, x, y, first=False):
        return self._add(x, y, 0 if first else self.cc)

    def addc(self, x, y):
        s = x + y + self.cc
        assert s < self.b, "a chain carried out of V[RQ + 1]"
        return s


def square_region(mem, mp, ob, rq, ch):
    """lib_sqr_classical.j2's region: V (rq + 2 limbs) for result limbs ob .. ob + rq - 1 of a^2. `mem` holds the
    instance's mp limbs followed by another instance's (what the guards must keep out)."""
    def load(idx):
        assert 0 <= idx < len(mem)
        return mem[idx]                    # an unguarded index past the instance reads garbage

    h = ob >> 1
    ilo = ob + 1 - mp if ob + 1 > mp else 0
    i = ilo - ilo % rq
    w = [load(ob + s - i) if ob + s - i < mp else 0 for s in range(rq)]
    V = [0] * (rq + 2)

    def row(u):
        assert i + u < h
        x = load(i + u)                    # unmasked: a row below ilo meets a window of zeros
        for j in range(rq):
            V[j] = ch.mad_lo(x, w[(j - u) % rq], V[j], j == 0)
        V[rq] = ch.addc_cc(V[rq], 0)
        V[rq + 1] = ch.addc(V[rq + 1], 0)
        for j in range(rq):
            V[j + 1] = ch.mad_hi(x, w[(j - u) % rq], V[j + 1], j == 0)
        V[rq + 1] = ch.addc(V[rq + 1], 0)
        e = ob - (i + u) - 1
        assert h <= e < mp                 # unmasked: the entering limb is always one of the instance's
        w[(-u - 1) % rq] = load(e)

    rows = 0
    while i < h:                           # whole rows, rq a step
        half = i + rq // 2 >= h            # the template's break in the middle of the step: h - i = rq/2
        assert not half or h - i == rq // 2
        for u in range(rq // 2 if half else rq):
            row(u)
            rows += 1
        if half:
            break
        i += rq
    steps = rows // (rq // 2)              # half steps
    w = [load(h + c) if h + c < mp else 0 for c in range(rq)]   # the triangle
    for d in range(rq // 2):
        for c in range(1, rq - 2 * d):
            V[2 * d + c] = ch.mad_lo(w[d], w[d + c], V[2 * d + c], c == 1)
        V[rq] = ch.addc_cc(V[rq], 0)
        V[rq + 1] = ch.addc(V[rq + 1], 0)
        for c in range(1, rq - 2 * d):
            V[2 * d + c + 1] = ch.mad_hi(w[d], w[d + c], V[2 * d + c + 1], c == 1)
        V[rq + 1] = ch.addc(V[rq + 1], 0)
    assert V[rq + 1] < ch.b // 2, "S's top bit is set: doubling would lose it"
    for j in range(rq + 2):                # V = 2 S
        V[j] = ch.addc_cc(V[j], V[j], j == 0) if j <= rq else ch.addc(V[j], V[j])
    for d in range(rq // 2):               # + the diagonal
        V[2 * d] = ch.mad_lo(w[d], w[d], V[2 * d], d == 0)
        V[2 * d + 1] = ch.mad_hi(w[d], w[d], V[2 * d + 1], False)
    V[rq] = ch.addc_cc(V[rq], 0)
    V[rq + 1] = ch.addc(V[rq + 1], 0)
    return V, steps


def mul_region_value(limbs, mp, ob, rq, base):
    """What lib_mul.j2's region sums for b = a: every pair (i, e), i + e in [ob, ob + rq)."""
    return sum(limbs[i] * limbs[o - i] * base ** (o - ob) for o in range(ob, ob + rq)
               for i in range(max(0, o - mp + 1), min(mp, o + 1)))


def square(a, words, ti, rq, width, garbage):
    """The kernel's instance: a of `words` words staged zero-padded to mp = ti Q limbs (Q = rq for the full square),
    ti threads, two regions each, then lib_mul.j2's overflow and summing phases. Returns (a^2 as the kernel writes it,
    multiply-adds per thread)."""
    base = 1 << width
    mp = ti * rq
    assert words * 32 <= mp * width
    limbs = [(a >> (width * i)) % base for i in range(mp)]
    mem = limbs + garbage[:mp]
    res, ov = [0] * (2 * mp), [0] * (4 * ti)
    mads = []
    for k in range(ti):
        ch = Chain(width)
        for r in (k, ti + k):              # region k and its mirror ti + k
            V, steps = square_region(mem, mp, r * rq, rq, ch)
            assert sum(v * base ** j for j, v in enumerate(V)) == mul_region_value(limbs, mp, r * rq, rq, base)
            assert steps == (r if r < ti else 2 * ti - r)        # half steps: k for region k, ti - k for ti + k
            res[r * rq:(r + 1) * rq] = V[:rq]
            if r + 1 < 2 * ti:
                ov[2 * (r + 1)], ov[2 * (r + 1) + 1] = V[rq], V[rq + 1]
            else:
                assert V[rq] == V[rq + 1] == 0                   # the top region's overflow is zero
            assert V[rq] + V[rq + 1] * base < mp * base           # the overflow limbs are below m B
        mads.append(ch.mads)
    # the summing phase: thread k adds into regions 2k, 2k + 1 what they receive; each chunk carries at most 1
    sc = 2 * rq
    chunks, states = [], []
    for k in range(ti):
        y = ov[4 * k:4 * k + 4]
        c, s, allones = 0, [], True
        for j in range(sc):
            x = res[sc * k + j]
            yj = y[0] if j == 0 else y[1] if j == 1 else y[2] if j == rq else y[3] if j == rq + 1 else 0
            u = (x + yj) % base
            wv = (u + c) % base
            c = int(u < x) | int(wv < u)
            s.append(wv)
            allones &= wv == base - 1
        exact = (sum(res[sc * k + j] * base ** j for j in range(sc)) + y[0] + y[1] * base
                 + (y[2] + y[3] * base) * base ** rq)
        assert exact == sum(v * base ** j for j, v in enumerate(s)) + c * base ** sc       # one carry bit suffices
        chunks.append(s)
        states.append((c, allones))
    out, cin = [], 0
    for k in range(ti):                    # the carry scan, then each chunk adds its carry in
        s = chunks[k]
        carry = cin
        for j in range(sc):
            s[j] = (s[j] + carry) % base
            carry &= int(s[j] == 0)
        out += s
        g, p = states[k]
        cin = g | (p & cin)
    return sum(v * base ** j for j, v in enumerate(out)), mads


def operands(words, rq, width, rng):
    """Random and adversarial a of `words` words."""
    nb = 32 * words
    top = (1 << nb) - 1
    region = rq * width
    yield top                                          # all ones: the longest carry runs, the largest sums
    yield 0
    yield 1
    yield 1 << (nb - 1)
    for b in sorted({0, 31, 32, width - 1, width, region - 1, region, region // 2, nb // 2, nb - 2} - {-1}):
        if 0 <= b < nb:
            yield 1 << b                               # single bits: a square on the diagonal, or at a region's edge
    for lo in range(region // 2, nb, region):
        yield ((1 << min(region, nb - lo)) - 1) << lo  # runs of ones across a region's boundary
    yield top ^ (1 << (nb // 2))
    yield (1 << (nb // 2)) - 1                         # B^(m/2) - 1: all ones in the low half
    for _ in range(3):
        yield rng.getrandbits(nb)
    for _ in range(2):                                 # all-ones limbs with random breaks
        yield sum((0xFFFFFFFF if rng.random() < 0.9 else rng.getrandbits(32)) << (32 * i) for i in range(words))


def sizes(ti, rq, width):
    """Run-time sizes in words a kernel of ti threads per instance serves at this ti: its full size and smaller ones
    that are not a multiple of a region (ti = ceil(words / chunk))."""
    chunk = rq * width // 32
    full = ti * chunk
    return sorted({full, full - 1, max(1, full - chunk // 2 - 1), (ti - 1) * chunk + 1})


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("rq", RQS)
@pytest.mark.parametrize("ti", TIS)
def test_square_matches_python(ti, rq, width):
    rng = random.Random(ti * 1000 + rq * 10 + width)
    garbage = [rng.getrandbits(width) | 1 for _ in range(ti * rq)]
    for words in sizes(ti, rq, width):
        for a in operands(words, rq, width, rng):
            got, _ = square(a, words, ti, rq, width, garbage)
            assert got == a * a, (ti, rq, width, words, hex(a))


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("rq", RQS)
@pytest.mark.parametrize("ti", TIS)
def test_balanced_and_about_half_of_mul(ti, rq, width):
    """Every thread issues the same multiply-adds: ti half steps of rows (ti rq^2/2 products) and two triangles of
    rq^2/4 products with their rq/2 diagonal squares, (ti + 1) rq^2/2 + rq products against mul's (ti + 1) rq^2 (two
    multiply-adds each)."""
    _, mads = square(3, 1, ti, rq, width, [0] * (ti * rq))
    assert len(set(mads)) == 1
    assert mads[0] == 2 * ((ti + 1) * rq * rq // 2 + rq)
    assert mads[0] / (2 * (ti + 1) * rq * rq) <= 0.5 + 1 / ((ti + 1) * rq)


def test_model_can_fail():
    """Without doubling the cross products (or with the diagonal left out) the model is wrong: it checks something."""
    a = (1 << 256) - 1
    base = 1 << 32
    limbs = [(a >> (32 * i)) % base for i in range(8)]
    ch = Chain(32)
    V, _ = square_region(limbs + [0] * 8, 8, 4, 4, ch)
    assert sum(v * base ** j for j, v in enumerate(V)) == mul_region_value(limbs, 8, 4, 4, base)
    assert sum(v * base ** j for j, v in enumerate(V)) != mul_region_value(limbs, 8, 4, 4, base) // 2
