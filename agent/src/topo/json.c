#include "json.h"

#include <math.h>
#include <string.h>

void dcn_json_init(dcn_json *j, FILE *out, int pretty)
{
    j->out = out;
    j->depth = 0;
    j->count[0] = 0;
    j->pretty = pretty;
}

static void put_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(out, "\\u%04x", *c);
        else
            fputc(*c, out);
    }
    fputc('"', out);
}

static void member(dcn_json *j, const char *key)
{
    if (j->count[j->depth]++)
        fputc(',', j->out);
    if (j->pretty && j->depth > 0 && j->depth <= j->pretty) {
        fputc('\n', j->out);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->out);
    } else if (j->count[j->depth] > 1 && j->pretty) {
        fputc(' ', j->out);
    }
    if (key) {
        put_string(j->out, key);
        fputs(j->pretty ? ": " : ":", j->out);
    }
}

static void open_(dcn_json *j, const char *key, char c)
{
    member(j, key);
    fputc(c, j->out);
    if (j->depth + 1 < DCN_JSON_DEPTH)
        j->depth++;
    j->count[j->depth] = 0;
}

static void close_(dcn_json *j, char c)
{
    int had = j->count[j->depth];
    if (j->depth > 0)
        j->depth--;
    if (had && j->pretty && j->depth + 1 <= j->pretty) {
        fputc('\n', j->out);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->out);
    }
    fputc(c, j->out);
}

void dcn_json_obj_begin(dcn_json *j, const char *key) { open_(j, key, '{'); }
void dcn_json_obj_end(dcn_json *j) { close_(j, '}'); }
void dcn_json_arr_begin(dcn_json *j, const char *key) { open_(j, key, '['); }
void dcn_json_arr_end(dcn_json *j) { close_(j, ']'); }

void dcn_json_str(dcn_json *j, const char *key, const char *value)
{
    member(j, key);
    put_string(j->out, value);
}

void dcn_json_int(dcn_json *j, const char *key, long long value)
{
    member(j, key);
    fprintf(j->out, "%lld", value);
}

void dcn_json_num(dcn_json *j, const char *key, double value)
{
    member(j, key);
    if (isfinite(value))
        fprintf(j->out, "%.6g", value);
    else
        fputs("null", j->out);
}

void dcn_json_fixed(dcn_json *j, const char *key, double value, int decimals)
{
    member(j, key);
    if (!isfinite(value)) {
        fputs("null", j->out);
        return;
    }
    char buf[80];
    int places = decimals < 0 ? 0 : decimals > 9 ? 9 : decimals;
    int len = snprintf(buf, sizeof buf, "%.*f", places, value);
    if (len <= 0 || (size_t)len >= sizeof buf) { /* beyond 10^60 */
        fprintf(j->out, "%.17g", value);
        return;
    }
    if (strchr(buf, '.')) {
        while (buf[len - 1] == '0')
            buf[--len] = '\0';
        if (buf[len - 1] == '.')
            buf[--len] = '\0';
    }
    fputs(strcmp(buf, "-0") == 0 ? "0" : buf, j->out);
}

void dcn_json_null(dcn_json *j, const char *key)
{
    member(j, key);
    fputs("null", j->out);
}

void dcn_json_end(dcn_json *j) { fputc('\n', j->out); }
