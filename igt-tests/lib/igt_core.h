/* SPDX-License-Identifier: MIT */
/*
 * A small subset of igt-gpu-tools' core test API (lib/igt_core.h), enough
 * for gembuf's tests to build unchanged here and inside igt's own tree.
 *
 * igt cannot be a build input on this project's machines (no arm64
 * package, no test binaries, source package not served), so this file
 * re-implements the public macros and their semantics:
 *
 *  - igt_main / igt_simple_main, igt_fixture, igt_subtest(_f),
 *    igt_subtest_group, igt_subtest_with_dynamic(_f), igt_dynamic(_f);
 *  - a failed igt_require in a fixture skips the subtests that follow
 *    (within the enclosing group), a failed igt_assert fails them;
 *  - --list-subtests, --run-subtest NAME (glob), --dynamic-subtest NAME,
 *    --describe, --debug;
 *  - "Starting subtest: N", "Subtest N: SUCCESS|FAIL|SKIP (Ts)" and the
 *    dynamic equivalents on stdout, igt's exit codes;
 *  - igt_install_exit_handler().
 *
 * Anything not listed is not provided: add it here, with igt's name and
 * behaviour, when a test needs it.
 */
#ifndef IGT_CORE_H
#define IGT_CORE_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <inttypes.h>

#define IGT_EXIT_SUCCESS 0
#define IGT_EXIT_SKIP    77
#define IGT_EXIT_TIMEOUT 78
#define IGT_EXIT_INVALID 79
#define IGT_EXIT_FAILURE 98
#define IGT_EXIT_ABORT   112

#define __igt_tokencat2(x, y) x ## y
#define igt_tokencat(x, y) __igt_tokencat2(x, y)

extern sigjmp_buf igt_subtest_jmpbuf;
extern sigjmp_buf igt_dynamic_jmpbuf;

void igt_subtest_init_parse_opts(int *argc, char **argv);
void igt_simple_init_parse_opts(int *argc, char **argv);

bool __igt_fixture(void);
void __igt_fixture_complete(void);
void __igt_fixture_end(void) __attribute__((noreturn));
bool __igt_run_subtest(const char *name, const char *file, int line);
bool __igt_enter_dynamic_container(void);
bool __igt_run_dynamic_subtest(const char *name);
void __igt_subtest_group_save(int *save, int *desc);
void __igt_subtest_group_restore(int save, int desc);

const char *igt_subtest_name(void);
const char *igt_test_name(void);
bool igt_only_list_subtests(void);

void igt_success(void);
void igt_fail(int exitcode) __attribute__((noreturn));
void igt_exit(void) __attribute__((noreturn));
void igt_skip(const char *f, ...)
	__attribute__((format(printf, 1, 2), noreturn));
void __igt_fail_assert(const char *file, int line, const char *func,
		       const char *assertion, const char *f, ...)
	__attribute__((format(printf, 5, 6), noreturn));
void __igt_skip_check(const char *file, int line, const char *func,
		      const char *check, const char *f, ...)
	__attribute__((format(printf, 5, 6), noreturn));
void igt_describe_f(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Exit handlers, as igt's: called in reverse order of installation when
 * the test process ends, whether it exits (after a failed subtest too)
 * or is killed by SIGINT, SIGHUP, SIGQUIT, SIGTERM or a crash signal;
 * @sig is the signal, 0 for an exit.  Each runs once; installing one
 * again does nothing.  A handler may run in a signal handler: keep it to
 * system calls.
 */
typedef void (*igt_exit_handler_t)(int sig);
void igt_install_exit_handler(igt_exit_handler_t fn);

#define igt_describe(dsc) igt_describe_f("%s", dsc)

#define IGT_TEST_DESCRIPTION(str) const char *__igt_test_description = str

#define igt_fixture \
	for (volatile int igt_tokencat(__tmpint, __LINE__) = 0; \
	     igt_tokencat(__tmpint, __LINE__) < 1 && __igt_fixture() && \
	     (sigsetjmp(igt_subtest_jmpbuf, 1) == 0); \
	     igt_tokencat(__tmpint, __LINE__)++, __igt_fixture_complete())

#define igt_subtest(name) \
	for (; __igt_run_subtest((name), __FILE__, __LINE__) && \
	       (sigsetjmp(igt_subtest_jmpbuf, 1) == 0); \
	       igt_success())

#define __igt_subtest_f(tmp, format...) \
	for (char tmp[256]; \
	     snprintf(tmp, sizeof(tmp), format), \
	     __igt_run_subtest(tmp, __FILE__, __LINE__) && \
	     (sigsetjmp(igt_subtest_jmpbuf, 1) == 0); \
	     igt_success())
#define igt_subtest_f(f...) __igt_subtest_f(igt_tokencat(__tmpchar, __LINE__), f)

#define igt_subtest_with_dynamic(name) \
	for (; __igt_run_subtest((name), __FILE__, __LINE__) && \
	       __igt_enter_dynamic_container() && \
	       (sigsetjmp(igt_subtest_jmpbuf, 1) == 0); \
	       igt_success())
#define __igt_subtest_with_dynamic_f(tmp, format...) \
	for (char tmp[256]; \
	     snprintf(tmp, sizeof(tmp), format), \
	     __igt_run_subtest(tmp, __FILE__, __LINE__) && \
	     __igt_enter_dynamic_container() && \
	     (sigsetjmp(igt_subtest_jmpbuf, 1) == 0); \
	     igt_success())
#define igt_subtest_with_dynamic_f(f...) \
	__igt_subtest_with_dynamic_f(igt_tokencat(__tmpchar, __LINE__), f)

#define igt_dynamic(name) \
	for (; __igt_run_dynamic_subtest((name)) && \
	       (sigsetjmp(igt_dynamic_jmpbuf, 1) == 0); \
	       igt_success())
#define __igt_dynamic_f(tmp, format...) \
	for (char tmp[256]; \
	     snprintf(tmp, sizeof(tmp), format), \
	     __igt_run_dynamic_subtest(tmp) && \
	     (sigsetjmp(igt_dynamic_jmpbuf, 1) == 0); \
	     igt_success())
#define igt_dynamic_f(f...) __igt_dynamic_f(igt_tokencat(__tmpchar, __LINE__), f)

#define igt_subtest_group \
	for (int igt_tokencat(__tmpint, __LINE__) = 0, \
	     igt_tokencat(__save, __LINE__) = 0, \
	     igt_tokencat(__desc, __LINE__) = 0; \
	     igt_tokencat(__tmpint, __LINE__) < 1 && \
	     (__igt_subtest_group_save(&igt_tokencat(__save, __LINE__), \
				       &igt_tokencat(__desc, __LINE__)), true); \
	     igt_tokencat(__tmpint, __LINE__)++, \
	     __igt_subtest_group_restore(igt_tokencat(__save, __LINE__), \
					 igt_tokencat(__desc, __LINE__)))

#define igt_main \
	static void igt_tokencat(__real_main, __LINE__)(void); \
	int main(int argc, char **argv) \
	{ \
		igt_subtest_init_parse_opts(&argc, argv); \
		igt_tokencat(__real_main, __LINE__)(); \
		igt_exit(); \
	} \
	static void igt_tokencat(__real_main, __LINE__)(void)

#define igt_simple_main \
	static void igt_tokencat(__real_main, __LINE__)(void); \
	int main(int argc, char **argv) \
	{ \
		igt_simple_init_parse_opts(&argc, argv); \
		igt_tokencat(__real_main, __LINE__)(); \
		igt_exit(); \
	} \
	static void igt_tokencat(__real_main, __LINE__)(void)

/* Assertions: fail the current (dynamic) subtest, fixture or simple test. */
#define igt_assert(expr) \
	do { if (!(expr)) \
		__igt_fail_assert(__FILE__, __LINE__, __func__, #expr, NULL); \
	} while (0)
#define igt_assert_f(expr, f...) \
	do { if (!(expr)) \
		__igt_fail_assert(__FILE__, __LINE__, __func__, #expr, f); \
	} while (0)
#define igt_fail_on(expr) igt_assert(!(expr))
#define igt_fail_on_f(expr, f...) igt_assert_f(!(expr), f)

#define __igt_assert_cmp(type, fmt, n1, cmp, ncmp, n2) \
	do { \
		type __n1 = (n1), __n2 = (n2); \
		if (!(__n1 cmp __n2)) \
			__igt_fail_assert(__FILE__, __LINE__, __func__, \
					  #n1 " " #cmp " " #n2, \
					  "error: " fmt " " #ncmp " " fmt "\n", \
					  __n1, __n2); \
	} while (0)
#define igt_assert_cmpint(n1, cmp, ncmp, n2) \
	__igt_assert_cmp(int, "%d", n1, cmp, ncmp, n2)
#define igt_assert_cmpuint(n1, cmp, ncmp, n2) \
	__igt_assert_cmp(uint32_t, "%#x", n1, cmp, ncmp, n2)
#define igt_assert_cmps64(n1, cmp, ncmp, n2) \
	__igt_assert_cmp(int64_t, "%" PRId64, n1, cmp, ncmp, n2)
#define igt_assert_cmpu64(n1, cmp, ncmp, n2) \
	__igt_assert_cmp(uint64_t, "%#" PRIx64, n1, cmp, ncmp, n2)
#define igt_assert_eq(n1, n2) igt_assert_cmpint(n1, ==, !=, n2)
#define igt_assert_eq_u32(n1, n2) igt_assert_cmpuint(n1, ==, !=, n2)
#define igt_assert_eq_u64(n1, n2) igt_assert_cmpu64(n1, ==, !=, n2)
#define igt_assert_neq(n1, n2) igt_assert_cmpint(n1, !=, ==, n2)
#define igt_assert_neq_u32(n1, n2) igt_assert_cmpuint(n1, !=, ==, n2)
#define igt_assert_neq_u64(n1, n2) igt_assert_cmpu64(n1, !=, ==, n2)
#define igt_assert_lt(n1, n2) igt_assert_cmpint(n1, <, >=, n2)
#define igt_assert_lte(n1, n2) igt_assert_cmpint(n1, <=, >, n2)
#define igt_assert_lte_u64(n1, n2) igt_assert_cmpu64(n1, <=, >, n2)
#define igt_assert_fd(fd) \
	igt_assert_f((fd) >= 0, "file descriptor " #fd " failed\n")

/* Requirements: skip the current subtest, or what follows a fixture. */
#define igt_require(expr) \
	do { if (!(expr)) \
		__igt_skip_check(__FILE__, __LINE__, __func__, #expr, NULL); \
	} while (0)
#define igt_require_f(expr, f...) \
	do { if (!(expr)) \
		__igt_skip_check(__FILE__, __LINE__, __func__, #expr, f); \
	} while (0)
#define igt_skip_on(expr) \
	do { if ((expr)) \
		__igt_skip_check(__FILE__, __LINE__, __func__, "!(" #expr ")", NULL); \
	} while (0)
#define igt_skip_on_f(expr, f...) \
	do { if ((expr)) \
		__igt_skip_check(__FILE__, __LINE__, __func__, "!(" #expr ")", f); \
	} while (0)

/* Logging, as igt_log() with its levels. */
enum igt_log_level {
	IGT_LOG_DEBUG,
	IGT_LOG_INFO,
	IGT_LOG_WARN,
	IGT_LOG_CRITICAL,
	IGT_LOG_NONE,
};

void igt_log(const char *domain, enum igt_log_level level, const char *format, ...)
	__attribute__((format(printf, 3, 4)));
#define igt_debug(f...) igt_log(NULL, IGT_LOG_DEBUG, f)
#define igt_info(f...) igt_log(NULL, IGT_LOG_INFO, f)
#define igt_warn(f...) igt_log(NULL, IGT_LOG_WARN, f)
#define igt_critical(f...) igt_log(NULL, IGT_LOG_CRITICAL, f)

#define igt_warn_on(cond) \
	({ bool __c = (cond); \
	   if (__c) igt_warn("Warning on condition %s in function %s, file %s:%i\n", \
			     #cond, __func__, __FILE__, __LINE__); \
	   __c; })

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* IGT_CORE_H */
