/* flatroute.h: element-routed exchanges between a strided view of an untiled flat alias and a
 * store of the view's shape (flatroute.c). */
#ifndef CPN_FLATROUTE_H
#define CPN_FLATROUTE_H

#include <stdbool.h>

#include "status.h"

struct cpn_store;
struct cpn_view;

/* Can cpn_flatroute_exchange route view v: a view of an untiled flat alias of a tiled root
 * store, in the root's dtype, every dimension walking the flat index or none (a diagonal, the
 * strided flat write of fill_diagonal)?  With `write`, also no complex component and no
 * broadcast dimension (each element written once).  Local. */
bool cpn_flatroute_applies(const struct cpn_view *v, bool write);

/* Exchange between the elements of view v (cpn_flatroute_applies) and store t, a root store of
 * v's shape and of v's root's dtype (tiled any way, or replicated), element J of t being the
 * root's element at v's index J.  to_t: t's holders receive their elements from the root
 * elements' owners (a replicated t: every rank all of them); otherwise the owners of the root
 * elements receive them from t's holders and write them (a replicated t: each owner takes its
 * own).  Each element moves once to each rank that needs it and not at all where it already is;
 * every rank enumerates the view's elements (cost in proportion to the view, not the root).
 * Collective. */
enum cpn_status cpn_flatroute_exchange(const struct cpn_view *v, struct cpn_store *t, bool to_t);

#endif
