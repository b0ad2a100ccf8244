"""Tuned tables of format 2: rows kept per (op, bits) candidate set, others on the default rule; tune.py --upgrade."""

import re
import subprocess
import sys

import pytest

from conftest import OPERATIONS, ROOT, driver_env, read_variants, require_backend
from test_tuning import measure

sys.path.insert(0, str(ROOT / "tuning"))
from table_hashes import generated_hashes  # noqa: E402

SHIPPED = ROOT / "tuning" / "tables" / "nvidia-h200-sm-90.tune"


@pytest.fixture(scope="module")
def ident():
    """The measuring tool's header on OpenCL: device, registry, tuning."""
    require_backend("opencl")
    header, _ = measure([])
    return header


@pytest.fixture(scope="module")
def sets(ident):
    """The library's {(op, bits): hash}, through the measuring tool."""
    _, out = measure(["sets"])
    assert out[-1] == "sets end", out
    return {(f[1], int(f[2])): f[3] for f in (ln.split() for ln in out[:-1])}


def table2(ident, rows, registry=None):
    """A format-2 table for this device: rows (op, bits, lo, hi, variant, hash)."""
    body = "".join(f"{op} {bits} {lo} {hi} {name} {h}\n" for op, bits, lo, hi, name, h in rows)
    return (f"# test table\nmidint-tuning 2\ndevice {ident['device']}\nregistry {registry or ident['registry']}\n"
            f"{body}")


def default_choice(op, bits, count):
    _, out = measure([f"select {op} {bits} {count}"])
    return out[0].split()[-1]


def other_variant(op, bits, count, required=True):
    """A variant of (op, bits) on OpenCL that the default rule does not pick for this call (None where there is no
    other and not `required`)."""
    default = default_choice(op, bits, count)
    name = next((v["name"] for v in read_variants() if v["backend"] == "opencl" and v["op"] == op
                 and v["bits"] == bits and v["name"] != default), None)
    assert name or not required, f"{op} at {bits} bits has one OpenCL variant in this build"
    return name


def sizes_of(op):
    return sorted({v["bits"] for v in read_variants() if v["backend"] == "opencl" and v["op"] == op})


def pairs_status(status):
    m = re.search(r"pairs: (\d+) from the table, (\d+) on the default rule as their candidates changed, "
                  r"(\d+) not generated here, (\d+) not in the table", status)
    assert m, status
    return tuple(int(g) for g in m.groups())


def test_sets_are_the_generated_trees(sets):
    """The library's hashes are what tune.py --upgrade computes from generated/ (variants.txt + expressions)."""
    registry, computed = generated_hashes()
    assert computed == sets
    assert all(re.fullmatch(r"[0-9a-f]{16}", h) for h in sets.values())
    assert {(v["op"], v["bits"]) for v in read_variants()} == set(sets)


def test_candidate_sets_do_not_depend_on_the_other_sizes():
    """What lets a table survive another SIZES: a pair's hash depends only on that pair's variants."""
    from generator.plan import plan
    from generator.render import render_all

    def hashes(sizes):
        text = render_all(plan(sizes), sizes)["registry.c"]
        rows = re.findall(r'\{MIDINT_OP_(\w+), (\d+)u, "([0-9a-f]{16})"\}', text)
        return dict(((op, int(b)), h) for op, b, h in rows)

    small, more = hashes([512]), hashes([512, 1024])
    assert small and all(more[k] == h for k, h in small.items())
    assert more[("ADD", 1024)] != more[("ADD", 512)]
    # sorted by the runtime's op code (the table's order), which it binary-searches (runtime/registry.c)
    codes = [op.name.upper() for op in OPERATIONS]
    assert list(more) == sorted(more, key=lambda k: (codes.index(k[0]), k[1]))


def test_format2_table_loads_with_every_row(ident, sets, tmp_path):
    pairs = [(op, bits) for op in ("add", "mul") for bits in sizes_of(op)]
    _, defaults = measure([f"select {op} {bits} 100" for op, bits in pairs])
    chosen = {}
    for (op, bits), d in zip(pairs, defaults):   # another variant than the default rule's where there is one
        names = [v["name"] for v in read_variants()
                 if v["backend"] == "opencl" and v["op"] == op and v["bits"] == bits]
        chosen[(op, bits)] = next((n for n in names if n != d.split()[-1]), names[0])
    rows = [(op, bits, 1, "*", chosen[(op, bits)], sets[(op, bits)]) for op, bits in pairs]
    path = tmp_path / "v2.tune"
    path.write_text(table2(ident, rows, registry="0123456789abcdef"))   # the registry line is for the record only
    _, out = measure([f"load {path}"] + [f"select {op} {bits} 100" for op, bits in chosen])
    assert out[0].startswith("load ok tuned table") and f"({len(rows)} entries;" in out[0], out[0]
    taken, changed, absent, untuned = pairs_status(out[0])
    assert (taken, changed, absent) == (len(rows), 0, 0)
    assert untuned == len(sets) - len(rows)
    assert [ln.split()[-1] for ln in out[1:]] == list(chosen.values())


def test_changed_pair_falls_back_and_the_others_stay(ident, sets, tmp_path):
    add = sizes_of("add")
    B = add[0]
    keep = other_variant("sub", B, 100)
    rows = [("add", B, 1, "*", other_variant("add", B, 100), "0123456789abcdef"),   # its candidates "changed"
            ("sub", B, 1, "*", keep, sets[("sub", B)])]
    if len(add) > 1:   # a larger size's row must not serve the changed size's calls: the default rule does
        rows.append(("add", add[1], 1, "*", other_variant("add", add[1], 100), sets[("add", add[1])]))
    path = tmp_path / "changed.tune"
    path.write_text(table2(ident, rows))
    _, out = measure([f"load {path}", f"select add {B} 100", f"select add {B - 32} 100", f"select sub {B} 100"])
    assert out[0].startswith("load ok"), out[0]
    assert pairs_status(out[0])[:3] == (len(rows) - 1, 1, 0)
    assert out[1].split()[-1] == default_choice("add", B, 100)
    assert out[2].split()[-1] == default_choice("add", B - 32, 100)
    assert out[3].split()[-1] == keep


def test_pairs_this_build_lacks_are_dropped_not_refused(ident, sets, tmp_path):
    """A table made with other SIZES or EXPRS: rows of sizes or expressions not generated here are left out."""
    B = sizes_of("sub")[0]
    keep = other_variant("sub", B, 100)
    missing = next(b for b in range(B + 32, 1 << 20, 32) if ("add", b) not in sets)
    rows = [("add", missing, 1, "*", f"add_{missing}_u32_q8_i1_opencl", "00000000000000aa"),
            ("expr_not_generated_here", 4096, 1, "*", "expr_not_generated_here_4096_u32_q16_i1_opencl",
             "00000000000000bb"),
            ("sub", B, 1, "*", keep, sets[("sub", B)])]
    path = tmp_path / "other-build.tune"
    path.write_text(table2(ident, rows, registry="ffffffffffffffff"))
    _, out = measure([f"load {path}", f"select sub {B} 100"])
    assert out[0].startswith("load ok") and pairs_status(out[0])[:3] == (1, 0, 2), out[0]
    assert out[1].split()[-1] == keep


def test_shipped_table_rows_follow_their_candidate_sets(ident, sets, tmp_path):
    """The committed H200 table, moved to this device and backend (candidate sets cover both backends): every row
    whose pair this build generated unchanged is used, the rest fall back; with the default `make gen` all are used."""
    text = SHIPPED.read_text()
    assert "midint-tuning 2" in text
    rows = [ln.split() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")
            and ln.split()[0] not in ("midint-tuning", "device", "registry")]
    pairs = {(r[0], int(r[1])): r[5] for r in rows}
    expect = (sum(sets.get(p) == h for p, h in pairs.items()),
              sum(p in sets and sets[p] != h for p, h in pairs.items()), sum(p not in sets for p in pairs))
    moved = tmp_path / "moved.tune"
    moved.write_text(re.sub(r"(?m)^device .*$", f"device {ident['device']}", text).replace("_cuda ", "_opencl "))
    header, _ = measure([], MIDINT_TUNING=str(moved))
    assert pairs_status(header["tuning"])[:3] == expect, header["tuning"]
    registry = next(r for r in text.splitlines() if r.startswith("registry ")).split()[1]
    if registry == ident["registry"]:   # the build it was tuned for: every pair is taken
        assert expect == (len(pairs), 0, 0)


@pytest.mark.parametrize("kind,expect", [
    ("short_row", ":5: expected 'op bits min_count max_count variant candidates'"),
    ("bad_hash", ":5: candidates 'XYZ' is not 16 lower-case hex digits"),
    ("two_hashes", ":6: rows of add"),
    ("unknown_variant", "is not in the registry"),
])
def test_bad_format2_tables_are_refused(ident, sets, tmp_path, kind, expect):
    B = sizes_of("add")[0]
    name = other_variant("add", B, 100)
    h = sets[("add", B)]
    body = {
        "short_row": f"add {B} 1 * {name}\n",
        "bad_hash": f"add {B} 1 * {name} XYZ\n",
        "two_hashes": f"add {B} 1 9 {name} {h}\nadd {B} 10 * {name} 0000000000000000\n",
        "unknown_variant": f"add {B} 1 * add_{B}_u64_q3_i1_opencl {h}\n",
    }[kind]
    path = tmp_path / "bad.tune"
    path.write_text(f"midint-tuning 2\ndevice {ident['device']}\nregistry {ident['registry']}\n# rows\n{body}")
    _, out = measure([f"load {path}"])
    assert out[0].startswith("load refused") and expect in out[0], out[0]


def upgrade(*args):
    return subprocess.run([sys.executable, str(ROOT / "tuning" / "tune.py"), "--upgrade", *map(str, args)],
                          capture_output=True, text=True, env=driver_env(), timeout=300)


def test_upgrade_rewrites_a_table_of_this_build(ident, sets, tmp_path):
    chosen = {}   # two sizes of each op that have a variant besides the default rule's (any SIZES)
    for op in ("add", "mullo"):
        others = ((b, other_variant(op, b, 100, required=False)) for b in sizes_of(op))
        chosen.update(((op, b), n) for b, n in [x for x in others if x[1]][:2])
    if not chosen:
        pytest.skip("no generated size has a second OpenCL variant of add or mullo")
    v1 = tmp_path / "v1.tune"
    v1.write_text(f"# made by hand\nmidint-tuning 1\ndevice {ident['device']}\nregistry {ident['registry']}\n"
                  "# op bits min_count max_count variant\n"
                  + "".join(f"{op} {b} 1 * {n}\n" for (op, b), n in chosen.items()))
    out = tmp_path / "v2.tune"
    p = upgrade(v1, "--out", out)
    assert p.returncode == 0, p.stdout + p.stderr
    text = out.read_text()
    assert "midint-tuning 2" in text and f"registry {ident['registry']}" in text and "# made by hand" in text
    assert all(f"{op} {b} 1 * {n} {sets[(op, b)]}" in text for (op, b), n in chosen.items())
    _, sel = measure([f"load {out}"] + [f"select {op} {b} 100" for op, b in chosen])
    assert pairs_status(sel[0])[:3] == (len(chosen), 0, 0), sel[0]
    assert [ln.split()[-1] for ln in sel[1:]] == list(chosen.values())
    again = upgrade(out)
    assert again.returncode == 0 and "already format 2" in again.stdout
    assert out.read_text() == text


@pytest.mark.parametrize("kind,expect", [
    ("registry", "was tuned against registry 0123456789abcdef"),
    ("row", "is not a row of this build"),
    ("version", "format 7, --upgrade reads format 1"),
    ("not_a_table", "not a tuned table"),
])
def test_upgrade_refuses(ident, tmp_path, kind, expect):
    B = sizes_of("add")[0]
    name = other_variant("add", B, 100)
    head = f"midint-tuning 1\ndevice {ident['device']}\n"
    text = {
        "registry": f"{head}registry 0123456789abcdef\nadd {B} 1 * {name}\n",
        "row": f"{head}registry {ident['registry']}\nadd {B + 1} 1 * {name}\n",
        "version": f"midint-tuning 7\ndevice {ident['device']}\nregistry {ident['registry']}\n",
        "not_a_table": "hello\n",
    }[kind]
    path = tmp_path / "old.tune"
    path.write_text(text)
    p = upgrade(path)
    assert p.returncode == 1 and expect in p.stderr, p.stdout + p.stderr
    assert path.read_text() == text   # left as it was
