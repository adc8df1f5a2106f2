#include "params.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_long(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end)
        return -1;
    *out = v;
    return 0;
}

static const char *type_hint(const dcn_param_spec *s)
{
    return s->type == DCN_PARAM_DIMS ? " (one size, or several joined by 'x')" : "";
}

static int parse_value(dcn_params *p, int i, const char *family, const dcn_param_spec *s, const char *val,
                       char *err, size_t errlen)
{
    if (s->type == DCN_PARAM_INT) {
        long v;
        if (parse_long(val, &v) < 0) {
            snprintf(err, errlen, "%s: %s=%s is not an integer (allowed %ld..%ld)", family, s->name, val, s->min,
                     s->max);
            return -1;
        }
        if (v < s->min || v > s->max) {
            snprintf(err, errlen, "%s: %s=%s is out of range (allowed %ld..%ld)", family, s->name, val, s->min,
                     s->max);
            return -1;
        }
        p->value[i] = v;
        return 0;
    }
    char buf[128];
    if (strlen(val) >= sizeof buf || !*val) {
        snprintf(err, errlen, "%s: %s=%s is malformed%s", family, s->name, val, type_hint(s));
        return -1;
    }
    strcpy(buf, val);
    int nd = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, "x", &save); tok; tok = strtok_r(NULL, "x", &save)) {
        long v;
        if (nd == DCN_MAX_DIMS) {
            snprintf(err, errlen, "%s: %s=%s has more than %d dimensions", family, s->name, val, DCN_MAX_DIMS);
            return -1;
        }
        if (parse_long(tok, &v) < 0 || v < s->min || v > s->max) {
            snprintf(err, errlen, "%s: %s=%s: each size must be an integer in %ld..%ld%s", family, s->name, val,
                     s->min, s->max, type_hint(s));
            return -1;
        }
        p->dims[i][nd++] = v;
    }
    if (nd == 0 || val[strlen(val) - 1] == 'x' || val[0] == 'x' || strstr(val, "xx")) {
        snprintf(err, errlen, "%s: %s=%s is malformed%s", family, s->name, val, type_hint(s));
        return -1;
    }
    p->value[i] = nd;
    return 0;
}

int dcn_params_parse(dcn_params *p, const char *family, const dcn_param_spec *spec, int nspec, int argc,
                     char **argv, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (nspec > DCN_MAX_PARAMS) {
        snprintf(err, errlen, "%s: too many parameters in the family table", family);
        return -1;
    }
    p->count = nspec;
    for (int i = 0; i < nspec; i++) {
        p->names[i] = spec[i].name;
        p->value[i] = spec[i].def;
        if (spec[i].type == DCN_PARAM_DIMS && spec[i].def != DCN_PARAM_REQUIRED) {
            p->value[i] = 1;
            p->dims[i][0] = spec[i].def;
        }
    }
    for (int a = 0; a < argc; a++) {
        const char *eq = strchr(argv[a], '=');
        if (!eq || eq == argv[a]) {
            snprintf(err, errlen, "%s: '%s' is not of the form key=value", family, argv[a]);
            return -1;
        }
        size_t klen = (size_t)(eq - argv[a]);
        int found = -1;
        for (int i = 0; i < nspec; i++)
            if (strlen(spec[i].name) == klen && strncmp(spec[i].name, argv[a], klen) == 0)
                found = i;
        if (found < 0) {
            int off = snprintf(err, errlen, "%s: unknown parameter '%.*s' (parameters:", family, (int)klen, argv[a]);
            for (int i = 0; i < nspec && off > 0 && (size_t)off < errlen; i++)
                off += snprintf(err + off, errlen - (size_t)off, " %s", spec[i].name);
            if (off > 0 && (size_t)off < errlen)
                snprintf(err + off, errlen - (size_t)off, ")");
            return -1;
        }
        if (p->given[found]) {
            snprintf(err, errlen, "%s: parameter %s is given twice", family, spec[found].name);
            return -1;
        }
        if (parse_value(p, found, family, &spec[found], eq + 1, err, errlen) < 0)
            return -1;
        p->given[found] = 1;
    }
    for (int i = 0; i < nspec; i++)
        if (!p->given[i] && spec[i].def == DCN_PARAM_REQUIRED) {
            snprintf(err, errlen, "%s: missing parameter %s=<%ld..%ld>%s", family, spec[i].name, spec[i].min,
                     spec[i].max, type_hint(&spec[i]));
            return -1;
        }
    return 0;
}

static int find(const dcn_params *p, const char *name)
{
    for (int i = 0; i < p->count; i++)
        if (strcmp(p->names[i], name) == 0)
            return i;
    return -1;
}

long dcn_param(const dcn_params *p, const char *name)
{
    int i = find(p, name);
    return i < 0 ? 0 : p->value[i];
}

int dcn_param_dims(const dcn_params *p, const char *name, long *dims_out)
{
    int i = find(p, name);
    if (i < 0)
        return 0;
    for (long d = 0; d < p->value[i]; d++)
        dims_out[d] = p->dims[i][d];
    return (int)p->value[i];
}
