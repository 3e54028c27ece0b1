// SPDX-License-Identifier: GPL-2.0
/*
 * bench: the clock (CLOCK_MONOTONIC) and statistics over rounds.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench.h"

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ------------------------------------------------------------------------ */
/* Statistics over rounds */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Quantile q (0..1) of v[0..n), linear between the order statistics */
static double quantile(const double *v, int n, double q)
{
	double s[MAX_ROUNDS * 4 + 64], pos;
	int i;

	if (n <= 0)
		return 0;
	if (n > (int)(sizeof(s) / sizeof(s[0])))
		n = sizeof(s) / sizeof(s[0]);
	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	pos = q * (n - 1);
	i = (int)pos;
	if (i >= n - 1)
		return s[n - 1];
	return s[i] + (pos - i) * (s[i + 1] - s[i]);
}

double median(const double *v, int n)
{
	return quantile(v, n, 0.5);
}

/* Interquartile range relative to the median */
double rel_iqr(const double *v, int n)
{
	double m = median(v, n);

	return m ? (quantile(v, n, 0.75) - quantile(v, n, 0.25)) / m : 0;
}
