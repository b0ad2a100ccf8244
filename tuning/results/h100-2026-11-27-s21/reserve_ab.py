# untracked session script: ctx.mul on lists of ints with the results' ints made during the device call (on) and
# after it (off), alternated in one process, with gmpy2 on one core between them; medians in ms
import statistics, sys, time, random
sys.path.insert(0, "python"); sys.path.insert(0, "/tmp/gm")
import midint, midint.context as mc
import gmpy2
rng = random.Random(5)
with midint.Context("cuda") as ctx:
    for bits in (512, 1024, 4096):
        n = (1 << 22) // (bits // 32)
        a = [rng.getrandbits(bits) for _ in range(n)]; b = [rng.getrandbits(bits) for _ in range(n)]
        ga, gb = [gmpy2.mpz(x) for x in a], [gmpy2.mpz(y) for y in b]
        want = [x * y for x, y in zip(ga[:64], gb[:64])]
        ts = {"on": [], "off": [], "gmpy2": []}
        ctx.mul(a, b, bits=bits)
        for rep in range(9):
            for mode in ("on", "off", "gmpy2"):
                if mode == "gmpy2":
                    t = time.perf_counter(); r = [x * y for x, y in zip(ga, gb)]; ts[mode].append(time.perf_counter() - t)
                else:
                    mc._RESERVE_WORDS = 1 << 16 if mode == "on" else 1 << 62
                    t = time.perf_counter(); r = ctx.mul(a, b, bits=bits); ts[mode].append(time.perf_counter() - t)
                    assert r[:64] == want
                del r
        med = {k: statistics.median(v) * 1e3 for k, v in ts.items()}
        print(f"mul {bits} x {n}: on {med['on']:.1f} ms, off {med['off']:.1f} ms, gmpy2 {med['gmpy2']:.1f} ms; "
              f"gmpy2/on {med['gmpy2']/med['on']:.2f}, gmpy2/off {med['gmpy2']/med['off']:.2f} "
              f"(on {[round(x*1e3,1) for x in ts['on']]}, off {[round(x*1e3,1) for x in ts['off']]}, "
              f"gmpy2 {[round(x*1e3,1) for x in ts['gmpy2']]})", flush=True)
