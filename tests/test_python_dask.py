"""The Dask example (examples/dask_batch.py): a batch spread over two worker processes, each with its own midint
context, on CPU workers through PoCL (OpenCL), checked against Python's integers by the example itself."""

import re
import subprocess
import sys

import pytest

from conftest import ROOT, driver_env, require_backend
from python_support import sizes_for

pytest.importorskip("numpy", reason="the midint package needs NumPy")
pytest.importorskip("dask.distributed", reason="dask.distributed is not installed here (CI installs it: "
                    "pip install 'dask[distributed]')")


@pytest.mark.parametrize("op", ("mul",))
def test_dask_example_two_workers(op):
    require_backend("opencl")
    bits = sizes_for("opencl", op)[-1]
    env = driver_env(PYTHONPATH=str(ROOT / "python"))
    p = subprocess.run([sys.executable, str(ROOT / "examples" / "dask_batch.py"), "--workers", "2", "--backend",
                        "opencl", "--op", op, "--bits", str(bits), "--count", "3000", "--chunks", "16"],
                       capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)
    assert p.returncode == 0, f"exit {p.returncode}\n{p.stdout}\n{p.stderr[-3000:]}"
    m = re.search(r"^ok: 3000 \w+ of \d+ bits on 2 workers in [\d.]+ s \((.*)\)$", p.stdout, re.M)
    assert m, p.stdout
    shares = [int(n) for n in re.findall(r"(\d+) on tcp://", m.group(1))]
    assert sum(shares) == 3000 and len(shares) >= 1, m.group(1)
