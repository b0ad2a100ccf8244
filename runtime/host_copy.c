/* host_copy.c — host memory copies spread over a few threads the context owns (pageable <-> page-locked staging). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "host_pipe.h"

/* One thread copies ~10 GB/s; the pipelined host path moves up to ~100 GB/s through pageable memory, so the
 * copies are cut into pieces that several threads take in turn. Below COPY_ALONE bytes waking the threads costs
 * more than it saves. */
#define COPY_PIECE ((size_t)1 << 20)
#define COPY_ALONE ((size_t)2 << 20)
#define COPY_MAX_THREADS 32
#define COPY_DEFAULT_THREADS 16

struct midint_copy_pool {
    int streaming;                   /* non-temporal stores (MIDINT_HOST_STREAMING=0: plain memcpy) */
    pthread_mutex_t mu;
    pthread_cond_t go, idle;
    pthread_t tid[COPY_MAX_THREADS];
    unsigned workers;
    int stop;
    unsigned long job;               /* incremented for every job: a worker joins each job once */
    const midint_copy_seg *segs;
    unsigned nseg;
    size_t pieces;                   /* pieces of the job */
    atomic_size_t next;              /* the next piece to take */
    unsigned active;                 /* workers inside the job (the caller waits for 0 before returning) */
};

/* Copy with non-temporal stores: the destination of a large copy is not read again soon (the device reads the
 * staging by DMA; the caller's results are megabytes), so writing around the caches saves reading each destination
 * line first, a third of the memory traffic of a copy. Host memory bandwidth is what limits pageable host calls. */
static void stream_copy(char *dst, const char *src, size_t len)
{
#if defined(__SSE2__)
    size_t head = (16 - ((uintptr_t)dst & 15)) & 15;
    if (len < 256 || head > len) {
        memcpy(dst, src, len);
        return;
    }
    memcpy(dst, src, head);
    dst += head, src += head, len -= head;
    size_t body = len & ~(size_t)63;
    for (size_t i = 0; i < body; i += 64) {
        __m128i x0 = _mm_loadu_si128((const __m128i *)(src + i)), x1 = _mm_loadu_si128((const __m128i *)(src + i + 16));
        __m128i x2 = _mm_loadu_si128((const __m128i *)(src + i + 32)), x3 = _mm_loadu_si128((const __m128i *)(src + i + 48));
        _mm_stream_si128((__m128i *)(dst + i), x0);
        _mm_stream_si128((__m128i *)(dst + i + 16), x1);
        _mm_stream_si128((__m128i *)(dst + i + 32), x2);
        _mm_stream_si128((__m128i *)(dst + i + 48), x3);
    }
    _mm_sfence(); /* the streamed stores are visible before the piece counts as done */
    memcpy(dst + body, src + body, len - body);
#else
    memcpy(dst, src, len);
#endif
}

/* Copy piece p of the job: pieces run over the segments in order, each segment cut into COPY_PIECE bytes. */
static void copy_piece(const midint_copy_seg *segs, unsigned nseg, size_t p, int streaming)
{
    for (unsigned i = 0; i < nseg; i++) {
        size_t n = (segs[i].bytes + COPY_PIECE - 1) / COPY_PIECE;
        if (p < n) {
            size_t off = p * COPY_PIECE, len = segs[i].bytes - off < COPY_PIECE ? segs[i].bytes - off : COPY_PIECE;
            if (streaming)
                stream_copy((char *)segs[i].dst + off, (const char *)segs[i].src + off, len);
            else
                memcpy((char *)segs[i].dst + off, (const char *)segs[i].src + off, len);
            return;
        }
        p -= n;
    }
}

static void take_pieces(struct midint_copy_pool *pool)
{
    for (size_t p; (p = atomic_fetch_add(&pool->next, 1)) < pool->pieces;)
        copy_piece(pool->segs, pool->nseg, p, pool->streaming);
}

static void *worker(void *arg)
{
    struct midint_copy_pool *pool = arg;
    unsigned long seen = 0;
    pthread_mutex_lock(&pool->mu);
    for (;;) {
        while (!pool->stop && (pool->job == seen || atomic_load(&pool->next) >= pool->pieces))
            pthread_cond_wait(&pool->go, &pool->mu);
        if (pool->stop)
            break;
        seen = pool->job;
        pool->active++;
        pthread_mutex_unlock(&pool->mu);
        take_pieces(pool);
        pthread_mutex_lock(&pool->mu);
        if (--pool->active == 0)
            pthread_cond_signal(&pool->idle);
    }
    pthread_mutex_unlock(&pool->mu);
    return NULL;
}

/* Threads: MIDINT_HOST_THREADS when set (1: copy on the calling thread only), else one per core up to 16 (on the
 * 16-core H200 machine 16 threads moved 1.2-1.4x what 8 did from pageable memory). */
static unsigned pool_threads(void)
{
    const char *env = getenv("MIDINT_HOST_THREADS");
    long n = env && *env ? atol(env) : sysconf(_SC_NPROCESSORS_ONLN);
    if (!env || !*env)
        n = n > COPY_DEFAULT_THREADS ? COPY_DEFAULT_THREADS : n;
    return n < 1 ? 1u : n > COPY_MAX_THREADS ? COPY_MAX_THREADS : (unsigned)n;
}

/* The pool, started at the first copy large enough to share; NULL when one thread is all there is (or when no
 * thread could be started: the copies then run on the caller, which is only slower). */
static struct midint_copy_pool *get_pool(midint_context *ctx)
{
    if (ctx->copy_pool || ctx->copy_pool_tried)
        return ctx->copy_pool;
    ctx->copy_pool_tried = 1;
    unsigned want = pool_threads() - 1; /* the caller copies too */
    if (want == 0)
        return NULL;
    struct midint_copy_pool *pool = calloc(1, sizeof *pool);
    if (!pool)
        return NULL;
    const char *nt = getenv("MIDINT_HOST_STREAMING");
    pool->streaming = !(nt && strcmp(nt, "0") == 0);
    pthread_mutex_init(&pool->mu, NULL);
    pthread_cond_init(&pool->go, NULL);
    pthread_cond_init(&pool->idle, NULL);
    while (pool->workers < want && pthread_create(&pool->tid[pool->workers], NULL, worker, pool) == 0)
        pool->workers++;
    ctx->copy_pool = pool;
    if (pool->workers == 0) {
        midint_host_copy_stop(ctx);
        return NULL;
    }
    return pool;
}

void midint_host_copy(midint_context *ctx, const midint_copy_seg *segs, unsigned nseg)
{
    size_t total = 0, pieces = 0;
    for (unsigned i = 0; i < nseg; i++) {
        total += segs[i].bytes;
        pieces += (segs[i].bytes + COPY_PIECE - 1) / COPY_PIECE;
    }
    struct midint_copy_pool *pool = total >= COPY_ALONE ? get_pool(ctx) : NULL;
    if (!pool) {
        for (unsigned i = 0; i < nseg; i++)
            if (segs[i].bytes)
                memcpy(segs[i].dst, segs[i].src, segs[i].bytes);
        return;
    }
    pthread_mutex_lock(&pool->mu);
    pool->segs = segs;
    pool->nseg = nseg;
    pool->pieces = pieces;
    atomic_store(&pool->next, 0);
    pool->job++;
    pthread_cond_broadcast(&pool->go);
    pthread_mutex_unlock(&pool->mu);
    take_pieces(pool);
    /* every piece is taken; wait for the workers still copying theirs (none may touch segs after we return) */
    pthread_mutex_lock(&pool->mu);
    while (pool->active)
        pthread_cond_wait(&pool->idle, &pool->mu);
    pthread_mutex_unlock(&pool->mu);
}

void midint_host_copy_stop(midint_context *ctx)
{
    struct midint_copy_pool *pool = ctx->copy_pool;
    if (!pool)
        return;
    pthread_mutex_lock(&pool->mu);
    pool->stop = 1;
    pthread_cond_broadcast(&pool->go);
    pthread_mutex_unlock(&pool->mu);
    for (unsigned i = 0; i < pool->workers; i++)
        pthread_join(pool->tid[i], NULL);
    pthread_mutex_destroy(&pool->mu);
    pthread_cond_destroy(&pool->go);
    pthread_cond_destroy(&pool->idle);
    free(pool);
    ctx->copy_pool = NULL;
}
