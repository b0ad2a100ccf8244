"""The build as a user meets it: `make gen` refusing bad SIZES, `make install` with a working pkg-config file."""

import os
import shutil
import subprocess

import pytest

from conftest import ROOT, available, probe

PROGRAM = r"""
#include <midint.h>
#include <stdio.h>
int main(void) {
    midint_context *ctx;
    uint32_t a[2] = {0xffffffffu, 1}, b[2] = {1, 2}, r[2], c;
    if (midint_open(&ctx, MIDINT_BACKEND_AUTO, 0) != MIDINT_OK) { puts(midint_last_error(NULL)); return 1; }
    if (midint_add(ctx, 1, 64, r, a, b, &c) != MIDINT_OK) { puts(midint_last_error(ctx)); return 1; }
    printf("%08x %08x %u\n", r[1], r[0], c);
    midint_close(ctx);
    return 0;
}
"""


@pytest.mark.parametrize("sizes,message", [("100", "bits_multiple_of_32"), ("0", "bits_multiple_of_32"),
                                           (str((1 << 31) + 32), "above the generator's limit")])
def test_make_gen_refuses_bad_sizes(sizes, message):
    before = (ROOT / "generated" / "variants.txt").read_text()
    p = subprocess.run(["make", "-s", "gen", f"SIZES={sizes}"], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode != 0 and message in p.stderr, p.stderr
    assert (ROOT / "generated" / "variants.txt").read_text() == before, "a refused request changed generated/"


@pytest.mark.skipif(not shutil.which("pkg-config"), reason="pkg-config is not installed")
def test_install_and_link_with_pkg_config(tmp_path):
    if not (available("opencl") or available("cuda")):
        pytest.skip("no backend can run here: " + probe("opencl")[1])
    prefix = tmp_path / "prefix"
    p = subprocess.run(["make", "-s", "install", f"PREFIX={prefix}"], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    for f in ("lib/libmidint.a", "lib/libmidint.so", "include/midint.h", "lib/pkgconfig/midint.pc"):
        assert (prefix / f).exists(), f
    env = dict(os.environ, PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig"))
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "midint"], env=env, capture_output=True,
                           text=True, check=True).stdout.split()
    src = tmp_path / "prog.c"
    src.write_text(PROGRAM)
    exe = tmp_path / "prog"
    subprocess.run(["cc", str(src), "-o", str(exe), *flags, f"-Wl,-rpath,{prefix / 'lib'}"], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.split() == ["00000004", "00000000", "0"]  # 0x1_ffffffff + 0x2_00000001
