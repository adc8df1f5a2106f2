/* Harness: dcn-dump's decoder (dump_decode), line formatter and flow
 * table, on any bytes. Byte 0 chooses the topology the paths are walked
 * over: none, BCube_1(n=4) or a 2x2 MDCube (as fuzz_frame.c); the rest is
 * the captured frame. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump_decode.h"
#include "dump_flows.h"
#include "dump_format.h"
#include "dump_topo.h"
#include "fuzz.h"

static const char *const specs[2] = {"bcube n=4 k=1", "mdcube n=2 k=1 m=2x2"};
static dcn_topo topo[2];
static int built[2];
static dump_flows flows;
static dump_frame frame;
static char line[8192];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned which = data[0] % 3;
    const dcn_topo *t = NULL;
    if (which) {
        char err[256];
        if (!built[which - 1] && dump_topo_build(&topo[which - 1], specs[which - 1], err, sizeof err) < 0)
            abort();
        built[which - 1] = 1;
        t = &topo[which - 1];
    }
    if (!flows.slot && dump_flows_init(&flows, 64) < 0)
        abort();
    /* an exact-size copy: reads past the captured length are caught */
    size_t len = size - 1;
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy)
        abort();
    memcpy(copy, data + 1, len);
    dump_decode(t, copy, len, &frame);
    dump_flows_add(&flows, &frame);
    dump_format_line(t, &frame, data[0] & 8u, line, sizeof line);
    if (strlen(line) >= sizeof line)
        abort();
    dump_format_line(t, &frame, false, line, 17); /* cut short: still terminated */
    if (strlen(line) > 16)
        abort();
    if (data[0] & 16u) {
        static FILE *sink;
        if (!sink && !(sink = fopen("/dev/null", "w")))
            abort();
        dump_flows_print(&flows, t, data[0] & 8u, sink);
    }
    free(copy);
    return 0;
}
