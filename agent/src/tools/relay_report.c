/* What dcn-relay prints on stdout: one JSON object (--json) or one line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relay.h"
#include "topo/json.h"

static void time_or_null(dcn_json *j, const char *key, int64_t ms)
{
    if (ms)
        dcn_json_int(j, key, ms);
    else
        dcn_json_null(j, key);
}

static double rate_mbps(uint64_t bytes, double seconds) { return (double)bytes * 8.0 / seconds / 1e6; }

/* recv: first to last byte read. send: first byte written to the last
 * receiver's confirmation. 0 when not measured. */
static double run_seconds(const relay_opts *o, const relay_result *res)
{
    if (o->mode == RELAY_RECV)
        return res->first_ms ? res->last_mono - res->first_mono : 0;
    return res->first_ms && res->done_ms ? res->done_mono - res->first_mono : 0;
}

static void write_peer(dcn_json *j, const relay_opts *o, const relay_peer *pe)
{
    dcn_json_obj_begin(j, NULL);
    dcn_json_str(j, "to", pe->ep.label);
    dcn_json_int(j, "bytes", (long long)pe->bytes);
    if (o->mode == RELAY_SEND)
        dcn_json_int(j, "expected", (long long)pe->ep.bytes);
    time_or_null(j, "first_byte_unix_ms", pe->first_ms);
    time_or_null(j, "last_byte_unix_ms", pe->last_ms);
    time_or_null(j, "done_unix_ms", pe->done_ms);
    if (pe->first_ms && pe->done_ms) {
        double s = pe->done_mono - pe->first_mono;
        dcn_json_num(j, "seconds", s);
        dcn_json_num(j, "mbps", rate_mbps(pe->bytes, s));
    } else {
        dcn_json_null(j, "seconds");
        dcn_json_null(j, "mbps");
    }
    if (pe->error[0])
        dcn_json_str(j, "error", pe->error);
    else
        dcn_json_null(j, "error");
    dcn_json_obj_end(j);
}

static void report_json(const relay_opts *o, const relay_result *res)
{
    dcn_json j;
    double s = run_seconds(o, res);
    dcn_json_init(&j, stdout, 1);
    dcn_json_obj_begin(&j, NULL);
    dcn_json_str(&j, "mode", o->mode == RELAY_SEND ? "send" : "recv");
    if (o->mode == RELAY_RECV) {
        dcn_json_int(&j, "listen_port", atoi(o->listen_port));
        if (res->upstream[0])
            dcn_json_str(&j, "from", res->upstream);
        else
            dcn_json_null(&j, "from");
        if (o->expect)
            dcn_json_int(&j, "expected", (long long)o->expect);
        else
            dcn_json_null(&j, "expected");
    }
    dcn_json_int(&j, "bytes", (long long)res->bytes);
    time_or_null(&j, "first_byte_unix_ms", res->first_ms);
    time_or_null(&j, "last_byte_unix_ms", res->last_ms);
    time_or_null(&j, "done_unix_ms", res->done_ms);
    if (s > 0) {
        dcn_json_num(&j, "seconds", s);
        dcn_json_num(&j, "mbps", rate_mbps(res->bytes, s));
    } else {
        dcn_json_null(&j, "seconds");
        dcn_json_null(&j, "mbps");
    }
    dcn_json_arr_begin(&j, o->mode == RELAY_SEND ? "targets" : "forwarded");
    for (int i = 0; i < o->n_peers; i++)
        write_peer(&j, o, &o->peers[i]);
    dcn_json_arr_end(&j);
    dcn_json_arr_begin(&j, "errors");
    if (res->error[0])
        dcn_json_str(&j, NULL, res->error);
    for (int i = 0; i < o->n_peers; i++)
        if (o->peers[i].error[0] && strcmp(o->peers[i].error, res->error))
            dcn_json_str(&j, NULL, o->peers[i].error);
    dcn_json_arr_end(&j);
    dcn_json_obj_end(&j);
    dcn_json_end(&j);
}

static void report_line(const relay_opts *o, const relay_result *res)
{
    double s = run_seconds(o, res);
    printf("dcn-relay %s: %llu bytes", o->mode == RELAY_SEND ? "send" : "recv", (unsigned long long)res->bytes);
    if (o->mode == RELAY_RECV && res->upstream[0])
        printf(" from %s", res->upstream);
    if (s > 0)
        printf(" in %.3f s (%.1f Mb/s)", s, rate_mbps(res->bytes, s));
    for (int i = 0; i < o->n_peers; i++)
        printf("%s %s %llu", i ? "," : (o->mode == RELAY_SEND ? "; to" : "; forwarded to"), o->peers[i].ep.label,
               (unsigned long long)o->peers[i].bytes);
    printf("%s%s\n", res->error[0] ? "; FAILED: " : "", res->error);
}

void relay_report(const relay_opts *o, const relay_result *res)
{
    if (o->json)
        report_json(o, res);
    else
        report_line(o, res);
    fflush(stdout);
}
