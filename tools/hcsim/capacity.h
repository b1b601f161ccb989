/* SPDX-License-Identifier: GPL-2.0 */
/* hcsim capacity: how much of a pool v1 (whole chunks) and v2 fill. */
#ifndef HCSIM_CAPACITY_H
#define HCSIM_CAPACITY_H

int sim_capacity_main(int argc, char **argv);

#endif
