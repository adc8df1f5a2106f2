/* key=value parameters of a topology family, checked against the family's
 * table of allowed names and ranges. */
#ifndef DCN_PARAMS_H
#define DCN_PARAMS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define DCN_MAX_PARAMS 8
#define DCN_MAX_DIMS 4

typedef enum { DCN_PARAM_INT, DCN_PARAM_DIMS } dcn_param_type;

typedef struct dcn_param_spec {
    const char *name;
    dcn_param_type type; /* DIMS: one size or several joined by 'x', e.g. m=3x3 */
    long min, max;       /* allowed range of the value (of every dimension for DIMS) */
    long def;            /* default when absent; DCN_PARAM_REQUIRED if it must be given */
    const char *help;
} dcn_param_spec;

#define DCN_PARAM_REQUIRED LONG_MIN

typedef struct dcn_params {
    int count;
    const char *names[DCN_MAX_PARAMS];
    long value[DCN_MAX_PARAMS];               /* INT value; for DIMS the number of dimensions */
    long dims[DCN_MAX_PARAMS][DCN_MAX_DIMS];  /* DIMS sizes, dims[i][0] is dimension 0 */
    int given[DCN_MAX_PARAMS];                /* 1 when the user set it */
} dcn_params;

/* Parses argv ("key=value" words) against spec. Unknown keys, duplicates,
 * malformed numbers and out-of-range values fail with a message such as
 * "bcube: n=1 is out of range (allowed 2..64)". */
int dcn_params_parse(dcn_params *p, const char *family, const dcn_param_spec *spec, int nspec, int argc,
                     char **argv, char *err, size_t errlen);
long dcn_param(const dcn_params *p, const char *name);
/* For DIMS parameters: number of dimensions and the sizes. */
int dcn_param_dims(const dcn_params *p, const char *name, long *dims_out);

#endif
