"""`python -m midint.info` and `python -m midint.bench` run and say what they must (tiny batches on PoCL)."""

import csv
import subprocess
import sys


from conftest import ROOT, driver_env, read_variants, require_backend
from python_support import midint, sizes_for  # noqa: F401  (skips without NumPy)


def run_module(args, tmp_path):
    env = driver_env(PYTHONPATH=str(ROOT / "python"))
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, timeout=300, env=env,
                          cwd=tmp_path)


def test_info(tmp_path):
    require_backend("opencl")
    p = run_module(["midint.info", "--backend", "opencl"], tmp_path)
    assert p.returncode == 0, p.stderr
    for what in ("library", "registry", "context   opencl device 0", "tuning", "generated sizes", "dispatch at"):
        assert what in p.stdout, f"{what!r} missing from:\n{p.stdout}"
    for op in ("add", "sub", "mul", "mullo"):
        assert f"  {op:6} up to" in p.stdout


def test_bench_rows_and_checks(tmp_path):
    require_backend("opencl")
    bits = sizes_for("opencl", "mul")[-1]
    too_big = 2 * max(v["bits"] for v in read_variants() if v["backend"] == "opencl" and v["op"] == "add")
    out = tmp_path / "bench.csv"
    p = run_module(["midint.bench", "--backend", "opencl", "--ops", "mul,add", "--sizes", f"{bits},{too_big}",
                    "--words", "2^12", "--ints-words", "2^10", "--reps", "2", "--cpu", "--csv", str(out)], tmp_path)
    assert p.returncode == 0, p.stderr
    assert "the wrapper adds" in p.stdout and "skipped: above the largest" in p.stdout
    rows = list(csv.DictReader(out.open()))
    paths = {(r["op"], r["path"].strip()) for r in rows}
    for op in ("mul", "add"):
        for path in ("C host (same buffers)", f"NumPy ctx.{op}", "C device (same buffers)", f"DeviceArray ctx.{op}",
                     f"ints ctx.{op} (total)", "ints -> limbs (a and b)", "limbs -> ints (result)",
                     "Python int, 1 core"):
            assert (op, path) in paths, f"no row {op} {path!r}"
    checked = [r for r in rows if r["check"]]
    assert checked and all(r["check"] == "pass" for r in checked), [r for r in checked if r["check"] != "pass"]
    assert all(float(r["ms"]) > 0 for r in rows)
