/*
 * fuzz_cli.h - libFuzzer harness for a program's command line: the input,
 * split at NUL bytes, is the argument vector of the program's own main()
 * (compiled with -Dmain=fz_prog_main), run in-process so that coverage
 * guides the fuzzer.  exit(), atexit() and fclose() are wrapped
 * (-Wl,--wrap): an exit inside main() jumps back here, nothing piles up
 * at exit, and standard output stays open for the next run.
 *
 * What main() writes could land anywhere, and the fuzzer runs as root:
 * LLVMFuzzerInitialize() therefore chroots into the current directory,
 * which tests/fuzz/run.sh makes a scratch jail (build/fuzz/jail-NAME/)
 * holding the corpus, a few small input files and nothing else; it
 * refuses to run when it cannot chroot.  Arguments with a long run of
 * digits (FZ_MAX_DIGITS), or holding FZ_SKIP, are skipped: they reach
 * searches and measurements whose cost grows with the number, not the
 * parser.
 */
#ifndef PD2BW_FUZZ_CLI_H
#define PD2BW_FUZZ_CLI_H

#define _DEFAULT_SOURCE /* chroot */
#include <getopt.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pd2bw/afile.h"
#include "pd2bw/infile.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int fz_prog_main(int argc, char **argv);
_Noreturn void __real_exit(int status);
_Noreturn void __wrap_exit(int status);
int __real_atexit(void (*fn)(void));
int __wrap_atexit(void (*fn)(void));
int __real_fclose(FILE *fp);
int __wrap_fclose(FILE *fp);

#define FZ_MAX_ARGS 48

static jmp_buf fz_jmp;
static volatile int fz_inside;

void
__wrap_exit(int status)
{
	if (fz_inside) {
		fz_inside = 0;
		longjmp(fz_jmp, status + 1);
	}
	__real_exit(status);
}

int
__wrap_atexit(void (*fn)(void))
{
	if (fz_inside)
		return 0;
	return __real_atexit(fn);
}

/* afile_close_stdout() closes stdout; the next run needs it open */
int
__wrap_fclose(FILE *fp)
{
	if (fz_inside && fp == stdout)
		return fflush(fp);
	return __real_fclose(fp);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (chroot(".") || chdir("/")) {
		perror("fuzz: chroot into the jail (run as root, through "
		       "tests/fuzz/run.sh)");
		__real_exit(2);
	}
	/* what the program prints goes to one file, emptied each run */
	if (!freopen("/stdout.txt", "w", stdout)) {
		perror("fuzz: /stdout.txt");
		__real_exit(2);
	}
	setenv("PD2BW_DETERMINISTIC", "1", 1);
	return 0;
}

static int
fz_too_big(const char *arg)
{
	int run = 0;

	for (; *arg; arg++) {
		run = *arg >= '0' && *arg <= '9' ? run + 1 : 0;
		if (run > FZ_MAX_DIGITS)
			return 1;
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char prog[] = FZ_PROG;
	char *buf, *argv[FZ_MAX_ARGS + 2];
	volatile int argc = 1;
	size_t i, start = 0;

	if (size > 4096)
		return 0;
	buf = malloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = 0;
	argv[0] = prog;
	for (i = 0; i <= size && argc <= FZ_MAX_ARGS; i++)
		if (i == size || !buf[i]) {
			if (i > start || i < size)
				argv[argc++] = buf + start;
			start = i + 1;
		}
	argv[argc] = NULL;
	for (i = 1; i < (size_t)argc; i++)
		if (fz_too_big(argv[i])
#ifdef FZ_SKIP
		    || strstr(argv[i], FZ_SKIP)
#endif
		) {
			free(buf);
			return 0;
		}
	/* glibc: optind = 0 starts getopt afresh, forgetting where in
	 * the last (freed) vector a run of short options stopped; the
	 * dummy call does it now, since capacity mode sets optind = 1 */
	{
		static char dummy0[] = "x";
		char *dummy[] = {dummy0, NULL};

		optind = 0;
		getopt(1, dummy, "");
		optind = 0;
	}
	fz_inside = 1;
	if (!setjmp(fz_jmp))
		fz_prog_main(argc, argv);
	fz_inside = 0;
	/* undo what main() leaves when it exits half-way */
	afile_batch_end(0);
	infile_keep(0);
	infile_forget();
	fflush(stdout);
	if (ftruncate(fileno(stdout), 0) == 0)
		rewind(stdout);
	clearerr(stdout);
	free(buf);
	return 0;
}

#endif
