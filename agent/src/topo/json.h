/* A minimal streaming JSON writer: objects, arrays, strings, numbers. */
#ifndef DCN_JSON_H
#define DCN_JSON_H

#include <stdint.h>
#include <stdio.h>

#define DCN_JSON_DEPTH 16

typedef struct dcn_json {
    FILE *out;
    int depth;
    int count[DCN_JSON_DEPTH]; /* members written at each level */
    int pretty;
} dcn_json;

void dcn_json_init(dcn_json *j, FILE *out, int pretty);
void dcn_json_obj_begin(dcn_json *j, const char *key); /* key NULL inside arrays / at top */
void dcn_json_obj_end(dcn_json *j);
void dcn_json_arr_begin(dcn_json *j, const char *key);
void dcn_json_arr_end(dcn_json *j);
void dcn_json_str(dcn_json *j, const char *key, const char *value);
void dcn_json_int(dcn_json *j, const char *key, long long value);
void dcn_json_num(dcn_json *j, const char *key, double value);
/* value rounded to `decimals` places (0..9), trailing zeros dropped: 25, 12.5, 3.25 */
void dcn_json_fixed(dcn_json *j, const char *key, double value, int decimals);
void dcn_json_null(dcn_json *j, const char *key);
void dcn_json_end(dcn_json *j); /* final newline */

#endif
