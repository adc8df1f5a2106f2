#include "cli.h"

#include <stdio.h>
#include <string.h>

#include "topo/family.h"

uint32_t cli_lookup(const dcn_topo *t, const char *name, int want_server)
{
    uint32_t v = dcn_node_lookup(t, name);
    if (v == DCN_NONE) {
        fprintf(stderr, "dcn-topo: no node named '%s' in this %s\n", name, t->family->name);
        return DCN_NONE;
    }
    if (want_server && dcn_kind(t, v) != DCN_SERVER) {
        fprintf(stderr, "dcn-topo: '%s' is a switch; a server is needed here\n", name);
        return DCN_NONE;
    }
    return v;
}

static int add_failed_link(const dcn_topo *t, dcn_failures *f, const char *spec)
{
    char buf[2 * DCN_NAME_MAX + 2];
    const char *comma = strchr(spec, ',');
    if (!comma || strlen(spec) >= sizeof buf) {
        fprintf(stderr, "dcn-topo: --fail-link takes NODE,NODE, not '%s'\n", spec);
        return -1;
    }
    strcpy(buf, spec);
    buf[comma - spec] = '\0';
    uint32_t a = cli_lookup(t, buf, 0), b = cli_lookup(t, buf + (comma - spec) + 1, 0);
    if (a == DCN_NONE || b == DCN_NONE)
        return -1;
    if (dcn_fail_link(f, t, a, b) < 0) {
        fprintf(stderr, "dcn-topo: --fail-link %s: the two nodes are not cabled together\n", spec);
        return -1;
    }
    return 0;
}

int cli_failures(const dcn_topo *t, const cli_fail_args *a, dcn_failures *f)
{
    if (dcn_failures_init(f, t) < 0) {
        fprintf(stderr, "dcn-topo: out of memory\n");
        return -2;
    }
    for (int i = 0; i < a->n_nodes; i++) {
        uint32_t v = cli_lookup(t, a->nodes[i], 0);
        if (v == DCN_NONE)
            goto bad;
        dcn_fail_node(f, v);
    }
    for (int i = 0; i < a->n_links; i++)
        if (add_failed_link(t, f, a->links[i]) < 0)
            goto bad;
    return 0;
bad:
    dcn_failures_free(f);
    return -1;
}

void cli_write_params(dcn_json *j, const dcn_topo *t)
{
    const dcn_family *fam = t->family;
    dcn_json_obj_begin(j, "params");
    for (int i = 0; i < fam->n_params; i++) {
        if (fam->params[i].type == DCN_PARAM_DIMS) {
            dcn_json_arr_begin(j, fam->params[i].name);
            for (long d = 0; d < t->params.value[i]; d++)
                dcn_json_int(j, NULL, t->params.dims[i][d]);
            dcn_json_arr_end(j);
        } else {
            dcn_json_int(j, fam->params[i].name, t->params.value[i]);
        }
    }
    dcn_json_obj_end(j);
}
