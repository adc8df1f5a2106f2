#include "ctl.h"

#include <stdlib.h>
#include <string.h>

#include "topo/family.h"
#include "topo/json.h"

static const char *const commands[] = {"status", "neighbors", "flows", "counters", "paths", "segments", "failures"};

bool ctl_known_command(const char *cmd)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(cmd, commands[i]) == 0)
            return true;
    return false;
}

int ctl_parse(const char *line, ctl_request *req, char *err, size_t errlen)
{
    memset(req, 0, sizeof *req);
    char buf[CTL_LINE_MAX];
    size_t n = strnlen(line, sizeof buf);
    if (n >= sizeof buf) {
        snprintf(err, errlen, "request too long");
        return -1;
    }
    memcpy(buf, line, n + 1);
    char *save = NULL;
    int words = 0;
    for (char *w = strtok_r(buf, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
        if (strcmp(w, "--json") == 0) {
            req->json = true;
        } else if (words == 0) {
            if (strlen(w) >= sizeof req->cmd) {
                snprintf(err, errlen, "unknown command");
                return -1;
            }
            strcpy(req->cmd, w);
            words++;
        } else if (words == 1) {
            if (strlen(w) >= sizeof req->arg) {
                snprintf(err, errlen, "argument too long");
                return -1;
            }
            strcpy(req->arg, w);
            words++;
        } else {
            snprintf(err, errlen, "too many arguments");
            return -1;
        }
    }
    if (!words) {
        snprintf(err, errlen, "empty request");
        return -1;
    }
    if (!ctl_known_command(req->cmd)) {
        snprintf(err, errlen, "unknown command '%s' (status, neighbors, flows, segments, counters, failures, paths DST)", req->cmd);
        return -1;
    }
    if (strcmp(req->cmd, "paths") == 0 && !req->arg[0]) {
        snprintf(err, errlen, "paths needs a destination server name");
        return -1;
    }
    return 0;
}

static void ip_str(uint32_t ip, char *buf, size_t len)
{
    snprintf(buf, len, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
}

static void mac_str(const uint8_t *m, char *buf, size_t len)
{
    snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

static uint64_t now(engine *e) { return e->io.now_ms(e->io.ctx); }

static void render_status(engine *e, bool json, FILE *out)
{
    char name[DCN_NAME_MAX], ip[20];
    dcn_node_name(e->t, e->self, name, sizeof name);
    ip_str(engine_ip_of(e->self), ip, sizeof ip);
    unsigned up, total;
    bool ready = engine_ready(e, &up, &total);
    double uptime = (double)(now(e) - e->start_ms) / 1000.0;
    if (json) {
        dcn_json j;
        dcn_json_init(&j, out, 0);
        dcn_json_obj_begin(&j, NULL);
        dcn_json_str(&j, "name", name);
        dcn_json_int(&j, "id", e->self);
        dcn_json_str(&j, "ip", ip);
        dcn_json_str(&j, "family", e->t->family->name);
        dcn_json_int(&j, "neighbors_up", up);
        dcn_json_int(&j, "neighbors_total", total);
        fprintf(out, ",\"ready\":%s", ready ? "true" : "false");
        dcn_json_num(&j, "uptime_s", uptime);
        dcn_json_str(&j, "path_select", ps_name());
        dcn_json_obj_end(&j);
        dcn_json_end(&j);
        return;
    }
    fprintf(out, "server %s (id %u, %s), family %s\n", name, e->self, ip, e->t->family->name);
    fprintf(out, "neighbors %u/%u up, %s, uptime %.1f s, path selection: %s\n", up, total,
            ready ? "ready" : "not ready", uptime, ps_name());
}

static void render_neighbors(engine *e, bool json, FILE *out)
{
    dcn_json j;
    uint64_t t = now(e);
    if (json) {
        dcn_json_init(&j, out, 0);
        dcn_json_obj_begin(&j, NULL);
        dcn_json_arr_begin(&j, "neighbors");
    } else {
        fprintf(out, "%-5s %-10s %-4s %-16s %-17s %-5s %s\n", "NHA", "NAME", "PORT", "IFNAME", "MAC", "UP",
                "LAST_HEARD_MS");
    }
    for (unsigned i = 0; i < 256; i++) {
        const neigh_entry *ne = &e->nt.e[i];
        if (!ne->valid)
            continue;
        char name[DCN_NAME_MAX], mac[20], nha[8];
        dcn_node_name(e->t, ne->node, name, sizeof name);
        mac_str(ne->mac, mac, sizeof mac);
        snprintf(nha, sizeof nha, "0x%02x", i);
        long long heard = ne->heard ? (long long)(t - ne->last_heard_ms) : -1;
        const char *ifn = e->port[ne->port].present ? e->port[ne->port].ifname : "";
        if (json) {
            dcn_json_obj_begin(&j, NULL);
            dcn_json_str(&j, "nha", nha);
            dcn_json_str(&j, "name", name);
            dcn_json_int(&j, "port", ne->port);
            dcn_json_str(&j, "ifname", ifn);
            dcn_json_str(&j, "mac", mac);
            fprintf(out, ",\"up\":%s,\"hears_us\":%s", ne->up ? "true" : "false",
                    ne->alive && !ne->up ? "false" : "true");
            if (heard >= 0)
                dcn_json_int(&j, "last_heard_ms", heard);
            else
                dcn_json_null(&j, "last_heard_ms");
            dcn_json_obj_end(&j);
        } else {
            fprintf(out, "%-5s %-10s %-4u %-16s %-17s %-5s %lld\n", nha, name, ne->port, ifn[0] ? ifn : "-", mac,
                    ne->up ? "up" : ne->alive ? "1-way" : "down", heard);
        }
    }
    if (json) {
        dcn_json_arr_end(&j);
        dcn_json_obj_end(&j);
        dcn_json_end(&j);
    }
}

static void path_names(engine *e, const dcn_path *p, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = 0;
    for (uint32_t i = 0; p && i < p->len && off < len; i++) {
        char name[DCN_NAME_MAX];
        dcn_node_name(e->t, p->node[i], name, sizeof name);
        off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? " " : "", name);
    }
}

static void render_flows(engine *e, bool json, FILE *out)
{
    enum { MAXF = 256 };
    ps_flow_info *fl = calloc(MAXF, sizeof *fl);
    int n = fl ? ps_flows(e->ps, fl, MAXF) : 0;
    dcn_json j;
    if (json) {
        dcn_json_init(&j, out, 0);
        dcn_json_obj_begin(&j, NULL);
        dcn_json_str(&j, "path_select", ps_name());
        dcn_json_arr_begin(&j, "flows");
    } else {
        fprintf(out, "path selection: %s, %d flows\n", ps_name(), n);
    }
    for (int i = 0; i < n; i++) {
        char s[20], d[20], path[1024];
        ip_str(fl[i].key.src_ip, s, sizeof s);
        ip_str(fl[i].key.dst_ip, d, sizeof d);
        if (json) {
            dcn_json_obj_begin(&j, NULL);
            dcn_json_str(&j, "src", s);
            dcn_json_str(&j, "dst", d);
            dcn_json_int(&j, "proto", fl[i].key.proto);
            dcn_json_int(&j, "sport", fl[i].key.src_port);
            dcn_json_int(&j, "dport", fl[i].key.dst_port);
            dcn_json_arr_begin(&j, "path");
            for (uint32_t k = 0; k < fl[i].path.len; k++) {
                char name[DCN_NAME_MAX];
                dcn_node_name(e->t, fl[i].path.node[k], name, sizeof name);
                dcn_json_str(&j, NULL, name);
            }
            dcn_json_arr_end(&j);
            dcn_json_int(&j, "path_index", fl[i].path_index);
            if (fl[i].avail_known)
                dcn_json_int(&j, "avail_mbps", fl[i].avail_mbps);
            else
                dcn_json_null(&j, "avail_mbps");
            dcn_json_int(&j, "rate_mbps", fl[i].rate_mbps);
            dcn_json_int(&j, "probes", fl[i].probes);
            dcn_json_int(&j, "switches", fl[i].switches);
            dcn_json_num(&j, "age_s", (double)fl[i].age_ms / 1000.0);
            dcn_json_obj_end(&j);
        } else {
            path_names(e, &fl[i].path, path, sizeof path);
            fprintf(out, "%s:%u -> %s:%u proto %u  path[%d] %s  avail %u Mb/s  rate %u Mb/s  probes %u  switches %u  age %.1f s\n",
                    s, fl[i].key.src_port, d, fl[i].key.dst_port, fl[i].key.proto, fl[i].path_index, path,
                    fl[i].avail_mbps, fl[i].rate_mbps, fl[i].probes, fl[i].switches, (double)fl[i].age_ms / 1000.0);
        }
    }
    if (json) {
        dcn_json_arr_end(&j);
        dcn_json_obj_end(&j);
        dcn_json_end(&j);
    }
    free(fl);
}

/* MDCube hierarchical routing: the segment table (docs/protocol.md). */
static void render_segments(engine *e, bool json, FILE *out)
{
    enum { MAXS = 256 };
    const char *mode = e->hier ? "hier" : e->container_of ? "source" : "none";
    uint64_t t = e->io.now_ms(e->io.ctx);
    const mdc_entry *x[MAXS];
    int n = e->hier ? mdc_entries(e->hier, x, MAXS, t) : 0;
    dcn_json j;
    if (json) {
        dcn_json_init(&j, out, 0);
        dcn_json_obj_begin(&j, NULL);
        dcn_json_str(&j, "mdcube_routing", mode);
        if (e->hier) {
            const mdc_counters *c = &e->hier->c;
            dcn_json_obj_begin(&j, "counters");
            dcn_json_int(&j, "segments_new", (long long)c->segments_new);
            dcn_json_int(&j, "segments_rerouted", (long long)c->segments_rerouted);
            dcn_json_int(&j, "segments_failed", (long long)c->segments_failed);
            dcn_json_int(&j, "jumps_drawn", (long long)c->jumps_drawn);
            dcn_json_int(&j, "jump_changes", (long long)c->jump_changes);
            dcn_json_int(&j, "evictions", (long long)c->evictions);
            dcn_json_int(&j, "unreach_rx", (long long)c->unreach_rx);
            dcn_json_int(&j, "unreach_unknown", (long long)c->unreach_unknown);
            dcn_json_obj_end(&j);
        }
        dcn_json_arr_begin(&j, "segments");
    } else {
        fprintf(out, "mdcube routing: %s, %d segments\n", mode, n);
    }
    for (int i = 0; i < n; i++) {
        char src[DCN_NAME_MAX], dst[DCN_NAME_MAX], path[1024], cl[200];
        dcn_node_name(e->t, x[i]->src, src, sizeof src);
        dcn_node_name(e->t, x[i]->dst, dst, sizeof dst);
        dcn_path p;
        p.len = x[i]->seg_len;
        memcpy(p.node, x[i]->seg, p.len * sizeof p.node[0]);
        path_names(e, &p, path, sizeof path);
        size_t off = 0;
        cl[0] = 0;
        for (unsigned k = 0; k < x[i]->n_containers && off < sizeof cl; k++)
            off += (size_t)snprintf(cl + off, sizeof cl - off, "%s%u", k ? "," : "", x[i]->container[k]);
        double age = (double)(t - x[i]->created_ms) / 1000.0;
        if (json) {
            dcn_json_obj_begin(&j, NULL);
            dcn_json_str(&j, "src", src);
            dcn_json_str(&j, "dst", dst);
            dcn_json_int(&j, "flow_id", x[i]->flow_id);
            dcn_json_int(&j, "source", x[i]->source);
            dcn_json_int(&j, "jump", x[i]->jump);
            dcn_json_arr_begin(&j, "containers");
            for (unsigned k = 0; k < x[i]->n_containers; k++)
                dcn_json_int(&j, NULL, x[i]->container[k]);
            dcn_json_arr_end(&j);
            dcn_json_arr_begin(&j, "segment");
            for (uint32_t k = 0; k < p.len; k++) {
                char name[DCN_NAME_MAX];
                dcn_node_name(e->t, p.node[k], name, sizeof name);
                dcn_json_str(&j, NULL, name);
            }
            dcn_json_arr_end(&j);
            dcn_json_int(&j, "reroutes", x[i]->reroutes);
            dcn_json_int(&j, "jumps", x[i]->jumps);
            dcn_json_num(&j, "age_s", age);
            dcn_json_obj_end(&j);
        } else {
            fprintf(out, "%s -> %s flow 0x%08x %s containers [%s] segment %s  reroutes %u  jumps %u  age %.1f s\n", src,
                    dst, x[i]->flow_id, x[i]->source ? "source" : "relay", cl, path, x[i]->reroutes, x[i]->jumps, age);
        }
    }
    if (json) {
        dcn_json_arr_end(&j);
        dcn_json_obj_end(&j);
        dcn_json_end(&j);
    }
}

static void render_counters(engine *e, bool json, FILE *out)
{
    dcn_json j;
    if (json) {
        dcn_json_init(&j, out, 0);
        dcn_json_obj_begin(&j, NULL);
        dcn_json_obj_begin(&j, "counters");
#define DCN_COUNTER_JSON(name) dcn_json_int(&j, #name, (long long)e->c.name);
        DCN_COUNTERS(DCN_COUNTER_JSON)
#undef DCN_COUNTER_JSON
        dcn_json_obj_end(&j);
        ps_counter pc[32];
        int npc = ps_counters(e->ps, pc, 32);
        dcn_json_obj_begin(&j, "path_select");
        dcn_json_str(&j, "name", ps_name());
        for (int i = 0; i < npc; i++)
            dcn_json_int(&j, pc[i].name, (long long)pc[i].value);
        dcn_json_obj_end(&j);
        dcn_json_arr_begin(&j, "ports");
        for (unsigned p = 0; p < e->nports; p++) {
            const engine_port *ep = &e->port[p];
            dcn_json_obj_begin(&j, NULL);
            dcn_json_int(&j, "port", p);
            dcn_json_str(&j, "ifname", ep->present ? ep->ifname : "");
            fprintf(out, ",\"present\":%s,\"carrier\":%s", ep->present ? "true" : "false",
                    ep->carrier ? "true" : "false");
            dcn_json_int(&j, "rx_frames", (long long)ep->rx_frames);
            dcn_json_int(&j, "tx_frames", (long long)ep->tx_frames);
            dcn_json_int(&j, "rx_bytes", (long long)ep->rx_bytes);
            dcn_json_int(&j, "tx_bytes", (long long)ep->tx_bytes);
            dcn_json_int(&j, "rx_mbps", ep->rx_mbps);
            dcn_json_int(&j, "tx_mbps", ep->tx_mbps);
            dcn_json_int(&j, "capacity_mbps", ep->capacity_mbps);
            dcn_json_obj_end(&j);
        }
        dcn_json_arr_end(&j);
        dcn_json_obj_end(&j);
        dcn_json_end(&j);
        return;
    }
#define DCN_COUNTER_TEXT(name) fprintf(out, "%-28s %llu\n", #name, (unsigned long long)e->c.name);
    DCN_COUNTERS(DCN_COUNTER_TEXT)
#undef DCN_COUNTER_TEXT
    ps_counter pc[32];
    int npc = ps_counters(e->ps, pc, 32);
    for (int i = 0; i < npc; i++)
        fprintf(out, "%s.%-*s %llu\n", ps_name(), 27 - (int)strlen(ps_name()), pc[i].name,
                (unsigned long long)pc[i].value);
    for (unsigned p = 0; p < e->nports; p++) {
        const engine_port *ep = &e->port[p];
        fprintf(out, "port %u %-12s %s carrier=%s rx %llu frames %u Mb/s, tx %llu frames %u Mb/s\n", p,
                ep->present ? ep->ifname : "-", ep->present ? "present" : "absent", ep->carrier ? "up" : "down",
                (unsigned long long)ep->rx_frames, ep->rx_mbps, (unsigned long long)ep->tx_frames, ep->tx_mbps);
    }
}

/* The links path selection holds failed: local ports that are down, and
 * links learned from path-failure messages until they expire or a probe
 * crosses them (docs/bsr.md). */
static void render_failures(engine *e, bool json, FILE *out)
{
    ps_failed_link fl[256]; /* BSR_FAILDB_MAX: 6 kB on the stack */
    int n = ps_failed_links(e->ps, fl, 256);
    dcn_json j;
    if (json) {
        dcn_json_init(&j, out, 0);
        dcn_json_obj_begin(&j, NULL);
        dcn_json_arr_begin(&j, "failures");
    } else {
        fprintf(out, "%-24s %-8s %s\n", "LINK", "KIND", "EXPIRES_IN_MS");
    }
    for (int i = 0; i < n; i++) {
        char a[DCN_NAME_MAX], b[DCN_NAME_MAX];
        dcn_node_name(e->t, fl[i].node_a, a, sizeof a);
        dcn_node_name(e->t, fl[i].node_b, b, sizeof b);
        if (json) {
            dcn_json_obj_begin(&j, NULL);
            dcn_json_str(&j, "a", a);
            dcn_json_str(&j, "b", b);
            dcn_json_str(&j, "kind", fl[i].local ? "local" : "learned");
            if (fl[i].local)
                dcn_json_null(&j, "expires_in_ms");
            else
                dcn_json_int(&j, "expires_in_ms", (long long)fl[i].expires_in_ms);
            dcn_json_obj_end(&j);
        } else {
            char link[2 * DCN_NAME_MAX + 2];
            snprintf(link, sizeof link, "%s-%s", a, b);
            if (fl[i].local)
                fprintf(out, "%-24s %-8s -\n", link, "local");
            else
                fprintf(out, "%-24s %-8s %llu\n", link, "learned", (unsigned long long)fl[i].expires_in_ms);
        }
    }
    if (json) {
        dcn_json_arr_end(&j);
        dcn_json_obj_end(&j);
        dcn_json_end(&j);
    }
}

static int render_paths(engine *e, const char *dst_name, bool json, FILE *out)
{
    uint32_t dst = dcn_node_lookup(e->t, dst_name);
    if (dst == DCN_NONE || dst >= e->t->n_servers || dst == e->self) {
        fprintf(out, "error: '%s' is not another server of this topology\n", dst_name);
        return -1;
    }
    dcn_pathset *s = malloc(sizeof *s);
    if (!s) {
        fprintf(out, "error: out of memory\n");
        return -1;
    }
    int n = ps_pathset(e->ps, dst, s);
    if (n < 0)
        n = 0;
    dcn_json j;
    if (json) {
        dcn_json_init(&j, out, 0);
        dcn_json_obj_begin(&j, NULL);
        dcn_json_arr_begin(&j, "paths");
    }
    for (int i = 0; i < n; i++) {
        uint8_t nha[DCN_MAX_HOPS];
        int h = nha_encode_path(e->t, &s->path[i], nha, DCN_MAX_HOPS);
        char hex[3 * DCN_MAX_HOPS + 1] = "";
        size_t off = 0; /* "00 41 ...": two digits per NHA, one space between */
        for (int k = 0; k < h; k++)
            off += (size_t)snprintf(hex + off, sizeof hex - off, "%s%02x", k ? " " : "", nha[k]);
        if (json) {
            dcn_json_obj_begin(&j, NULL);
            dcn_json_arr_begin(&j, "path");
            for (uint32_t k = 0; k < s->path[i].len; k++) {
                char name[DCN_NAME_MAX];
                dcn_node_name(e->t, s->path[i].node[k], name, sizeof name);
                dcn_json_str(&j, NULL, name);
            }
            dcn_json_arr_end(&j);
            dcn_json_str(&j, "nha", h >= 0 ? hex : "");
            dcn_json_obj_end(&j);
        } else {
            char names[2048];
            path_names(e, &s->path[i], names, sizeof names);
            fprintf(out, "%d: %s  NHA %s\n", i, names, h >= 0 ? hex : "(not expressible)");
        }
    }
    if (json) {
        dcn_json_arr_end(&j);
        dcn_json_obj_end(&j);
        dcn_json_end(&j);
    }
    free(s);
    return 0;
}

int ctl_render(engine *e, const ctl_request *req, FILE *out)
{
    if (strcmp(req->cmd, "status") == 0)
        render_status(e, req->json, out);
    else if (strcmp(req->cmd, "neighbors") == 0)
        render_neighbors(e, req->json, out);
    else if (strcmp(req->cmd, "segments") == 0)
        render_segments(e, req->json, out);
    else if (strcmp(req->cmd, "flows") == 0)
        render_flows(e, req->json, out);
    else if (strcmp(req->cmd, "counters") == 0)
        render_counters(e, req->json, out);
    else if (strcmp(req->cmd, "failures") == 0)
        render_failures(e, req->json, out);
    else if (strcmp(req->cmd, "paths") == 0)
        return render_paths(e, req->arg, req->json, out);
    else {
        fprintf(out, "error: unknown command '%s'\n", req->cmd);
        return -1;
    }
    return 0;
}
