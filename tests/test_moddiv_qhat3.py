"""templates/lib_moddiv.j2's md_recip3 and md_qhat3 (every division's quotient word estimate: the thread's forms, the
rows, kernel_div_lanes.j2's lanes) compiled on the host: the reciprocal against floor((B^3 - 1) / <d1 d0>) - B and
the estimate against min(floor(<u2 u1 u0> / <d1 d0>), B - 1), for normalized divisors at the edges (top word 2^31,
2^31 + 1, all ones; low word 0, 1, all ones) and random, and windows <u2 u1> from 0 to <d1 d0> itself (the case
outside the method's range) with u0 0, all ones or random."""

import random
import shutil
import subprocess

import jinja2
import pytest

from test_modarith_lib import HOST_PRELUDE, ROOT

B = 1 << 32

MAIN = r"""
#include <stdio.h>
int main(void)
{
    unsigned d1, d0, u2, u1, u0;
    while (scanf("%x %x %x %x %x", &d1, &d0, &u2, &u1, &u0) == 5) {
        const u32 v = md_recip3_h(d1, d0);
        printf("%x %x\n", v, md_qhat3_h(u2, u1, u0, d1, d0, v));
    }
    return 0;
}
"""


@pytest.fixture(scope="module")
def qhat3(tmp_path_factory):
    cc = shutil.which("cc")
    if cc is None:
        pytest.skip("needs cc")
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(ROOT / "templates")), undefined=jinja2.StrictUndefined)
    lib = env.from_string('{% import "lib_moddiv.j2" as md %}{{ md.define_qhat("h") }}')
    d = tmp_path_factory.mktemp("qhat3")
    src = d / "qhat3.c"
    src.write_text(HOST_PRELUDE + lib.render() + MAIN)
    exe = d / "qhat3"
    res = subprocess.run([cc, "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", str(src), "-o", str(exe)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-4000:]
    return exe


def cases(rng):
    tops = (1 << 31, (1 << 31) + 1, B - 1, B - 2) + tuple(rng.randrange(1 << 31, B) for _ in range(300))
    lows = (0, 1, B - 1, 1 << 31)
    out = []
    for d1 in tops:
        for d0 in lows + (rng.randrange(B),):
            dd = d1 * B + d0
            for top in (0, 1, dd - 1, dd, rng.randrange(dd), rng.randrange(B), dd - rng.randrange(1, B)):
                if 0 <= top <= dd:
                    for u0 in (0, B - 1, rng.randrange(B)):
                        out.append((d1, d0, top >> 32, top % B, u0))
    return out


def test_recip3_and_qhat3(qhat3):
    rng = random.Random("qhat3")
    cs = cases(rng)
    text = "".join("%x %x %x %x %x\n" % c for c in cs)
    res = subprocess.run([str(qhat3)], input=text, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr[-2000:]
    lines = res.stdout.split("\n")[:-1]
    assert len(lines) == len(cs)
    for (d1, d0, u2, u1, u0), line in zip(cs, lines):
        v, q = (int(x, 16) for x in line.split())
        dd = d1 * B + d0
        assert v == (B ** 3 - 1) // dd - B, (d1, d0, v)
        assert q == min((((u2 * B) + u1) * B + u0) // dd, B - 1), (d1, d0, u2, u1, u0, q)
