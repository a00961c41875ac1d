/*
 * fuzz_catalog.c - libFuzzer target for the GPU file reader
 * (catalog_load_string, pd2bw-gpus/1, on top of the built-in catalog):
 * reject with a message or accept; the resulting catalog must write, read
 * back into a fresh built-in catalog and write again to the same bytes.
 */
#include "fuzz.h"
#include "pd2bw/catalog.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gpu_catalog c, d;
	char *buf;
	size_t len;

	catalog_init(&c);
	catalog_init(&d);
	if (catalog_load_string(&c, "fuzz.yaml", (const char *)data, size) ==
	    0) {
		if (catalog_write(&c, fz_p1))
			fz_fail("catalog: cannot write what was read");
		buf = fz_read(fz_p1, &len);
		if (catalog_load_string(&d, "a.yaml", buf, len))
			fz_fail("catalog: written catalog does not read");
		free(buf);
		if (catalog_write(&d, fz_p2))
			fz_fail("catalog: cannot write the catalog again");
		fz_same_files();
	}
	catalog_release(&c);
	catalog_release(&d);
	return 0;
}
