/*
 * dies.h - for the emulation's tests: run a function in a child process
 * and see it stopped by emu_fatal (SIGABRT) with a given message.
 */
#ifndef PD2BW_EMU_DIES_H
#define PD2BW_EMU_DIES_H

#include <csignal>
#include <cstdio>
#include <cstring>

#include <sys/wait.h>
#include <unistd.h>

/*
 * 1 when fn(arg), run in a child, aborts having written expect (when not
 * NULL) to standard error; what it wrote goes to the test's output as a
 * comment otherwise.
 */
static inline int
dies_with(void (*fn)(void *), void *arg, const char *expect)
{
	int fd[2], status = 0;
	char buf[1024] = {0};
	ssize_t n, got = 0;
	pid_t pid;

	if (pipe(fd))
		return 0;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 2);
		close(fd[0]);
		if (!freopen("/dev/null", "w", stdout))
			_exit(3);
		fn(arg);
		_exit(0);
	}
	close(fd[1]);
	while (got < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(fd[0], buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	close(fd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 0;
	if (expect && !strstr(buf, expect))
		printf("#   stderr was: %s\n", buf);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT &&
	       (!expect || strstr(buf, expect));
}

#endif
