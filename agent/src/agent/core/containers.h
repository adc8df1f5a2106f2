/* Containers of a topology joined by switch-to-switch links (MDCube's
 * fibers): the connected components of the graph without those links,
 * numbered in the order of their lowest node id (MDCube: the container
 * index of its names). Topologies without such links have none. */
#ifndef DCN_AGENT_CONTAINERS_H
#define DCN_AGENT_CONTAINERS_H

#include <stdint.h>

#include "topo/topo.h"

/* Fills *of (one entry per node, allocated; NULL when there are no
 * switch-to-switch links) and returns the number of containers (0 when
 * none, -1 when out of memory). */
int containers_build(const dcn_topo *t, uint32_t **of);

#endif
