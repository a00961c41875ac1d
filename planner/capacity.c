/*
 * capacity.c - the capacity subcommand (being written).
 */
#include "capacity.h"
#include "pd2bw/error.h"

int
capacity_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pd2bw_error("capacity is not implemented yet");
	return 1;
}
