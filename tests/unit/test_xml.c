/*
 * test_xml.c - the one XML escaper (xml.h) of the SVG pictures and NCCL's
 * topology file: the five special characters as entities, control
 * characters and DEL as '?', tab, newline and carriage return kept in
 * text and '?' in attributes, other bytes (UTF-8) as they are.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "pd2bw/xml.h"

/* What xml_escape() writes for s. */
static char *
escaped(const char *s, int keep_space)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	if (!fp)
		abort();
	xml_escape(fp, s, keep_space);
	fclose(fp);
	return buf;
}

static void
check(const char *s, int keep_space, const char *want)
{
	char *got = escaped(s, keep_space);

	CHECK_STR_EQ(got, want);
	free(got);
}

int
main(void)
{
	check(NULL, 1, "");
	check("", 0, "");
	check("a&b<c>d\"e'f", 1, "a&amp;b&lt;c&gt;d&quot;e&apos;f");
	check("a&b<c>d\"e'f", 0, "a&amp;b&lt;c&gt;d&quot;e&apos;f");
	check("x\ty\nz\r.", 1, "x\ty\nz\r.");
	check("x\ty\nz\r.", 0, "x?y?z?.");
	check("\x01\x1b[31m\x7f", 1, "??[31m?");
	check("GB200 \xc3\xa9", 0, "GB200 \xc3\xa9");
	/* what an entity already written looks like: escaped again */
	check("&amp;", 0, "&amp;amp;");
	return h_done();
}
