// SPDX-License-Identifier: MIT
/*
 * The subset of igt's core test machinery described in igt_core.h.
 * Control flow follows igt: subtests and fixtures are for-loops around a
 * sigsetjmp(); igt_success(), igt_skip() and igt_fail() leave them with a
 * siglongjmp() after printing the result line.
 */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "igt_core.h"

sigjmp_buf igt_subtest_jmpbuf;
sigjmp_buf igt_dynamic_jmpbuf;

const char *__igt_test_description __attribute__((weak));

enum henceforth { CONT, SKIP, FAIL };

static const char *command_str;
static bool list_subtests, describe_subtests, simple_test, debug_log;
static char *run_single_subtest, *run_single_dynamic;
static bool found_subtest;

static bool in_fixture;
static char *in_subtest, *in_dynamic;
static struct timespec subtest_time, dynamic_time;
static enum henceforth skip_subtests_henceforth;
static bool succeeded_one, failed_one;

/* -1 outside a dynamic container, else dynamic subtests run so far */
static int dynamic_executed = -1;
static bool dynamic_failed_one;

static char *pending_description;

static igt_exit_handler_t exit_handlers[5];
static int num_exit_handlers;

static double elapsed(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) * 1e-9;
}

const char *igt_test_name(void)
{
	return command_str;
}

const char *igt_subtest_name(void)
{
	return in_subtest;
}

bool igt_only_list_subtests(void)
{
	return list_subtests;
}

void igt_log(const char *domain, enum igt_log_level level, const char *format, ...)
{
	FILE *f = level >= IGT_LOG_WARN ? stderr : stdout;
	va_list ap;

	if (level == IGT_LOG_DEBUG && !debug_log)
		return;
	if (list_subtests && level <= IGT_LOG_WARN)
		return;
	if (level == IGT_LOG_WARN)
		fprintf(f, "(%s:%d) WARNING: ", command_str, getpid());
	else if (level == IGT_LOG_CRITICAL)
		fprintf(f, "(%s:%d) CRITICAL: ", command_str, getpid());
	va_start(ap, format);
	vfprintf(f, format, ap);
	va_end(ap);
	fflush(f);
}

void igt_describe_f(const char *fmt, ...)
{
	va_list ap;

	free(pending_description);
	va_start(ap, fmt);
	if (vasprintf(&pending_description, fmt, ap) < 0)
		pending_description = NULL;
	va_end(ap);
}

static bool name_matches(const char *patterns, const char *name)
{
	char *list, *p, *save = NULL;
	bool match = false;

	if (!patterns)
		return true;
	list = strdup(patterns);
	for (p = strtok_r(list, ",", &save); p && !match; p = strtok_r(NULL, ",", &save))
		match = fnmatch(p, name, 0) == 0;
	free(list);
	return match;
}

static bool valid_name(const char *name)
{
	for (; *name; name++)
		if (!(*name == '-' || *name == '_' || (*name >= '0' && *name <= '9') ||
		      (*name >= 'a' && *name <= 'z') || (*name >= 'A' && *name <= 'Z')))
			return false;
	return true;
}

/* Each handler once: taken off the list before it runs. */
static void call_exit_handlers(int sig)
{
	while (num_exit_handlers > 0)
		exit_handlers[--num_exit_handlers](sig);
}

static void exit_handlers_at_exit(void)
{
	call_exit_handlers(0);
}

static void exit_handlers_on_signal(int sig)
{
	call_exit_handlers(sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

void igt_install_exit_handler(igt_exit_handler_t fn)
{
	static const int sigs[] = { SIGINT, SIGHUP, SIGQUIT, SIGTERM };
	static bool armed;

	for (int i = 0; i < num_exit_handlers; i++)
		if (exit_handlers[i] == fn)
			return;
	if (num_exit_handlers == (int)ARRAY_SIZE(exit_handlers)) {
		fprintf(stderr, "igt_install_exit_handler: too many handlers\n");
		exit(IGT_EXIT_ABORT);
	}
	exit_handlers[num_exit_handlers++] = fn;
	if (armed)
		return;
	/* Only a test that installs one changes what a signal does. */
	armed = true;
	atexit(exit_handlers_at_exit);
	for (unsigned int i = 0; i < ARRAY_SIZE(sigs); i++)
		signal(sigs[i], exit_handlers_on_signal);
}

static void crash_handler(int sig)
{
	char buf[512];
	int n;

	if (in_dynamic)
		n = snprintf(buf, sizeof(buf), "Received signal %s.\nDynamic subtest %s: CRASH\n",
			     strsignal(sig), in_dynamic);
	else if (in_subtest)
		n = snprintf(buf, sizeof(buf), "Received signal %s.\nSubtest %s: CRASH\n",
			     strsignal(sig), in_subtest);
	else
		n = snprintf(buf, sizeof(buf), "Received signal %s.\n", strsignal(sig));
	if (write(STDOUT_FILENO, buf, n) < 0)
		_exit(IGT_EXIT_ABORT);
	/* _exit() runs no atexit() handler. */
	call_exit_handlers(sig);
	_exit(IGT_EXIT_FAILURE);
}

static void common_init(int *argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "list-subtests", no_argument, NULL, 'l' },
		{ "run-subtest", required_argument, NULL, 'r' },
		{ "dynamic-subtest", required_argument, NULL, 'y' },
		{ "describe", optional_argument, NULL, 'D' },
		{ "debug", optional_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *env = getenv("IGT_LOG_LEVEL");
	int c;

	command_str = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	setvbuf(stdout, NULL, _IOLBF, 0);
	debug_log = env && !strcmp(env, "debug");

	while ((c = getopt_long(*argc, argv, "", long_opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			list_subtests = true;
			break;
		case 'r':
			run_single_subtest = strdup(optarg);
			break;
		case 'y':
			run_single_dynamic = strdup(optarg);
			break;
		case 'D':
			describe_subtests = true;
			list_subtests = true;
			break;
		case 'd':
			debug_log = true;
			break;
		case 'h':
		default:
			fprintf(c == 'h' ? stdout : stderr,
				"Usage: %s [--list-subtests | --describe] [--run-subtest <pattern>] [--dynamic-subtest <pattern>] [--debug]\n",
				command_str);
			exit(c == 'h' ? IGT_EXIT_SUCCESS : IGT_EXIT_INVALID);
		}
	}

	if (describe_subtests && __igt_test_description)
		printf("%s\n\n", __igt_test_description);

	signal(SIGSEGV, crash_handler);
	signal(SIGBUS, crash_handler);
	signal(SIGFPE, crash_handler);
	signal(SIGABRT, crash_handler);
	signal(SIGPIPE, SIG_IGN);
}

void igt_subtest_init_parse_opts(int *argc, char **argv)
{
	common_init(argc, argv);
	if (!list_subtests)
		printf("IGT-Version: gembuf-igt-subset (%s)\n", command_str);
}

void igt_simple_init_parse_opts(int *argc, char **argv)
{
	simple_test = true;
	common_init(argc, argv);
}

bool __igt_fixture(void)
{
	if (list_subtests || skip_subtests_henceforth != CONT)
		return false;
	in_fixture = true;
	return true;
}

void __igt_fixture_complete(void)
{
	in_fixture = false;
}

void __igt_fixture_end(void)
{
	in_fixture = false;
	siglongjmp(igt_subtest_jmpbuf, 1);
}

void __igt_subtest_group_save(int *save, int *desc)
{
	*save = skip_subtests_henceforth;
	*desc = 0;
	if (pending_description) {
		free(pending_description);
		pending_description = NULL;
	}
}

void __igt_subtest_group_restore(int save, int desc)
{
	(void)desc;
	skip_subtests_henceforth = save;
}

bool __igt_run_subtest(const char *name, const char *file, int line)
{
	char *desc = pending_description;

	pending_description = NULL;
	if (!valid_name(name)) {
		fprintf(stderr, "Invalid subtest name \"%s\".\n", name);
		exit(IGT_EXIT_INVALID);
	}
	if (describe_subtests) {
		printf("SUB %s %s:%d:\n  %s\n\n", name, file, line,
		       desc ? desc : "NO DOCUMENTATION!");
		free(desc);
		return false;
	}
	free(desc);
	if (list_subtests) {
		printf("%s\n", name);
		return false;
	}
	if (!name_matches(run_single_subtest, name))
		return false;
	found_subtest = true;

	if (skip_subtests_henceforth != CONT) {
		printf("Subtest %s: %s\n", name,
		       skip_subtests_henceforth == SKIP ? "SKIP" : "FAIL");
		if (skip_subtests_henceforth == FAIL)
			failed_one = true;
		return false;
	}

	printf("Starting subtest: %s\n", name);
	in_subtest = strdup(name);
	clock_gettime(CLOCK_MONOTONIC, &subtest_time);
	return true;
}

bool __igt_enter_dynamic_container(void)
{
	dynamic_executed = 0;
	dynamic_failed_one = false;
	return true;
}

bool __igt_run_dynamic_subtest(const char *name)
{
	if (!in_subtest || dynamic_executed < 0 || in_dynamic) {
		fprintf(stderr, "igt_dynamic is only allowed inside igt_subtest_with_dynamic\n");
		exit(IGT_EXIT_ABORT);
	}
	if (!valid_name(name)) {
		fprintf(stderr, "Invalid dynamic subtest name \"%s\".\n", name);
		exit(IGT_EXIT_INVALID);
	}
	if (!name_matches(run_single_dynamic, name))
		return false;

	printf("Starting dynamic subtest: %s\n", name);
	in_dynamic = strdup(name);
	dynamic_executed++;
	clock_gettime(CLOCK_MONOTONIC, &dynamic_time);
	return true;
}

static void __attribute__((noreturn)) exit_subtest(const char *result)
{
	if (in_dynamic) {
		printf("Dynamic subtest %s: %s (%.3fs)\n", in_dynamic, result,
		       elapsed(&dynamic_time));
		free(in_dynamic);
		in_dynamic = NULL;
		siglongjmp(igt_dynamic_jmpbuf, 1);
	}
	printf("Subtest %s: %s (%.3fs)\n", in_subtest, result, elapsed(&subtest_time));
	free(in_subtest);
	in_subtest = NULL;
	dynamic_executed = -1;
	siglongjmp(igt_subtest_jmpbuf, 1);
}

void igt_success(void)
{
	if (in_subtest && !in_dynamic && dynamic_executed >= 0) {
		/* leaving a dynamic container: its result is its children's */
		if (dynamic_failed_one)
			igt_fail(IGT_EXIT_FAILURE);
		if (dynamic_executed == 0)
			igt_skip("No dynamic tests executed.\n");
	}
	if (!failed_one)
		succeeded_one = true;
	if (in_subtest)
		exit_subtest("SUCCESS");
}

void igt_fail(int exitcode)
{
	(void)exitcode;
	failed_one = true;
	if (in_dynamic)
		dynamic_failed_one = true;
	if (in_subtest)
		exit_subtest("FAIL");
	if (in_fixture) {
		skip_subtests_henceforth = FAIL;
		__igt_fixture_end();
	}
	if (!simple_test)
		fprintf(stderr, "igt_fail outside a fixture or subtest\n");
	igt_exit();
}

void igt_skip(const char *f, ...)
{
	va_list ap;

	if (f) {
		va_start(ap, f);
		vprintf(f, ap);
		va_end(ap);
	}
	if (in_subtest)
		exit_subtest("SKIP");
	if (in_fixture) {
		skip_subtests_henceforth = SKIP;
		__igt_fixture_end();
	}
	if (simple_test)
		exit(IGT_EXIT_SKIP);
	fprintf(stderr, "igt_skip outside a fixture or subtest\n");
	exit(IGT_EXIT_ABORT);
}

static void report_assert(const char *file, int line, const char *func,
			  const char *expr, const char *f, va_list ap)
{
	fprintf(stderr, "(%s:%d) CRITICAL: Test assertion failure in function %s, file %s:%d:\n",
		command_str, getpid(), func, file, line);
	fprintf(stderr, "(%s:%d) CRITICAL: Failed assertion: %s\n", command_str, getpid(), expr);
	if (f) {
		fprintf(stderr, "(%s:%d) CRITICAL: ", command_str, getpid());
		vfprintf(stderr, f, ap);
	}
	if (errno)
		fprintf(stderr, "(%s:%d) CRITICAL: Last errno: %d, %s\n",
			command_str, getpid(), errno, strerror(errno));
	fflush(stderr);
}

void __igt_fail_assert(const char *file, int line, const char *func,
		       const char *assertion, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	report_assert(file, line, func, assertion, f, ap);
	va_end(ap);
	igt_fail(IGT_EXIT_FAILURE);
}

void __igt_skip_check(const char *file, int line, const char *func,
		      const char *check, const char *f, ...)
{
	va_list ap;
	int err = errno;

	printf("Test requirement not met in function %s, file %s:%d:\n"
	       "Test requirement: %s\n", func, file, line, check);
	if (f) {
		va_start(ap, f);
		vprintf(f, ap);
		va_end(ap);
	}
	if (err)
		printf("Last errno: %d, %s\n", err, strerror(err));
	igt_skip(NULL);
}

void igt_exit(void)
{
	if (list_subtests)
		exit(IGT_EXIT_SUCCESS);
	if (run_single_subtest && !found_subtest) {
		fprintf(stderr, "Unknown subtest: %s\n", run_single_subtest);
		exit(IGT_EXIT_INVALID);
	}
	if (failed_one)
		exit(IGT_EXIT_FAILURE);
	if (simple_test)
		exit(IGT_EXIT_SUCCESS);
	exit(succeeded_one ? IGT_EXIT_SUCCESS : IGT_EXIT_SKIP);
}
