/* BCDC drawn as the crossed cube of its paper's Figs. 1 and 2 (Wang et
 * al., JCST 2018): the switches at the corners of squares, each server on
 * its edge.
 *
 * The address bits of a switch go in pairs (2i, 2i+1), as the crossed
 * cube's rule pairs them: bit 2i moves the switch 6^i ROW to the right,
 * bit 2i+1 6^i ROW down and, for i >= 1, 6^i ROW / 2^i to the right. So
 * every CQ_d is its two halves CQ_(d-1) side by side (d-1 even) or one
 * below the other, shifted right (d-1 odd), like a cube drawn in
 * perspective; the shifts differ from pair to pair, so that an edge whose
 * rule flips a lower odd bit does not run along the edges that flip none.
 * Bit 0 also moves the switch ROW/4 down, so that the edges of dimension
 * 2 pass beside the switches between their ends, not through them.
 * Server [s0, s1] sits one third of the way from s0 to s1: not the
 * middle, where the two crossed edges of a square would put two servers
 * on one point. Every point is distinct (3y/ROW, rounded down, gives the
 * odd bits in base 6, then the rest of y bit 0 and x the even bits: a
 * switch's digits are 0 and 3 only, a server's tell its s0 and dimension
 * apart), and the servers joining two halves lie between them. Two boxes:
 * the halves B_(n-1)^0 and B_(n-1)^1 of the paper's recursive
 * construction. */
#ifndef DCN_BCDC_FIGURE_H
#define DCN_BCDC_FIGURE_H

#include "layout.h"
#include "topo.h"

/* The bcdc family's layout hook. */
int bcdc_figure_layout(const dcn_topo *t, dcn_layout *lay);

#endif
