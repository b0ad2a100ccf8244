"""Autotuner: times the generated variants on this device and writes its dispatch table (`make tune`).

For each operation, generated size and batch-size range it checks every surviving candidate against GMP on a
sample, drops wrong ones and ones that fail to launch, times the rest (backend events, warm-up, median) and
keeps the fastest. Candidates that cannot win are not timed: a small cost model (occupancy, shared memory,
work per thread) keeps the best few by prediction, plus the default rule's choice, unless --exhaustive.
The table is written atomically at the end; an interrupted run leaves the previous table as it was.
`--upgrade TABLE` rewrites a format-1 table made for this very build into format 2 (docs/tuning.md), no GPU needed.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from generator.ops import OPERATIONS  # noqa: E402  (the table of operations: what is tuned)
from generator.variant import Variant, parse_name  # noqa: E402
MEASURE = ROOT / "build" / "tuning" / "measure"
VARIANTS_TXT = ROOT / "generated" / "variants.txt"
FORMAT = 2   # rows name their (op, bits) pair's candidate-set hash (docs/tuning.md)

# Batch-size ranges the table keys on: (first count, last count or None for unbounded, count to time).
# The timed count is capped by --words words per operand, so huge instances stay affordable; a range
# whose first count is above the cap is left to the range before it. The first range is where grid variants
# (an instance over many blocks) can beat one-block ones at sizes both serve.
RANGES = ((1, 15, 4), (16, 2047, 512), (2048, 65535, 16384), (65536, None, 1 << 20))

# The cost model's device (Hopper-class SM); the prediction only ranks candidates of one size.
SM = dict(threads=2048, blocks=32, shared=228 * 1024, registers=65536)


@dataclass(frozen=True)
class Candidate:
    """A generated variant as the tuner sees it: its fields (generator/variant.py parses its name, the key
    everywhere) and what the generator derived for it (variants.txt: block, shared memory)."""
    v: Variant
    block: int
    shared: int

    @property
    def name(self):
        return self.v.name

    def __getattr__(self, field):   # op, bits, q, backend, ... of the parsed name
        return getattr(self.v, field)

    @property
    def chunk(self):
        return self.v.chunk_words


def read_variants(path=VARIANTS_TXT):
    out = []
    for line in Path(path).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            f = line.split()
            out.append(Candidate(parse_name(f[0]), int(f[7]), int(f[8])))
    return out


def algorithm(v: Candidate) -> str:
    """What the cost model cannot rank across: classical or NTT (per prime set and digit size), one-block, grid or
    register-resident (per lanes per instance and their kind: lanes of one warp, across warps, owners, a staged
    thread; Karatsuba levels over them)."""
    x = v.v
    kind = "owner" if x.owner else "across" if x.across else "staged" if x.staged else ""
    return (("classical" if x.ntt is None else f"ntt-{x.ntt[0]}b{x.ntt[1]}") + ("-grid" if x.grid else "")
            + (f"-lanes{x.lanes}{kind}" if x.lanes else "") + (f"-k{x.karatsuba}" if x.karatsuba else ""))


def predicted_cost(v: Candidate) -> float:
    """Lower is better: resident warps per SM, discounted for too little work per thread."""
    blocks = min(SM["blocks"], SM["threads"] // v.block, SM["shared"] // max(v.shared, 1))
    occupancy = blocks * v.block / SM["threads"]
    work = min(v.chunk, 16) / 16  # 16 words per thread saturated every kernel measured so far
    return -(occupancy ** 0.5) * work


def candidates_to_time(cands, keep, default_name):
    """Per algorithm (classical, each NTT prime set and digit size, one-block or grid: the model cannot rank
    across them), the best `keep` by prediction, plus the default rule's choice (the baseline the table must
    beat)."""
    chosen = []
    for algo in sorted({algorithm(v) for v in cands}):
        ranked = sorted((v for v in cands if algorithm(v) == algo), key=lambda v: (predicted_cost(v), v.name))
        chosen += ranked[:keep]
    chosen += [v for v in cands if v.name == default_name and v not in chosen]
    return chosen


class Measure:
    """The measuring tool (build/tuning/measure) as a line-oriented subprocess. `tuning`: a table to load,
    "none" for the default rule, "" for whatever the library finds for the device."""

    def __init__(self, backend, tuning="none"):
        if not MEASURE.exists():
            sys.exit(f"tune: {MEASURE} is missing: run `make` first")
        cmd = [str(MEASURE), "--backend", backend] + (["--tuning", tuning] if tuning else [])
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.header = {}
        for _ in range(3):
            key, _, value = self.p.stdout.readline().rstrip("\n").partition(" ")
            self.header[key] = value
        if "registry" not in self.header:
            sys.exit(f"tune: the measuring tool did not start: {self.header}")

    def ask(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        answer = self.p.stdout.readline()
        if not answer:
            raise RuntimeError(f"the measuring tool stopped while answering '{line}'")
        return answer.rstrip("\n").split()

    def time(self, op, bits, count, name, reps):
        """(variant, median ms or None, passed, message)."""
        f = self.ask(f"time {op} {bits} {count} {name} {reps}")
        ok = f[5] == "ok"
        return f[4], float(f[6]) if ok else None, f[7] == "pass", " ".join(f[8:])

    def sets(self):
        """{(op, bits): candidate-set hash} as the library has them: what each written row names."""
        out, f = {}, self.ask("sets")
        while f[:2] != ["sets", "end"]:
            if len(f) != 4 or f[0] != "set":
                raise RuntimeError(f"the measuring tool answered 'sets' with '{' '.join(f)}'")
            out[(f[1], int(f[2]))] = f[3]
            f = self.p.stdout.readline().split()
        return out

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)


def slug(device):
    s = re.sub(r"[^a-z0-9]+", "-", device.lower()).strip("-")
    return s


ROW_COMMENT = "# op bits min_count max_count variant candidates"


def write_lines(path, lines):
    """Write atomically: a temporary file in the same folder, then a rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)


def write_table(path, header, rows, note, sets):
    """`sets`: {(op, bits): candidate-set hash}, the last column of each row."""
    lines = [f"# midint tuning table, written by tuning/tune.py ({note}); do not edit by hand",
             f"midint-tuning {FORMAT}", f"device {header['device']}", f"registry {header['registry']}", ROW_COMMENT]
    lines += [f"{op} {bits} {lo} {'*' if hi is None else hi} {name} {sets[(op, bits)]}"
              for op, bits, lo, hi, name in rows]
    write_lines(path, lines)


def upgrade(path, out=None):
    """Rewrite the format-1 table `path` (into `out`, default in place) as format 2, its rows naming the candidate
    sets of this tree's generated/. Only a table tuned against exactly this build's registry can be: otherwise its
    rows may name candidate sets it was not tuned among. Returns the exit status."""
    from table_hashes import HashError, generated_hashes  # the generator's hash functions (only needed here)
    try:
        text = Path(path).read_text()
        registry, sets = generated_hashes()
    except (OSError, HashError) as e:
        print(f"tune --upgrade: {e}", file=sys.stderr)
        return 1
    content = [(i, ln.split()) for i, ln in enumerate(text.splitlines(), 1) if ln.strip() and not ln.startswith("#")]
    if not content or content[0][1][:1] != ["midint-tuning"] or len(content[0][1]) != 2:
        print(f"tune --upgrade: {path}: not a tuned table (no 'midint-tuning' header)", file=sys.stderr)
        return 1
    if content[0][1][1] == str(FORMAT):
        print(f"tune --upgrade: {path} is already format {FORMAT}; left as it was")
        return 0
    if content[0][1][1] != "1":
        print(f"tune --upgrade: {path}: format {content[0][1][1]}, --upgrade reads format 1", file=sys.stderr)
        return 1
    theirs = next((f[1] for _i, f in content if f[0] == "registry" and len(f) == 2), None)
    if theirs != registry:
        print(f"tune --upgrade: refused: {path} was tuned against registry {theirs}, this tree's generated/ is "
              f"registry {registry}. Upgrade it in the build it was made for (make gen with the SIZES and EXPRS "
              "of that build), or tune again (make tune)", file=sys.stderr)
        return 1
    names = {ln.split()[0] for ln in (ROOT / "generated" / "variants.txt").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")}
    lines = []
    for i, ln in enumerate(text.splitlines(), 1):
        f = ln.split()
        if not ln.strip() or ln.startswith("#") or f[0] in ("device", "registry"):
            lines.append(ROW_COMMENT if ln.strip() == "# op bits min_count max_count variant" else ln)
        elif f[0] == "midint-tuning":
            lines += [f"midint-tuning {FORMAT}", "# upgraded from format 1 by tuning/tune.py --upgrade"]
        elif len(f) != 5 or not f[1].isdigit() or (f[0], int(f[1])) not in sets or f[4] not in names:
            print(f"tune --upgrade: refused: {path}:{i}: '{ln}' is not a row of this build "
                  "(op bits min_count max_count variant, of a generated op, size and variant)", file=sys.stderr)
            return 1
        else:
            lines.append(f"{ln.rstrip()} {sets[(f[0], int(f[1]))]}")
    write_lines(out or path, lines)
    print(f"tune --upgrade: wrote {out or path} (format {FORMAT}, registry {registry})")
    return 0


def kept_rows(path, tuned, sets):
    """The rows of the format-2 table `path` for the (op, bits) groups not in `tuned` whose candidate set is still
    this build's (`sets`): a partial re-tune keeps them (rows of a changed set would be refused at run time)."""
    rows = []
    for ln in Path(path).read_text().splitlines():
        f = ln.split()
        if len(f) != 6 or ln.startswith("#") or not f[1].isdigit():
            continue
        op, bits, lo, hi, name, digest = f[0], int(f[1]), int(f[2]), f[3], f[4], f[5]
        if (op, bits) not in tuned and sets.get((op, bits)) == digest:
            rows.append((op, bits, lo, None if hi == "*" else int(hi), name))
    return rows


def coalesce(entries):
    """Merge neighbouring ranges of one (op, bits) with the same winner; the last range is unbounded."""
    rows = []
    for (op, bits), ranges in entries.items():
        merged = []
        for lo, hi, name in ranges:
            if merged and merged[-1][2] == name:
                merged[-1] = (merged[-1][0], hi, name)
            else:
                merged.append((lo, hi, name))
        merged[-1] = (merged[-1][0], None, merged[-1][2])
        rows += [(op, bits, lo, hi, name) for lo, hi, name in merged]
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="cuda", choices=("cuda", "opencl"))
    ap.add_argument("--ops", default="", help="operations to tune (default every operation of the table, "
                    "generator/ops.py, and every generated expression, expr_NAME)")
    ap.add_argument("--sizes", default="", help="comma-separated sizes in bits (default: every generated size)")
    ap.add_argument("--out", help="table to write (default tuning/tables/<device>.tune)")
    ap.add_argument("--reps", type=int, default=10, help="timed launches per candidate (median)")
    ap.add_argument("--min-ms", type=float, default=20.0, help="a candidate whose timed launches add up to less "
                    "than this is timed again with more launches (short kernels are noisy)")
    ap.add_argument("--keep", type=int, default=4, help="candidates timed per size and algorithm, by predicted cost")
    ap.add_argument("--keep-bytes", type=int, default=1, help="the same for memory-bound operations (those "
                    "benchmarked in GB/s: add, sub, the bitwise ones, shifts, cmp)")
    ap.add_argument("--exhaustive", action="store_true", help="time every candidate (no pruning)")
    ap.add_argument("--words", type=int, default=1 << 25, help="cap on words per operand of a timed batch")
    ap.add_argument("--max-minutes", type=float, default=0, help="stop timing after this long and write what "
                    "was tuned (0: no limit)")
    ap.add_argument("--csv", help="also write every measurement here")
    ap.add_argument("--merge", metavar="TABLE", help="keep TABLE's rows (format 2) for the groups this run does not "
                    "tune, where their candidates did not change: a re-tune of some operations or sizes")
    ap.add_argument("--fail-after", type=int, default=0, help=argparse.SUPPRESS)  # test hook: abort mid-run
    ap.add_argument("--upgrade", metavar="TABLE", help="rewrite TABLE, a format-1 table made for this build "
                    "(its registry line equals generated/'s), as format 2 (into --out if given) and exit; no GPU")
    args = ap.parse_args(argv)
    if args.upgrade:
        return upgrade(args.upgrade, args.out)

    ops = [o for o in args.ops.split(",") if o] or [op.name for op in OPERATIONS] + sorted(
        {v.op for v in read_variants() if v.op.startswith("expr_")})
    unknown = [o for o in ops if o not in {op.name for op in OPERATIONS} and not o.startswith("expr_")]
    if unknown:
        sys.exit(f"tune: unknown operation(s) {', '.join(unknown)}; known: {', '.join(op.name for op in OPERATIONS)} "
                 "and expr_NAME")
    memory_bound = {op.name for op in OPERATIONS if op.bench == "bytes"}
    sizes = {int(s) for s in args.sizes.split(",") if s}
    variants = [v for v in read_variants() if v.backend == args.backend and v.op in ops
                and (not sizes or v.bits in sizes)]
    if not variants:
        sys.exit("tune: no generated variants match: check --backend, --ops and --sizes (or run make gen)")
    groups = sorted({(v.op, v.bits) for v in variants}, key=lambda k: (ops.index(k[0]), k[1]))

    m = Measure(args.backend)
    sets = m.sets()
    out = Path(args.out) if args.out else ROOT / "tuning" / "tables" / f"{slug(m.header['device'])}.tune"
    print(f"tune: {m.header['device']}, registry {m.header['registry']}, {len(groups)} (op, size) groups -> {out}")
    start, done, entries, summary, rejected, log = time.monotonic(), 0, {}, [], [], []
    stopped = False
    try:
        for op, bits in groups:
            cands = [v for v in variants if v.op == op and v.bits == bits]
            for lo, hi, rep in RANGES:
                count = min(rep, max(1, args.words // (bits // 32)))
                if count < lo:
                    continue
                if args.max_minutes and time.monotonic() - start > 60 * args.max_minutes:
                    stopped = True
                    break
                default_name = m.ask(f"select {op} {bits} {count}")[4]
                # memory-bound operations run at the copy rate with any reasonable shape: fewer candidates timed
                keep = min(args.keep, args.keep_bytes) if op in memory_bound else args.keep
                timed = cands if args.exhaustive else candidates_to_time(cands, keep, default_name)
                if len(timed) == 1 and not args.exhaustive:   # nothing to choose: the default rule's, untimed
                    continue
                results = []
                for v in timed:
                    name, ms, passed, msg = m.time(op, bits, count, v.name, args.reps)
                    if ms is not None and passed and ms * args.reps < args.min_ms:
                        reps = min(1000, int(args.min_ms / max(ms, 1e-4)) + 1)
                        name, ms, passed, msg = m.time(op, bits, count, v.name, reps)
                    done += 1
                    if args.fail_after and done >= args.fail_after:
                        raise KeyboardInterrupt("--fail-after")
                    status = "ok" if ms is not None and passed else "error" if ms is None else "WRONG"
                    log.append((op, bits, count, name, ms, status, name == default_name))
                    print(f"  [{done}] {op} {bits} x{count} {name}: "
                          + (f"{ms:.4f} ms" if ms is not None else "failed") + ("" if status == "ok" else
                          f"  rejected ({'wrong result' if status == 'WRONG' else msg})"), flush=True)
                    if status == "ok":
                        results.append((ms, name))
                    else:
                        rejected.append((name, status, msg))
                if not results:
                    continue
                best_ms, best = min(results)
                entries.setdefault((op, bits), []).append((lo, hi, best))
                default_ms = next((ms for ms, n in results if n == default_name), None)
                summary.append((op, bits, count, best, best_ms, default_name, default_ms, len(timed), len(cands)))
            if stopped:
                print(f"tune: --max-minutes reached after {done} measurements; writing what was tuned")
                break
    except KeyboardInterrupt:
        m.close()
        print(f"\ntune: interrupted; {out} left as it was", file=sys.stderr)
        return 130
    m.close()
    if not entries:
        print("tune: nothing was tuned; no table written", file=sys.stderr)
        return 1
    note = "exhaustive" if args.exhaustive else f"best {args.keep} by cost model"
    rows = coalesce(entries)
    if args.merge:
        kept = kept_rows(args.merge, set(entries), sets)
        print(f"tune: kept {len(kept)} rows of {args.merge} for the groups not tuned now")
        order = list(dict.fromkeys(r[0] for r in kept + rows))   # the table's own order of operations
        rows = sorted(kept + rows, key=lambda r: (order.index(r[0]), r[1], r[2]))
        note += f"; other groups from {Path(args.merge).name}"
    write_table(out, m.header, rows, note, sets)
    if args.csv:
        with open(args.csv, "w") as f:
            f.write("op,bits,count,variant,median_ms,status,default\n")
            f.writelines(f"{o},{b},{c},{n},{'' if ms is None else f'{ms:.6f}'},{s},{int(d)}\n"
                         for o, b, c, n, ms, s, d in log)
    print(f"\n{'op':6} {'bits':>7} {'count':>8}  {'tuned choice':34} {'ms':>9}  {'default rule':34} {'ms':>9}"
          f" {'tuned/default':>13} timed")
    for op, bits, count, best, bms, dname, dms, nt, nc in summary:
        ratio = f"{dms / bms:.3f}x" if dms else "-"
        print(f"{op:6} {bits:7d} {count:8d}  {best:34} {bms:9.4f}  {dname:34} "
              f"{dms if dms is not None else float('nan'):9.4f} {ratio:>13} {nt}/{nc}")
    for name, status, msg in rejected:
        print(f"rejected {name}: {'wrong result against GMP' if status == 'WRONG' else msg}")
    print(f"tune: {done} measurements in {time.monotonic() - start:.1f} s; wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
