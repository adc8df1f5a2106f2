#include "sim_topo.h"

#include <string.h>

#include "sim_mlfattree.h"
#include "topo/family.h"

int sim_topo_build(dcn_topo *t, const char *family, int argc, char **argv, char *err, size_t errlen)
{
    const dcn_family *fam = &sim_family_mlfattree;
    if (strcmp(family, fam->name) != 0)
        return dcn_topo_build(t, family, argc, argv, err, errlen);
    memset(t, 0, sizeof *t);
    t->family = fam;
    if (dcn_params_parse(&t->params, fam->name, fam->params, fam->n_params, argc, argv, err, errlen) < 0)
        return -1;
    if (fam->validate(&t->params, err, errlen) < 0)
        return -1;
    if (fam->build(t, err, errlen) < 0) {
        dcn_topo_free(t);
        return -1;
    }
    return 0;
}
