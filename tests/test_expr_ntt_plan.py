"""The NTT expression family's plan (generator/expr_ntt_plan.py): rounds of products in an order that computes every
value before it is read, and slots that never hold two live values at once, checked by running the phases on a model
of the slots."""

import random

from generator import expr, expr_ntt_plan
from conftest import ROOT

EXPRS = [ROOT / "expressions" / "poly.expr", ROOT / "tests" / "expressions" / "prods.expr"]


def run_phases(p, bits, inputs):
    """Evaluate the program phase by phase through its slots (a product's slot written at its round's first prime,
    while its operands are still read by the later primes), returning the outputs."""
    plan = expr_ntt_plan.phases(p)
    slot, nslots = expr_ntt_plan.slots(p, plan)
    mask = (1 << bits) - 1
    mem = [None] * nslots
    nin = len(p.inputs)
    for i in range(nin):
        if i in slot:
            mem[slot[i]] = (i, inputs[i])

    def read(v):
        owner, value = mem[slot[v]]
        assert owner == v, f"slot {slot[v]} of v{v} holds v{owner}"
        return value

    for ph in plan:
        if ph.kind == "round":
            ops = {o: read(o) for o in ph.operands}
            for d, _x, _y in ph.products:      # the first prime's digits land in the products' slots ...
                mem[slot[d]] = (d, None)
            for o in ph.operands:              # ... while the later primes read the operands again
                assert read(o) == ops[o]
            for d, x, y in ph.products:
                mem[slot[d]] = (d, ops[x] * ops[y] & mask)
        elif ph.kind == "sum":
            x, y = read(ph.args[0]), read(ph.args[1])
            mem[slot[ph.dst]] = (ph.dst, (x + y if ph.op == "add" else x - y) & mask)
        else:
            mem[slot[ph.dst]] = (ph.dst, ph.value)
    return [read(v) for _n, v in p.outputs]


def test_phases_and_slots_compute_the_program():
    rng = random.Random(5)
    for path in EXPRS:
        p = expr.load(path)
        assert expr_ntt_plan.supported(p)
        for bits in (64, 512):
            for _ in range(20):
                ins = [rng.getrandbits(bits) for _ in p.inputs]
                want = expr.evaluate(p, dict(zip(p.inputs, ins)), bits)
                assert run_phases(p, bits, ins) == [want[n] for n, _v in p.outputs]


def test_poly_is_two_rounds_of_shared_transforms():
    p = expr.load(ROOT / "expressions" / "poly.expr")
    plan = expr_ntt_plan.phases(p)
    rounds = [ph for ph in plan if ph.kind == "round"]
    assert [len(r.operands) for r in rounds] == [2, 2]          # a, b; then a a + b, b b + b
    assert [len(r.products) for r in rounds] == [3, 1]          # a a, b b, a b; then the product
    assert sum(len(r.operands) + len(r.products) for r in rounds) == 8   # transforms per prime (separate calls: 12)
    assert [ph.kind for ph in plan] == ["round", "sum", "sum", "round", "sum"]


def test_unsupported_programs():
    mix = expr.load(ROOT / "tests" / "expressions" / "mix.expr")    # full products: double width
    sums = expr.load(ROOT / "tests" / "expressions" / "sums.expr")  # no product
    assert not expr_ntt_plan.supported(mix) and not expr_ntt_plan.supported(sums)
