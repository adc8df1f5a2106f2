/* What dcn-topo's commands share: node names, --fail-node / --fail-link,
 * the parameters in the JSON, and the commands kept in files of their own. */
#ifndef DCN_CLI_H
#define DCN_CLI_H

#include <stdint.h>

#include "topo/failures.h"
#include "topo/json.h"
#include "topo/topo.h"

#define EXIT_USAGE 2

/* The failures named on the command line (--fail-node NODE, --fail-link NODE,NODE). */
typedef struct cli_fail_args {
    char **nodes;
    int n_nodes;
    char **links;
    int n_links;
} cli_fail_args;

/* The node of a name or #ID (want_server: a server); DCN_NONE after one
 * line on stderr when there is none. */
uint32_t cli_lookup(const dcn_topo *t, const char *name, int want_server);
/* Initialises f and puts the failures of a in it. 0; -1 after one line
 * on stderr (unknown node, nodes not cabled together: f freed); -2 when
 * out of memory. */
int cli_failures(const dcn_topo *t, const cli_fail_args *a, dcn_failures *f);
/* "params": {name: value, ...} of t. */
void cli_write_params(dcn_json *j, const dcn_topo *t);

/* dcn-topo bfs / components / connectivity (graph_cmds.c): exit statuses. */
int cmd_bfs(const dcn_topo *t, const char *srcname, const cli_fail_args *a);
int cmd_components(const dcn_topo *t, const cli_fail_args *a);
int cmd_connectivity(const dcn_topo *t, const cli_fail_args *a);

#endif
