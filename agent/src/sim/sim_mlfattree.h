/* The BCube paper's fat-tree baseline (Sec. 6): a multi-level fat-tree of
 * n-port switches with L switch layers. Layers 0..L-2 form n pods, each an
 * (n/2)-ary (L-1)-tree of (n/2)^(L-2) switches per layer; layer L-1 holds
 * (n/2)^(L-1) top switches whose n ports go down, one to each pod. Hosts:
 * n (n/2)^(L-1); n=8, L=5 gives 2048 hosts, 512 switches in each of layers
 * 0..3 and 256 in layer 4, as in the paper. L=3 is Al-Fares' k-ary fat-tree.
 * It is simulator-only (the agents do not run switch-centric networks), so
 * it is not registered with the library; sim_topo_build() knows it. */
#ifndef DCN_SIM_MLFATTREE_H
#define DCN_SIM_MLFATTREE_H

#include "topo/family.h"

extern const dcn_family sim_family_mlfattree;

#endif
