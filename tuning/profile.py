"""Per-kernel profile of one call through Nsight Compute: where a variant's time goes, kernel by kernel.

Runs the measuring tool under `ncu` (clocks left alone) for one timed launch of each OP:BITS:COUNT[:VARIANT]
given, and prints each kernel's duration, DRAM and SM throughput (percent of peak), achieved occupancy,
registers and grid. Needs a GPU and ncu (the lent GPU machine has both); writes the raw CSV next to --out.
"""

import argparse
import csv
import io
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MEASURE = ROOT / "build" / "tuning" / "measure"
METRICS = {
    "gpu__time_duration.sum": "us",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram%",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": "sm%",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "occ%",
    "launch__registers_per_thread": "regs",
    "launch__grid_size": "grid",
    "launch__block_size": "block",
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("calls", nargs="+", help="OP:BITS:COUNT[:VARIANT] (default variant: what dispatch picks)")
    ap.add_argument("--out", default=str(ROOT / "out" / "profile.csv"))
    args = ap.parse_args(argv)
    ncu = shutil.which("ncu")
    if not ncu:
        sys.exit("profile: ncu is not on the PATH")
    lines = []
    for c in args.calls:
        op, bits, count, *variant = c.split(":")
        lines.append(f"time {op} {bits} {count} {variant[0] if variant else 'default'} 1")
    # every launch is profiled: per call a warm-up and one timed run (the twiddle upload is no kernel)
    cmd = [ncu, "--clock-control", "none", "--csv", "--metrics", ",".join(METRICS), str(MEASURE), "--backend", "cuda",
           "--tuning", "none"]
    p = subprocess.run(cmd, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=1200)
    text = p.stdout[p.stdout.find('"ID"'):] if '"ID"' in p.stdout else ""
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print("\n".join(ln for ln in p.stdout.splitlines() if ln.startswith("time ")))
    if not text:
        print(p.stdout[-3000:], p.stderr[-3000:])
        return 1
    kernels = {}
    for row in csv.DictReader(io.StringIO(text)):
        k = kernels.setdefault(row["ID"], {"name": row["Kernel Name"]})
        value = row["Metric Value"].replace(",", "")
        if row["Metric Name"] == "gpu__time_duration.sum":   # to microseconds, whatever unit ncu chose
            value = float(value) * {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}.get(row.get("Metric Unit"), 1.0)
        k[METRICS.get(row["Metric Name"], row["Metric Name"])] = value
    print(f"{'kernel':58} {'us':>9} {'dram%':>6} {'sm%':>6} {'occ%':>6} {'regs':>5} {'grid':>8} {'block':>6}")
    for k in kernels.values():
        print(f"{k['name'][:58]:58} {float(k.get('us', 0)):9.2f} {k.get('dram%', ''):>6} {k.get('sm%', ''):>6} "
              f"{k.get('occ%', ''):>6} {k.get('regs', ''):>5} {k.get('grid', ''):>8} {k.get('block', ''):>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
