"""examples/rsa_crt.c on a small batch: RSA-2048 decryption by CRT through the host API (mod, powm with secret = 1,
sub, add, mod, mulmod, mul, add), every message checked against the one GMP encrypted."""

import subprocess
from pathlib import Path

import pytest

from conftest import driver_env

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "build" / "examples" / "rsa_crt"


def test_rsa_crt_small_batch():
    if not EXAMPLE.exists():
        pytest.fail(f"{EXAMPLE.relative_to(ROOT)} is missing: run `make`")
    proc = subprocess.run([str(EXAMPLE), "5", "2"], capture_output=True, text=True, timeout=600,
                          env=driver_env())
    assert proc.returncode == 0 and "pass:" in proc.stdout, proc.stdout + proc.stderr
