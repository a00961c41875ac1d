/*
 * cli.h - what the programs' main.c files share for their command lines:
 * the usage-error exit and checked number and list parsing.  Every
 * function here reports a bad value as
 *   progname: invalid --opt 'value' (...)
 *   Try 'progname --help'.
 * and exits with status 2.
 */
#ifndef PD2BW_CLI_H
#define PD2BW_CLI_H

#include "pd2bw/error.h"

/* What "Try '...'." names; default "<progname> --help". */
extern const char *cli_help;

/* Print "progname: <message>" and the hint, exit 2. */
_Noreturn void cli_usage_error(const char *fmt, ...) PD2BW_PRINTF(1, 2);

/*
 * After getopt_long returned c ':' (a missing value) or '?' (an unknown
 * option, opterr 0): "option '-o' needs a value" or "unknown option
 * '--x'", naming the short option itself when it was one (even inside
 * a group like -qZ), then the hint; exit 2.
 */
_Noreturn void cli_option_error(int c, char *const *argv);

/* A whole decimal integer in [lo, hi]. */
long cli_long(const char *opt, const char *s, long lo, long hi);
/* A whole number in [lo, hi] (strtod syntax, finite). */
double cli_double(const char *opt, const char *s, double lo, double hi);
/*
 * "a,b,c" of names from the NULL-terminated names: returns the bit mask
 * (1 << index); *one gets the index when exactly one name was given, else
 * -1 (one may be NULL).
 */
unsigned cli_names(const char *opt, const char *s, const char *const *names,
		   int *one);
/*
 * Exactly one of the NULL-terminated names: its index, or a usage error
 * listing them.
 */
int cli_name(const char *opt, const char *s, const char *const *names);
/*
 * "1,2,4" into out[0..max): integers in [lo, hi], strictly increasing when
 * increasing != 0, else merely distinct.  Returns how many.
 */
int cli_ints(const char *opt, const char *s, int *out, int max, long lo,
	     long hi, int increasing);

/* One path named on the command line, for cli_distinct_paths(). */
struct cli_path {
	const char *opt;  /* how it was given: "-o", "--timeline", "MODEL" */
	const char *path; /* NULL: not given (skipped) */
	int output;       /* written by the program */
};

/*
 * Refuse (usage error, exit 2) when an output names the same file as
 * another output or as an input: "progname: -o 'x' and MODEL 'x' name the
 * same file".  Existing files are compared by st_dev/st_ino (so a symbolic
 * or hard link, or ./x against x, is caught); an output that does not
 * exist yet by its directory's st_dev/st_ino and its last component (an
 * input that does not exist is skipped).  "-" (standard output) and
 * devices, FIFOs and sockets are never refused: writing them replaces
 * nothing.
 */
void cli_distinct_paths(const struct cli_path *p, int n);

#endif
