/* Command-line values of dcn-relay: sizes, ports, timeouts, endpoints. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relay.h"

int relay_parse_size(const char *s, uint64_t *out, char *err, size_t errlen)
{
    if (!s || !*s || *s < '0' || *s > '9') {
        snprintf(err, errlen, "size '%s' is not a number of bytes (e.g. 1048576, 64M, 10G)", s ? s : "");
        return -1;
    }
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    else if (*end == 'T' || *end == 't')
        shift = 40;
    if (shift)
        end++;
    if (*end) {
        snprintf(err, errlen, "size '%s' has a bad suffix (allowed: none, K, M, G, T; binary)", s);
        return -1;
    }
    if (errno == ERANGE || v > (UINT64_MAX >> 1) >> shift) {
        snprintf(err, errlen, "size '%s' is too large", s);
        return -1;
    }
    if (v == 0) {
        snprintf(err, errlen, "size '%s' must be at least 1 byte", s);
        return -1;
    }
    *out = (uint64_t)v << shift;
    return 0;
}

int relay_parse_port(const char *s, char *out, char *err, size_t errlen)
{
    char *end = NULL;
    long v = (s && *s >= '0' && *s <= '9') ? strtol(s, &end, 10) : -1;
    if (v < 1 || v > 65535 || *end || strlen(s) > 5) {
        snprintf(err, errlen, "port '%s' is not in 1..65535", s ? s : "");
        return -1;
    }
    snprintf(out, 6, "%ld", v);
    return 0;
}

int relay_parse_timeout(const char *s, double *out, char *err, size_t errlen)
{
    char *end = NULL;
    double v = (s && *s) ? strtod(s, &end) : -1;
    if (!s || !*s || *end || !(v >= 0 && v <= 86400)) {
        snprintf(err, errlen, "timeout '%s' is not a number of seconds in 0..86400 (0: none)", s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

int relay_parse_endpoint(const char *s, int with_bytes, relay_endpoint *ep, char *err, size_t errlen)
{
    const char *form = with_bytes ? "HOST:PORT:BYTES" : "HOST:PORT";
    const char *host = s, *rest;
    size_t hostlen;
    if (*s == '[') { /* [v6 address] */
        const char *close = strchr(s, ']');
        if (!close || close[1] != ':') {
            snprintf(err, errlen, "'%s' is not %s (IPv6 addresses in brackets)", s, form);
            return -1;
        }
        host = s + 1;
        hostlen = (size_t)(close - host);
        rest = close + 2;
    } else {
        const char *colon = strchr(s, ':');
        if (!colon) {
            snprintf(err, errlen, "'%s' is not %s", s, form);
            return -1;
        }
        hostlen = (size_t)(colon - s);
        rest = colon + 1;
    }
    if (hostlen == 0 || hostlen >= RELAY_HOST_MAX) {
        snprintf(err, errlen, "'%s' is not %s: bad HOST", s, form);
        return -1;
    }
    memcpy(ep->host, host, hostlen);
    ep->host[hostlen] = '\0';
    char port[16];
    const char *colon = strchr(rest, ':');
    size_t portlen = colon ? (size_t)(colon - rest) : strlen(rest);
    if ((colon != NULL) != (with_bytes != 0) || portlen >= sizeof port) {
        snprintf(err, errlen, "'%s' is not %s", s, form);
        return -1;
    }
    memcpy(port, rest, portlen);
    port[portlen] = '\0';
    if (relay_parse_port(port, ep->port, err, errlen) < 0)
        return -1;
    ep->bytes = 0;
    if (with_bytes && relay_parse_size(colon + 1, &ep->bytes, err, errlen) < 0)
        return -1;
    snprintf(ep->label, sizeof ep->label, strchr(ep->host, ':') ? "[%s]:%s" : "%s:%s", ep->host, ep->port);
    return 0;
}
