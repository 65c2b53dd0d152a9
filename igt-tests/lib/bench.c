// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void bench_row(const char *bench, int width, const char *name,
	       const double *v, unsigned int n, double scale, const char *unit)
{
	double *s = malloc(n * sizeof(*s));

	if (!s || !n) {
		free(s);
		return;
	}
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	printf("%s: %-*s %10.3f %10.3f %10.3f  %s\n", bench, width, name,
	       s[n / 2] * scale, s[0] * scale, s[n - 1] * scale, unit);
	free(s);
}

void bench_table_header(const char *bench, int width)
{
	printf("%s: %-*s %10s %10s %10s  %s\n", bench, width, "case", "median",
	       "min", "max", "unit");
}
