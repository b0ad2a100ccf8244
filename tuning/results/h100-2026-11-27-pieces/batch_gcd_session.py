# untracked session script (kept as the record): # untracked: batch GCD on the GPU, end to end (host ints/arrays in, results out), checked on a sample
import math, random, sys, time
sys.path.insert(0, "python")
import numpy as np
import midint
sys.path.insert(0, "/tmp/gm")
import gmpy2

def is_prime(n):
    d, s = n - 1, 0
    while d % 2 == 0: d, s = d // 2, s + 1
    for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29):
        x = pow(a, d, n)
        if x in (1, n - 1): continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1: break
        else: return False
    return True

def prime(rnd, b):
    n = rnd.getrandbits(b) | (1 << (b - 1)) | 1
    while not is_prime(n): n += 2
    return n

rnd = random.Random(3)
p, q1, q2 = prime(rnd, 512), prime(rnd, 512), prime(rnd, 512)
with midint.Context("cuda") as ctx:
    for count in (1 << 16, 1 << 18, 1 << 20):
        ms = [rnd.getrandbits(1024) | (1 << 1023) | 1 for _ in range(count)]
        ms[5], ms[count - 7] = p * q1, p * q2
        arr = midint.ints_to_limbs(ms, 1024)
        g = ctx.batch_gcd(arr[:16])   # warm-up
        ts = []
        for rep in range(2 if count > 1 << 18 else 3):
            t = time.perf_counter(); g = ctx.batch_gcd(arr); ts.append(time.perf_counter() - t)
        t = time.perf_counter(); gi = ctx.batch_gcd(ms); tint = time.perf_counter() - t
        gl = midint.limbs_to_ints(g)
        assert gl == gi
        assert gl[5] % p == 0 and gl[count - 7] % p == 0
        # the definition on a sample: gcd(N_i, P / N_i) with P by a product tree in Python
        level = [gmpy2.mpz(m) for m in ms]
        while len(level) > 1:
            level = [level[i] * level[i + 1] if i + 1 < len(level) else level[i] for i in range(0, len(level), 2)]
        P = level[0]
        for i in rnd.sample(range(count), 20) + [5, count - 7]:
            m = gmpy2.mpz(ms[i])
            assert gl[i] == int(gmpy2.gcd(m, (P % (m * m)) // m)), i
        print(f"batch_gcd {count} x 1024 bits: array {min(ts)*1e3:.1f} ms (runs {', '.join(f'{t*1e3:.1f}' for t in ts)}), "
              f"list of ints {tint*1e3:.1f} ms, checked", flush=True)
