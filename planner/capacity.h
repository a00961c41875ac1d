/*
 * capacity.h - "pd2bw-plan capacity": how many GPUs, of which type, to
 * train a model on a number of tokens, by planning every cluster size.
 *
 * capacity.c parses the options and plans each GPU type with libpd2bw's
 * capacity planning (pd2bw/capacity.h: capacity_plan_type, then
 * capacity_summarise); capacity_out.c writes the table, CSV and YAML,
 * capacity_svg.c the plot.
 */
#ifndef PD2BW_PLANNER_CAPACITY_H
#define PD2BW_PLANNER_CAPACITY_H

#include <stdio.h>

#include "pd2bw/capacity.h"

/* Entry point of the capacity subcommand (argv[0] is "capacity"). Returns
 * the exit status. */
int capacity_main(int argc, char **argv);

/* Outputs (capacity_out.c): the table on fp; CSV and YAML to a path
 * written atomically ("-" = stdout).  0 or -1. */
void capacity_write_table(FILE *fp, const struct capacity *c);
int capacity_write_csv(const struct capacity *c, const char *path);
int capacity_write_yaml(const struct capacity *c, const char *path);

/* The plot (capacity_svg.c): time to train and cost against GPUs, one
 * line per type, as SVG 1.1 written atomically.  0 or -1. */
int capacity_write_svg(const struct capacity *c, const char *path);

#endif
