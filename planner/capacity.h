/*
 * capacity.h - "pd2bw-plan capacity": how many GPUs, of which type, to
 * train a model on a number of tokens, by planning every cluster size.
 */
#ifndef PD2BW_CAPACITY_H
#define PD2BW_CAPACITY_H

/* Entry point of the capacity subcommand (argv[0] is "capacity"). Returns
 * the exit status. */
int capacity_main(int argc, char **argv);

#endif
