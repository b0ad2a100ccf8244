/* untracked session driver: midint_batch_gcd under several MIDINT_TEST_WRAP_FROM thresholds (one context each,
 * opened with the variable set), the same random 1024-bit moduli with a planted pair, results compared with the
 * first threshold's word for word, min of runs in ms. Usage: bg_cmp THRESHOLDS COUNT... (THRESHOLDS: a,b,c; "-":
 * the default) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "midint.h"
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int argc, char **argv)
{
    midint_context *ctx[8];
    char *th[8], *list = strdup(argv[1]);
    int nt = 0;
    for (char *tok = strtok(list, ","); tok && nt < 8; tok = strtok(NULL, ","), nt++) {
        th[nt] = tok;
        if (strcmp(tok, "-")) setenv("MIDINT_TEST_WRAP_FROM", tok, 1); else unsetenv("MIDINT_TEST_WRAP_FROM");
        if (midint_open(&ctx[nt], MIDINT_BACKEND_CUDA, 0) != MIDINT_OK) { printf("open: %s\n", midint_last_error(NULL)); return 1; }
    }
    for (int a = 2; a < argc; a++) {
        size_t count = strtoull(argv[a], NULL, 0), n = 32;
        uint32_t *m = malloc(count * n * 4), *g[8];
        uint64_t s = 88172645463325252ull;
        for (size_t i = 0; i < count * n; i++) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; m[i] = (uint32_t)s; }
        for (size_t i = 0; i < count; i++) { m[i * n] |= 1; m[i * n + n - 1] |= 0x80000000u; }
        if (count > 8) memcpy(m + 3 * n, m + 1 * n, n * 4);   /* a repeated modulus */
        double best[8];
        for (int k = 0; k < nt; k++) { g[k] = malloc(count * n * 4); best[k] = 1e9; }
        for (int rep = 0; rep < (count > (1u << 18) ? 3 : 5); rep++)
            for (int k = 0; k < nt; k++) {
                double t = now();
                midint_status st = midint_batch_gcd(ctx[k], count, 1024, m, g[k]);
                t = now() - t;
                if (st != MIDINT_OK) { printf("%zu: wrap_from %s failed: %s\n", count, th[k], midint_last_error(ctx[k])); return 1; }
                if (t < best[k]) best[k] = t;
            }
        size_t weak = 0;
        for (size_t i = 0; i < count; i++) weak += g[0][i * n] != 1;
        printf("batch_gcd %zu x 1024 bits, %zu not 1:", count, weak);
        for (int k = 0; k < nt; k++)
            printf(" wrap_from %s %.2f ms%s;", th[k], 1e3 * best[k], k && memcmp(g[0], g[k], count * n * 4) ? " DIFFER" : "");
        printf("\n");
        fflush(stdout);
        for (int k = 0; k < nt; k++) free(g[k]);
        free(m);
    }
    for (int k = 0; k < nt; k++) midint_close(ctx[k]);
    return 0;
}
