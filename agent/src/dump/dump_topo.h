/* The --topo "family k=v ..." string of dcn-dump, built by the library. */
#ifndef DCN_DUMP_TOPO_H
#define DCN_DUMP_TOPO_H

#include <stddef.h>

#include "topo/topo.h"

/* Splits spec at blanks and builds it. Returns 0, or -1 with one line in
 * err (an empty spec, too many words, or the library's own message). */
int dump_topo_build(dcn_topo *t, const char *spec, char *err, size_t errlen);

#endif
