/* rsa_crt.c — RSA-2048 private-key operations (decryption with the Chinese remainder theorem) for a batch of messages
 * through midint's operations, every result checked against the message GMP encrypted, and their rate.
 *
 * Usage: rsa_crt [COUNT [KEYS]]   (default 65536 decryptions over 16 keys; the instances cycle through the keys)
 *
 * Per instance, with p > q the key's primes, dp = d mod (p - 1), dq = d mod (q - 1), qinv = q^-1 mod p:
 *   m1 = (c mod p)^dp mod p,  m2 = (c mod q)^dq mod q       (powm with secret = 1: constant time in dp, dq)
 *   h  = qinv (m1 - m2) mod p                                (m1 + (p - m2) reduced mod p, then mulmod)
 *   m  = m2 + h q                                            (mul, then a 2048-bit add)
 * The operations run through the host API one after the other; the rate counts all of them (and their copies). */
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "midint.h"

enum { HALF = 1024, HW = HALF / 32, FULL = 2 * HALF, FW = FULL / 32 };

typedef struct {
    uint32_t *p, *q, *dp, *dq, *qinv, *c, *m; /* per instance: HW words each, c and m FW */
} batch;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void put(uint32_t *dst, size_t words, const mpz_t x)
{
    memset(dst, 0, words * 4);
    mpz_export(dst, NULL, -1, 4, 0, 0, x);
}

/* a random prime of exactly `bits` bits with gcd(e, prime - 1) = 1 */
static void random_prime(mpz_t r, gmp_randstate_t rng, unsigned bits, const mpz_t e)
{
    mpz_t g;
    mpz_init(g);
    do {
        mpz_urandomb(r, rng, bits);
        mpz_setbit(r, bits - 1);
        mpz_nextprime(r, r);
        mpz_sub_ui(g, r, 1);
        mpz_gcd(g, g, e);
    } while (mpz_sizeinbase(r, 2) != bits || mpz_cmp_ui(g, 1) != 0);
    mpz_clear(g);
}

/* KEYS keys; instance i takes key i mod KEYS and a random message below its n, encrypted with e = 65537 */
static void make_batch(batch *b, size_t count, size_t keys)
{
    gmp_randstate_t rng;
    gmp_randinit_default(rng);
    gmp_randseed_ui(rng, 7);
    mpz_t e, p, q, n, phi, d, dp, dq, qinv, t, m, c;
    mpz_inits(e, p, q, n, phi, d, dp, dq, qinv, t, m, c, NULL);
    mpz_set_ui(e, 65537);
    uint32_t *key = malloc((size_t)keys * 5 * HW * 4); /* p, q, dp, dq, qinv per key */
    mpz_t *nk = malloc(keys * sizeof(mpz_t));
    for (size_t k = 0; k < keys; k++) {
        random_prime(p, rng, HALF, e);
        do
            random_prime(q, rng, HALF, e);
        while (mpz_cmp(p, q) == 0);
        if (mpz_cmp(p, q) < 0)
            mpz_swap(p, q);
        mpz_mul(n, p, q);
        mpz_sub_ui(t, p, 1);
        mpz_sub_ui(phi, q, 1);
        mpz_mul(phi, phi, t);
        mpz_invert(d, e, phi);
        mpz_sub_ui(t, p, 1);
        mpz_mod(dp, d, t);
        mpz_sub_ui(t, q, 1);
        mpz_mod(dq, d, t);
        mpz_invert(qinv, q, p);
        uint32_t *w = key + k * 5 * HW;
        put(w, HW, p);
        put(w + HW, HW, q);
        put(w + 2 * HW, HW, dp);
        put(w + 3 * HW, HW, dq);
        put(w + 4 * HW, HW, qinv);
        mpz_init_set(nk[k], n);
    }
    for (size_t i = 0; i < count; i++) {
        size_t k = i % keys;
        const uint32_t *w = key + k * 5 * HW;
        memcpy(b->p + i * HW, w, HW * 4);
        memcpy(b->q + i * HW, w + HW, HW * 4);
        memcpy(b->dp + i * HW, w + 2 * HW, HW * 4);
        memcpy(b->dq + i * HW, w + 3 * HW, HW * 4);
        memcpy(b->qinv + i * HW, w + 4 * HW, HW * 4);
        mpz_urandomm(m, rng, nk[k]);
        if (i == 0)
            mpz_set_ui(m, 0); /* the edges: 0, 1 and n - 1 */
        else if (i == 1)
            mpz_set_ui(m, 1);
        else if (i == 2)
            mpz_sub_ui(m, nk[k], 1);
        mpz_powm(c, m, e, nk[k]);
        put(b->c + i * FW, FW, c);
        put(b->m + i * FW, FW, m);
    }
    for (size_t k = 0; k < keys; k++)
        mpz_clear(nk[k]);
    free(nk);
    free(key);
    mpz_clears(e, p, q, n, phi, d, dp, dq, qinv, t, m, c, NULL);
    gmp_randclear(rng);
}

#define CALL(x)                                                                                                    \
    do {                                                                                                           \
        if ((x) != MIDINT_OK) {                                                                                    \
            fprintf(stderr, "%s failed: %s\n", #x, midint_last_error(ctx));                                        \
            return 1;                                                                                              \
        }                                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    size_t count = argc > 1 ? strtoul(argv[1], NULL, 10) : 65536, keys = argc > 2 ? strtoul(argv[2], NULL, 10) : 16;
    if (count < 3 || keys < 1) {
        fprintf(stderr, "usage: rsa_crt [COUNT >= 3 [KEYS >= 1]]\n");
        return 2;
    }
    midint_context *ctx;
    if (midint_open(&ctx, MIDINT_BACKEND_AUTO, 0) != MIDINT_OK) {
        fprintf(stderr, "cannot open midint: %s\n", midint_last_error(NULL));
        return 1;
    }
    batch b;
    uint32_t **all[] = {&b.p, &b.q, &b.dp, &b.dq, &b.qinv};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        *all[i] = malloc(count * HW * 4);
    b.c = malloc(count * FW * 4);
    b.m = malloc(count * FW * 4);
    /* the steps' values: HW words per instance, except u2 and the 2048-bit ones */
    uint32_t *cp = malloc(count * HW * 4), *cq = malloc(count * HW * 4), *m1 = malloc(count * HW * 4),
             *m2 = malloc(count * HW * 4), *s = malloc(count * HW * 4), *u = malloc(count * HW * 4),
             *carry = malloc(count * 4), *u2 = calloc(count * FW, 4), *dd = malloc(count * HW * 4),
             *h = malloc(count * HW * 4), *hq = malloc(count * FW * 4), *m2w = calloc(count * FW, 4),
             *out = malloc(count * FW * 4);
    if (!b.p || !b.q || !b.dp || !b.dq || !b.qinv || !b.c || !b.m || !cp || !cq || !m1 || !m2 || !s || !u || !carry ||
        !u2 || !dd || !h || !hq || !m2w || !out) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    printf("midint on %s: RSA-%d decryption by CRT, %zu messages over %zu keys\n", midint_device_name(ctx), FULL,
           count, keys);
    make_batch(&b, count, keys);

    double t0 = now(), t_powm = 0.0;
    CALL(midint_mod(ctx, count, HALF, cp, b.c, b.p, FULL));
    CALL(midint_mod(ctx, count, HALF, cq, b.c, b.q, FULL));
    double t1 = now();
    CALL(midint_powm(ctx, count, HALF, m1, cp, b.dp, b.p, HALF, 1));
    CALL(midint_powm(ctx, count, HALF, m2, cq, b.dq, b.q, HALF, 1));
    t_powm = now() - t1;
    /* m1 - m2 mod p as m1 + (p - m2) (m2 < q < p), below 2p: its 1025 bits (the add's carry as word 32 of a 2048-bit
       dividend) reduced by mod */
    CALL(midint_sub(ctx, count, HALF, s, b.p, m2, NULL));
    CALL(midint_add(ctx, count, HALF, u, m1, s, carry));
    for (size_t i = 0; i < count; i++) {
        memcpy(u2 + i * FW, u + i * HW, HW * 4);
        u2[i * FW + HW] = carry[i];
        memcpy(m2w + i * FW, m2 + i * HW, HW * 4);
    }
    CALL(midint_mod(ctx, count, HALF, dd, u2, b.p, FULL));
    CALL(midint_mulmod(ctx, count, HALF, h, b.qinv, dd, b.p));
    CALL(midint_mul(ctx, count, HALF, hq, h, b.q));
    CALL(midint_add(ctx, count, FULL, out, hq, m2w, NULL));
    double total = now() - t0;

    size_t bad = 0;
    for (size_t i = 0; i < count; i++)
        if (memcmp(out + i * FW, b.m + i * FW, FW * 4) != 0 && bad++ < 3)
            fprintf(stderr, "instance %zu: wrong message\n", i);
    printf("%s: %zu decryptions in %.3f ms (two powm: %.3f ms): %.3f M/s end to end, %.3f M/s in powm\n",
           bad ? "FAIL" : "pass", count, 1e3 * total, 1e3 * t_powm, count / total / 1e6, count / t_powm / 1e6);
    midint_close(ctx);
    return bad != 0;
}
