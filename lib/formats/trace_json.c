/*
 * trace_json.c - the Chrome trace-event JSON writer of trace_json.h: string
 * escaping, metadata, complete and end-marker events, with fixed number
 * formats.
 */
#include "pd2bw/trace_json.h"

void
tj_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c < 0x20)
			fprintf(fp, "\\u%04x", c);
		else
			fputc(c, fp);
	}
	fputc('"', fp);
}

void
tj_begin(FILE *fp)
{
	fputs("{\"traceEvents\": [\n", fp);
}

void
tj_meta(FILE *fp, const char *what, int pid, int tid, const char *name)
{
	fputs("{\"name\": ", fp);
	tj_str(fp, what);
	fprintf(fp, ", \"ph\": \"M\", \"pid\": %d, \"tid\": %d, "
		"\"args\": {\"name\": ", pid, tid);
	tj_str(fp, name);
	fputs("}},\n", fp);
}

void
tj_sort_index(FILE *fp, int pid, int sort_index)
{
	fprintf(fp,
		"{\"name\": \"process_sort_index\", \"ph\": \"M\", "
		"\"pid\": %d, \"tid\": 0, \"args\": {\"sort_index\": %d}},\n",
		pid, sort_index);
}

void
tj_event(FILE *fp, const char *name, const char *cat, int pid, int tid,
	 double ts_us, double dur_us)
{
	fputs("{\"name\": ", fp);
	tj_str(fp, name);
	fputs(", \"cat\": ", fp);
	tj_str(fp, cat);
	fprintf(fp,
		", \"ph\": \"X\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, "
		"\"dur\": %.3f, \"args\": {",
		pid, tid, ts_us, dur_us);
}

void
tj_event_end(FILE *fp)
{
	fputs("}},\n", fp);
}

void
tj_end_events(FILE *fp, double end_us)
{
	fprintf(fp,
		"{\"name\": \"end\", \"ph\": \"i\", \"s\": \"g\", \"pid\": 0, "
		"\"tid\": 0, \"ts\": %.3f}\n],\n",
		end_us);
}
