#include "dump_topo.h"

#include <stdio.h>
#include <string.h>

#define DUMP_SPEC_MAX 512
#define DUMP_SPEC_WORDS 16

int dump_topo_build(dcn_topo *t, const char *spec, char *err, size_t errlen)
{
    char copy[DUMP_SPEC_MAX];
    size_t n = strlen(spec);
    if (n >= sizeof copy) {
        snprintf(err, errlen, "--topo: longer than %d characters", DUMP_SPEC_MAX - 1);
        return -1;
    }
    memcpy(copy, spec, n + 1);
    char *words[DUMP_SPEC_WORDS], *save = NULL;
    int nw = 0;
    for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        if (nw == DUMP_SPEC_WORDS) {
            snprintf(err, errlen, "--topo: more than %d words", DUMP_SPEC_WORDS);
            return -1;
        }
        words[nw++] = w;
    }
    if (nw == 0) {
        snprintf(err, errlen, "--topo: empty (expected e.g. \"bcube n=4 k=1\")");
        return -1;
    }
    return dcn_topo_build(t, words[0], nw - 1, words + 1, err, errlen);
}
