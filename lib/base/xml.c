/*
 * xml.c - escaping text for the XML files pd2bw writes.
 */
#include "pd2bw/xml.h"

void
xml_escape(FILE *fp, const char *s, int keep_space)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&':
			fputs("&amp;", fp);
			break;
		case '<':
			fputs("&lt;", fp);
			break;
		case '>':
			fputs("&gt;", fp);
			break;
		case '"':
			fputs("&quot;", fp);
			break;
		case '\'':
			fputs("&apos;", fp);
			break;
		case '\t':
		case '\n':
		case '\r':
			fputc(keep_space ? c : '?', fp);
			break;
		default:
			fputc(c < 0x20 || c == 0x7f ? '?' : c, fp);
		}
	}
}
