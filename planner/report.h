/*
 * report.h - the human-readable summary of a plan on the terminal.
 */
#ifndef PD2BW_REPORT_H
#define PD2BW_REPORT_H

#include <stdio.h>

#include "pd2bw/plan.h"

/* Print the choice, its breakdown, stages and alternatives to fp. */
void report_plan(FILE *fp, const struct plan *p);

#endif
