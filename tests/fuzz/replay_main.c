/* main() for the harnesses in builds without libFuzzer: runs every file
 * named on the command line (or found in a directory named there) through
 * LLVMFuzzerTestOneInput once. A crash, sanitizer report or abort fails
 * the ctest test; an unreadable argument is an error (exit 1). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

#define REPLAY_MAX (1u << 20)

static int run_file(const char *path, unsigned *count)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        return -1;
    }
    uint8_t *buf = malloc(REPLAY_MAX);
    if (!buf) {
        fclose(f);
        return -1;
    }
    size_t n = fread(buf, 1, REPLAY_MAX, f);
    fclose(f);
    /* a copy of exactly n bytes, so ASan sees reads past the input */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    (*count)++;
    return 0;
}

static int run_path(const char *path, unsigned *count)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        fprintf(stderr, "replay: %s does not exist\n", path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return run_file(path, count);
    struct dirent **names;
    int n = scandir(path, &names, NULL, alphasort);
    if (n < 0)
        return -1;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (names[i]->d_name[0] != '.' && rc == 0) {
            char full[4096];
            snprintf(full, sizeof full, "%s/%s", path, names[i]->d_name);
            rc = run_path(full, count);
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    unsigned count = 0;
    for (int i = 1; i < argc; i++)
        if (run_path(argv[i], &count) < 0)
            return 1;
    printf("replayed %u inputs\n", count);
    return 0;
}
