/*
 * fuzz_profile.c - libFuzzer target for the profile reader
 * (profile_load_string: pd2bw-profile/1 YAML, and graph.txt by content):
 * reject with a message or accept; what is accepted must write, read back
 * and write again to the same bytes.
 */
#include "fuzz.h"
#include "pd2bw/profile.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile p, q;
	char *buf;
	size_t len;

	profile_init(&p);
	profile_init(&q);
	if (profile_load_string(&p, "fuzz.yaml", (const char *)data, size) ==
	    0) {
		if (profile_write(&p, fz_p1))
			fz_fail("profile: cannot write what was read");
		buf = fz_read(fz_p1, &len);
		if (profile_load_string(&q, "a.yaml", buf, len))
			fz_fail("profile: written profile does not read");
		free(buf);
		if (profile_write(&q, fz_p2))
			fz_fail("profile: cannot write the profile again");
		fz_same_files();
	}
	profile_release(&p);
	profile_release(&q);
	return 0;
}
