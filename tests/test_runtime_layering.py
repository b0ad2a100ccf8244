"""The runtime's layering (DESIGN.md, "Runtime layering"): no circle of more than two files in its call graph."""

import subprocess
import sys

from conftest import ROOT


def test_no_circle_of_more_than_two_files():
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "runtime_layering.py"), str(ROOT)], capture_output=True,
                       text=True, timeout=60)
    circles = [ln for ln in p.stdout.splitlines() if ln.startswith("circle")]
    assert p.returncode == 0, "runtime/ has a circle of more than two files:\n" + "\n".join(circles) + "\n" + p.stdout
