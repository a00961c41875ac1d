/*
 * fuzz_topo_xml.c - libFuzzer target for pd2bw-topo --input's hwloc XML
 * path: the bytes become a file that topo_discover() reads as an hwloc 2.x
 * export (no sysfs, no NVML), as the program does.  Reject with a message
 * or accept; an accepted node must write, read back and write again to the
 * same bytes, and its matrix, NCCL XML and cluster file must be written
 * without error.
 */
#include "fuzz.h"
#include "pd2bw/cluster.h"
#include "../../topo/discover.h"
#include "../../topo/matrix.h"
#include "../../topo/merge.h"
#include "../../topo/nccl_xml.h"
#include "../../topo/node.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char xml[160], nccl[160];
	struct topo_discover_opts o;
	struct topo_node n, m;
	struct topo_net net;
	struct cluster c;
	FILE *fp;
	char *buf;
	size_t len;

	snprintf(xml, sizeof(xml), "%s/in.xml", fz_dir);
	snprintf(nccl, sizeof(nccl), "%s/nccl.xml", fz_dir);
	fp = fopen(xml, "wb");
	if (!fp || fwrite(data, 1, size, fp) != size || fclose(fp))
		fz_fail("topo_xml: cannot write the input file");
	memset(&o, 0, sizeof(o));
	o.xml = xml;
	o.nvml_use = TOPO_NVML_NEVER;
	topo_node_init(&m);
	if (topo_discover(&n, &o) == 0) {
		if (topo_node_write(&n, fz_p1))
			fz_fail("topo_xml: cannot write the node");
		buf = fz_read(fz_p1, &len);
		if (topo_node_load_string(&m, "a.yaml", buf, len))
			fz_fail("topo_xml: written node does not read");
		free(buf);
		if (topo_node_write(&m, fz_p2))
			fz_fail("topo_xml: cannot write the node again");
		fz_same_files();
		fp = tmpfile();
		if (!fp || topo_matrix_print(&n, fp))
			fz_fail("topo_xml: cannot print the matrix");
		fclose(fp);
		if (topo_nccl_xml_write(&n, nccl))
			fz_fail("topo_xml: cannot write NCCL's XML");
		topo_net_init(&net);
		net.net_gbit_s = 100; /* no NIC rate from XML alone */
		if (topo_cluster_from_node(&c, &n, 2, &net) == 0) {
			if (cluster_write(&c, fz_p1))
				fz_fail("topo_xml: cannot write the cluster");
			cluster_release(&c);
		}
		unlink(nccl);
	}
	topo_node_release(&n);
	topo_node_release(&m);
	unlink(xml);
	return 0;
}
