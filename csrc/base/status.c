/* status.c: the thread-local error message behind enum cpn_status. */
#include "status.h"

#include <stdarg.h>

static _Thread_local char last_message[512];
static _Thread_local enum cpn_status last_status;

enum cpn_status cpn_error(enum cpn_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_message, sizeof last_message, fmt, ap);
    va_end(ap);
    last_status = st;
    return st;
}

const char *cpn_error_message(void) { return last_message; }

enum cpn_status cpn_error_status(void) { return last_message[0] ? last_status : CPN_OK; }

void cpn_error_clear(void)
{
    last_message[0] = '\0';
    last_status = CPN_OK;
}
