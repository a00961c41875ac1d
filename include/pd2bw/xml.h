/*
 * xml.h - text written into XML files (the SVG pictures, NCCL's topology
 * file): one escaper for every writer.
 */
#ifndef PD2BW_XML_H
#define PD2BW_XML_H

#include <stdio.h>

/*
 * Write s (NULL: nothing) to fp as XML character data or an attribute
 * value: & < > " ' as entities; control characters, which XML 1.0 allows
 * not even as references, and DEL as '?'.  Tab, newline and carriage
 * return are allowed in text and kept where keep_space is set (an
 * attribute's would be read back as spaces: '?' there).
 */
void xml_escape(FILE *fp, const char *s, int keep_space);

#endif
