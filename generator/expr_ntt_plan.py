"""Fused expressions whose products run as NTTs inside one block (templates/kernel_expr_ntt.j2): the program cut into
rounds of products whose operands are transformed once per prime, and the shared-memory slots of its values."""

from dataclasses import dataclass

from . import expr_plan, ntt, ntt_plan
from .variant import Variant

supported = expr_plan.low_products   # +, -, * mod 2^bits and constants, one width, at least one product


@dataclass(frozen=True)
class Phase:
    """One block phase of the kernel. `sum`: value dst = args[0] op args[1] (op add or sub); `const`: dst = value;
    `round`: the products (dst, x, y) whose operands are all known, each operand transformed once per prime into
    spectrum array operands.index(value), each product transformed back and recombined into its value's slot."""

    kind: str
    op: str = ""
    dst: int = -1
    args: tuple = ()
    value: int = 0
    operands: tuple = ()
    products: tuple = ()


def phases(p) -> list:
    """The program in rounds: a product's round is one more than the latest round among its operands (inputs and
    constants: 0), a sum's the latest among its operands. Round r's products run together (their operands' transforms
    shared), then the sums of round r in program order."""
    nin = len(p.inputs)
    level = {v: 0 for v in range(nin)}
    for i, s in enumerate(p.steps):
        lv = max((level[a] for a in s.args), default=0)
        level[nin + i] = lv + 1 if s.op == "mullo" else lv
    out = []
    for r in range(max(level.values()) + 1):
        prods = [(nin + i, *(s.args * 2)[:2]) for i, s in enumerate(p.steps) if s.op == "mullo" and level[nin + i] == r]
        if prods:
            operands = tuple(dict.fromkeys(a for _d, x, y in prods for a in (x, y)))
            out.append(Phase("round", operands=operands, products=tuple(prods)))
        for i, s in enumerate(p.steps):
            if s.op != "mullo" and level[nin + i] == r:
                out.append(Phase("const", dst=nin + i, value=s.value) if s.op == "const"
                           else Phase("sum", op=s.op, dst=nin + i, args=tuple(s.args)))
    return out


def slots(p, plan: list) -> tuple:
    """(slot of each value, number of slots): every input and computed value in a slot of the instance's words, a slot
    reused once its value is dead. A round's products take their slots before its operands are released: the first
    prime's digits go into a product's slot while the operands are transformed again for the later primes."""
    entries = []
    for ph in plan:
        if ph.kind == "round":
            entries += [((), d) for d, _x, _y in ph.products] + [(ph.operands, None)]
        else:
            entries.append((ph.args, ph.dst))
    last = {}
    for j, (reads, _d) in enumerate(entries):
        for a in reads:
            last[a] = j
    for _n, v in p.outputs:
        last[v] = len(entries)
    nin = len(p.inputs)
    slot_of, widths = expr_plan.lifetime_slots([v for v in range(nin) if v in last], entries, last,
                                               {v: 1 for v in range(nin + len(p.steps))})
    return slot_of, len(widths)


@dataclass(frozen=True)
class Layout:
    phases: tuple
    slot: dict               # value -> slot
    nslots: int
    arrays: int              # spectrum arrays per instance (the most operands of a round, plus one to transform back)
    mw: int                  # words of a slot: threads per instance x RW (each thread sums and stores RW words)
    mp: int                  # padded words of a slot
    instance_words: int      # shared words of one instance: arrays x LP, then slots x MP
    inputs: tuple            # (io index, slot) of the inputs the program reads
    outputs: tuple           # (io index, slot, name)


def layout(v: Variant) -> Layout:
    p = expr_plan.program(v.op)
    plan = phases(p)
    slot_of, nslots = slots(p, plan)
    length = ntt.transform_length(v.bits, v.ntt[1])
    mw = v.threads_per_instance * ntt_plan.words_per_thread(v)
    arrays = max([2] + [len(ph.operands) + 1 for ph in plan if ph.kind == "round"])
    mp = ntt_plan.padded(mw)
    nout = len(p.outputs)
    return Layout(tuple(plan), slot_of, nslots, arrays, mw, mp, arrays * ntt_plan.padded(length) + nslots * mp,
                  tuple((nout + i, slot_of[i]) for i in range(len(p.inputs)) if i in slot_of),
                  tuple((j, slot_of[vv], name) for j, (name, vv) in enumerate(p.outputs)))


def chunks_fit(v: Variant) -> bool:
    """The recombination stages a product's three coefficient words in the spare array (two of them, so 2 slots of
    words fit in L points) and its slot."""
    return 2 * v.threads_per_instance * ntt_plan.words_per_thread(v) <= ntt.transform_length(v.bits, v.ntt[1])


def shared_words(v: Variant) -> int:
    """IPB instances, then two spill words per thread (the scan's totals and scratch are space.shared_bytes')."""
    return v.ipb * layout(v).instance_words + 2 * v.block
