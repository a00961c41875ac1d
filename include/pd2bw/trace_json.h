/*
 * trace_json.h - pieces of Chrome's trace-event JSON format ("traceEvents"
 * of metadata and complete events), shared by the planner's simulated
 * schedule and the profiler's measured timeline.  Everything is printed
 * with fixed formats (times in microseconds with three decimals), so a
 * file is byte-stable for the same events.
 *
 * A file is written as:
 *
 *	tj_begin(fp);
 *	tj_meta(fp, "process_name", pid, 0, "stage 0"); ...
 *	tj_event(fp, "F3", "forward", pid, tid, ts_us, dur_us);
 *	fprintf(fp, "\"microbatch\": 3");  (the args, if any)
 *	tj_event_end(fp); ...
 *	tj_end_events(fp, end_us);
 *	fputs("\"displayTimeUnit\": \"ms\"}\n", fp);  (the caller's keys)
 *
 * Every event line ends with a comma; tj_end_events writes a last instant
 * event (the end marker) without one and closes the array.
 */
#ifndef PD2BW_TRACE_JSON_H
#define PD2BW_TRACE_JSON_H

#include <stdio.h>

/* s as a JSON string, quoted and escaped (NULL: ""). */
void tj_str(FILE *fp, const char *s);

/* The opening of the object and of its "traceEvents" array. */
void tj_begin(FILE *fp);

/*
 * A metadata event: what is "process_name" or "thread_name" (name is the
 * value given to the process pid or thread tid).
 */
void tj_meta(FILE *fp, const char *what, int pid, int tid, const char *name);

/* Metadata: processes shown in the order of sort_index. */
void tj_sort_index(FILE *fp, int pid, int sort_index);

/*
 * The start of a complete ("X") event, up to and including the opening of
 * its "args" object; the caller prints the args, then tj_event_end.
 */
void tj_event(FILE *fp, const char *name, const char *cat, int pid, int tid,
	      double ts_us, double dur_us);

/* Closes the args and the event started by tj_event. */
void tj_event_end(FILE *fp);

/*
 * A global instant event "end" at end_us, then the end of the event array
 * and a comma: the caller goes on with the object's other keys.
 */
void tj_end_events(FILE *fp, double end_us);

#endif
