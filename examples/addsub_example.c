/* addsub_example.c — adds and subtracts a batch of 2048-bit integers through midint and checks them with GMP. */
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "midint.h"

enum { BITS = 2048, WORDS = BITS / 32, COUNT = 10000 };

/* Check instance i of r (and its carry) against GMP; returns 1 when it matches. */
static int check(int subtract, const uint32_t *a, const uint32_t *b, const uint32_t *r, uint32_t carry)
{
    mpz_t x, y, z;
    uint32_t want[WORDS] = {0};
    mpz_inits(x, y, z, NULL);
    mpz_import(x, WORDS, -1, 4, 0, 0, a);
    mpz_import(y, WORDS, -1, 4, 0, 0, b);
    if (subtract)
        mpz_sub(z, x, y);
    else
        mpz_add(z, x, y);
    uint32_t want_carry = subtract ? mpz_sgn(z) < 0 : (uint32_t)mpz_tstbit(z, BITS);
    mpz_fdiv_r_2exp(z, z, BITS);
    mpz_export(want, NULL, -1, 4, 0, 0, z);
    mpz_clears(x, y, z, NULL);
    return memcmp(want, r, sizeof want) == 0 && want_carry == carry;
}

int main(void)
{
    midint_context *ctx;
    if (midint_open(&ctx, MIDINT_BACKEND_AUTO, 0) != MIDINT_OK) {
        fprintf(stderr, "cannot open midint: %s\n", midint_last_error(NULL));
        return 1;
    }
    printf("midint on %s (%s backend)\n", midint_device_name(ctx),
           midint_context_backend(ctx) == MIDINT_BACKEND_CUDA ? "CUDA" : "OpenCL");

    uint32_t *a = malloc(sizeof(uint32_t) * WORDS * COUNT), *b = malloc(sizeof(uint32_t) * WORDS * COUNT);
    uint32_t *r = malloc(sizeof(uint32_t) * WORDS * COUNT), *carry = malloc(sizeof(uint32_t) * COUNT);
    if (!a || !b || !r || !carry)
        return 1;
    srand(1);
    for (size_t i = 0; i < (size_t)WORDS * COUNT; i++) {
        a[i] = (uint32_t)rand() << 16 ^ (uint32_t)rand();
        b[i] = (uint32_t)rand() << 16 ^ (uint32_t)rand();
    }
    memset(a, 0xff, WORDS * 4); /* instance 0: all ones + 1, a carry through every word */
    memset(b, 0, WORDS * 4);
    b[0] = 1;

    int failed = 0;
    for (int subtract = 0; subtract <= 1; subtract++) {
        midint_status st = subtract ? midint_sub(ctx, COUNT, BITS, r, a, b, carry)
                                    : midint_add(ctx, COUNT, BITS, r, a, b, carry);
        if (st != MIDINT_OK) {
            fprintf(stderr, "%s failed: %s\n", subtract ? "sub" : "add", midint_last_error(ctx));
            return 1;
        }
        size_t bad = 0;
        for (size_t i = 0; i < COUNT; i++)
            bad += !check(subtract, a + i * WORDS, b + i * WORDS, r + i * WORDS, carry[i]);
        printf("%s: %d instances of %d bits with %s: %s\n", subtract ? "sub" : "add", COUNT, BITS,
               midint_selected_variant(ctx, subtract ? MIDINT_OP_SUB : MIDINT_OP_ADD, BITS, COUNT),
               bad ? "MISMATCH against GMP" : "all match GMP");
        failed |= bad != 0;
    }
    free(a);
    free(b);
    free(r);
    free(carry);
    midint_close(ctx);
    return failed;
}
