/* Builds a topology for the simulator: the library's families, plus the
 * simulator-only baseline `mlfattree`. */
#ifndef DCN_SIM_TOPO_H
#define DCN_SIM_TOPO_H

#include <stddef.h>

#include "topo/topo.h"

/* As dcn_topo_build(): 0, or -1 with one line naming the bad parameter. */
int sim_topo_build(dcn_topo *t, const char *family, int argc, char **argv, char *err, size_t errlen);

#endif
