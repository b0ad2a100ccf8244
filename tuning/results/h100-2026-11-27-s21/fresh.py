# fresh.py — session experiment: the cost of a fresh 32 MB / 128 MB result array's first touch, by how it is made
import mmap, time, sys
import numpy as np
sys.path.insert(0, "python")
import midint
def best(fn, reps=7):
    ts = []
    for _ in range(reps):
        t = time.perf_counter(); r = fn(); ts.append(time.perf_counter() - t); del r
    return min(ts) * 1e3, sorted(ts)[len(ts) // 2] * 1e3
def np_touch(n):
    a = np.empty(n, np.uint8); a[::4096] = 0; return a
def mm(n, populate=False, huge=False):
    m = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | (mmap.MAP_POPULATE if populate else 0))
    if huge:
        m.madvise(mmap.MADV_HUGEPAGE)
    a = np.frombuffer(m, np.uint8)
    if not populate:
        a[::4096] = 0
    return a
print(open("/sys/kernel/mm/transparent_hugepage/enabled").read().strip(), open("/sys/kernel/mm/transparent_hugepage/defrag").read().strip())
for mb in (32, 128):
    n = mb << 20
    print(f"{mb} MB: np.empty+touch {best(lambda: np_touch(n))}, mmap+touch {best(lambda: mm(n))}, "
          f"MAP_POPULATE {best(lambda: mm(n, True))}, MADV_HUGEPAGE+touch {best(lambda: mm(n, False, True))}, "
          f"POPULATE+HUGE {best(lambda: mm(n, True, True))}")
# the host call itself into each kind of fresh output
with midint.Context("cuda") as ctx:
    words = 1 << 22
    for bits in (512, 65536):
        w = bits // 32; cnt = words // w
        a = np.random.default_rng(1).integers(0, 2**32, size=(cnt, w), dtype=np.uint32); b = a[::-1].copy()
        out = np.empty((cnt, 2 * w), np.uint32); ctx.mul(a, b, out=out)
        def into(kind):
            n = cnt * 2 * w * 4
            if kind == "np": o = np.empty((cnt, 2 * w), np.uint32)
            else:
                m = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | (mmap.MAP_POPULATE if "pop" in kind else 0))
                if "huge" in kind: m.madvise(mmap.MADV_HUGEPAGE)
                o = np.frombuffer(m, np.uint32).reshape(cnt, 2 * w)
            ctx.mul(a, b, out=o); return o
        print(bits, "ctx.mul into: reused", best(lambda: ctx.mul(a, b, out=out)), "np.empty", best(lambda: into("np")),
              "mmap", best(lambda: into("mmap")), "populate", best(lambda: into("pop")), "huge", best(lambda: into("huge")),
              "pop+huge", best(lambda: into("pophuge")))
