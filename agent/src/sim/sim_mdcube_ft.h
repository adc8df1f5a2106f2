/* MDCube's fault-tolerant hierarchical routing (MDCube paper Sec. 4.3) for
 * the simulator: the source draws a random jump (the library's "detour"),
 * and each container on the way routes its own segment, repairing it inside
 * the container (a BFS over that container's live servers and switches,
 * like BSR's repair) without telling the source. When a fibre or a fibre
 * switch of the jump is down, or a segment cannot be repaired, the source
 * draws another jump (up to SIM_MDFT_JUMPS). */
#ifndef DCN_SIM_MDCUBE_FT_H
#define DCN_SIM_MDCUBE_FT_H

#include "topo/family.h"

#define SIM_MDFT_JUMPS 8

extern const dcn_algo sim_algo_mdcube_detour_ft;

/* Frees the calling thread's scratch (the engine calls it as a worker ends). */
void sim_mdcube_ft_release(void);

#endif
