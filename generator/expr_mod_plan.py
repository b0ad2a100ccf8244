"""Modular expressions in a thread per instance (EXPR_MOD, templates/kernel_expr_mod.j2): the program as the thread's
operations on private arrays, as data. Each modulus's regions run in one of two modes, chosen per modulus and size by
the operation-count model below (docs/expressions.md, "Two modes"):

- plain residues with lazy reduction ("plain"): values stay ordinary integers congruent to the residue; a product is
  lib_moddiv's full product (md_mul, 2N words) or mulmod (product and division) where its value must be small; sums
  and differences (x + m - y) stay exact in N + 1 or 2N + 1 words where only sums read them; a value is reduced (one
  remainder-only division, md_rem_n / md_rem_n1 / md_rem_2n1) only where it must be below m: an output, a value read
  outside the region, a subtrahend, a product's operand above N words. r = (a*b + c) mod m is one product, one sum of
  2N + 1 words and one division.
- Montgomery form ("mont"): the modulus's constants once per instance (ma_mont_consts), a Montgomery product per
  value entering (redm), per product and per value leaving; it pays where a region has many products per entering
  value (t*t*t*...), since a Montgomery product is cheaper than a product plus a division by the quotient estimates.

The model counts word multiply-adds (one 32 x 32 + 32 + 32 -> 64-bit step = 1) at N = bits/32 words; COSTS below."""

from dataclasses import dataclass

from .expr import MODULAR_STEPS, Program
from .expr_plan import lifetime_slots

# Plain steps the thread also runs, mod 2^bits over its N words: sums, the low half of a product, constants. Full
# products and zero-extension make values of 2N words, which a thread's arrays of N words do not hold.
PLAIN_OPS = frozenset({"add", "sub", "mullo", "const"})

# ---- the operation-count model (units: word multiply-adds) ----
QHAT = 16     # one quotient word's estimate beside its row of N multiply-adds (counted for the old md_qhat: a 2-by-1
              # division by the reciprocal, two corrections, Knuth's two tests). md_qhat3, which replaced it, has
              # about half its instructions, but mulmod measured with each (H100, results/h100-2026-11-27-gcd/) moved
              # +9.6% at 256 bits and within the noise from 512: the estimate's latency hides behind the row. Left at
              # 16 until the modular expressions themselves are measured with another value.
RECIP = 16    # a division's fixed part beyond its shifts: md_recip's 64-by-32 division


def cost_mul(n):
    """The full product of two N-word values (md_mul): N rows of N multiply-adds."""
    return n * n


def cost_div(x, n):
    """The remainder of an x-word value by an N-word modulus of N significant words (divrem, md_rem_*): x - N + 1
    quotient words, each a row of N multiply-adds plus its estimate; normalizing shifts of x and N words and the
    remainder's shift back (2x + 2N), the reciprocal. Divisions of 2N (mulmod) are (N + 1)(N + 16) + 6N + 16."""
    return (x - n + 1) * (n + QHAT) + 2 * x + 2 * n + RECIP


def cost_mont(n):
    """A Montgomery product (ma_montmul, CIOS): N rows of N multiply-adds for a b, N for the multiple of m, the row's
    quotient word, the final masked subtraction (about 4N)."""
    return 2 * n * n + 4 * n


def cost_montsqr(n):
    """A Montgomery square (ma_montsqr, SOS, up to 16 words): N (N + 1) / 2 products, N^2 reduction, about 5N more."""
    return n * (n + 1) // 2 + n * n + 5 * n if n <= 16 else cost_mont(n)


def cost_consts(n):
    """A modulus's Montgomery constants (ma_mont_consts): R mod m (R = 2^(32N): a division of N + 1 words), R^2 mod m
    as its square mod m (a product and a division of 2N words), -m^-1 mod 2^32 (four Newton steps)."""
    return cost_div(n + 1, n) + cost_mul(n) + cost_div(2 * n, n) + 8


def op_cost(o, n):
    """One operation's count (Op.kind; 0 for the plain steps mod 2^bits, the same in either mode)."""
    k = o.kind
    if k in ("redm", "leave"):
        return cost_mont(n)
    if k == "mulm":
        return cost_montsqr(n) if o.args[0] == o.args[1] else cost_mont(n)
    if k in ("addm", "addmod"):
        return 3 * n
    if k in ("subm", "submod"):
        return 2 * n
    if k == "mulmod":
        return cost_mul(n) + cost_div(2 * n, n)
    if k == "mulw":
        return cost_mul(n)
    if k == "wadd":
        return o.words[0]
    if k == "wsub":
        return o.words[0] + n
    if k == "reduce":
        return cost_div(o.words[1], n)
    return 0


def supported(p: Program) -> bool:
    """Whether the family takes p: modular steps, plain steps among PLAIN_OPS, every value of width 1."""
    return p.modular() and p.kinds() <= PLAIN_OPS | MODULAR_STEPS and all(w == 1 for w in p.widths)


@dataclass(frozen=True)
class Op:
    """One operation of the thread. `args` are slots, a modular operation's modulus slot last; `mod` the modulus input
    (-1 for plain steps); `words` the words of dst and of each argument (the modulus: N).
    Montgomery mode: redm (into Montgomery form: a product by R^2 mod m), addm, subm, mulm (in Montgomery form), leave
    (out of it: a product by 1).
    Plain mode: mulmod (a b mod m, lib mulmod), mulw (the full product a b into 2N + 1 words, top word 0), wadd (the
    exact sum into dst's words), wsub (x + m - y for y < m, exact), reduce (x mod m by md_rem_n / _n1 / _2n1 as x has
    N, N + 1 or 2N + 1 words), addmod, submod (ma_addmod, ma_submod: both operands below m).
    Plain steps mod 2^bits: add, sub, mullo, const."""

    kind: str
    dst: int
    args: tuple
    mod: int = -1
    value: int = 0
    text: str = ""
    words: tuple = ()


@dataclass(frozen=True)
class Mode:
    """The choice for one modulus input: `mode` "plain" or "mont", the model's counts of both (the modulus's
    operations only; the plain steps cost the same either way), and why in words."""

    mod: int
    mode: str
    plain_cost: int
    mont_cost: int

    def why(self) -> str:
        cmp = "<=" if self.plain_cost <= self.mont_cost else ">"
        return (f"modulus input {self.mod}: {self.mode} (plain {self.plain_cost} {cmp} Montgomery {self.mont_cost} "
                f"word multiply-adds)")


@dataclass(frozen=True)
class Plan:
    loads: tuple      # (io index, slot) of the inputs read
    moduli: tuple     # (input index, slot): each Montgomery-mode modulus, its constants computed once after the loads
    ops: tuple        # Op
    stores: tuple     # (io index, slot, output name)
    nslots: int
    leaves: bool      # some value leaves Montgomery form (the kernel then keeps the plain 1)
    slot_words: tuple = ()   # words of each slot: N, N + 1 or 2N + 1
    modes: tuple = ()        # Mode per modulus input, in input order

    def mode_of(self, m) -> str:
        return next(x.mode for x in self.modes if x.mod == m)


# how a plain-mode value is read: as a sum's operand (any width), a product's (below 2^(32N)), or below m (an output,
# a plain step, another region, a subtrahend)
ANY, SMALL, REDUCED = 0, 1, 2


def _build(p: Program, words: int, modes: dict):
    """The thread's operations with each modulus in modes[m] ("plain" or "mont"): (seq, widths, outs) where seq is
    (kind, dst value, read values, modulus, value, text, words) over virtual values, widths their slot classes
    (1: N words, 2: N + 1, 3: 2N + 1), outs the value stored per output."""
    n = words
    nin = len(p.inputs)
    cls_words = {1: n, 2: n + 1, 3: 2 * n + 1}
    mod_of = {nin + i: s.args[-1] for i, s in enumerate(p.steps) if s.op in MODULAR_STEPS}

    # the strongest reading of each modular value (plain mode), and the values read outside their region (Montgomery
    # mode: they leave once, right after they are made, into a plain copy)
    need, outside = {}, set()

    def read(v, how):
        need[v] = max(need.get(v, ANY), how)

    for s in p.steps:
        if s.op == "redm":
            a = s.args[0]
            if a in mod_of:            # another modulus's residue entering this region
                outside.add(a)
                read(a, REDUCED)
        elif s.op == "mulm":
            read(s.args[0], SMALL)
            read(s.args[1], SMALL)
        elif s.op == "subm":
            read(s.args[1], REDUCED)
        elif s.op not in MODULAR_STEPS:
            for a in s.args:
                if a in mod_of:
                    outside.add(a)
                    read(a, REDUCED)
    for _n, v in p.outputs:
        if v in mod_of:
            outside.add(v)
            read(v, REDUCED)

    nxt = [nin + len(p.steps)]

    def fresh(cls):
        v = nxt[0]
        nxt[0] += 1
        widths[v] = cls
        return v

    widths = {v: 1 for v in range(nin + len(p.steps))}
    rep = {}           # value -> the value that holds it (a plain-mode redm is its operand as it is)
    copy = {}          # Montgomery value -> its plain copy
    bits = {}          # plain-mode value -> bound: value < 2^bits
    red = {}           # plain-mode value -> the modulus it is known to be below
    seq = []

    def at(a):
        """the value read for program value a outside Montgomery form"""
        a = copy.get(a, a)
        return rep.get(a, a)

    def cls_of(b):
        return 1 if b <= 32 * n else 2 if b <= 32 * (n + 1) else 3

    def emit(kind, dst, reads, mod=-1, value=0, text=""):
        seq.append((kind, dst, tuple(reads), mod, value, text,
                    tuple(cls_words[widths[x]] if x != mod else n for x in (dst, *reads))))

    def reduce_into(dst, x, m, text):
        emit("reduce", dst, (x, m), m, text=text)
        bits[dst] = 32 * n
        red[dst] = m

    for i, s in enumerate(p.steps):
        v = nin + i
        text = s.text()
        m = s.args[-1] if s.op in MODULAR_STEPS else -1
        if m >= 0 and modes[m] == "mont":
            if s.op == "redm":
                emit("redm", v, (at(s.args[0]), m), m, text=text)
            else:
                emit(s.op, v, s.args, m, text=text)
            if v in outside:
                copy[v] = fresh(1)
                emit("leave", copy[v], (v, m), m, text=f"value {v} out of Montgomery form")
            continue
        if m < 0:
            emit(s.op, v, [at(a) for a in s.args], value=s.value, text=text)
            continue
        want = need.get(v, ANY)
        if s.op == "redm":
            x = at(s.args[0])
            if want == REDUCED:
                reduce_into(v, x, m, text)
            else:                      # taken as the integer it is, below 2^(32N)
                rep[v] = x
                bits[x] = bits.get(x, 32 * n)
            continue
        x, y = (at(a) for a in s.args[:2])
        if s.op == "mulm":
            if want >= SMALL:
                emit("mulmod", v, (x, y, m), m, text=text)
                bits[v] = 32 * n
                red[v] = m
            else:
                widths[v] = 3
                emit("mulw", v, (x, y, m), m, text=text)
                bits[v] = bits.get(x, 32 * n) + bits.get(y, 32 * n)
            continue
        # addm, subm: both operands below m and a small result wanted: the masked sum or difference, N words
        if red.get(x) == m and red.get(y) == m and (want >= SMALL or s.op == "subm"):
            emit(s.op[:3] + "mod", v, (x, y, m), m, text=text)
            bits[v] = 32 * n
            red[v] = m
            continue
        kind = "wadd" if s.op == "addm" else "wsub"     # y of a subm is below m (REDUCED)
        b = max(bits.get(x, 32 * n), bits.get(y, 32 * n) if kind == "wadd" else 32 * n) + 1
        if b > 32 * (2 * n + 1):       # past 2N + 1 words (a long chain of sums): reduce the operands first
            for z in (x, y):
                if red.get(z) != m:
                    r = fresh(1)
                    reduce_into(r, z, m, f"value {z} reduced before a sum")
                    x, y = (r if x == z else x), (r if y == z else y)
            b = 32 * n + 1
        if want >= SMALL:
            t = fresh(cls_of(b))
            emit(kind, t, (x, y, m), m, text=text)
            bits[t] = b
            reduce_into(v, t, m, f"value {v} reduced")
        else:
            widths[v] = cls_of(b)
            emit(kind, v, (x, y, m), m, text=text)
            bits[v] = b
    outs = [at(v) for _n, v in p.outputs]
    return seq, widths, outs, cls_words, bool(copy)


def plan(p: Program, words: int, modes: dict | None = None) -> Plan:
    """The thread's operations at N = words: each modulus in the mode the model counts cheaper (plain on a tie), or
    as `modes` says (input index -> "plain" / "mont"; tests). Slots from lifetimes (expr_plan.lifetime_slots), by
    width class."""
    nin, nout = len(p.inputs), len(p.outputs)
    moduli = p.moduli()
    counts = {}
    for mode in ("plain", "mont"):
        seq = _build(p, words, {m: mode for m in moduli})[0]
        for m in moduli:
            c = sum(op_cost(Op(k, 0, r, mod, val, t, w), words) for k, _d, r, mod, val, t, w in seq if mod == m)
            counts[m, mode] = c + (cost_consts(words) if mode == "mont" else 0)
    choice = tuple(Mode(m, (modes or {}).get(m) or ("plain" if counts[m, "plain"] <= counts[m, "mont"] else "mont"),
                        counts[m, "plain"], counts[m, "mont"]) for m in moduli)
    seq, widths, outs, cls_words, leaves = _build(p, words, {c.mod: c.mode for c in choice})
    last = {}
    for k, (_kind, _dst, reads, *_rest) in enumerate(seq):
        for a in reads:
            last[a] = k
    for v in outs:
        last[v] = len(seq)
    mont = [c.mod for c in choice if c.mode == "mont"]
    for m in mont:                           # the constants are computed from the modulus after the loads
        last.setdefault(m, -1)
    live_in = [i for i in range(nin) if i in last]
    # a step's result never takes its modulus's slot: mulmod, divrem and the Montgomery product write the result
    # while they still read the modulus (their results may alias the other operands)
    slot_of, slot_cls = lifetime_slots(live_in, [(reads, dst) for _k, dst, reads, *_r in seq], last, widths,
                                       late=[(mod,) if mod >= 0 else () for _k, _d, _r, mod, *_x in seq])
    ops = tuple(Op(kind, slot_of[dst], tuple(slot_of[a] for a in reads), mod, value, text, w)
                for kind, dst, reads, mod, value, text, w in seq)
    loads = tuple((nout + i, slot_of[i]) for i in live_in)
    stores = tuple((j, slot_of[v], name) for j, ((name, _v), v) in enumerate(zip(p.outputs, outs)))
    return Plan(loads, tuple((m, slot_of[m]) for m in mont), ops, stores, len(slot_cls), leaves,
                tuple(cls_words[c] for c in slot_cls), choice)
