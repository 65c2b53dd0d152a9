/* SPDX-License-Identifier: MIT */
/*
 * What the benchmarks of igt-tests/benchmarks share: the clock, and one
 * row of their table (median, minimum and maximum of the runs).
 */
#ifndef GEMBUF_BENCH_H
#define GEMBUF_BENCH_H

/* CLOCK_MONOTONIC in seconds (the guest's: virtual time). */
double bench_now(void);

/*
 * Print "<bench>: <name> median min max unit" for the @n runs in @v, each
 * multiplied by @scale; @width is the name column's.
 */
void bench_row(const char *bench, int width, const char *name,
	       const double *v, unsigned int n, double scale, const char *unit);

/* The table's column headings, aligned with bench_row()'s columns. */
void bench_table_header(const char *bench, int width);

#endif
