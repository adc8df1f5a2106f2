/* MDCube drawn as its paper describes it (MDCube, CoNEXT 2009; its
 * figures of the 2-D and the 1-D testbed are lost): each container drawn
 * inside like the BCube figure (bcube_figure.h) in a box named
 * "container <c>", the fibers running from switch to switch between the
 * boxes.
 *   - 1-D (m >= 3), the paper's "virtual complete graph" of containers:
 *     the containers on a circle, container 0 at the top left, then
 *     clockwise, so that every fiber is a chord and none runs through a
 *     third container, as it would in a row;
 *   - otherwise a grid by the containers' coordinates: dimension 0 left to
 *     right, dimension 1 top to bottom (the "rows and columns of
 *     containers" of a 2-D MDCube), dimensions 2 and 3 repeating that grid
 *     side by side and one below the other (column c_0 + m_0*c_2, row
 *     c_1 + m_1*c_3); two containers are one row. */
#ifndef DCN_MDCUBE_FIGURE_H
#define DCN_MDCUBE_FIGURE_H

#include "layout.h"
#include "topo.h"

/* The mdcube family's layout hook. */
int mdcube_figure_layout(const dcn_topo *t, dcn_layout *lay);

#endif
