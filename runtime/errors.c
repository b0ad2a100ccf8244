/* errors.c — status names and the last-failure messages (per context and per thread). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "context.h"

static _Thread_local char thread_msg[MIDINT_MSG_LEN];

static const char *const status_names[] = {
    [MIDINT_OK] = "MIDINT_OK",
    [MIDINT_ERR_NULL_POINTER] = "MIDINT_ERR_NULL_POINTER",
    [MIDINT_ERR_INVALID_COUNT] = "MIDINT_ERR_INVALID_COUNT",
    [MIDINT_ERR_INVALID_BITS] = "MIDINT_ERR_INVALID_BITS",
    [MIDINT_ERR_BITS_TOO_LARGE] = "MIDINT_ERR_BITS_TOO_LARGE",
    [MIDINT_ERR_UNKNOWN_BACKEND] = "MIDINT_ERR_UNKNOWN_BACKEND",
    [MIDINT_ERR_NO_BACKEND] = "MIDINT_ERR_NO_BACKEND",
    [MIDINT_ERR_NO_DEVICE] = "MIDINT_ERR_NO_DEVICE",
    [MIDINT_ERR_OVERLAP] = "MIDINT_ERR_OVERLAP",
    [MIDINT_ERR_UNKNOWN_VARIANT] = "MIDINT_ERR_UNKNOWN_VARIANT",
    [MIDINT_ERR_OUT_OF_MEMORY] = "MIDINT_ERR_OUT_OF_MEMORY",
    [MIDINT_ERR_DEVICE] = "MIDINT_ERR_DEVICE",
    [MIDINT_ERR_INVALID_ARGUMENT] = "MIDINT_ERR_INVALID_ARGUMENT",
};

const char *midint_status_name(midint_status status)
{
    if ((unsigned)status < sizeof status_names / sizeof status_names[0] && status_names[status])
        return status_names[status];
    return "MIDINT_ERR_(unknown status)";
}

midint_status midint_fail(midint_context *ctx, midint_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(thread_msg, sizeof thread_msg, fmt, ap);
    va_end(ap);
    if (ctx)
        memcpy(ctx->msg, thread_msg, sizeof ctx->msg);
    return status;
}

const char *midint_last_error(const midint_context *ctx)
{
    return ctx ? ctx->msg : thread_msg;
}
