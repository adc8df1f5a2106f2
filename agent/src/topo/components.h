/* Which servers can still reach each other: the connected components of
 * the graph under failures, switches and servers both forwarding. */
#ifndef DCN_COMPONENTS_H
#define DCN_COMPONENTS_H

#include <stdint.h>

#include "failures.h"
#include "topo.h"

/* Labels every server with its component (n_servers entries in comp_out):
 * components are numbered 0, 1, ... in the order of their lowest server
 * id; a failed server gets DCN_NONE. A failed node or link is removed from
 * the graph (f NULL: nothing failed). Returns the number of components, or
 * -1 when out of memory. */
int dcn_server_components(const dcn_topo *t, const dcn_failures *f, uint32_t *comp_out);

#endif
