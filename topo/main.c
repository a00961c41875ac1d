/*
 * main.c - pd2bw-topo: options, usage and exit status.  Maps this machine
 * or an hwloc XML export into node and cluster files, merges node files,
 * prints the connection matrix, writes built-in cluster presets.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/afile.h"
#include "pd2bw/cluster.h"
#include "pd2bw/cli.h"
#include "pd2bw/error.h"
#include "pd2bw/infile.h"
#include "discover.h"
#include "matrix.h"
#include "merge.h"
#include "nccl_xml.h"
#include "node.h"

enum {
	OPT_SYSFS = 256,
	OPT_NVML,
	OPT_NO_NVML,
	OPT_GPU_MEM,
	OPT_NAME,
	OPT_NET_GBIT,
	OPT_NET_LAT,
	OPT_INTRA_LAT,
	OPT_PER_LEAF,
	OPT_OVERSUB,
};

static const struct option options[] = {
	{"input", required_argument, NULL, 'i'},
	{"output", required_argument, NULL, 'o'},
	{"node", required_argument, NULL, 'n'},
	{"matrix", no_argument, NULL, 'm'},
	{"nccl-xml", required_argument, NULL, 'x'},
	{"sysfs", required_argument, NULL, OPT_SYSFS},
	{"nvml", required_argument, NULL, OPT_NVML},
	{"no-nvml", no_argument, NULL, OPT_NO_NVML},
	{"gpu", required_argument, NULL, 'g'},
	{"gpu-mem", required_argument, NULL, OPT_GPU_MEM},
	{"nodes", required_argument, NULL, 'N'},
	{"name", required_argument, NULL, OPT_NAME},
	{"net-gbit", required_argument, NULL, OPT_NET_GBIT},
	{"net-latency-us", required_argument, NULL, OPT_NET_LAT},
	{"intra-latency-us", required_argument, NULL, OPT_INTRA_LAT},
	{"nodes-per-leaf", required_argument, NULL, OPT_PER_LEAF},
	{"oversubscription", required_argument, NULL, OPT_OVERSUB},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

/* The subcommand being run (NULL: mapping), for --help and the hint. */
static const char *topo_cmd;

static void
usage(FILE *fp)
{
	if (topo_cmd && !strcmp(topo_cmd, "preset")) {
		fprintf(fp,
			"usage: %s preset NAME[:NODES] [-o FILE]\n"
			"\n"
			"Write a built-in cluster description (NODES nodes, "
			"default 1) as a\npd2bw-cluster/1 file, to edit or "
			"to plan on without measuring.\n"
			"Presets: p3.16xlarge, dgx-1-v100, dgx-a100, "
			"dgx-h100, dgx-h200, l40s-pcie.\n"
			"\n"
			"  -o, --output FILE         write the cluster file "
			"here (default: stdout)\n"
			"  -h, --help                print this help and exit\n"
			"\n"
			"Examples:\n"
			"  %s preset dgx-h100:4 -o cluster.yaml\n"
			"  pd2bw-plan gpt-2.2b -c cluster.yaml -B 512\n",
			pd2bw_progname, pd2bw_progname);
		return;
	}
	if (topo_cmd && !strcmp(topo_cmd, "merge")) {
		fprintf(fp,
			"usage: %s merge [options] NODEFILE...\n"
			"\n"
			"Combine the node files of the cluster's nodes "
			"(pd2bw-topo -n FILE on each)\ninto one cluster "
			"file; one NODEFILE with --nodes N stands for N "
			"copies.\n"
			"\n"
			"  -o, --output FILE         write the cluster file "
			"here (default: stdout)\n"
			"  -N, --nodes N             copies of the one "
			"NODEFILE\n"
			"      --name NAME           cluster name\n"
			"      --net-gbit RATE       network rate per GPU in "
			"Gbit/s (default: NICs)\n"
			"      --net-latency-us US   network latency\n"
			"      --intra-latency-us US GPU-GPU latency\n"
			"      --nodes-per-leaf N    nodes under one leaf "
			"switch (default 0: flat)\n"
			"      --oversubscription X  oversubscription above "
			"the leaf (default 1)\n"
			"  -h, --help                print this help and exit\n"
			"\n"
			"Examples:\n"
			"  %s -n node-$(hostname).yaml     on every node\n"
			"  %s merge node-*.yaml -o cluster.yaml\n"
			"  %s merge node-a.yaml -N 16 -o cluster.yaml\n",
			pd2bw_progname, pd2bw_progname, pd2bw_progname,
			pd2bw_progname);
		return;
	}
	fprintf(fp,
		"usage: %s [options]\n"
		"       %s merge [options] NODEFILE...   (see %s merge "
		"--help)\n"
		"       %s preset NAME[:NODES] [-o FILE] (see %s preset "
		"--help)\n"
		"\n"
		"Map this machine's GPUs, NVLinks, PCIe and NICs (or those of "
		"an hwloc\nXML export) into a cluster file for pd2bw-plan.\n"
		"\n"
		"  -i, --input FILE          hwloc 2.x XML or pd2bw-node/1 "
		"file, not this machine\n"
		"  -o, --output FILE         write the cluster file here "
		"(default: stdout)\n"
		"  -n, --node FILE           write the node file "
		"(pd2bw-node/1)\n"
		"  -m, --matrix              print the connection matrix "
		"(nvidia-smi topo -m)\n"
		"  -x, --nccl-xml FILE       write NCCL's topology XML "
		"(NCCL_TOPO_FILE)\n"
		"      --sysfs DIR           sysfs root (default /sys; none "
		"for XML input)\n"
		"      --nvml LIB            read NVLinks with this NVML "
		"library, also for XML\n"
		"      --no-nvml             never load NVML\n"
		"  -g, --gpu NAME            GPU type (catalog name) instead "
		"of the guess\n"
		"      --gpu-mem BYTES       GPU memory instead of the "
		"catalog's\n"
		"  -N, --nodes N             nodes in the cluster (copies of "
		"one node)\n"
		"      --name NAME           cluster name (default: host "
		"name)\n"
		"      --net-gbit RATE       network rate per GPU in Gbit/s "
		"(default: NICs)\n"
		"      --net-latency-us US   network latency (default 5 "
		"InfiniBand, 30 Ethernet)\n"
		"      --intra-latency-us US GPU-GPU latency (default 3 "
		"NVSwitch, 5 NVLink, 8 PCIe)\n"
		"      --nodes-per-leaf N    nodes under one leaf switch "
		"(default 0: flat)\n"
		"      --oversubscription X  oversubscription above the leaf "
		"(default 1)\n"
		"  -h, --help                print this help and exit\n"
		"  -V, --version             print the version and exit\n"
		"\n"
		"Examples:\n"
		"  %s -o cluster.yaml -N 4       this node, four of them\n"
		"  %s -i node.xml -o cluster.yaml   from 'lstopo --of xml "
		"node.xml' on a node\n"
		"  %s preset dgx-h100:4 -o cluster.yaml   no node at hand\n",
		pd2bw_progname, pd2bw_progname, pd2bw_progname,
		pd2bw_progname, pd2bw_progname, pd2bw_progname,
		pd2bw_progname, pd2bw_progname);
}

struct args {
	struct topo_discover_opts disc;
	struct topo_net net;
	const char *input, *output, *node, *nccl;
	int matrix, nodes;
};

static void
parse(int argc, char **argv, struct args *a)
{
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:o:n:mx:g:N:hV", options,
				NULL)) != -1) {
		switch (c) {
		case 'i':
			a->input = optarg;
			break;
		case 'o':
			a->output = optarg;
			break;
		case 'n':
			a->node = optarg;
			break;
		case 'm':
			a->matrix = 1;
			break;
		case 'x':
			a->nccl = optarg;
			break;
		case OPT_SYSFS:
			a->disc.sysfs = optarg;
			break;
		case OPT_NVML:
			a->disc.nvml = optarg;
			a->disc.nvml_use = TOPO_NVML_ALWAYS;
			break;
		case OPT_NO_NVML:
			a->disc.nvml_use = TOPO_NVML_NEVER;
			break;
		case 'g':
			a->disc.gpu = a->net.gpu = optarg;
			break;
		case OPT_GPU_MEM:
			a->net.gpu_mem_bytes = (int64_t)cli_double(
				"--gpu-mem", optarg, 1, 1e15);
			break;
		case 'N':
			a->nodes = (int)cli_long("--nodes", optarg, 1,
						   1000000);
			break;
		case OPT_NAME:
			a->net.name = optarg;
			break;
		case OPT_NET_GBIT:
			a->net.net_gbit_s = cli_double("--net-gbit", optarg,
							 1e-3, 1e7);
			break;
		case OPT_NET_LAT:
			a->net.net_latency_us = cli_double(
				"--net-latency-us", optarg, 0, 1e7);
			break;
		case OPT_INTRA_LAT:
			a->net.intra_latency_us = cli_double(
				"--intra-latency-us", optarg, 0, 1e7);
			break;
		case OPT_PER_LEAF:
			a->net.nodes_per_leaf = (int)cli_long(
				"--nodes-per-leaf", optarg, 0, 1000000);
			break;
		case OPT_OVERSUB:
			a->net.oversubscription = cli_double(
				"--oversubscription", optarg, 1, 1000);
			break;
		case 'h':
			usage(stdout);
			exit(afile_close_stdout() ? 1 : 0);
		case 'V':
			printf("%s %s\n", pd2bw_progname, PD2BW_VERSION);
			exit(afile_close_stdout() ? 1 : 0);
		default:
			cli_option_error(c == ':' ? ':' : '?', argv);
		}
	}
}

/* An hwloc XML file starts with '<' (after a UTF-8 byte-order mark);
 * anything else is taken for a node file: 1, 0, or -1 after a message
 * when path cannot be read.  The bytes are kept (infile_keep), so the
 * reader that follows parses these very ones. */
static int
is_xml(const char *path)
{
	size_t len, i = 0;
	const char *buf = infile_read(path, &len);
	int ret;

	if (!buf)
		return -1;
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' ||
			   buf[i] == '\r'))
		i++;
	/* UTF-16 and UTF-32 go to the XML reader, which names them */
	ret = i == len || buf[i] == '<' || (len >= 2 && (!buf[0] || !buf[1])) ||
	      (unsigned char)buf[0] == 0xff || (unsigned char)buf[0] == 0xfe;
	infile_release(buf);
	return ret;
}

static int
write_cluster(const struct topo_node *n, const struct args *a)
{
	struct cluster c;
	int ret;

	if (topo_cluster_from_node(&c, n, a->nodes ? a->nodes : 1, &a->net))
		return -1;
	ret = cluster_write(&c, a->output ? a->output : "-");
	cluster_release(&c);
	return ret;
}

static int
cmd_map(const struct args *a)
{
	struct topo_node n;
	struct topo_discover_opts d = a->disc;
	int ret = 0, xml = a->input ? is_xml(a->input) : 1;

	if (xml < 0)
		return 1;
	if (!xml) {
		if (topo_node_load(&n, a->input))
			return 1;
	} else {
		d.xml = a->input;
		if (topo_discover(&n, &d))
			return 1;
	}
	/* All outputs are renamed into place together, or none is. */
	afile_batch_begin();
	if (a->node && topo_node_write(&n, a->node))
		ret = 1;
	if (!ret && a->nccl && topo_nccl_xml_write(&n, a->nccl))
		ret = 1;
	if (!ret && a->matrix && topo_matrix_print(&n, stdout))
		ret = pd2bw_error("write error on standard output") ? 1 : 1;
	if (!ret && (a->output || (!a->node && !a->matrix && !a->nccl)) &&
	    write_cluster(&n, a)) {
		ret = 1;
		/* Planning is often done away from the GPUs. */
		if (!n.ngpus) {
			char names[256];

			cluster_preset_list(names, sizeof(names));
			fprintf(stderr, "%s: describe the cluster from here "
				"instead: '%s preset NAME:NODES' (presets: "
				"%s), or an hwloc export of a target node: "
				"'lstopo --of xml node.xml' there, then '%s -i "
				"node.xml -N NODES'\n",
				pd2bw_progname, pd2bw_progname, names,
				pd2bw_progname);
		}
	}
	if (afile_batch_end(ret == 0))
		ret = 1;
	topo_node_release(&n);
	return ret;
}

static int
cmd_merge(const struct args *a, int nfiles, char **files)
{
	struct topo_node *nodes;
	const char **names;
	struct cluster c;
	int i, loaded = 0, ret = 1;

	if (nfiles < 1)
		cli_usage_error("%s", "missing NODEFILE");
	if (a->nodes && nfiles > 1)
		cli_usage_error("%s", "--nodes takes one NODEFILE (copies of it)");
	if (a->input || a->node || a->matrix || a->nccl)
		cli_usage_error("%s", "merge takes only cluster options");
	nodes = xcalloc((size_t)nfiles, sizeof(*nodes));
	names = xcalloc((size_t)nfiles, sizeof(*names));
	for (i = 0; i < nfiles; i++, loaded++) {
		if (topo_node_load(&nodes[i], files[i]))
			goto out;
		names[i] = nodes[i].host ? nodes[i].host : files[i];
	}
	if (nfiles == 1) {
		if (topo_cluster_from_node(&c, &nodes[0],
					   a->nodes ? a->nodes : 1, &a->net))
			goto out;
	} else if (topo_merge(&c, nodes, names, nfiles, &a->net)) {
		goto out;
	}
	ret = cluster_write(&c, a->output ? a->output : "-") ? 1 : 0;
	cluster_release(&c);
out:
	for (i = 0; i < loaded; i++)
		topo_node_release(&nodes[i]);
	free(nodes);
	free(names);
	return ret;
}

static int
cmd_preset(const struct args *a, int nargs, char **args)
{
	struct cluster c;
	int ret;

	if (nargs != 1)
		cli_usage_error("%s", nargs ? "give one preset NAME[:NODES]"
				      : "missing preset NAME[:NODES]");
	if (a->input || a->node || a->matrix || a->nccl || a->nodes)
		cli_usage_error("%s", "preset takes only -o FILE");
	cluster_init(&c);
	ret = cluster_preset(&c, args[0]);
	if (ret) {
		cluster_release(&c);
		if (ret == -2)
			fprintf(stderr, "Try '%s --help'.\n", pd2bw_progname);
		return ret == -2 ? 2 : 1;
	}
	ret = cluster_write(&c, a->output ? a->output : "-") ? 1 : 0;
	cluster_release(&c);
	return ret;
}

/* No output over an input (a node file merged) or over another output. */
static void
check_paths(const struct args *a, int nfiles, char **files)
{
	struct cli_path *p = xcalloc((size_t)nfiles + 5, sizeof(*p));
	int i, n = 0;

	p[n++] = (struct cli_path){"--input", a->input, 0};
	p[n++] = (struct cli_path){"--output", a->output, 1};
	p[n++] = (struct cli_path){"--node", a->node, 1};
	p[n++] = (struct cli_path){"--nccl-xml", a->nccl, 1};
	for (i = 0; i < nfiles; i++)
		p[n++] = (struct cli_path){"NODEFILE", files[i], 0};
	cli_distinct_paths(p, n);
	free(p);
}

int
main(int argc, char **argv)
{
	struct args a;
	const char *cmd = NULL;
	int ret;

	pd2bw_set_progname(argv[0]);
	/* this run's subcommand and hint alone (main may run again in one
	 * process: the command-line fuzz target) */
	topo_cmd = NULL;
	cli_help = NULL;
	afile_stdout_setup();
	infile_keep(1); /* each input read once: FIFOs and pipes work */
	memset(&a, 0, sizeof(a));
	topo_net_init(&a.net);
	if (argc > 1 && (!strcmp(argv[1], "merge") ||
			 !strcmp(argv[1], "preset"))) {
		static char hint[64];

		cmd = topo_cmd = argv[1];
		argv++;
		argc--;
		snprintf(hint, sizeof(hint), "%s %s --help", pd2bw_progname,
			 cmd);
		cli_help = hint;
	}
	parse(argc, argv, &a);
	check_paths(&a, cmd && !strcmp(cmd, "merge") ? argc - optind : 0,
		    argv + optind);
	/* every output of the run is renamed into place together */
	afile_batch_begin();
	if (!cmd) {
		if (optind < argc)
			cli_usage_error("unexpected argument '%s'", argv[optind]);
		ret = cmd_map(&a);
	} else if (!strcmp(cmd, "merge")) {
		ret = cmd_merge(&a, argc - optind, argv + optind);
	} else {
		ret = cmd_preset(&a, argc - optind, argv + optind);
	}
	if (afile_batch_end(ret == 0) && ret == 0)
		ret = 1;
	if (afile_close_stdout())
		ret = 1;
	return ret;
}
