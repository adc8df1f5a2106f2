#include "hcn_label.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"

uint64_t hcn_ipow(uint64_t b, uint32_t e)
{
    uint64_t r = 1;
    while (e--) {
        r *= b;
        if (r > (1ull << 40))
            return 1ull << 41; /* saturate: callers only compare against limits */
    }
    return r;
}

static uint32_t decimal_len(uint64_t v)
{
    uint32_t n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

/* Longest server name of each form; the form is chosen once per instance. */
static void choose_name_form(hcn_dims *d)
{
    uint32_t head = d->bcn_names ? 2 + decimal_len(d->copies) : 1; /* "h" or "h<u>_" */
    if (d->n <= 9 && head + d->h + 1 <= 10) {
        d->name_form = 0;
        return;
    }
    uint32_t sep = head + decimal_len(d->n) + d->h * (decimal_len(d->alpha) + 1);
    d->name_form = sep <= 10 ? 1 : 2;
}

int hcn_dims_init(hcn_dims *d, const char *fam, uint32_t alpha, uint32_t beta, uint32_t h, uint32_t gamma,
                  uint32_t rule, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->alpha = alpha;
    d->beta = beta;
    d->n = alpha + beta;
    d->h = h;
    d->gamma = gamma;
    d->bcn_names = beta > 0;
    if (d->n > HCN_MAX_PORTS) {
        snprintf(err, errlen, "%s: alpha+beta=%u switch ports is too many (at most %u)", fam, d->n, HCN_MAX_PORTS);
        return -1;
    }
    uint64_t sw = hcn_ipow(alpha, h);
    uint64_t per = sw * d->n;
    uint64_t copies = 1, s = 0;
    if (beta > 0 && h >= gamma) {
        s = hcn_ipow(alpha, gamma) * beta;
        copies = s + 1;
        d->rule = rule;
    }
    if (per > HCN_MAX_SERVERS || copies > HCN_MAX_SERVERS || per * copies > HCN_MAX_SERVERS) {
        if (beta > 0)
            snprintf(err, errlen,
                     "%s: alpha=%u beta=%u h=%u gamma=%u gives too many servers (at most %u); lower h or alpha",
                     fam, alpha, beta, h, gamma, HCN_MAX_SERVERS);
        else
            snprintf(err, errlen, "%s: n=%u h=%u gives too many servers (n^(h+1), at most %u); lower h or n", fam,
                     alpha, h, HCN_MAX_SERVERS);
        return -1;
    }
    d->s = (uint32_t)s;
    d->copies = (uint32_t)copies;
    d->per_copy = (uint32_t)per;
    d->sw_per_copy = (uint32_t)sw;
    choose_name_form(d);
    return 0;
}

uint32_t hcn_server_id(const hcn_dims *d, const hcn_label *l)
{
    uint32_t local = 0;
    for (uint32_t i = d->h; i >= 1; i--)
        local = local * d->alpha + (l->x[i] - 1u);
    return (l->u - 1) * d->per_copy + local * d->n + (l->x[0] - 1u);
}

void hcn_server_label(const hcn_dims *d, uint32_t id, hcn_label *l)
{
    memset(l, 0, sizeof *l);
    l->u = id / d->per_copy + 1;
    uint32_t local = id % d->per_copy;
    l->x[0] = (uint8_t)(local % d->n + 1);
    local /= d->n;
    for (uint32_t i = 1; i <= d->h && i <= HCN_MAX_H; i++) {
        l->x[i] = (uint8_t)(local % d->alpha + 1);
        local /= d->alpha;
    }
}

uint32_t hcn_switch_index(const hcn_dims *d, const hcn_label *l) { return hcn_server_id(d, l) / d->n; }

void hcn_switch_label(const hcn_dims *d, uint32_t index, hcn_label *l)
{
    hcn_server_label(d, index * d->n, l);
}

bool hcn_is_master(const hcn_dims *d, const hcn_label *l) { return l->x[0] <= d->alpha; }

uint32_t hcn_common_prefix(const hcn_dims *d, const hcn_label *a, const hcn_label *b)
{
    uint32_t m = 0;
    for (uint32_t i = d->h; i >= 1 && a->x[i] == b->x[i]; i--)
        m++;
    return m;
}

uint32_t hcn_level_partner(const hcn_dims *d, const hcn_label *l, hcn_label *out)
{
    if (!hcn_is_master(d, l))
        return 0;
    uint8_t b = l->x[0];
    uint32_t r = 1;
    while (r <= d->h && r <= HCN_MAX_H && l->x[r] == b)
        r++;
    if (r > d->h || r > HCN_MAX_H)
        return 0; /* b^(h+1): reserved for expansion */
    uint8_t a = l->x[r];
    *out = *l;
    out->x[r] = b;
    for (uint32_t i = 0; i < r; i++)
        out->x[i] = a;
    return r;
}

uint32_t hcn_slave_id(const hcn_dims *d, const hcn_label *l)
{
    uint32_t id = 0;
    for (uint32_t i = d->gamma; i >= 1; i--)
        id = id * d->alpha + (l->x[i] - 1u);
    return id * d->beta + (l->x[0] - d->alpha);
}

uint32_t hcn_rank(const hcn_dims *d, const hcn_label *l)
{
    uint32_t v = 0;
    for (uint32_t i = d->h; i > d->gamma; i--)
        v = v * d->alpha + (l->x[i] - 1u);
    return v + 1;
}

void hcn_slave_label(const hcn_dims *d, uint32_t u, uint32_t v, uint32_t id, hcn_label *out)
{
    memset(out, 0, sizeof *out);
    out->u = u;
    uint32_t t = id - 1;
    out->x[0] = (uint8_t)(d->alpha + 1 + t % d->beta);
    t /= d->beta;
    for (uint32_t i = 1; i <= d->gamma && i <= HCN_MAX_H; i++) {
        out->x[i] = (uint8_t)(t % d->alpha + 1);
        t /= d->alpha;
    }
    t = v - 1;
    for (uint32_t i = d->gamma + 1; i <= d->h && i <= HCN_MAX_H; i++) {
        out->x[i] = (uint8_t)(t % d->alpha + 1);
        t /= d->alpha;
    }
}

void hcn_slave_rule(const hcn_dims *d, uint32_t u, uint32_t i, uint32_t *u2, uint32_t *i2)
{
    if (d->rule == 4) {
        if (u > i) {
            *u2 = i;
            *i2 = u - 1;
        } else {
            *u2 = i + 1;
            *i2 = u;
        }
        return;
    }
    *u2 = (u - 1 + i) % (d->s + 1) + 1;
    *i2 = d->s + 1 - i;
}

bool hcn_slave_partner(const hcn_dims *d, const hcn_label *l, hcn_label *out)
{
    if (!d->rule || hcn_is_master(d, l))
        return false;
    uint32_t u2, i2;
    hcn_slave_rule(d, l->u, hcn_slave_id(d, l), &u2, &i2);
    hcn_slave_label(d, u2, hcn_rank(d, l), i2, out);
    return true;
}

void hcn_inter_link(const hcn_dims *d, uint32_t us, uint32_t ud, uint32_t v, hcn_label *dst1, hcn_label *src1)
{
    uint32_t i, i2;
    if (d->rule == 4) {
        if (us > ud) {
            i = ud;
            i2 = us - 1;
        } else {
            i = ud - 1;
            i2 = us;
        }
    } else {
        i = (ud + d->s + 1 - us) % (d->s + 1);
        i2 = d->s + 1 - i;
    }
    hcn_slave_label(d, us, v, i, dst1);
    hcn_slave_label(d, ud, v, i2, src1);
}

bool hcn_port2_partner(const hcn_dims *d, const hcn_label *l, hcn_label *out)
{
    if (hcn_is_master(d, l))
        return hcn_level_partner(d, l, out) > 0;
    return hcn_slave_partner(d, l, out);
}

int hcn_build(dcn_topo *t, const hcn_dims *d, char *err, size_t errlen)
{
    hcn_dims *priv = malloc(sizeof *priv);
    if (!priv) {
        snprintf(err, errlen, "%s: out of memory", t->family->name);
        return -1;
    }
    *priv = *d;
    t->priv = priv;
    uint32_t ns = d->per_copy * d->copies, nw = d->sw_per_copy * d->copies;
    if (dcn_topo_alloc_uniform(t, ns, 2, nw, (uint16_t)d->n, err, errlen) < 0)
        return -1;
    for (uint32_t v = 0; v < ns; v++) {
        hcn_label l, p;
        hcn_server_label(d, v, &l);
        uint32_t w = dcn_switch_node(t, v / d->n);
        if (dcn_topo_connect(t, v, 0, w, (uint16_t)(l.x[0] - 1), err, errlen) < 0)
            return -1;
        if (hcn_port2_partner(d, &l, &p)) {
            uint32_t q = hcn_server_id(d, &p);
            hcn_label back;
            if (!hcn_port2_partner(d, &p, &back) || hcn_server_id(d, &back) != v || q == v) {
                snprintf(err, errlen, "%s: wiring bug: server %u's partner %u does not point back", t->family->name,
                         v, q);
                return -1;
            }
            if (q > v && dcn_topo_connect(t, v, 1, q, 1, err, errlen) < 0)
                return -1;
        }
    }
    return 0;
}

void hcn_destroy(dcn_topo *t)
{
    free(t->priv);
    t->priv = NULL;
}

static size_t put_digits(char *buf, size_t len, const hcn_dims *d, const hcn_label *l, uint32_t lowest)
{
    size_t off = 0;
    for (uint32_t i = d->h + 1; i-- > lowest && off < len;) {
        const char *sep = (d->name_form == 1 && i != d->h) ? "_" : "";
        off += (size_t)snprintf(buf + off, len - off, "%s%u", sep, l->x[i]);
    }
    return off;
}

void hcn_node_name(const dcn_topo *t, uint32_t v, char *buf, size_t len)
{
    const hcn_dims *d = hcn_dims_of(t);
    int server = v < t->n_servers;
    uint32_t index = server ? v : v - t->n_servers;
    if (d->name_form == 2) {
        snprintf(buf, len, "%c%u", server ? 'h' : 's', index);
        return;
    }
    hcn_label l;
    if (server)
        hcn_server_label(d, index, &l);
    else
        hcn_switch_label(d, index, &l);
    size_t off = (size_t)snprintf(buf, len, "%c", server ? 'h' : 's');
    if (d->bcn_names)
        off += (size_t)snprintf(buf + off, len - off, "%u%s", l.u, (server || d->h) ? "_" : "");
    else if (!server && d->h == 0)
        off += (size_t)snprintf(buf + off, len - off, "0");
    if (off < len)
        put_digits(buf + off, len - off, d, &l, server ? 0 : 1);
}
