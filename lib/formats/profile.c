/*
 * profile.c - per-layer profiles (format pd2bw-profile/1): allocation,
 * reading (PipeDream graph.txt is recognised by content and handed to
 * pipedream.c), byte-stable writing, and small queries.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/infile.h"
#include "pd2bw/model.h"
#include "pd2bw/pipedream.h"
#include "pd2bw/profile.h"
#include "pd2bw/yml.h"

const char *const prof_kind_names[] = {"embed", "block", "head", "other",
				       NULL};
const char *const prof_rc_names[] = {"none", "selective", "full", NULL};

static const char *const backend_names[] = {"cuda", "cpu", "analytic",
					    "pipedream", NULL};

#define MAX_MB 64           /* microbatch sizes in one profile */
#define MAX_LAYERS PROFILE_MAX_LAYERS /* after repeats: profile.h */
#define MAX_MS 1e9
#define MAX_BYTES 1e18

void
profile_init(struct profile *p)
{
	memset(p, 0, sizeof(*p));
	p->tp = 1;
	p->cp = 1;
	p->ep = 1;
	p->etp = 1;
	p->tp_block_bytes = 1;
	p->weight_bytes = 2;
	p->grad_bytes = 2;
	p->optimizer_bytes = 12;
	p->version_bytes = 4;
}

void
profile_release(struct profile *p)
{
	int i;

	free(p->model);
	free(p->device);
	free(p->backend);
	free(p->versions);
	free(p->precision);
	free(p->mb);
	for (i = 0; i < p->nlayers; i++) {
		free(p->layers[i].name);
		free(p->layers[i].pt);
	}
	free(p->layers);
	profile_init(p);
}

void
profile_alloc(struct profile *p, int nmb, int nlayers)
{
	int i;

	p->nmb = nmb;
	p->mb = xcalloc(nmb > 0 ? (size_t)nmb : 1, sizeof(*p->mb));
	p->nlayers = nlayers;
	p->layers = xcalloc(nlayers > 0 ? (size_t)nlayers : 1,
			    sizeof(*p->layers));
	for (i = 0; i < nlayers; i++) {
		p->layers[i].repeat = 1;
		p->layers[i].pt = xcalloc(nmb > 0 ? (size_t)nmb : 1,
					  sizeof(struct prof_point));
	}
}

int
profile_mb_index(const struct profile *p, int b)
{
	int i;

	for (i = 0; i < p->nmb; i++)
		if (p->mb[i] == b)
			return i;
	return -1;
}

int
profile_blocks(const struct profile *p)
{
	int i, n = 0;

	for (i = 0; i < p->nlayers; i++)
		if (p->layers[i].kind == PROF_BLOCK)
			n += p->layers[i].repeat;
	return n;
}

int
profile_chain_len(const struct profile *p)
{
	int i, n = 0;

	for (i = 0; i < p->nlayers; i++)
		n += p->layers[i].repeat;
	return n;
}

int
profile_ns(const struct profile *p)
{
	int i;

	for (i = 0; p && i < p->nlayers; i++)
		if (p->layers[i].ns_flops > 0)
			return 1;
	return 0;
}

int64_t
profile_params(const struct profile *p)
{
	int64_t n = 0;
	int i;

	for (i = 0; i < p->nlayers; i++)
		n += p->layers[i].params * p->layers[i].repeat;
	return n;
}

/* ---- reading ---- */

/* A flow sequence of exactly PROF_RC_N numbers. */
static int
read_rc_dbl(struct yml_doc *d, yaml_node_t *n, double *v)
{
	int i;

	if (yml_expect_seq(d, n, PROF_RC_N))
		return -1;
	for (i = 0; i < PROF_RC_N; i++)
		if (yml_to_dbl(d, yml_seq_item(d, n, (size_t)i), &v[i], 0,
			       MAX_MS))
			return -1;
	return 0;
}

static int
read_rc_i64(struct yml_doc *d, yaml_node_t *n, int64_t *v)
{
	int i;

	if (yml_expect_seq(d, n, PROF_RC_N))
		return -1;
	for (i = 0; i < PROF_RC_N; i++)
		if (yml_to_i64(d, yml_seq_item(d, n, (size_t)i), &v[i], 0,
			       MAX_BYTES))
			return -1;
	return 0;
}

static int
read_point(struct yml_doc *d, yaml_node_t *n, struct prof_point *pt)
{
	yaml_node_t *rc = NULL, *st = NULL;
	const struct yml_key keys[] = {
		YK_DBL("fwd_ms", 1, &pt->fwd_ms, 0, MAX_MS),
		YK_DBL("bwd_ms", 1, &pt->bwd_ms, 0, MAX_MS),
		YK_SEQ("recompute_ms", 1, &rc),
		YK_I64("out_bytes", 1, &pt->out_bytes, 0, MAX_BYTES),
		YK_SEQ("stash_bytes", 1, &st),
		YK_I64("work_bytes", 0, &pt->work_bytes, 0, MAX_BYTES),
		YK_DBL("fwd_flops", 0, &pt->fwd_flops, 0, 1e30),
		YK_DBL("kernels", 0, &pt->kernels, 0, 1e9),
		YK_DBL("fwd_kernels", 0, &pt->fwd_kernels, 0, 1e9),
	};

	if (yml_map(d, n, keys, sizeof(keys) / sizeof(keys[0])) ||
	    read_rc_dbl(d, rc, pt->recomp_ms) ||
	    read_rc_i64(d, st, pt->stash_bytes))
		return -1;
	if (pt->recomp_ms[PROF_RC_NONE] != 0)
		return yml_err(d, rc, "recompute_ms without recomputation "
			       "must be 0");
	if (pt->fwd_kernels > pt->kernels)
		return yml_err(d, n, "fwd_kernels %g exceeds kernels %g",
			       pt->fwd_kernels, pt->kernels);
	if (pt->recomp_ms[PROF_RC_SELECTIVE] > pt->recomp_ms[PROF_RC_FULL])
		return yml_err(d, rc, "selective recomputation takes longer "
			       "than full");
	if (pt->stash_bytes[PROF_RC_NONE] < pt->stash_bytes[PROF_RC_SELECTIVE]
	    || pt->stash_bytes[PROF_RC_SELECTIVE] <
		       pt->stash_bytes[PROF_RC_FULL])
		return yml_err(d, st, "stash_bytes must not grow with "
			       "recomputation (none >= selective >= full)");
	return 0;
}

static int
read_layer(struct yml_doc *d, yaml_node_t *n, struct prof_layer *l, int nmb)
{
	yaml_node_t *pts = NULL;
	const struct yml_key keys[] = {
		YK_STR("name", 1, &l->name),
		YK_ENUM("kind", 1, &l->kind, prof_kind_names),
		YK_INT("repeat", 0, &l->repeat, 1, MAX_LAYERS),
		YK_INT("sublayers", 0, &l->sublayers, 1, 2),
		YK_I64("params", 1, &l->params, 0, MAX_BYTES),
		YK_SEQ("points", 1, &pts),
	};
	int i;

	if (yml_map(d, n, keys, sizeof(keys) / sizeof(keys[0])))
		return -1;
	if (yml_seq_len(pts) != (size_t)nmb)
		return yml_err(d, pts, "expected %d points (one per "
			       "microbatch size), found %zu", nmb,
			       yml_seq_len(pts));
	for (i = 0; i < nmb; i++)
		if (read_point(d, yml_seq_item(d, pts, (size_t)i), &l->pt[i]))
			return -1;
	return 0;
}

static int
read_device(struct yml_doc *d, yaml_node_t *n, struct profile *p)
{
	int backend = 0;
	const struct yml_key keys[] = {
		YK_STR("name", 1, &p->device),
		YK_ENUM("backend", 1, &backend, backend_names),
		YK_I64("memory_bytes", 1, &p->device_mem_bytes, 0, MAX_BYTES),
		YK_STR("versions", 0, &p->versions),
	};

	if (yml_map(d, n, keys, sizeof(keys) / sizeof(keys[0])))
		return -1;
	p->backend = xstrdup(backend_names[backend]);
	return 0;
}

static int
load_doc(struct profile *p, struct yml_doc *d)
{
	yaml_node_t *root = yml_root(d), *dev = NULL, *bpp = NULL;
	yaml_node_t *mbs = NULL, *lys = NULL;
	char *fmt = NULL;
	int prec = 0, nmb, nl, i, ret;

	if (!root || yml_check_format(d, root, "profile", 1) < 0)
		return -1;
	{
		const struct yml_key keys[] = {
			YK_STR("format", 1, &fmt),
			YK_STR("model", 1, &p->model),
			YK_MAP("device", 1, &dev),
			YK_ENUM("precision", 1, &prec, model_prec_names),
			YK_INT("tp", 0, &p->tp, 1, 65536),
			YK_I64("seq_len", 0, &p->seq_len, 0, 1e9),
			YK_I64("doc_len", 0, &p->doc_len, 1, 1e9),
			YK_INT("lora_rank", 0, &p->lora_rank, 1, 1 << 20),
			YK_DBL("trainable", 0, &p->trainable, 1e-12, 1e6),
			YK_I64("hidden", 0, &p->hidden, 0, 1e9),
			YK_MAP("bytes_per_param", 0, &bpp),
			YK_SEQ("microbatches", 1, &mbs),
			YK_SEQ("layers", 1, &lys),
		};

		ret = yml_map(d, root, keys, sizeof(keys) / sizeof(keys[0]));
		free(fmt);
		if (ret)
			return -1;
	}
	p->precision = xstrdup(model_prec_names[prec]);
	if (p->doc_len > 0 && p->seq_len > 0 && p->doc_len > p->seq_len)
		return yml_err(d, yml_get(d, root, "doc_len"),
			       "doc_len %lld exceeds seq_len %lld",
			       (long long)p->doc_len, (long long)p->seq_len);
	if (read_device(d, dev, p))
		return -1;
	if (bpp) {
		const struct yml_key keys[] = {
			YK_DBL("weight", 0, &p->weight_bytes, 0, 64),
			YK_DBL("grad", 0, &p->grad_bytes, 0, 64),
			YK_DBL("optimizer", 0, &p->optimizer_bytes, 0, 64),
			YK_DBL("version", 0, &p->version_bytes, 0, 64),
		};

		if (yml_map(d, bpp, keys, sizeof(keys) / sizeof(keys[0])))
			return -1;
	}
	nmb = (int)yml_seq_len(mbs);
	nl = (int)yml_seq_len(lys);
	if (nmb < 1 || nmb > MAX_MB)
		return yml_err(d, mbs, "expected 1 to %d microbatch sizes, "
			       "found %d", MAX_MB, nmb);
	if (nl < 1)
		return yml_err(d, lys, "expected at least one layer");
	if (nl > MAX_LAYERS)
		return yml_err(d, yml_seq_item(d, lys, MAX_LAYERS),
			       "more than %d layers (the limit of pd2bw-plan's "
			       "search)",
			       MAX_LAYERS);
	profile_alloc(p, nmb, nl);
	for (i = 0; i < nmb; i++) {
		yaml_node_t *it = yml_seq_item(d, mbs, (size_t)i);

		if (yml_to_int(d, it, &p->mb[i], 1, 1 << 20))
			return -1;
		if (i && p->mb[i] <= p->mb[i - 1])
			return yml_err(d, it, "microbatch sizes must be "
				       "strictly increasing");
	}
	for (i = 0; i < nl; i++)
		if (read_layer(d, yml_seq_item(d, lys, (size_t)i),
			       &p->layers[i], nmb))
			return -1;
	if ((int64_t)profile_chain_len(p) > MAX_LAYERS)
		return yml_err(d, lys, "more than %d layers after repeats "
			       "(the limit of pd2bw-plan's search)",
			       MAX_LAYERS);
	return 0;
}

int
profile_load_string(struct profile *p, const char *name, const char *buf,
		    size_t len)
{
	struct yml_doc d;
	int ret;

	profile_release(p);
	if (infile_text(name, &buf, &len))
		return -1;
	if (pipedream_sniff(buf, len))
		return pipedream_load_string(p, name, buf, len);
	ret = yml_load_string(&d, name, buf, len);
	if (!ret)
		ret = load_doc(p, &d);
	yml_release(&d);
	return ret;
}

int
profile_load(struct profile *p, const char *path)
{
	size_t len;
	const char *buf = infile_read(path, &len);
	int ret;

	if (!buf)
		return -1;
	ret = profile_load_string(p, path, buf, len);
	infile_release(buf);
	return ret;
}

/* ---- writing ---- */

static void
write_point(struct yml_out *o, const struct prof_point *pt)
{
	int i;

	yml_out_map(o, 1);
	yml_out_kdbl(o, "fwd_ms", pt->fwd_ms);
	yml_out_kdbl(o, "bwd_ms", pt->bwd_ms);
	yml_out_str(o, "recompute_ms");
	yml_out_seq(o, 1);
	for (i = 0; i < PROF_RC_N; i++)
		yml_out_dbl(o, pt->recomp_ms[i]);
	yml_out_end_seq(o);
	yml_out_kint(o, "out_bytes", pt->out_bytes);
	yml_out_str(o, "stash_bytes");
	yml_out_seq(o, 1);
	for (i = 0; i < PROF_RC_N; i++)
		yml_out_int(o, pt->stash_bytes[i]);
	yml_out_end_seq(o);
	yml_out_kint(o, "work_bytes", pt->work_bytes);
	yml_out_kdbl(o, "fwd_flops", pt->fwd_flops);
	if (pt->kernels > 0)
		yml_out_kdbl(o, "kernels", pt->kernels);
	if (pt->fwd_kernels > 0)
		yml_out_kdbl(o, "fwd_kernels", pt->fwd_kernels);
	yml_out_end_map(o);
}

int
profile_write(const struct profile *p, const char *path)
{
	struct yml_out o;
	int i, j;

	if (yml_out_open(&o, path))
		return -1;
	yml_out_map(&o, 0);
	yml_out_kstr(&o, "format", "pd2bw-profile/1");
	yml_out_kstr(&o, "model", p->model ? p->model : "");
	yml_out_str(&o, "device");
	yml_out_map(&o, 0);
	yml_out_kstr(&o, "name", p->device ? p->device : "");
	yml_out_kstr(&o, "backend", p->backend ? p->backend : "analytic");
	yml_out_kint(&o, "memory_bytes", p->device_mem_bytes);
	if (p->versions && !pd2bw_deterministic())
		yml_out_kstr(&o, "versions", p->versions);
	yml_out_end_map(&o);
	yml_out_kstr(&o, "precision", p->precision ? p->precision : "fp16");
	yml_out_kint(&o, "tp", p->tp);
	yml_out_kint(&o, "seq_len", p->seq_len);
	if (p->doc_len > 0)
		yml_out_kint(&o, "doc_len", p->doc_len);
	if (p->lora_rank > 0)
		yml_out_kint(&o, "lora_rank", p->lora_rank);
	if (p->trainable > 0)
		yml_out_kdbl(&o, "trainable", p->trainable);
	yml_out_kint(&o, "hidden", p->hidden);
	yml_out_str(&o, "bytes_per_param");
	yml_out_map(&o, 1);
	yml_out_kdbl(&o, "weight", p->weight_bytes);
	yml_out_kdbl(&o, "grad", p->grad_bytes);
	yml_out_kdbl(&o, "optimizer", p->optimizer_bytes);
	yml_out_kdbl(&o, "version", p->version_bytes);
	yml_out_end_map(&o);
	yml_out_str(&o, "microbatches");
	yml_out_seq(&o, 1);
	for (i = 0; i < p->nmb; i++)
		yml_out_int(&o, p->mb[i]);
	yml_out_end_seq(&o);
	yml_out_str(&o, "layers");
	yml_out_seq(&o, 0);
	for (i = 0; i < p->nlayers; i++) {
		const struct prof_layer *l = &p->layers[i];

		yml_out_map(&o, 0);
		yml_out_kstr(&o, "name", l->name ? l->name : "");
		yml_out_kstr(&o, "kind", prof_kind_names[l->kind]);
		yml_out_kint(&o, "repeat", l->repeat);
		if (l->sublayers == 1)
			yml_out_kint(&o, "sublayers", 1);
		yml_out_kint(&o, "params", l->params);
		yml_out_str(&o, "points");
		yml_out_seq(&o, 0);
		for (j = 0; j < p->nmb; j++)
			write_point(&o, &l->pt[j]);
		yml_out_end_seq(&o);
		yml_out_end_map(&o);
	}
	yml_out_end_seq(&o);
	yml_out_end_map(&o);
	return yml_out_close(&o);
}
