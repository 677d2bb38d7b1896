/* stats.h: this rank's counters, one struct behind runtime_stats().
 *
 * CPN_STATS lists every field once, named as the key runtime_stats() returns: the module builds
 * the dict with it and cpn_stats_reset() resets by it.  Each part of the runtime adds to the fields
 * it owns (named in the list); nothing else writes them.  The second column says what
 * reset_stats() does:
 *   COUNT  counted since the last reset: set to 0;
 *   LEVEL  a present level or a running total: kept;
 *   PEAK   the high-water mark of bytes_live since the last reset: set to bytes_live.
 * Local (no communication).  Depends on nothing, so any layer may count into it. */
#ifndef CPN_STATS_H
#define CPN_STATS_H

#include <stdint.h>

#define CPN_STATS(X)                                                                            \
    X(bytes_to_host, COUNT)        /* store.c: bytes copied device -> host */                    \
    X(bytes_to_device, COUNT)      /* store.c: bytes copied host -> device */                    \
    X(ops_executed, COUNT)         /* queue.c: ops executed */                                   \
    X(flushes, COUNT)              /* queue.c: non-empty flushes of the queue */                 \
    X(temporaries, COUNT)          /* queue.c: aliasing temporaries made */                      \
    X(bytes_allocated, LEVEL)      /* alloc.c: bytes ever allocated (a running total) */         \
    X(bytes_live, LEVEL)           /* alloc.c: bytes allocated now (host and device) */          \
    X(queued, LEVEL)               /* queue.c: ops in the queue (read at cpn_stats_read) */      \
    X(bytes_sent, COUNT)           /* comm.c: bytes this rank sent */                            \
    X(messages_sent, COUNT)        /* comm.c: messages this rank sent */                         \
    X(plans_cached, COUNT)         /* dist.c: distributed plans built (and cached) */            \
    X(plan_hits, COUNT)            /* dist.c: distributed plans taken from the cache */          \
    X(stores_live, LEVEL)          /* store.c: stores alive now */                               \
    X(bytes_peak, PEAK)            /* alloc.c: the most bytes live at once */                    \
    X(fused_runs, COUNT)           /* fusion.c: fused runs executed */                           \
    X(fused_ops, COUNT)            /* fusion.c: ops executed inside fused runs */                \
    X(temporaries_elided, COUNT)   /* fusion.c: stores never allocated (registers, dropped) */   \
    X(bytes_elided, COUNT)         /* fusion.c: their sizes */                                   \
    X(ops_dropped, COUNT)          /* fusion.c: ops not executed: nothing read their results */  \
    X(fusion_plans, COUNT)         /* fusion.c: fused programs built */                          \
    X(fusion_plan_hits, COUNT)     /* fusion.c: fused programs taken from the cache */           \
    X(fused_runs_dist, COUNT)      /* fusion.c: of the runs, those over tiled stores */          \
    X(fused_runs_banded, COUNT)    /* fusion.c: of the runs, those written back band by band */  \
    X(fused_runs_cut, COUNT)       /* fusion.c: runs cut short to fit a device kernel */         \
    X(stores_virtual, COUNT)       /* store.c: stores made virtual (never allocated) */          \
    X(virtual_materialized, COUNT) /* store.c: virtual stores given a buffer after all */        \
    X(virtual_regenerated, COUNT)  /* fusion.c: reads of virtual stores computed again */       \
    X(sorts_dist, COUNT)           /* samplesort.c: sorts of tiled stores without gathering */   \
    X(scans_dist, COUNT)           /* distscan.c: scans of tiled stores without gathering */     \
    X(copies_elided, COUNT)        /* fusion.c: copies into a view not run: the op before wrote it */ \
    X(runs_alone, COUNT)           /* elementwise.c: runs above parallel_min on the caller alone */ \
    X(runs_team, COUNT)            /* elementwise.c: runs above parallel_min on the team */     \
    X(bytes_streamed, COUNT)       /* elementwise.c, fused.c: outputs written by streaming stores */ \
    X(bytes_prefetched, COUNT)     /* fused.c: inputs read ahead by software prefetch */ \
    X(scatters_split, COUNT)       /* compact.c: 1-d scatters/ufunc.at on two threads by halves */

struct cpn_stats {
#define CPN_STATS_FIELD(name, kind) int64_t name;
    CPN_STATS(CPN_STATS_FIELD)
#undef CPN_STATS_FIELD
};

/* The counters themselves (stats.c).  alloc.c updates its fields with relaxed atomics, as it
 * updated its own counters before; the other fields are plain. */
extern struct cpn_stats cpn_stats;

/* A copy of the counters as runtime_stats() reports them (queued filled in from the queue). */
void cpn_stats_read(struct cpn_stats *out);
/* reset_stats(): every field as its kind says. */
void cpn_stats_reset(void);

#endif
