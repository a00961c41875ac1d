/*
 * fuzz_cluster.c - libFuzzer target for the cluster reader
 * (cluster_load_string, pd2bw-cluster/1): reject with a message or accept;
 * an accepted cluster must write, read back and write again to the same
 * bytes.
 */
#include "fuzz.h"
#include "pd2bw/cluster.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cluster c, d;
	char *buf;
	size_t len;

	cluster_init(&c);
	cluster_init(&d);
	if (cluster_load_string(&c, "fuzz.yaml", (const char *)data, size) ==
	    0) {
		if (cluster_write(&c, fz_p1))
			fz_fail("cluster: cannot write what was read");
		buf = fz_read(fz_p1, &len);
		if (cluster_load_string(&d, "a.yaml", buf, len))
			fz_fail("cluster: written cluster does not read");
		free(buf);
		if (cluster_write(&d, fz_p2))
			fz_fail("cluster: cannot write the cluster again");
		fz_same_files();
	}
	cluster_release(&c);
	cluster_release(&d);
	return 0;
}
