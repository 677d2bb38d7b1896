/* stats.c: the counters behind runtime_stats() (stats.h).  In base/ because every layer counts
 * (the allocator too); cpn_stats_read, which asks the queue, is the runtime's (queue.c). */
#include "stats.h"

struct cpn_stats cpn_stats;

#define RESET_COUNT(name) cpn_stats.name = 0;
#define RESET_LEVEL(name)
#define RESET_PEAK(name) cpn_stats.name = cpn_stats.bytes_live;
#define RESET(name, kind) RESET_##kind(name)

void cpn_stats_reset(void) { CPN_STATS(RESET) }
