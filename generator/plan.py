"""Turn a request (sizes, ops, backends) into the list of variants to generate, or a clear refusal."""

from collections import Counter

from .space import ALL_CONSTRAINTS, BACKENDS, MAX_BITS, OPS, candidates, constraints_for, failed_constraint, extra_sizes_for, families_for, family_of


class PlanError(ValueError):
    """A request the generator refuses; the message names the constraint that failed."""


def parse_sizes(text: str) -> list[int]:
    """'512,4096,65536' -> [512, 4096, 65536]; sorted, duplicates dropped."""
    sizes = []
    for item in str(text).replace(" ", "").split(","):
        if item == "":
            continue
        try:
            bits = int(item, 0)
        except ValueError:
            raise PlanError(f"SIZES: '{item}' is not an integer number of bits") from None
        if bits <= 0:
            raise PlanError(f"SIZES: {bits} bits: constraint bits_multiple_of_32 failed "
                            "(bits is a positive multiple of 32)")
        if bits % 32:
            raise PlanError(f"SIZES: {bits} bits: constraint bits_multiple_of_32 failed "
                            f"(bits is a positive multiple of 32; {bits} = 32 x {bits // 32} + {bits % 32})")
        if bits > MAX_BITS:
            raise PlanError(f"SIZES: {bits} bits: above the generator's limit of {MAX_BITS} bits")
        sizes.append(bits)
    if not sizes:
        raise PlanError("SIZES is empty: give at least one size in bits, e.g. SIZES=512,4096")
    return sorted(set(sizes))


def variants_for(op: str, bits: int, backend: str, keep_pruned=()) -> list:
    """The variants generated for one (op, bits, backend); PlanError if there are none.
    Prune constraints only thin out a size's variants: when they would remove all of them (tiny sizes),
    the legal variants breaking the fewest prune constraints are kept, so every size that can work does.
    Prune constraints named in `keep_pruned` are ignored (to generate, e.g. for testing, what they remove)."""
    legal, rejected = [], Counter()
    for v in candidates(op, bits, backend):
        c = failed_constraint(v, kinds=("legal",))
        if c is None:
            legal.append(v)
        else:
            rejected[c.name] += 1
    if legal:
        pruned = {v: sum(not c.holds(v) for c in constraints_for(v) if c.kind == "prune" and c.name not in keep_pruned)
                  for v in legal}
        group = {v: family_of(v).template if family_of(v).own_fallback else "" for v in legal}
        fewest = {}
        for v in legal:
            fewest[group[v]] = min(fewest.get(group[v], pruned[v]), pruned[v])
        return [v for v in legal if pruned[v] == fewest[group[v]]]
    rules = {c.name: c.rule for c in ALL_CONSTRAINTS}
    why = "; ".join(f"{name} ({rules[name]}) rejected {n}" for name, n in rejected.most_common())
    raise PlanError(f"SIZES: {bits} bits: no {op} variant fits (too large): {why}")


def plan(sizes, ops=None, backends=BACKENDS, keep_pruned=(), notes=None, default_sizes=False) -> list:
    """All variants for the request, in a stable order (op, bits, backend, limb, q, ipb).
    A size above one operation's largest (e.g. 2^31 bits: add and sub only) is generated for the operations
    that can serve it; what was left out goes to `notes` (a list) when given. A size no requested operation
    can serve is refused."""
    ops = list(ops or OPS)
    for op in ops:
        if not families_for(op):
            raise PlanError(f"unknown operation '{op}'; known: {', '.join(OPS)} and expr_NAME for each expression given")
    for b in backends:
        if b not in BACKENDS:
            raise PlanError(f"unknown backend '{b}'; known: {', '.join(BACKENDS)}")
    known = {c.name for c in ALL_CONSTRAINTS if c.kind == "prune"}
    for name in keep_pruned:
        if name not in known:
            raise PlanError(f"--keep-pruned: '{name}' is not a prune constraint; known: {', '.join(sorted(known))}")
    out, refused = [], {}
    for op in ops:
        for bits in sorted(set(sizes) | set(extra_sizes_for(op) if default_sizes else ())):
            for backend in backends:
                try:
                    out.extend(variants_for(op, bits, backend, keep_pruned))
                except PlanError as e:
                    refused.setdefault(bits, []).append((op, backend, e))
    for bits, why in sorted(refused.items()):
        if len(why) == len(ops) * len(backends):
            raise why[0][2]
        for op, backend, e in why:
            if notes is not None:
                notes.append(f"{op} ({backend}) is not generated at {bits} bits: {e}")
    return out
