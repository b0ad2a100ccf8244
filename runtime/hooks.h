/* hooks.h — internal: the test hooks (environment variables that make hard-to-reach paths run), in one place. */
#ifndef MIDINT_HOOKS_H
#define MIDINT_HOOKS_H

#include <stddef.h>
#include <stdint.h>

#include "midint.h"

typedef struct midint_variant midint_variant;

/* Read once at open (hooks.c); each field says its variable and what it does. */
typedef struct midint_test_hooks {
    const midint_variant *corrupt; /* MIDINT_TEST_CORRUPT=NAME: this variant's results are spoiled (a broken kernel) */
    uint32_t ntt_log, ntt_rows;    /* MIDINT_TEST_NTT_SPLIT=LOG,ROWS: grid NTT transforms of at least 2^LOG points in
                                    * rows of 2^ROWS, so every row and column kernel runs at sizes a CPU test affords */
    uint32_t ntt_piece;            /* MIDINT_TEST_NTT_PIECE=W: grid NTT products of operands longer than W words go
                                    * in pieces of at most W words (docs/ntt.md "Pieces"), as past 2^27 bits */
    uint32_t tile_words;           /* MIDINT_TEST_TILE_WORDS=W: additions-only expression grids cut instances into
                                    * tiles of W words, so CPU tests cross many tiles */
    int expr_steps;                /* MIDINT_TEST_EXPR_STEPS=1: expressions step by step wherever their steps serve */
    size_t fail_chunk;             /* MIDINT_TEST_FAIL_CHUNK=J: chunk J (from 1) of every host call fails */
    int probe_fail;                /* MIDINT_TEST_PROBE_FAIL=1: the OpenCL warp probe's values count as wrong */
    uint32_t kernel_wg;            /* MIDINT_TEST_KERNEL_WG=N: every OpenCL kernel allows at most N work-items */
    int composed;                  /* MIDINT_TEST_COMPOSED=1: mulmod runs as mul then mod wherever both serve
                                    * (ops.c's run_composed), on any backend */
    uint32_t bigdiv_base;          /* MIDINT_TEST_BIGDIV=B: divrem and mod run as the division of large numbers
                                    * (bigdiv.c) at every size of 2 words or more, its Newton iteration starting from at
                                    * most B words (B >= 2), so that CPU tests reach its every level at small sizes */
    uint32_t wrap_from;            /* MIDINT_TEST_WRAP_FROM=W: batch_gcd.c's remainder tree takes wrapped products
                                    * (wrap_product.c) wherever the parents' fractions have at least W words, and
                                    * bigdiv.c's levels their products of their own length from W words, so that CPU
                                    * tests reach them at small sizes */
    uint32_t split_from;           /* MIDINT_TEST_SPLIT_FROM=W: bigdiv.c's levels split their second products from
                                    * h - 1 = W words (CPU tests at small sizes; the largest count turns it off) */
    uint32_t half_from;            /* MIDINT_TEST_HALF_FROM=W: bigdiv.c takes the quotient in blocks of n / 2 words
                                    * from even divisors of W words (CPU tests at small sizes; the largest count: never) */
    uint32_t gcd_part;             /* MIDINT_TEST_GCD_PART=P: midint_batch_gcd splits a batch of more than P moduli
                                    * into parts of P (a power of two, at least 4), as it does past its sizes */
    size_t device_bytes;           /* MIDINT_TEST_DEVICE_BYTES=B: midint_batch_gcd sizes its parts as if the device had
                                    * B bytes free */
    int no_replay;                 /* MIDINT_TEST_NO_REPLAY=1: nothing is recorded and replayed (replay.c): every launch
                                    * is made as it comes, to compare and to tell a recording's fault from the work's */
    int trace_replay;              /* MIDINT_TRACE_REPLAY=1: replay.c says on stderr each key seen, recording launched
                                    * or not made, and epoch change (so that tests on a backend that records see it) */
} midint_test_hooks;

/* Read the hooks from the environment; MIDINT_ERR_INVALID_ARGUMENT with `why` set for a malformed value. */
midint_status midint_hooks_read(midint_test_hooks *h, char *why, size_t len);

#endif
