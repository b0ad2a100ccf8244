# untracked session script: batch GCD of 1024-bit moduli from a limb array and from Python ints, alternated;
# PYDIR picks the package (old or new)
import os, random, sys, time
sys.path.insert(0, os.environ["PYDIR"])
import midint
print(midint.__file__, midint.convert.PATH)
rnd = random.Random(21)
with midint.Context("cuda") as ctx:
    for count in [int(c) for c in sys.argv[1].split(",")]:
        ms = [rnd.getrandbits(1024) | (1 << 1023) | 1 for _ in range(count)]
        ms[3] = ms[count - 2] = ms[3] * 0 + ms[count - 2]   # a repeated modulus
        arr = midint.ints_to_limbs(ms, 1024)
        ctx.batch_gcd(arr[:16])
        ta, ti = [], []
        for rep in range(3):
            t = time.perf_counter(); g = ctx.batch_gcd(arr); ta.append(time.perf_counter() - t)
            t = time.perf_counter(); gi = ctx.batch_gcd(ms); ti.append(time.perf_counter() - t)
            del gi
        gi = ctx.batch_gcd(ms)
        assert midint.limbs_to_ints(g) == gi and gi[3] == ms[3]
        print(f"batch_gcd {count} x 1024: array {min(ta)*1e3:.1f} ms, ints {min(ti)*1e3:.1f} ms, "
              f"ints/array {min(ti)/min(ta):.3f} (runs array {[round(x*1e3,1) for x in ta]}, ints {[round(x*1e3,1) for x in ti]})",
              flush=True)
