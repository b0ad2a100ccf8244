/* untracked session driver: midint_batch_gcd (this tree) beside the landed code's (linked as midint_batch_gcd_old),
 * the same random 1024-bit moduli with a planted pair, results compared, min of runs in ms */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "midint.h"
midint_status midint_batch_gcd_old(midint_context *, size_t, unsigned, const uint32_t *, uint32_t *);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int argc, char **argv)
{
    midint_context *ctx;
    if (midint_open(&ctx, MIDINT_BACKEND_CUDA, 0) != MIDINT_OK) return 1;
    for (int a = 1; a < argc; a++) {
        size_t count = strtoull(argv[a], NULL, 0), n = 32;
        uint32_t *m = malloc(count * n * 4), *g1 = malloc(count * n * 4), *g2 = malloc(count * n * 4);
        uint64_t s = 88172645463325252ull;
        for (size_t i = 0; i < count * n; i++) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; m[i] = (uint32_t)s; }
        for (size_t i = 0; i < count; i++) { m[i * n] |= 1; m[i * n + n - 1] |= 0x80000000u; }
        if (count > 8) memcpy(m + 3 * n, m + 1 * n, n * 4);   /* a repeated modulus */
        double best[2] = {1e9, 1e9};
        for (int rep = 0; rep < (count > (1u << 18) ? 2 : 4); rep++)
            for (int which = 0; which < 2; which++) {
                double t = now();
                midint_status st = which ? midint_batch_gcd_old(ctx, count, 1024, m, g2) : midint_batch_gcd(ctx, count, 1024, m, g1);
                t = now() - t;
                if (st != MIDINT_OK) { printf("%zu: %s failed: %s\n", count, which ? "old" : "new", midint_last_error(ctx)); return 1; }
                if (t < best[which]) best[which] = t;
            }
        size_t weak = 0;
        for (size_t i = 0; i < count; i++) weak += g1[i * n] != 1;
        printf("batch_gcd %zu x 1024 bits: new %.2f ms, landed %.2f ms (%.2fx); results %s; %zu not 1\n", count,
               1e3 * best[0], 1e3 * best[1], best[1] / best[0], memcmp(g1, g2, count * n * 4) ? "DIFFER" : "equal", weak);
        fflush(stdout);
        free(m); free(g1); free(g2);
    }
    midint_close(ctx);
    return 0;
}
