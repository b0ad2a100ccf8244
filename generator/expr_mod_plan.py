"""Modular expressions in a thread per instance (EXPR_MOD, templates/kernel_expr_mod.j2): the program as the thread's
operations, values in Montgomery form inside their regions and their slots (private arrays), as data."""

from dataclasses import dataclass

from .expr import MODULAR_STEPS, Program
from .expr_plan import lifetime_slots

# Plain steps the thread also runs, mod 2^bits over its N words: sums, the low half of a product, constants. Full
# products and zero-extension make values of 2N words, which a thread's arrays of N words do not hold.
PLAIN_OPS = frozenset({"add", "sub", "mullo", "const"})


def supported(p: Program) -> bool:
    """Whether the family takes p: modular steps, plain steps among PLAIN_OPS, every value of width 1."""
    return p.modular() and p.kinds() <= PLAIN_OPS | MODULAR_STEPS and all(w == 1 for w in p.widths)


@dataclass(frozen=True)
class Op:
    """One operation of the thread: kind redm (into Montgomery form: a product by R^2 mod m), addm, subm, mulm (in
    Montgomery form), leave (out of it: a product by 1), add, sub, mullo, const (plain, mod 2^bits). `args` are
    slots, a modular operation's modulus slot last; `mod` the modulus input (its constants), -1 for plain ones."""

    kind: str
    dst: int
    args: tuple
    mod: int = -1
    value: int = 0
    text: str = ""


@dataclass(frozen=True)
class Plan:
    loads: tuple      # (io index, slot) of the inputs read
    moduli: tuple     # (input index, slot): each modulus, its constants computed once after the loads
    ops: tuple        # Op
    stores: tuple     # (io index, slot, output name)
    nslots: int
    leaves: bool      # some value leaves Montgomery form (the kernel then keeps the plain 1)


def plan(p: Program) -> Plan:
    """The thread's operations. A modular step's value stays in Montgomery form; where something outside its region
    reads it (a plain step, an output, another modulus's region through redm) it leaves once, right after it is made,
    into a plain copy that those readers take. Slots from lifetimes (expr_plan.lifetime_slots)."""
    nin, nout = len(p.inputs), len(p.outputs)
    mod_of = {nin + i: s.args[-1] for i, s in enumerate(p.steps) if s.op in MODULAR_STEPS}
    plain_readers = set()                    # modular values read outside their form
    for s in p.steps:
        args = s.args[:1] if s.op == "redm" else s.args if s.op not in MODULAR_STEPS else ()
        plain_readers.update(a for a in args if a in mod_of)
    plain_readers.update(v for _n, v in p.outputs if v in mod_of)

    # virtual values: the program's (0 .. nin + steps - 1), then a plain copy of each modular value read as plain
    copy = {v: nin + len(p.steps) + k for k, v in enumerate(sorted(plain_readers))}

    def plain(a):
        return copy.get(a, a)

    seq = []                                 # (kind, dst value, read values, modulus, value, text)
    for i, s in enumerate(p.steps):
        v = nin + i
        if s.op == "redm":
            seq.append(("redm", v, (plain(s.args[0]), s.args[1]), s.args[1], 0, s.text()))
        elif s.op in MODULAR_STEPS:
            seq.append((s.op, v, s.args, s.args[-1], 0, s.text()))
        else:
            seq.append((s.op, v, tuple(plain(a) for a in s.args), -1, s.value, s.text()))
        if v in copy:
            seq.append(("leave", copy[v], (v, mod_of[v]), mod_of[v], 0, f"value {v} out of Montgomery form"))
    outs = [plain(v) for _n, v in p.outputs]
    last = {}
    for k, (_kind, _dst, reads, *_rest) in enumerate(seq):
        for a in reads:
            last[a] = k
    for v in outs:
        last[v] = len(seq)
    moduli = p.moduli()
    for m in moduli:                         # the constants are computed from the modulus after the loads
        last.setdefault(m, -1)
    live_in = [i for i in range(nin) if i in last]
    widths = {v: 1 for v in range(nin + len(p.steps) + len(copy))}
    slot_of, slot_widths = lifetime_slots(live_in, [(reads, dst) for _k, dst, reads, *_r in seq], last, widths)
    ops = tuple(Op(kind, slot_of[dst], tuple(slot_of[a] for a in reads), mod, value, text)
                for kind, dst, reads, mod, value, text in seq)
    loads = tuple((nout + i, slot_of[i]) for i in live_in)
    stores = tuple((j, slot_of[v], name) for j, ((name, _v), v) in enumerate(zip(p.outputs, outs)))
    return Plan(loads, tuple((m, slot_of[m]) for m in moduli), ops, stores, len(slot_widths), bool(copy))
