/*
 * fuzz_node.c - libFuzzer target for pd2bw-topo's node-file reader
 * (topo_node_load_string, pd2bw-node/1): reject with a message or accept;
 * an accepted node must write, read back and write again to the same
 * bytes.
 */
#include "fuzz.h"
#include "../../topo/node.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct topo_node n, m;
	char *buf;
	size_t len;

	topo_node_init(&n);
	topo_node_init(&m);
	if (topo_node_load_string(&n, "fuzz.yaml", (const char *)data, size) ==
	    0) {
		if (topo_node_write(&n, fz_p1))
			fz_fail("node: cannot write what was read");
		buf = fz_read(fz_p1, &len);
		if (topo_node_load_string(&m, "a.yaml", buf, len))
			fz_fail("node: written node does not read");
		free(buf);
		if (topo_node_write(&m, fz_p2))
			fz_fail("node: cannot write the node again");
		fz_same_files();
	}
	topo_node_release(&n);
	topo_node_release(&m);
	return 0;
}
