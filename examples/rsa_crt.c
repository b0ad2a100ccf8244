/* rsa_crt.c — RSA-2048 private-key operations (decryption with the Chinese remainder theorem) for a batch of messages
 * through midint's operations on device buffers, every result checked against the message GMP encrypted, and their rate.
 *
 * Usage: rsa_crt [COUNT [KEYS]]   (default 65536 decryptions over 16 keys; the instances cycle through the keys)
 *
 * Per instance, with p > q the key's primes, dp = d mod (p - 1), dq = d mod (q - 1), qinv = q^-1 mod p:
 *   m1 = (c mod p)^dp mod p,  m2 = (c mod q)^dq mod q       (powm with secret = 1: constant time in dp, dq)
 *   h  = qinv (m1 - m2) mod p,  m = m2 + h q                 (the recombination)
 * The inputs go to device buffers once, every step runs there, and only the messages come back. The recombination
 * is two fused expressions, expressions/crt_h.expr and crt_m.expr, where the build generated them (make gen
 * EXPRS=...,expressions/crt_h.expr,expressions/crt_m.expr); otherwise m1 and m2 come back and the host API does it
 * (sub, add, mod, mulmod, mul, add). The rates count the uploads and the download (end to end) and, apart, the
 * device's steps alone. */
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

/* a library call: on failure, say which and run `on_failure` (return from main, or free a function's buffers) */
#define CHECK(x, on_failure)                                                                                       \
    do {                                                                                                           \
        if ((x) != MIDINT_OK) {                                                                                    \
            fprintf(stderr, "%s failed: %s\n", #x, midint_last_error(ctx));                                        \
            on_failure;                                                                                            \
        }                                                                                                          \
    } while (0)
#define CALL(x) CHECK(x, return 1)
#define STEP(x) CHECK(x, goto done)   /* recombine_on_host's */

/* The recombination on the host API from m1 and m2 in host memory: m1 - m2 mod p as m1 + (p - m2) (m2 < q < p),
 * below 2p: its 1025 bits (the add's carry as word 32 of a 2048-bit dividend) reduced by mod, then mulmod, mul and a
 * 2048-bit add. */
static int recombine_on_host(midint_context *ctx, size_t count, const batch *b, const uint32_t *m1,
                             const uint32_t *m2, uint32_t *out)
{
    uint32_t *s = malloc(count * HW * 4), *u = malloc(count * HW * 4), *carry = malloc(count * 4),
             *u2 = calloc(count * FW, 4), *dd = malloc(count * HW * 4), *h = malloc(count * HW * 4),
             *hq = malloc(count * FW * 4), *m2w = calloc(count * FW, 4);
    int rc = 1;
    if (!s || !u || !carry || !u2 || !dd || !h || !hq || !m2w) {
        fprintf(stderr, "out of memory\n");
        goto done;
    }
    STEP(midint_sub(ctx, count, HALF, s, b->p, m2, NULL));
    STEP(midint_add(ctx, count, HALF, u, m1, s, carry));
    for (size_t i = 0; i < count; i++) {
        memcpy(u2 + i * FW, u + i * HW, HW * 4);
        u2[i * FW + HW] = carry[i];
        memcpy(m2w + i * FW, m2 + i * HW, HW * 4);
    }
    STEP(midint_mod(ctx, count, HALF, dd, u2, b->p, FULL));
    STEP(midint_mulmod(ctx, count, HALF, h, b->qinv, dd, b->p));
    STEP(midint_mul(ctx, count, HALF, hq, h, b->q));
    STEP(midint_add(ctx, count, FULL, out, hq, m2w, NULL));
    rc = 0;
done:
    free(s), free(u), free(carry), free(u2), free(dd), free(h), free(hq), free(m2w);
    return rc;
}

/* Whether this build fused the recombination (both expressions, at 1024 bits). */
static int fused(const midint_context *ctx)
{
    return midint_expr_find("crth") && midint_expr_find("crtm") && midint_expr_max_bits(ctx, "crth") >= HALF &&
           midint_expr_max_bits(ctx, "crtm") >= HALF;
}

enum { D_P, D_Q, D_DP, D_DQ, D_QINV, D_C, D_CP, D_CQ, D_M1, D_M2, D_H, D_OUT, D_COUNT };

/* the words an instance holds in device buffer k: the ciphertext and the message are 2048 bits, the rest 1024 */
static size_t device_words(int k)
{
    return k == D_C || k == D_OUT ? FW : HW;
}

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
    /* the batch and the messages in page-locked memory: the uploads and the download skip the driver's staging */
    batch b;
    uint32_t **all[] = {&b.p, &b.q, &b.dp, &b.dq, &b.qinv, &b.c, &b.m};
    const size_t words[] = {HW, HW, HW, HW, HW, FW, FW};
    uint32_t *out = NULL, *m1 = malloc(count * HW * 4), *m2 = malloc(count * HW * 4);
    void *mem;   /* through a void *: the allocation's pointer is not written into a uint32_t * as a void * */
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        CALL(midint_host_alloc(ctx, count * words[i] * 4, &mem));
        *all[i] = mem;
    }
    CALL(midint_host_alloc(ctx, count * FW * 4, &mem));
    out = mem;
    if (!m1 || !m2) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    const int fuse = fused(ctx);
    printf("midint on %s: RSA-%d decryption by CRT, %zu messages over %zu keys, the recombination %s\n",
           midint_device_name(ctx), FULL, count, keys, fuse ? "fused (crt_h, crt_m)" : "on the host API");
    make_batch(&b, count, keys);

    void *d[D_COUNT];
    for (int k = 0; k < D_COUNT; k++)
        CALL(midint_buffer_alloc(ctx, count * device_words(k) * 4, &d[k]));
    const struct {
        int k;
        const uint32_t *host;
    } up[] = {{D_P, b.p}, {D_Q, b.q}, {D_DP, b.dp}, {D_DQ, b.dq}, {D_QINV, b.qinv}, {D_C, b.c}};

    double t0 = now();
    for (size_t i = 0; i < sizeof up / sizeof *up; i++)
        CALL(midint_buffer_write(ctx, d[up[i].k], up[i].host, count * device_words(up[i].k) * 4));
    const double t1 = now();
    CALL(midint_mod_device(ctx, count, HALF, d[D_CP], d[D_C], d[D_P], FULL, NULL));
    CALL(midint_mod_device(ctx, count, HALF, d[D_CQ], d[D_C], d[D_Q], FULL, NULL));
    CALL(midint_synchronize(ctx, NULL));
    const double t2 = now();
    CALL(midint_powm_device(ctx, count, HALF, d[D_M1], d[D_CP], d[D_DP], d[D_P], HALF, 1, NULL));
    CALL(midint_powm_device(ctx, count, HALF, d[D_M2], d[D_CQ], d[D_DQ], d[D_Q], HALF, 1, NULL));
    CALL(midint_synchronize(ctx, NULL));
    const double t3 = now();
    double t4;
    if (fuse) {
        void *hout[] = {d[D_H]}, *mout[] = {d[D_OUT]};
        const void *hin[] = {d[D_M1], d[D_M2], d[D_P], d[D_QINV]}, *min[] = {d[D_M2], d[D_H], d[D_Q]};
        CALL(midint_expr_device(ctx, "crth", count, HALF, 1, hout, 4, hin, NULL));
        CALL(midint_expr_device(ctx, "crtm", count, HALF, 1, mout, 3, min, NULL));
        CALL(midint_synchronize(ctx, NULL));
        t4 = now();
        CALL(midint_buffer_read(ctx, out, d[D_OUT], count * device_words(D_OUT) * 4));
    } else {
        CALL(midint_buffer_read(ctx, m1, d[D_M1], count * device_words(D_M1) * 4));
        CALL(midint_buffer_read(ctx, m2, d[D_M2], count * device_words(D_M2) * 4));
        t4 = now();
        if (recombine_on_host(ctx, count, &b, m1, m2, out))
            return 1;
    }
    /* on the device: every step between the uploads and the download (without the recombination where the host
       does it) */
    const double total = now() - t0, on_device = (fuse ? t4 : t3) - t1;

    size_t bad = 0;
    for (size_t i = 0; i < count; i++)
        if (memcmp(out + i * FW, b.m + i * FW, FW * 4) != 0 && bad++ < 3)
            fprintf(stderr, "instance %zu: wrong message\n", i);
    printf("%s: %zu decryptions in %.3f ms end to end, %.3f M/s (uploads %.3f ms; c mod p, q %.3f ms; two powm "
           "%.3f ms, %.3f M/s; recombination %.3f ms%s); on the device %.3f M/s%s\n",
           bad ? "FAIL" : "pass", count, 1e3 * total, count / total / 1e6, 1e3 * (t1 - t0), 1e3 * (t2 - t1),
           1e3 * (t3 - t2), count / (t3 - t2) / 1e6, 1e3 * (fuse ? t4 - t3 : total - (t4 - t0)),
           fuse ? "" : ", host API", count / on_device / 1e6,
           fuse ? "" : " (without the recombination)");
    for (int k = 0; k < D_COUNT; k++)
        midint_buffer_free(ctx, d[k]);
    free(m1), free(m2);
    midint_close(ctx); /* frees the page-locked memory */
    return bad != 0;
}
