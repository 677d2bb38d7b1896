/* stats.c: the counters behind runtime_stats() (stats.h). */
#include "stats.h"

#include "queue.h"

struct cpn_stats cpn_stats;

void cpn_stats_read(struct cpn_stats *out)
{
    *out = cpn_stats;
    out->queued = cpn_queue_length();   /* the queue's own length, not a copy kept beside it */
}

#define RESET_COUNT(name) cpn_stats.name = 0;
#define RESET_LEVEL(name)
#define RESET_PEAK(name) cpn_stats.name = cpn_stats.bytes_live;
#define RESET(name, kind) RESET_##kind(name)

void cpn_stats_reset(void) { CPN_STATS(RESET) }
