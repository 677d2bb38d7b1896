/* distscan.h: inclusive scans (CPN_OPK_SCAN) of tiled stores, a pipeline along the scan axis. */
#ifndef CPN_DISTSCAN_H
#define CPN_DISTSCAN_H

#include <stdbool.h>

#include "opsem.h"
#include "status.h"

struct cpn_fpreport;

/* Does scan op `op` take the pipeline: its output a tiled root store walked whole, its input of
 * the output's dtype (any view: it is first copied into the output's tiles)?  Local. */
bool cpn_distscan_applies(const struct cpn_op *op);

/* Execute scan op `op` (cpn_distscan_applies): the input copied into the output's tiles by
 * owner-computes, then each chain of tiles along the axis scanned rank after rank, each
 * continuing from its predecessor's last slice (distscan.c); results are NumPy's sequential
 * scan's, bit for bit.  What the loops found goes into *fp.  Collective. */
enum cpn_status cpn_distscan_execute(const struct cpn_op *op, struct cpn_fpreport *fp);

#endif
