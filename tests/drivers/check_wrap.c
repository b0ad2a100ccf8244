/* check_wrap.c — checks the runtime's wrapped products (runtime/wrap_product.c, an internal call) against GMP.
 *
 * Usage: check_wrap cuda|opencl
 * Cases come on stdin, one per line: "n nb rn count pattern seed" (a: n words, b: nb words, r: rn words per instance;
 * pattern as in cases.h: random, max, ...). With L the transform's points (2^ceil(log2 rn), at least the grid's
 * shortest and the test hook MIDINT_TEST_NTT_SPLIT's length) and X = a b (B = 2^32), the result is X mod B^rn plus
 * what the fold adds: D = (r - X) mod B^rn is the folded top, the sum over i + j >= L of a_i b_j B^(i+j-L), which
 * lies in [X div B^L - 2 m B, X div B^L] for m = min(n, nb) (the low coefficients carry less than 2 m B into B^L);
 * D = 0 where nothing folds (n + nb <= L). Needs the fold to stay within the result (n + nb - L <= rn), as the
 * callers' does; the runtime refuses n or nb past rn.
 * Output: "ok <case> folded=<0|1>" or "FAIL <case>: <what>" per line; exit 0 when all pass, 1 when any fails, 2 on
 * a usage or setup error. */
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "midint.h"
#include "registry.h"
#include "wrap_product.h"

/* log2 L: of rn words, at least the grid's shortest and the test hook MIDINT_TEST_NTT_SPLIT's LOG (runtime/plan.c) */
static unsigned log_points(unsigned rn)
{
    unsigned lg = 0, hook = 0, rows = 0;
    while ((1ull << lg) < rn)
        lg++;
    const char *split = getenv("MIDINT_TEST_NTT_SPLIT");
    if (split && sscanf(split, "%u,%u", &hook, &rows) == 2 && hook > lg)
        lg = hook;
    return lg < midint_ntt_grid.log_min ? midint_ntt_grid.log_min : lg;
}

/* One case; returns 1 when it passes. */
static int check(midint_context *ctx, unsigned n, unsigned nb, unsigned rn, size_t count, const char *pattern,
                 uint64_t seed, const char *line)
{
    const unsigned lg = log_points(rn);
    const unsigned long long L = 1ull << lg;
    if (n + nb > L + rn) { /* (operands past the result are the runtime's to refuse) */
        printf("FAIL %s: the fold must stay within the result (n + nb - L <= rn)\n", line);
        return 0;
    }
    uint32_t *a = malloc((size_t)count * n * 4), *b = malloc((size_t)count * nb * 4);
    uint32_t *r = malloc((size_t)count * rn * 4);
    uint32_t *spare = malloc((size_t)count * (n > nb ? n : nb) * 4);
    void *da = NULL, *db = NULL, *dr = NULL;
    int ok = a && b && r && spare && fill_operands(pattern, seed, count, n, a, spare) &&
             fill_operands(pattern, seed + 1, count, nb, spare, b);
    midint_status st = MIDINT_OK;
    if (ok && ((st = midint_buffer_alloc(ctx, (size_t)count * n * 4, &da)) != MIDINT_OK ||
               (st = midint_buffer_alloc(ctx, (size_t)count * nb * 4, &db)) != MIDINT_OK ||
               (st = midint_buffer_alloc(ctx, (size_t)count * rn * 4, &dr)) != MIDINT_OK ||
               (st = midint_buffer_write(ctx, da, a, (size_t)count * n * 4)) != MIDINT_OK ||
               (st = midint_buffer_write(ctx, db, b, (size_t)count * nb * 4)) != MIDINT_OK ||
               (st = midint_wrap_product(ctx, count, n, nb, rn, dr, da, db, NULL)) != MIDINT_OK ||
               (st = midint_synchronize(ctx, NULL)) != MIDINT_OK ||
               (st = midint_buffer_read(ctx, r, dr, (size_t)count * rn * 4)) != MIDINT_OK))
        ok = 0;
    if (!ok)
        printf("FAIL %s: %s\n", line, st != MIDINT_OK ? midint_last_error(ctx) : "setup (pattern or memory)");
    mpz_t x, q, d, lo, m2b;
    mpz_inits(x, q, d, lo, m2b, NULL);
    mpz_set_ui(m2b, n < nb ? n : nb);
    mpz_mul_2exp(m2b, m2b, 33); /* 2 m B */
    int folded = 0;
    for (size_t i = 0; ok && i < count; i++) {
        mpz_import(x, n, -1, 4, 0, 0, a + i * n);
        mpz_import(q, nb, -1, 4, 0, 0, b + i * nb);
        mpz_mul(x, x, q);
        mpz_tdiv_q_2exp(q, x, 32 * L);                      /* X div B^L */
        mpz_import(d, rn, -1, 4, 0, 0, r + i * rn);
        mpz_sub(d, d, x);
        mpz_fdiv_r_2exp(d, d, 32ull * rn);                  /* D = (r - X) mod B^rn */
        mpz_sub(lo, q, m2b);
        folded |= mpz_sgn(d) != 0;
        if (mpz_cmp(d, q) > 0 || mpz_cmp(d, lo) < 0 || (n + nb <= L && mpz_sgn(d))) {
            printf("FAIL %s: instance %zu: r - X mod B^%u is %zu bits; X div B^L is %zu bits\n", line, i, rn,
                   mpz_sizeinbase(d, 2), mpz_sizeinbase(q, 2));
            ok = 0;
        }
    }
    if (ok)
        printf("ok %s folded=%d\n", line, folded);
    mpz_clears(x, q, d, lo, m2b, NULL);
    midint_buffer_free(ctx, da);
    midint_buffer_free(ctx, db);
    midint_buffer_free(ctx, dr);
    free(a);
    free(b);
    free(r);
    free(spare);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "cuda") && strcmp(argv[1], "opencl"))) {
        fprintf(stderr, "usage: check_wrap cuda|opencl < cases\n");
        return 2;
    }
    midint_context *ctx = NULL;
    if (midint_open(&ctx, strcmp(argv[1], "cuda") ? MIDINT_BACKEND_OPENCL : MIDINT_BACKEND_CUDA, 0) != MIDINT_OK) {
        fprintf(stderr, "check_wrap: %s\n", midint_last_error(NULL));
        return 2;
    }
    char line[256], pattern[32];
    int failed = 0;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        unsigned n, nb, rn;
        size_t count;
        unsigned long long seed;
        if (!*line)
            continue;
        if (sscanf(line, "%u %u %u %zu %31s %llu", &n, &nb, &rn, &count, pattern, &seed) != 6 || !n || !nb ||
            !count) {
            printf("FAIL %s: expected \"n nb rn count pattern seed\"\n", line);
            failed = 1;
            continue;
        }
        if (!midint_wrap_product_applies(ctx, rn)) {
            printf("FAIL %s: no wrapped product of %u words here\n", line, rn);
            failed = 1;
            continue;
        }
        failed |= !check(ctx, n, nb, rn, count, pattern, seed, line);
        fflush(stdout);
    }
    midint_close(ctx);
    return failed;
}
