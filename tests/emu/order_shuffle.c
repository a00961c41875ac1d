/*
 * order_shuffle.c - linked into a second build of an emulation test: its
 * kernels' threads and blocks run in a shuffled order (cudart_emu.cc,
 * PD2BW_EMU_ORDER), so a result that depends on the order, a race the
 * device would not forgive, fails the test's checks.
 */
#include <stdlib.h>

static void shuffle_order(void) __attribute__((constructor));

static void
shuffle_order(void)
{
	setenv("PD2BW_EMU_ORDER", "shuffle", 0);
}
