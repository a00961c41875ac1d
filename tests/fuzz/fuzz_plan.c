/*
 * fuzz_plan.c - libFuzzer target for the plan reader (plan_load_string,
 * pd2bw-plan/1): reject with a message or accept; an accepted plan must
 * write, read back and write again to the same bytes.
 */
#include "fuzz.h"
#include "pd2bw/plan.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plan p, q;
	char *buf;
	size_t len;

	if (plan_load_string(&p, "fuzz.yaml", (const char *)data, size) == 0) {
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
