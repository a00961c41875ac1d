/* main.c - pd2bw-plan: placeholder entry point (being written). */
#include <stdio.h>

#include "pd2bw/error.h"

int
main(int argc, char **argv)
{
	(void)argc;
	pd2bw_set_progname(argv[0]);
	return pd2bw_error("not implemented yet") ? 1 : 0;
}
