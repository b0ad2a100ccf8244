# untracked session script: batch GCD end to end (host in, host out), checked, timed; LIB=path picks the library
import os, random, sys, time
sys.path.insert(0, "python")
import midint
sys.path.insert(0, "/tmp/gm")
import gmpy2

def prime(rnd, b):
    while True:
        n = gmpy2.mpz(rnd.getrandbits(b) | (1 << (b - 1)) | 1)
        if gmpy2.is_prime(n):
            return int(n)

rnd = random.Random(18)
p, q1, q2, q3 = (prime(rnd, 512) for _ in range(4))
counts = [int(c) for c in sys.argv[1].split(",")]
check = len(sys.argv) > 2 and sys.argv[2] == "check"
with midint.Context("cuda") as ctx:
    print("device:", ctx.device_name if hasattr(ctx, "device_name") else "", os.environ.get("MIDINT_LIBRARY", "lib/"))
    for count in counts:
        ms = [rnd.getrandbits(1024) | (1 << 1023) | 1 for _ in range(count)]
        if count >= 8:
            ms[5], ms[count - 7] = p * q1, p * q2          # a pair sharing p
            ms[2], ms[count - 1] = p * q3, p * q3 if count > 12 else ms[count - 1]   # a repeated modulus
        arr = midint.ints_to_limbs(ms, 1024)
        ctx.batch_gcd(arr[:16])   # warm-up
        ts = []
        for rep in range(2 if count > 1 << 18 else 4):
            t = time.perf_counter(); g = ctx.batch_gcd(arr); ts.append(time.perf_counter() - t)
        t = time.perf_counter(); gi = ctx.batch_gcd(ms); tint = time.perf_counter() - t
        gl = midint.limbs_to_ints(g)
        assert gl == gi
        if count >= 8:
            assert gl[5] == p and gl[count - 7] == p, (gl[5], gl[count - 7])
        if check:
            level = [gmpy2.mpz(m) for m in ms]
            while len(level) > 1:
                level = [level[i] * level[i + 1] if i + 1 < len(level) else level[i] for i in range(0, len(level), 2)]
            P = level[0]
            idx = range(count) if count <= 4096 else rnd.sample(range(count), 40) + [2, 5, count - 7, count - 1]
            for i in idx:
                m = gmpy2.mpz(ms[i])
                assert gl[i] == int(gmpy2.gcd(m, (P // m) % m)), i
        print(f"batch_gcd {count} x 1024: array {min(ts)*1e3:.1f} ms (runs {', '.join(f'{t*1e3:.1f}' for t in ts)}), "
              f"ints {tint*1e3:.1f} ms{', checked' if check else ''}", flush=True)
