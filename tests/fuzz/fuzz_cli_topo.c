/*
 * fuzz_cli_topo.c - libFuzzer target for pd2bw-topo's command line: its
 * main() run on argument vectors from the fuzzer, chrooted into a scratch
 * jail (fuzz_cli.h).  Every usage error must exit 2 with a message, every
 * other outcome exit cleanly; a crash, a sanitizer report or a hang is a
 * finding.
 */
#define FZ_PROG "pd2bw-topo"
#define FZ_MAX_DIGITS 3
#include "fuzz_cli.h"
