/* replay.h — internal: sequences of launches recorded once and replayed (replay.c), for the runtime's long chains of
 * small steps whose every launch costs the host more than the device (the division's Newton levels). */
#ifndef MIDINT_REPLAY_H
#define MIDINT_REPLAY_H

#include <stdint.h>

#include "midint.h"

typedef struct midint_context midint_context;

/* The works recorded, the first word of their keys. */
enum { MIDINT_REPLAY_RECIPROCAL = 1 /* bigdiv.c: the divisor's reciprocal, key (n, m, base width | wrap hook << 32) */ };

/* Recordings a context keeps (the least recently used goes first). */
#define MIDINT_REPLAY_SLOTS 8
/* Host values a recorded piece of work leaves behind, restored at each replay. */
#define MIDINT_REPLAY_VALUES 4

/* A kept recording: the work's key, the context's epoch it holds for, what it has reached (replay.c), the backend's
 * graph, and the host values its work left. */
typedef struct midint_replay_slot {
    uint64_t key[4];
    uint64_t epoch;
    uint64_t used;      /* the context's replay clock at the last use */
    int state;
    void *graph;
    void *values[MIDINT_REPLAY_VALUES];
} midint_replay_slot;

/* Run work(arg), queued on `stream`, a piece of work whose launches, copies and fills and their arguments depend on
 * nothing but `key` and the buffers the context holds (not on the data: no read back, no host decision, nothing
 * allocated on a repeat). The first time a key is seen it runs as it is; the second it is recorded and the recording
 * launched; after that the recording is launched, and the `nvalues` host values *values[i] that work sets are
 * set as the recorded run left them. A backend without recording, MIDINT_TEST_NO_REPLAY=1, or a recording that
 * fails: the work runs as it is. */
midint_status midint_replay(midint_context *ctx, void *stream, const uint64_t key[4], midint_status (*work)(void *),
                            void *arg, void **values[], unsigned nvalues);

/* Anything a recording may depend on besides its key has changed (a buffer the context holds reallocated or freed,
 * the variants a call dispatches to; `why` for the trace): no kept recording is replayed again. */
void midint_replay_invalidate(midint_context *ctx, const char *why);

/* Free every kept recording (the context closes). */
void midint_replay_free(midint_context *ctx);

#endif
