"""Bad input to the C API (NULLs, sizes, overlap, variants, open) per backend: runs build/tests/api_errors."""

import re
import subprocess

import pytest

from conftest import BACKENDS, BUILD, ROOT, driver_env, read_variants, require_backend

DRIVER = BUILD / "tests" / "api_errors"
# the driver lists about 200 checks (some 40 to 50 per operation: add, sub, mul, mullo); fewer than this
# means it lost an operation or a whole family of checks
MIN_CHECKS = 180
# checks the brief requires by name: a driver that silently drops one of them must not pass
REQUIRED = (
    "add_null_ctx", "add_null_r", "add_null_a", "add_null_b", "add_count_0", "add_bits_0", "add_bits_33",
    "add_bits_above_max", "open_unknown_backend", "open_no_device_9999", "open_negative_device",
    "open_null_ctx_pointer", "add_overlap_r_a_plus_1", "add_overlap_carry_r", "add_force_unknown_variant",
    "add_force_other_backend_variant", "add_forced_variant_too_small", "staging_bytes_0", "sub_null_ctx",
    "sub_count_0", "add_device_null_r", "add_device_count_0", "add_device_bits_33", "status_names", "close_null",
    "last_error_empty_after_open", "add_in_place_r_is_a_64", "add_in_place_r_is_b_64", "add_in_place_r_is_a_128",
    "add_in_place_r_is_b_128",
    # the multiplications: mul's r is 2n words and may not overlap a or b at all; mullo works in place
    "mul_null_ctx", "mul_null_r", "mul_null_a", "mul_null_b", "mul_count_0", "mul_bits_0", "mul_bits_33",
    "mul_bits_above_max", "mul_overlap_r_a_plus_1", "mul_overlap_r_end_b_first_word", "mul_in_place_r_is_a_refused",
    "mul_in_place_r_is_b_refused", "mullo_null_ctx", "mullo_null_r", "mullo_count_0", "mullo_bits_0",
    "mullo_bits_33", "mullo_bits_above_max", "mullo_overlap_r_a_plus_1", "mullo_in_place_r_is_a_64",
    "mullo_in_place_r_is_b_64", "mullo_in_place_r_is_a_is_b_64", "mullo_in_place_r_is_a_128",
    "mullo_in_place_r_is_b_128", "mullo_in_place_r_is_a_is_b_128", "mul_device_null_r", "mul_device_count_0",
    "mul_device_bits_33", "mul_device_bits_above_max", "mul_device_r_is_a_refused", "mullo_device_null_r",
    "mullo_device_count_0", "mullo_device_bits_33", "mullo_device_bits_above_max", "mul_forced_variant_too_small",
    "mullo_forced_variant_too_small", "mul_device_forced_variant_too_small", "mullo_device_forced_variant_too_small",
    # a modulus shared by a batch: midint_modulus_create's refusals, and calls with a modulus that does not fit
    "modulus_create_errors", "modulus_call_errors",
)


@pytest.mark.parametrize("backend", BACKENDS)
def test_api_errors(backend):
    if not DRIVER.exists():
        pytest.fail(f"{DRIVER.relative_to(ROOT)} is missing: run `make` (or `make build/tests/api_errors NVCC=`)")
    require_backend(backend)

    listing = subprocess.run([str(DRIVER), "--backend", backend, "--list"], capture_output=True, text=True,
                             timeout=60, cwd=ROOT)
    assert listing.returncode == 0, f"api_errors --list exited {listing.returncode}: {listing.stderr.strip()}"
    names = listing.stdout.split()
    assert len(names) == len(set(names)), "api_errors --list names a check twice"
    assert len(names) >= MIN_CHECKS, f"api_errors lists only {len(names)} checks (want at least {MIN_CHECKS})"
    missing_required = [n for n in REQUIRED if n not in names]
    assert not missing_required, f"api_errors no longer has these checks: {', '.join(missing_required)}"

    p = subprocess.run([str(DRIVER), "--backend", backend], capture_output=True, text=True, timeout=600,
                       env=driver_env(), cwd=ROOT)
    assert p.returncode != 2, f"api_errors could not open a {backend} context: {p.stderr.strip()}"

    results, problems = {}, []
    for line in p.stdout.splitlines():
        if line.startswith("ok "):
            name, verdict = line[3:].strip(), "ok"
        elif line.startswith("FAIL "):
            name, verdict = line[5:].split(":", 1)[0].strip(), line
        elif line.startswith("skip "):
            # the one reason a check may skip: a build of one size per operation (make gen SIZES=...)
            name, _, reason = line[5:].partition(": ")
            m = re.match(r"only one (\w+) size is generated \((\d+) bits\)", reason)
            sizes = {v["bits"] for v in read_variants() if m and v["backend"] == backend and v["op"] == m.group(1)}
            verdict = "ok" if m and sizes == {int(m.group(2))} else f"unconfirmed skip: {line}"
        else:
            problems.append(f"unexpected output line: {line!r}")
            continue
        if name in results:
            problems.append(f"check {name} reported twice")
        results[name] = verdict

    problems += [v for v in results.values() if v != "ok"]
    unreported = [n for n in names if n not in results]
    if unreported:
        # the driver prints each result as it finishes, so the first unreported check is where it stopped
        how = f"exit {p.returncode}" if p.returncode >= 0 else f"killed by signal {-p.returncode}"
        problems.append(f"{len(unreported)} checks never reported ({how}; it stopped in or after "
                        f"'{unreported[0]}'): {', '.join(unreported[:10])}")
    problems += [f"check {n} reported but not in --list" for n in results if n not in names]
    tail = p.stderr.strip()[-2000:]
    assert not problems, (f"{backend}: {len(problems)} problem(s) in {len(results)} reported checks:\n"
                          + "\n".join(problems) + (f"\nstderr:\n{tail}" if tail else ""))
    assert p.returncode == 0, f"api_errors exited {p.returncode} although every check passed; stderr:\n{tail}"
    assert len(results) >= MIN_CHECKS
