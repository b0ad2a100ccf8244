"""What tuned tables name: the registry hash and the per-(op, bits) candidate-set hashes (docs/tuning.md).

Both the generator (registry.c) and the tuner (tuning/tune.py, from generated/variants.txt) compute them here, so
they cannot drift apart. Input: the variant list's lines (no header) and the expressions (generator/expr.py).
"""


def fnv1a64(data: bytes) -> str:
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def expr_line(name: str, text: str) -> str:
    """An expression's program as hashed: an edited expression changes what its variants compute."""
    return f"expr {name} {text}\n"


def registry_hash(lines: list, exprs: dict) -> str:
    """The whole listing plus every expression's program (`exprs`: {expr_NAME: (name, program text)}, in
    generation order): a format-1 table is refused when this differs."""
    return fnv1a64(("".join(lines) + "".join(expr_line(n, t) for n, t in exprs.values())).encode())


def candidate_sets(lines: list, exprs: dict) -> dict:
    """{(op, bits): hash} over the variant lines of that op at that size (both backends, in listing order), plus
    the expression's program for expr_NAME. A format-2 table row is used only where its pair's hash is unchanged,
    so a new expression or another SIZES keeps the rows of every pair whose candidates are the same."""
    by_pair: dict = {}
    for line in lines:
        _name, op, bits = line.split()[:3]
        by_pair.setdefault((op, int(bits)), []).append(line)
    return {(op, bits): fnv1a64(("".join(ls) + (expr_line(*exprs[op]) if op in exprs else "")).encode())
            for (op, bits), ls in by_pair.items()}
