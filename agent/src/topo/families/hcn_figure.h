/* HCN and BCN drawn as rings, the way the TC 2013 paper draws compound
 * graphs (DCell_1 in its Fig. 2; its HCN and BCN figures are lost):
 *   - HCN(n,1) (level 1): its n modules (a switch and its servers) around
 *     a circle, the servers evenly spaced on the circle in id order, each
 *     switch outside the circle facing its own servers, so the level-1
 *     cables are the circle's chords;
 *   - level i >= 2: the n level-(i-1) units on a circle, x_i = 1 at the top
 *     left, then clockwise;
 *   - BCN: the same with the masters; each module's slaves on a further
 *     circle outside its switch, and the copies u = 1..U of the second
 *     dimension around one more circle, so the slave cables run outward
 *     from one copy to another;
 *   - h = 0: one module, its switch above its servers in a row (BCN: the
 *     copies of that module around a circle).
 * One box per level-1 unit, named "HCN(4,1) 3" (the label prefix x_h..x_2)
 * or "BCN(4,4,1) u=2" (with the copy); per module when h = 0. */
#ifndef DCN_HCN_FIGURE_H
#define DCN_HCN_FIGURE_H

#include "layout.h"
#include "topo.h"

/* The hcn and bcn families' layout hook. */
int hcn_figure_layout(const dcn_topo *t, dcn_layout *lay);

#endif
