"""Spread one batch of big-integer products over several Dask workers, each worker owning one device (a midint
Context opened once per worker), and check the result against Python's integers.

    python3 examples/dask_batch.py --workers 2 --backend opencl --bits 4096 --count 20000
    python3 examples/dask_batch.py --scheduler tcp://host:8786    # an existing cluster, one worker per GPU

Dask does the scheduling: the batch is cut into chunks (NumPy arrays of uint32 limbs, which Dask ships without
pickling each integer), client.map runs each chunk on whichever worker is free, and a worker runs it on its own
device. On one machine, LocalCluster starts one process per worker and the example gives worker i device
i mod --devices; on a real cluster start one worker per GPU (e.g. `dask worker --nworkers 1` with
CUDA_VISIBLE_DEVICES set per worker, or dask-cuda's dask-cuda-worker) and keep device 0.
"""

import argparse
import os
import random
import sys
import time
from pathlib import Path

try:
    import midint
except ImportError:   # running from a checkout: the package beside lib/libmidint.so, for this process and workers
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [sys.path[0], os.environ.get("PYTHONPATH")]))
    import midint

import numpy as np
from dask.distributed import Client, LocalCluster, get_worker


def open_device(backend, device, dask_worker=None):
    """Runs once on each worker (client.run): the worker's context, kept on the worker for its tasks."""
    dask_worker.midint_ctx = midint.Context(backend, device)
    return str(dask_worker.midint_ctx)


def close_device(dask_worker=None):
    ctx = getattr(dask_worker, "midint_ctx", None)
    if ctx is not None:
        ctx.close()


def run_chunk(op, a, b):
    """One chunk on the worker's device: (result, the worker's address)."""
    w = get_worker()
    return getattr(w.midint_ctx, op)(a, b), w.address


def spread(client, op, a, b, chunks):
    """op over the whole batch (uint32 arrays a, b of shape (count, words)), cut into `chunks` pieces."""
    futures = client.map(run_chunk, [op] * chunks, np.array_split(a, chunks), np.array_split(b, chunks), pure=False)
    results = client.gather(futures)   # in the order of the chunks
    per_worker = {}
    for r, addr in results:
        per_worker[addr] = per_worker.get(addr, 0) + len(r)
    return np.concatenate([r for r, _ in results]), per_worker


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scheduler", default="", help="address of a running Dask scheduler (default: a LocalCluster)")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes")
    ap.add_argument("--devices", type=int, default=0, help="devices to spread the workers over (default: all found)")
    ap.add_argument("--backend", default=None, choices=("auto", "cuda", "opencl"))
    ap.add_argument("--op", default="mul", choices=("add", "sub", "mul", "mullo"))
    ap.add_argument("--bits", type=int, default=4096)
    ap.add_argument("--count", type=int, default=20000)
    ap.add_argument("--chunks", type=int, default=0, help="pieces of the batch (default: 4 per worker)")
    args = ap.parse_args(argv)

    rng = random.Random(1)
    a_ints = [rng.getrandbits(args.bits) for _ in range(args.count)]
    b_ints = [rng.getrandbits(args.bits) for _ in range(args.count)]
    a, b = midint.ints_to_limbs(a_ints, args.bits), midint.ints_to_limbs(b_ints, args.bits)

    if args.scheduler:
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    with client:
        workers = sorted(client.scheduler_info()["workers"])
        ndev = args.devices or count_devices(args.backend)
        for i, addr in enumerate(workers):   # worker i owns device i mod ndev
            ctx = client.run(open_device, args.backend, i % ndev if not args.scheduler else 0, workers=[addr])
            print(f"worker {addr}: {ctx[addr]}")
        t = time.perf_counter()
        r, per_worker = spread(client, args.op, a, b, args.chunks or 4 * len(workers))
        seconds = time.perf_counter() - t
        client.run(close_device)
        if not args.scheduler:
            cluster.close()

    m = (1 << args.bits) - 1
    ref = {"add": lambda x, y: (x + y) & m, "sub": lambda x, y: (x - y) & m, "mul": lambda x, y: x * y,
           "mullo": lambda x, y: (x * y) & m}[args.op]
    got = midint.limbs_to_ints(r)
    bad = [i for i, (x, y, z) in enumerate(zip(a_ints, b_ints, got)) if ref(x, y) != z]
    split = ", ".join(f"{n} on {addr}" for addr, n in sorted(per_worker.items()))
    if bad or len(got) != args.count:
        print(f"FAIL: {len(bad)} of {args.count} results wrong (first at {bad[:5]}), {len(got)} results")
        return 1
    print(f"ok: {args.count} {args.op} of {args.bits} bits on {len(workers)} workers in {seconds:.2f} s ({split})")
    return 0


def count_devices(backend):
    """Devices of the backend that open (the library has no count call; opening stops at the first missing)."""
    n = 0
    while n < 64:
        try:
            midint.Context(backend, n).close()
        except midint.MidintError:
            break
        n += 1
    return max(n, 1)


if __name__ == "__main__":
    sys.exit(main())
