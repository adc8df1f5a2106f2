#include "crossed_cube.h"

#include <stdlib.h>
#include <string.h>

int cq_dist_init(cq_dist *cd, unsigned n)
{
    memset(cd, 0, sizeof *cd);
    if (n < 1 || n > CQ_MAX_DIM)
        return -1;
    cd->n = n;
    uint32_t *queue = malloc(((size_t)1 << n) * sizeof *queue);
    if (!queue)
        return -1;
    for (unsigned d = 1; d <= n; d++) {
        uint32_t size = 1u << d;
        uint8_t *tab = malloc((size_t)size * size);
        if (!tab) {
            free(queue);
            cq_dist_free(cd);
            return -1;
        }
        cd->table[d] = tab;
        memset(tab, 0xff, (size_t)size * size);
        for (uint32_t src = 0; src < size; src++) {
            uint8_t *row = tab + (size_t)src * size;
            uint32_t head = 0, tail = 0;
            row[src] = 0;
            queue[tail++] = src;
            while (head < tail) {
                uint32_t x = queue[head++];
                for (unsigned k = 0; k < d; k++) {
                    uint32_t y = cq_nbr(x, k);
                    if (row[y] == 0xff) {
                        row[y] = (uint8_t)(row[x] + 1);
                        queue[tail++] = y;
                    }
                }
            }
        }
    }
    free(queue);
    return 0;
}

void cq_dist_free(cq_dist *cd)
{
    for (unsigned d = 0; d <= CQ_MAX_DIM; d++) {
        free(cd->table[d]);
        cd->table[d] = NULL;
    }
}

unsigned cq_shortest_path(const cq_dist *cd, unsigned d, uint32_t x, uint32_t y, uint32_t *out, unsigned max)
{
    unsigned len = 0;
    if (max == 0)
        return 0;
    out[len++] = x;
    unsigned left = cq_distance(cd, d, x, y);
    while (left > 0 && len < max) {
        unsigned k;
        for (k = 0; k < d; k++)
            if (cq_distance(cd, d, cq_nbr(x, k), y) + 1 == left)
                break;
        x = cq_nbr(x, k); /* some k exists: BFS distances */
        out[len++] = x;
        left--;
    }
    return len;
}
