/*
 * fuzz_plan.c - libFuzzer target for the plan reader (plan_load_string,
 * pd2bw-plan/1): reject with a message or accept; an accepted plan must
 * write, read back and write again to the same bytes.  Its
 * module_precision, where the list parses, formats to a canonical list
 * that parses to the same precisions.
 */
#include <string.h>

#include "fuzz.h"
#include "pd2bw/analytic.h"
#include "pd2bw/plan.h"

static void
site_prec_round_trip(const char *s)
{
	unsigned char a[ANALYTIC_SITES], b[ANALYTIC_SITES];
	char buf[512], err[200];

	if (analytic_site_prec_parse(s, a, err, sizeof(err)))
		return;
	analytic_site_prec_format(a, buf, sizeof(buf));
	if (analytic_site_prec_parse(buf, b, err, sizeof(err)) ||
	    memcmp(a, b, sizeof(a)))
		fz_fail("plan: module_precision does not round-trip");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plan p, q;
	char *buf;
	size_t len;

	if (plan_load_string(&p, "fuzz.yaml", (const char *)data, size) == 0) {
		if (p.module_precision)
			site_prec_round_trip(p.module_precision);
		if (plan_write(&p, fz_p1))
			fz_fail("plan: cannot write what was read");
		buf = fz_read(fz_p1, &len);
		if (plan_load_string(&q, "a.yaml", buf, len))
			fz_fail("plan: written plan does not read");
		free(buf);
		if (plan_write(&q, fz_p2))
			fz_fail("plan: cannot write the plan again");
		fz_same_files();
		plan_release(&q);
		plan_release(&p);
	}
	return 0;
}
