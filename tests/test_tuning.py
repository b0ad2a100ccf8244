"""Tuned tables: the loader's checks and messages, and the tuner on PoCL (planted wrong variant, atomic write).
Format 2's per-pair candidate sets and tune.py --upgrade: tests/test_tuning_sets.py."""

import subprocess
import sys

import pytest

from conftest import BUILD, ROOT, driver_env, read_variants, require_backend

MEASURE = BUILD / "tuning" / "measure"
TUNE = [sys.executable, str(ROOT / "tuning" / "tune.py"), "--backend", "opencl", "--reps", "2", "--words", "8192"]


def measure(commands, **extra):
    """Header dict and answer lines of the measuring tool on the OpenCL backend."""
    assert MEASURE.exists(), f"{MEASURE} is missing: run `make` first"
    p = subprocess.run([str(MEASURE), "--backend", "opencl"], input="\n".join(commands) + "\n", text=True,
                       capture_output=True, env=driver_env(**extra), timeout=600)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    header = dict(line.split(" ", 1) for line in lines[:3])
    return header, lines[3:]


@pytest.fixture(scope="module")
def ident():
    require_backend("opencl")
    header, _ = measure([])
    return header


def table(ident, body, device=None, registry=None, version=1):
    return (f"# test table\nmidint-tuning {version}\ndevice {device or ident['device']}\n"
            f"registry {registry or ident['registry']}\n{body}")


def generated_bits(op, prefer):
    """`prefer` bits, or the smallest size of `op` the user's `make gen SIZES=...` generated."""
    sizes = {v["bits"] for v in read_variants() if v["backend"] == "opencl" and v["op"] == op}
    return prefer if prefer in sizes else min(sizes)


def add_bits():
    return generated_bits("add", 512)


def some_variant(op="add", bits=None):
    bits = bits or add_bits()
    return next(v["name"] for v in read_variants() if v["backend"] == "opencl" and v["op"] == op
                and v["bits"] == bits)


def test_good_table_is_used(ident, tmp_path):
    B = add_bits()
    _, plain = measure([f"select add {B} 100"])
    default = plain[0].split()[-1]
    name = next(v["name"] for v in read_variants() if v["backend"] == "opencl" and v["op"] == "add"
                and v["bits"] == B and v["name"] != default)
    path = tmp_path / "good.tune"
    path.write_text(table(ident, f"add {B} 1 99 {name}\n"))
    _, out = measure([f"load {path}", f"select add {B} 50", f"select add {B - 32} 50", f"select add {B} 100"])
    assert out[0].startswith("load ok tuned table") and "(1 entries)" in out[0]
    assert out[1].endswith(name) and out[2].endswith(name)   # a size below the tuned one uses its entry
    assert out[3].split()[-1] == default                      # outside the count range: the default rule


@pytest.mark.parametrize("kind,expect", [
    ("registry", "made against registry"),
    ("device", "made for device"),
    ("version", "format version 7"),
    ("malformed", ":6: expected 'op bits min_count max_count variant'"),
    ("unknown_variant", ":5: variant 'add_512_u64_q3_i1_opencl' is not in the registry"),
    ("bad_bits", ":5: bits '500' is not a positive multiple of 32"),
    ("bad_range", ":5: max_count '3' is neither '*' nor an integer >= min_count"),
    ("missing", "cannot open"),
])
def test_bad_tables_are_refused_with_reason(ident, tmp_path, kind, expect):
    B = add_bits()
    name = some_variant()
    good = f"add {B} 1 * {name}\n"
    text = {
        "registry": table(ident, good, registry="0000000000000000"),
        "device": table(ident, good, device="Some Other GPU (sm_75)"),
        "version": table(ident, good, version=7),
        "malformed": table(ident, good + f"add {B} 1\n"),
        "unknown_variant": table(ident, f"add {B} 1 * add_512_u64_q3_i1_opencl\n"),
        "bad_bits": table(ident, f"add 500 1 * {name}\n"),
        "bad_range": table(ident, f"add {B} 5 3 {name}\n"),
    }.get(kind)
    path = tmp_path / "t.tune"
    if text is not None:
        path.write_text(text)
    _, out = measure([f"load {path}", f"select add {B} 10"])
    assert out[0].startswith("load refused") and expect in out[0], out[0]
    assert out[1].split()[-1] != "none"   # the default rule still serves


def test_environment_table_and_refusal_at_open(ident, tmp_path):
    B = add_bits()
    name = some_variant()
    good = tmp_path / "good.tune"
    good.write_text(table(ident, f"add {B} 1 * {name}\n"))
    header, out = measure([f"select add {B} 10"], MIDINT_TUNING=str(good))
    assert header["tuning"].startswith("tuned table") and out[0].endswith(name)
    bad = tmp_path / "bad.tune"
    bad.write_text(table(ident, f"add {B} 1 * {name}\n", registry="ffffffffffffffff"))
    header, out = measure([f"select add {B} 10"], MIDINT_TUNING=str(bad))
    assert header["tuning"].startswith("default rule (tuned table refused:") and "registry" in header["tuning"]
    assert out[0].split()[-1] != "none"


def test_default_location_per_device(ident, tmp_path):
    B = add_bits()
    name = some_variant()
    slug = "-".join("".join(c if c.isalnum() else " " for c in ident["device"].lower()).split())
    (tmp_path / f"{slug}.tune").write_text(table(ident, f"add {B} 1 * {name}\n"))
    header, out = measure([f"select add {B} 10"], MIDINT_TUNING_DIR=str(tmp_path))
    assert header["tuning"].startswith("tuned table") and out[0].endswith(name)


def run_tune(*args, **extra):
    return subprocess.run([*TUNE, *args], capture_output=True, text=True, env=driver_env(**extra), timeout=900)


def test_tuner_rejects_planted_wrong_variant_and_table_is_used(ident, tmp_path):
    B = add_bits()
    out = tmp_path / "tuned.tune"
    _, sel = measure([f"select add {B} 512"])
    planted = sel[0].split()[-1]          # the default choice is always timed, so it must be caught
    p = run_tune("--ops", "add", "--sizes", str(B), "--out", str(out), MIDINT_TEST_CORRUPT=planted)
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"rejected {planted}: wrong result against GMP" in p.stdout, p.stdout
    text = out.read_text()
    assert "midint-tuning 2" in text and f"registry {ident['registry']}" in text
    assert planted not in text
    entries = [ln.split() for ln in text.splitlines() if ln.startswith("add ")]
    assert entries and all(e[1] == str(B) for e in entries)
    covering = [e[4] for e in entries if int(e[2]) <= 512 and (e[3] == "*" or 512 <= int(e[3]))]
    assert len(covering) == 1, text
    header, sel = measure([f"select add {B} 512"], MIDINT_TUNING=str(out))
    assert sel[0].split()[-1] == covering[0]
    assert "pairs: 1 from the table, 0 on the default rule" in header["tuning"], header["tuning"]


def test_interrupted_tuner_leaves_previous_table(ident, tmp_path):
    out = tmp_path / "tuned.tune"
    before = "previous table, byte for byte\n"
    out.write_text(before)
    p = run_tune("--ops", "add,sub", "--sizes", str(add_bits()), "--out", str(out), "--fail-after", "2")
    assert p.returncode == 130 and "left as it was" in p.stderr, p.stdout + p.stderr
    assert out.read_text() == before
    assert not [f for f in tmp_path.iterdir() if f.name.endswith(".tmp")]


def test_exhaustive_times_every_candidate(ident, tmp_path):
    bits = generated_bits("sub", 1024)
    p = run_tune("--ops", "sub", "--sizes", str(bits), "--out", str(tmp_path / "x.tune"), "--exhaustive")
    assert p.returncode == 0, p.stdout + p.stderr
    n = len([v for v in read_variants() if v["backend"] == "opencl" and v["op"] == "sub" and v["bits"] == bits])
    assert f"{n}/{n}" in p.stdout
