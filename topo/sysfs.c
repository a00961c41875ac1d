/*
 * sysfs.c - PCIe link limits and NIC rates from Linux sysfs (root settable,
 * so tests use fake trees under tests/data/topo/).
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/error.h"
#include "sysfs.h"

/* Per-lane transfer rates (GT/s) and line encodings of PCIe 1.0 to 6.0. */
static const double gen_gts[] = {0, 2.5, 5, 8, 16, 32, 64};

double
topo_pcie_lane_gb_s(int gen)
{
	if (gen < 1 || gen > 6)
		return 0;
	/* 8b/10b up to gen 2, 128b/130b from gen 3; gen 6 (PAM4, FLIT)
	 * counted like 128b/130b, which is close to its FLIT efficiency. */
	if (gen <= 2)
		return gen_gts[gen] * 8.0 / 10.0 / 8.0;
	return gen_gts[gen] * 128.0 / 130.0 / 8.0;
}

int
topo_pcie_gen_of_gts(double gts)
{
	int g;

	for (g = 1; g <= 6; g++)
		if (fabs(gts - gen_gts[g]) < 0.01)
			return g;
	return 0;
}

/*
 * Read the first line of root/rel into buf without its newline.  1 when the
 * file does not exist, 0 when read, -1 on a read error.
 */
static int
read_line(const char *path, char *buf, size_t len)
{
	FILE *fp = fopen(path, "r");
	size_t n;

	if (!fp)
		return errno == ENOENT || errno == ENOTDIR ? 1
		       : pd2bw_error("cannot open '%s': %s", path,
				     strerror(errno));
	errno = 0;
	if (!fgets(buf, (int)len, fp)) {
		int bad = ferror(fp);

		int e = errno;

		fclose(fp);
		/* The kernel answers EINVAL for the speed of a link that
		 * is down: that is "unknown", not a failure. */
		if (bad && e == EINVAL)
			return 1;
		if (bad)
			return pd2bw_error("cannot read '%s': %s", path,
					   strerror(e));
		buf[0] = 0;
		return 0;
	}
	fclose(fp);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

/* "16.0 GT/s PCIe", "8 GT/s", "Unknown" -> generation (0 unknown). */
static int
parse_speed(const char *path, const char *s, int *gen)
{
	char *end;
	double v;

	*gen = 0;
	if (!strncmp(s, "Unknown", 7))
		return 0;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || strncmp(end, " GT/s", 5) != 0)
		return pd2bw_error("%s: bad link speed '%s'", path, s);
	*gen = topo_pcie_gen_of_gts(v);
	if (!*gen)
		return pd2bw_error("%s: unknown PCIe transfer rate '%s'",
				   path, s);
	return 0;
}

static int
parse_width(const char *path, const char *s, int *width)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || errno || v < 0 || v > 64)
		return pd2bw_error("%s: bad link width '%s'", path, s);
	*width = (int)v;
	return 0;
}

int
topo_sysfs_pcie(const char *root, const char *pci, struct topo_pcie *p)
{
	static const char *const files[] = {
		"current_link_speed", "current_link_width", "max_link_speed",
		"max_link_width"};
	struct topo_pcie q = *p;
	char path[4096], buf[128];
	int i, r, found = 0;

	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/%s", root,
			 pci, files[i]);
		r = read_line(path, buf, sizeof(buf));
		if (r < 0)
			return -1;
		if (r > 0)
			continue;
		found = 1;
		if (i == 0)
			r = parse_speed(path, buf, &q.gen);
		else if (i == 1)
			r = parse_width(path, buf, &q.width);
		else if (i == 2)
			r = parse_speed(path, buf, &q.max_gen);
		else
			r = parse_width(path, buf, &q.max_width);
		if (r)
			return -1;
	}
	if (!found)
		return 1;
	if (!q.max_gen)
		q.max_gen = q.gen;
	if (!q.max_width)
		q.max_width = q.width;
	q.gb_s = topo_pcie_lane_gb_s(q.max_gen) * q.max_width;
	*p = q;
	return 0;
}

/* "100 Gb/sec (4X EDR)" -> 100. */
static int
parse_ib_rate(const char *path, const char *s, double *gbit)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v < 0 ||
	    strncmp(end, " Gb/sec", 7) != 0)
		return pd2bw_error("%s: bad port rate '%s'", path, s);
	*gbit = v;
	return 0;
}

static int
ib_rate(const char *root, const char *name, double *gbit_s)
{
	char dir[4096], path[4400], buf[128];
	struct dirent **ents = NULL;
	int i, n, ret = 1;
	double best = 0, v = 0;

	snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports", root,
		 name);
	/* scandir sorts, so a malformed port is reported the same way
	 * on every run. */
	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0)
		return errno == ENOENT || errno == ENOTDIR
			       ? 1
			       : pd2bw_error("cannot read '%s': %s", dir,
					     strerror(errno));
	for (i = 0; i < n; i++) {
		int r;

		if (ents[i]->d_name[0] == '.' || ret < 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/rate", dir,
			 ents[i]->d_name);
		r = read_line(path, buf, sizeof(buf));
		if (r < 0 || (r == 0 && parse_ib_rate(path, buf, &v))) {
			ret = -1;
			continue;
		}
		if (r == 0) {
			if (v > best)
				best = v;
			ret = 0;
		}
	}
	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	if (ret == 0)
		*gbit_s = best;
	return ret;
}

int
topo_sysfs_nic_rate(const char *root, const char *name, int ib,
		    double *gbit_s)
{
	char path[4096], buf[128], *end;
	long v;
	int r;

	*gbit_s = 0;
	if (ib)
		return ib_rate(root, name, gbit_s);
	snprintf(path, sizeof(path), "%s/class/net/%s/speed", root, name);
	r = read_line(path, buf, sizeof(buf));
	if (r)
		return r;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (end == buf || *end || errno || v < -1)
		return pd2bw_error("%s: bad link speed '%s'", path, buf);
	if (v <= 0)
		return 1; /* -1: link down or speed unknown */
	*gbit_s = (double)v / 1000.0;
	return 0;
}
