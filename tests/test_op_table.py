"""The table of operations (generator/ops.py): its rules, and that a new row alone flows everywhere an operation
shows — the registry, the public header, the library's descriptors, Python and the test driver's GMP reference."""

import dataclasses
import os
import subprocess
import sys

import pytest

from conftest import ROOT, probe

sys.path.insert(0, str(ROOT))
from generator import ops  # noqa: E402
from generator.render import environment, render_ops  # noqa: E402


def test_the_table_keeps_its_rules():
    ops.check()
    assert [op.code for op in ops.OPERATIONS] == list(range(len(ops.OPERATIONS)))


@pytest.mark.parametrize("change,why", [
    (lambda r: dataclasses.replace(r, code=r.code + 1), "code"),
    (lambda r: dataclasses.replace(r, reference=()), "no reference"),
    (lambda r: dataclasses.replace(r, in_place=(("r", "nosuch"),)), "in place"),
    (lambda r: dataclasses.replace(r, name="Bad-Name"), "C identifier"),
    (lambda r: dataclasses.replace(r, bench="seconds"), "bench"),
])
def test_a_broken_row_is_refused_with_the_rule(change, why):
    table = list(ops.OPERATIONS)
    table[-1] = change(table[-1])
    with pytest.raises(ops.OpTableError, match=why):
        ops.check(tuple(table))


def test_header_declares_every_operation_three_ways():
    header = render_ops(environment())["midint_ops.h"]
    for op in ops.OPERATIONS:
        assert f"{ops.c_enum(op)} = {op.code}," in header
        for suffix in ("", "_async", "_device"):
            assert f"midint_status midint_{op.name}{suffix}(midint_context *ctx" in header


# A throw-away operation, a row only: r = a AND NOT b, word-wise (the map family's kernel spells any word expression).
ANDN_ROW = '''    Operation("andn", {code}, (Out("r"), In("a"), In("b", slot="b")), "r = a AND NOT b (test)",
              ("map",), "map", BIT_PATTERNS, BIT_CHAINS, in_place=(("r", "a"), ("r", "b")),
              reference=(("r", "(and a (not b))"),), word="x & ~y"),
'''


def test_a_new_row_flows_to_registry_header_library_python_and_driver(tmp_path):
    if probe("opencl")[0] != 0:
        pytest.skip("needs the OpenCL backend (PoCL) to run the new operation")
    work = tmp_path / "tree"
    work.mkdir()
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    tar = subprocess.Popen(["tar", "cf", "-", *files], cwd=ROOT, stdout=subprocess.PIPE)
    subprocess.run(["tar", "xf", "-"], cwd=work, stdin=tar.stdout, check=True)
    tar.wait()
    table = work / "generator" / "ops.py"
    text = table.read_text()
    anchor = "\n)\n\nBY_NAME = "
    assert anchor in text
    code = len(ops.OPERATIONS)
    text = text.replace(anchor, "\n" + ANDN_ROW.format(code=code).rstrip("\n") + "\n)\n\nBY_NAME = ", 1)
    table.write_text(text)
    env = {**os.environ, "MIDINT_OPENCL_OPTIONS": "-cl-opt-disable"}
    for cmd in (["make", "gen", "SIZES=512,4096", "EXPRS="], ["make", "NO_CUDA=1", "lib", "drivers", "-j2"]):
        p = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=900, env=env)
        assert p.returncode == 0, f"{' '.join(cmd)}: {p.stdout[-2000:]}{p.stderr[-2000:]}"
    gen = work / "generated"
    assert any(ln.startswith("andn_512_") for ln in (gen / "variants.txt").read_text().splitlines())
    assert f"MIDINT_OP_ANDN = {code}," in (gen / "midint_ops.h").read_text()
    assert "midint_status midint_andn_device(" in (gen / "midint_ops.h").read_text()
    # the driver checks it against GMP through its reference text, as any operation
    cases = "andn 4096 7 mixed 1 host none\nandn 96 5 mixed 2 device ra\n"
    p = subprocess.run([str(work / "build" / "tests" / "check_batch"), "--backend", "opencl"], input=cases,
                       capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 0 and p.stdout.count("ok ") == 2, p.stdout + p.stderr
    # Python reads it from the library: ctx.andn, with its reference
    script = ("import midint\n"
            "assert 'andn' in midint.OPS and midint.OPS['andn'].reference == 'r=(and a (not b))'\n"
            "with midint.Context('opencl') as ctx:\n"
            "    a, b = [0b1100, 2**4000 + 7], [0b1010, 5]\n"
            "    assert ctx.andn(a, b, bits=4096) == [x & ((1 << 4096) - 1 - y) for x, y in zip(a, b)]\n"
            "print('python ok')\n")
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                       env={**env, "PYTHONPATH": str(work / "python"),
                            "MIDINT_LIBRARY": str(work / "lib" / "libmidint.so")})
    assert p.returncode == 0 and "python ok" in p.stdout, p.stdout + p.stderr
