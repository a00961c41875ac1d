/*
 * emit_launch.c - --emit launch: a Slurm batch script that starts one
 * torchrun per node and gives every worker the rank Megatron-LM and
 * DeepSpeed expect (pipeline-major) on the GPU the plan placed it on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/emit.h"
#include "pd2bw/error.h"

/*
 * Local rank l of node n runs the plan rank that is the l-th of the node
 * in GPU order; order[n * per + l] gets that plan rank.  Returns 0, or -1
 * when nodes hold different numbers of ranks (torchrun starts the same
 * number on every node).  One counting sort by (node, GPU), stable, so a
 * plan of 10^6 ranks takes no longer than reading it.
 */
static int
node_order(const struct plan *p, int nodes, int per, int *order)
{
	size_t nk = (size_t)nodes * (size_t)p->gpus_per_node, k;
	size_t *start = xcalloc(nk + 1, sizeof(*start));
	size_t *next = xcalloc(nk, sizeof(*next));
	int *sorted = xcalloc((size_t)p->nranks, sizeof(*sorted));
	int n, r, l, ret = 0;

	for (r = 0; r < p->nranks; r++)
		start[(size_t)p->ranks[r].node * p->gpus_per_node +
		      p->ranks[r].gpu + 1]++;
	for (k = 0; k < nk; k++) {
		start[k + 1] += start[k];
		next[k] = start[k];
	}
	for (r = 0; r < p->nranks; r++)
		sorted[next[(size_t)p->ranks[r].node * p->gpus_per_node +
			    p->ranks[r].gpu]++] = r;
	for (n = 0; n < nodes; n++) {
		size_t a = start[(size_t)n * p->gpus_per_node];
		size_t e = start[(size_t)(n + 1) * p->gpus_per_node];

		if (e - a != (size_t)per) {
			ret = pd2bw_error("--emit launch: the plan runs %zu "
					  "ranks on node %d and %d on node "
					  "0, but torchrun starts the same "
					  "number on every node",
					  e - a, n, per);
			break;
		}
		for (l = 0; l < per; l++)
			order[(size_t)n * per + l] = sorted[a + l];
	}
	free(start);
	free(next);
	free(sorted);
	return ret;
}

int
emit_launch(FILE *fp, const struct emit_in *in, const struct emit_shape *sh)
{
	const struct plan *p = in->p;
	int nodes = 0, per = 0, r, n, l, ident = 1, ret = -1, rank0 = -1;
	int *order;

	const char *c;

	(void)sh;
	for (r = 0; r < p->nranks; r++)
		if (p->ranks[r].node + 1 > nodes)
			nodes = p->ranks[r].node + 1;
	for (r = 0; r < p->nranks; r++)
		if (p->ranks[r].node == 0)
			per++;
	if (!nodes || !per)
		return pd2bw_error("--emit launch: the plan has no ranks on "
				   "node 0");
	order = xcalloc((size_t)nodes * (size_t)per, sizeof(*order));
	if (node_order(p, nodes, per, order))
		goto out;
	for (n = 0; n < nodes; n++)
		for (l = 0; l < per; l++) {
			const struct plan_rank *rk = &p->ranks[order[n * per + l]];

			if (rk->gpu != l)
				ident = 0;
			if (plan_runtime_rank(p, order[n * per + l]) == 0)
				rank0 = n;
		}

	/* Slurm's job name: only characters that cannot end the
	 * directive or mean anything to a shell. */
	fprintf(fp, "#!/bin/bash\n#SBATCH --job-name=pd2bw-");
	for (c = p->model; c && *c; c++)
		fputc(strchr("abcdefghijklmnopqrstuvwxyz"
			     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *c)
			      ? *c
			      : '_',
		      fp);
	fprintf(fp,
		"\n"
		"#SBATCH --nodes=%d\n"
		"#SBATCH --ntasks-per-node=1\n"
		"#SBATCH --gpus-per-node=%d\n"
		"#\n"
		"# Launch for the pd2bw plan of ",
		nodes, per);
	emit_text(fp, p->model);
	fprintf(fp, " on %d nodes x %d ", nodes, per);
	emit_text(fp, p->gpu);
	fprintf(fp,
		":\n"
		"# schedule %s, width %d, depth %d, %s.\n"
		"# Use: sbatch THIS_FILE TRAIN.py [ARGS...], e.g. "
		"pretrain_gpt.py with the\n"
		"# arguments of pd2bw-plan --emit megatron, or a DeepSpeed "
		"script.\n"
		"#\n"
		"# Rank order.  Megatron-LM and DeepSpeed (tensor parallel "
		"1) number ranks\n"
		"# pipeline-major: stage s of replica r runs as RANK s x %d + "
		"r.  torchrun\n"
		"# numbers workers node-major: local rank l of node n is "
		"n x %d + l.  Each\n"
		"# worker therefore takes its RANK from PD2BW_RANKS, indexed "
		"by torchrun's\n"
		"# number, so that every stage runs where the plan put it.  "
		"Node n is the\n"
		"# job's n-th node (SLURM_NODEID n).\n"
		"#\n"
		"#   node gpu  RANK stage replica\n",
		plan_sched_names[p->sched], p->w, p->d,
		plan_place_names[p->place], p->w, per);
	for (n = 0; n < nodes; n++)
		for (l = 0; l < per; l++) {
			int pr = order[n * per + l];
			const struct plan_rank *rk = &p->ranks[pr];

			fprintf(fp, "#   %4d %3d %5d %5d %7d\n", rk->node,
				rk->gpu, plan_runtime_rank(p, pr), rk->stage,
				rk->replica);
		}
	fprintf(fp, "set -eu\nPD2BW_RANKS='");
	for (n = 0; n < nodes; n++) {
		for (l = 0; l < per; l++)
			fprintf(fp, "%s%d", l ? " " : "",
				plan_runtime_rank(p, order[n * per + l]));
		fprintf(fp, "%s", n + 1 < nodes ? "\n" : "'\n");
	}
	if (ident) {
		fprintf(fp, "# Local rank l uses GPU l of its node: "
			    "CUDA_VISIBLE_DEVICES stays as Slurm set it.\n"
			    "PD2BW_GPUS=\n");
	} else {
		/* One permutation per node, the same for all its workers,
		 * so that LOCAL_RANK l still selects device l. */
		fprintf(fp, "# The GPUs of local ranks 0..%d, per node "
			    "(CUDA_VISIBLE_DEVICES).\nPD2BW_GPUS='", per - 1);
		for (n = 0; n < nodes; n++) {
			for (l = 0; l < per; l++)
				fprintf(fp, "%s%d", l ? "," : "",
					p->ranks[order[n * per + l]].gpu);
			fprintf(fp, "%s", n + 1 < nodes ? "\n" : "'\n");
		}
	}
	fprintf(fp,
		"PD2BW_NPROC=%d\n"
		"# torchrun's rendezvous runs on node 0; the worker of RANK 0 "
		"is on node %d.\n"
		"MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" "
		"| head -n 1)\n"
		"MASTER_PORT=${MASTER_PORT:-29500}\n"
		"export PD2BW_RANKS PD2BW_GPUS PD2BW_NPROC MASTER_ADDR "
		"MASTER_PORT\n"
		"\n"
		"# On each GPU: replace torchrun's node-major RANK with the "
		"plan's.\n"
		"pd2bw_worker() {\n"
		"\tlocal i=$((GROUP_RANK * PD2BW_NPROC + LOCAL_RANK))\n"
		"\tRANK=$(printf '%%s\\n' $PD2BW_RANKS | sed -n \"$((i + "
		"1))p\")\n"
		"\texport RANK\n"
		"\texec python3 \"$@\"\n"
		"}\n"
		"# On each node: one torchrun, with the plan's GPU order.\n"
		"pd2bw_node() {\n"
		"\tif [ -n \"$PD2BW_GPUS\" ]; then\n"
		"\t\tCUDA_VISIBLE_DEVICES=$(printf '%%s\\n' \"$PD2BW_GPUS\" "
		"|\n"
		"\t\t\tsed -n \"$((SLURM_NODEID + 1))p\")\n"
		"\t\texport CUDA_VISIBLE_DEVICES\n"
		"\tfi\n"
		"\texec torchrun --nnodes=%d --nproc-per-node=%d \\\n"
		"\t\t--node-rank=\"$SLURM_NODEID\" "
		"--master-addr=\"$MASTER_ADDR\" \\\n"
		"\t\t--master-port=\"$MASTER_PORT\" --no-python \\\n"
		"\t\tbash -c 'pd2bw_worker \"$@\"' pd2bw-worker \"$@\"\n"
		"}\n"
		"export -f pd2bw_worker pd2bw_node\n"
		"srun --ntasks-per-node=1 bash -c 'pd2bw_node \"$@\"' "
		"pd2bw-node \"$@\"\n",
		per, rank0, nodes, per);
	ret = 0;
out:
	free(order);
	return ret;
}
