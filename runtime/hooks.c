/* hooks.c — the test hooks (hooks.h) read from the environment once, at open: every MIDINT_TEST_* variable here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hooks.h"
#include "registry.h"

midint_status midint_hooks_read(midint_test_hooks *h, char *why, size_t len)
{
    memset(h, 0, sizeof *h);
    /* a variant named here returns a wrong word, as a broken kernel would (the tuner's tests) */
    const char *bad = getenv("MIDINT_TEST_CORRUPT");
    h->corrupt = bad && *bad ? midint_registry_find(bad) : NULL;
    const char *split = getenv("MIDINT_TEST_NTT_SPLIT");
    if (split && *split && sscanf(split, "%u,%u", &h->ntt_log, &h->ntt_rows) != 2) {
        snprintf(why, len, "MIDINT_TEST_NTT_SPLIT is '%.40s'; expected LOG,ROWS", split);
        return MIDINT_ERR_INVALID_ARGUMENT;
    }
    const char *piece = getenv("MIDINT_TEST_NTT_PIECE");
    if (piece && *piece && (sscanf(piece, "%u", &h->ntt_piece) != 1 || h->ntt_piece == 0)) {
        snprintf(why, len, "MIDINT_TEST_NTT_PIECE is '%.40s'; expected a positive number of words", piece);
        return MIDINT_ERR_INVALID_ARGUMENT;
    }
    const char *tw = getenv("MIDINT_TEST_TILE_WORDS");
    if (tw && *tw && (sscanf(tw, "%u", &h->tile_words) != 1 || h->tile_words == 0)) {
        snprintf(why, len, "MIDINT_TEST_TILE_WORDS is '%.40s'; expected a positive number of words", tw);
        return MIDINT_ERR_INVALID_ARGUMENT;
    }
    const char *steps = getenv("MIDINT_TEST_EXPR_STEPS");
    h->expr_steps = steps && *steps && strcmp(steps, "0") != 0;
    const char *fail = getenv("MIDINT_TEST_FAIL_CHUNK");
    h->fail_chunk = fail && *fail ? strtoull(fail, NULL, 10) : 0;
    const char *probe = getenv("MIDINT_TEST_PROBE_FAIL");
    h->probe_fail = probe && strcmp(probe, "1") == 0;
    const char *wg = getenv("MIDINT_TEST_KERNEL_WG");
    h->kernel_wg = wg ? (uint32_t)strtoul(wg, NULL, 10) : 0;
    const char *composed = getenv("MIDINT_TEST_COMPOSED");
    h->composed = composed && strcmp(composed, "1") == 0;
    const char *bigdiv = getenv("MIDINT_TEST_BIGDIV");
    if (bigdiv && *bigdiv && (sscanf(bigdiv, "%u", &h->bigdiv_base) != 1 || h->bigdiv_base < 2)) {
        snprintf(why, len, "MIDINT_TEST_BIGDIV is '%.40s'; expected the Newton base's words, at least 2", bigdiv);
        return MIDINT_ERR_INVALID_ARGUMENT;
    }
    const char *wrap = getenv("MIDINT_TEST_WRAP_FROM");
    if (wrap && *wrap && (sscanf(wrap, "%u", &h->wrap_from) != 1 || h->wrap_from == 0)) {
        snprintf(why, len, "MIDINT_TEST_WRAP_FROM is '%.40s'; expected a positive number of words", wrap);
        return MIDINT_ERR_INVALID_ARGUMENT;
    }
    const char *part = getenv("MIDINT_TEST_GCD_PART");
    if (part && *part &&
        (sscanf(part, "%u", &h->gcd_part) != 1 || h->gcd_part < 4 || (h->gcd_part & (h->gcd_part - 1)))) {
        snprintf(why, len, "MIDINT_TEST_GCD_PART is '%.40s'; expected a power of two of at least 4 moduli", part);
        return MIDINT_ERR_INVALID_ARGUMENT;
    }
    const char *room = getenv("MIDINT_TEST_DEVICE_BYTES");
    if (room && *room && (sscanf(room, "%zu", &h->device_bytes) != 1 || h->device_bytes == 0)) {
        snprintf(why, len, "MIDINT_TEST_DEVICE_BYTES is '%.40s'; expected a positive number of bytes", room);
        return MIDINT_ERR_INVALID_ARGUMENT;
    }
    return MIDINT_OK;
}
