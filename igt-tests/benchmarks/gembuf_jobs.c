// SPDX-License-Identifier: MIT
/*
 * gembuf_jobs: job throughput of the gembuf DMA engine, in jobs per
 * second of 4 KiB fills, on one client and on four, and the cost of
 * submitting one, against a trivial ioctl on the same file as the anchor.
 *
 * A client is a file of the engine's render node (its own scheduler
 * entity) with one 4 KiB object of its own.  One client: this process
 * submits JOBS_1 DMA_FILLs of the whole object back to back, then waits
 * for the object with GEM_WAIT; the time runs from the first submission
 * to the wait's return.  Four clients: four forked processes, each on its
 * own file (opened, like the object, by the parent before the runs),
 * wait at a pipe barrier, then each submits JOBS_EACH fills and waits; the
 * time runs from the earliest first submission to the latest return of a
 * wait, and the rate counts all CLIENTS * JOBS_EACH jobs.  The two cases
 * alternate, REPS times each, after one warm-up fill per object (which
 * maps it for the engine: the first use of an object does, later ones
 * do not).
 *
 * The engine is QEMU's edu device, which completes each DMA command on a
 * 100 ms timer of the virtual clock (the guest's times are virtual:
 * -icount): a 4 KiB fill is three commands, loading the 2 KiB pattern and
 * writing it out twice, so no engine can run more than 3.33 such jobs a
 * second here; the table gives the measured rate as a ratio to that
 * bound.  Four clients share the one engine, which runs one job at a
 * time, so their rate over one client's shows what interleaving entities
 * costs, not parallelism.
 *
 * Submitting is timed on its own: each DMA_FILL ioctl, which returns once
 * the job is queued.  Its anchor is GEM_MMAP_OFFSET on the same file and
 * object (whose offset exists after the first), ANCHOR_CALLS times, timed
 * in the same run while the engine is still busy with the jobs just
 * submitted (checked), so both ioctls go through the same DRM dispatch,
 * handle lookup and copies with the same work in the background; a fill
 * does what GEM_MMAP_OFFSET does plus building, checking, locking and
 * queueing a job.
 *
 * Every run is checked: each fill writes a value of its own, and the
 * object must hold the last job's value in every word, read back through
 * a CPU mapping; a failed ioctl or wait, or a wrong word, fails the
 * benchmark.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "igt.h"
#include "bench.h"
#include "gembuf.h"

#define JOB_SIZE	4096
#define JOBS_1		8	/* jobs of the one client, per run */
#define CLIENTS		4
#define JOBS_EACH	4	/* jobs of each of the four clients, per run */
#define REPS		5
#define ANCHOR_CALLS	64
#define WAIT_NS		(60ll * 1000000000)

/* edu: one command per 100 ms; a fill loads the pattern, then 2 KiB pieces. */
#define EDU_CMD_S	0.1
#define EDU_XFER	2048
#define EDU_BOUND	(1 / (EDU_CMD_S * (1 + JOB_SIZE / EDU_XFER)))

struct client {
	int fd;
	uint32_t h;
};

/* What a forked client sends back. */
struct result {
	double first;	/* when its first submission started */
	double end;	/* when its wait returned */
	double submit;	/* seconds in DMA_FILL ioctls */
	int err;	/* -errno of the first failure, or 0 */
};

/* The value job @job of client @client writes in run @rep (0xff: warm-up). */
static uint32_t value_of(unsigned int client, unsigned int rep, unsigned int job)
{
	return 0x6a000000u | client << 16 | rep << 8 | job;
}

/* Mean seconds of one GEM_MMAP_OFFSET on @c's object. */
static double anchor(const struct client *c)
{
	double t0, t = 0;

	for (int i = 0; i < ANCHOR_CALLS; i++) {
		uint64_t offset;
		int ret;

		t0 = bench_now();
		ret = __gembuf_mmap_offset(c->fd, c->h, &offset);
		t += bench_now() - t0;
		igt_assert_eq(ret, 0);
	}
	return t / ANCHOR_CALLS;
}

/*
 * One client: jobs per second, mean seconds per submission and the
 * anchor's, of run @rep.
 */
static void run_one(const struct client *c, unsigned int client,
		    unsigned int rep, double *rate, double *submit, double *info)
{
	double first = 0, t0, t = 0;

	for (unsigned int j = 0; j < JOBS_1; j++) {
		int ret;

		t0 = bench_now();
		ret = __gembuf_fill(c->fd, c->h, 0, JOB_SIZE, value_of(client, rep, j));
		t += bench_now() - t0;
		igt_assert_eq(ret, 0);
		if (!j)
			first = t0;
	}
	*info = anchor(c);
	/* Still busy: the anchor ran beside the jobs and delayed no wait. */
	igt_assert_f(__gembuf_wait(c->fd, c->h, 0, 0) == -ETIME,
		     "the jobs were done before the anchor was\n");
	igt_assert_eq(__gembuf_wait(c->fd, c->h, 0, WAIT_NS), 0);
	*rate = JOBS_1 / (bench_now() - first);
	*submit = t / JOBS_1;
	gembuf_check_words(c->fd, c->h, JOB_SIZE, value_of(client, rep, JOBS_1 - 1));
}

/*
 * A forked client: waits for the barrier @go to close, submits its jobs,
 * waits for its object and writes a struct result to @out.  No igt
 * assertion in a forked child: the parent judges.
 */
static void __attribute__((noreturn))
client_main(const struct client *c, unsigned int client, unsigned int rep,
	    int go, int ready, int out)
{
	struct result r = { 0 };
	char b;

	if (write(ready, "r", 1) != 1 || read(go, &b, 1) != 0)
		_exit(2);
	for (unsigned int j = 0; j < JOBS_EACH && !r.err; j++) {
		double t0 = bench_now();

		r.err = __gembuf_fill(c->fd, c->h, 0, JOB_SIZE, value_of(client, rep, j));
		r.submit += bench_now() - t0;
		if (!j)
			r.first = t0;
	}
	if (!r.err)
		r.err = __gembuf_wait(c->fd, c->h, 0, WAIT_NS);
	r.end = bench_now();
	if (write(out, &r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(3);
	_exit(r.err ? 4 : 0);
}

/* Four clients: jobs per second and mean seconds per submission, of run @rep. */
static void run_four(const struct client *c, unsigned int rep, double *rate,
		     double *submit)
{
	int go[2], ready[2], out[2], status;
	double first = 0, end = 0, t = 0;
	pid_t pid[CLIENTS];
	struct result r;
	char b;

	igt_assert_eq(pipe(go), 0);
	igt_assert_eq(pipe(ready), 0);
	igt_assert_eq(pipe(out), 0);
	fflush(stdout);
	for (unsigned int i = 0; i < CLIENTS; i++) {
		pid[i] = fork();
		igt_assert(pid[i] >= 0);
		if (!pid[i]) {
			close(go[1]);
			client_main(&c[i], i, rep, go[0], ready[1], out[1]);
		}
	}
	close(ready[1]);
	close(out[1]);
	for (unsigned int i = 0; i < CLIENTS; i++)
		igt_assert_eq(read(ready[0], &b, 1), 1);
	close(go[1]);	/* all of them start */

	for (unsigned int i = 0; i < CLIENTS; i++) {
		igt_assert_eq(read(out[0], &r, sizeof(r)), (ssize_t)sizeof(r));
		igt_assert_f(!r.err, "a client failed: %s\n", strerror(-r.err));
		if (!i || r.first < first)
			first = r.first;
		if (r.end > end)
			end = r.end;
		t += r.submit;
	}
	for (unsigned int i = 0; i < CLIENTS; i++) {
		igt_assert_eq(waitpid(pid[i], &status, 0), pid[i]);
		igt_assert_f(WIFEXITED(status) && !WEXITSTATUS(status),
			     "client %u exited with status %#x\n", i, status);
	}
	close(go[0]);
	close(ready[0]);
	close(out[0]);

	*rate = CLIENTS * JOBS_EACH / (end - first);
	*submit = t / (CLIENTS * JOBS_EACH);
	for (unsigned int i = 0; i < CLIENTS; i++) {
		igt_assert_eq(__gembuf_wait(c[i].fd, c[i].h, 0, 0), 0);
		gembuf_check_words(c[i].fd, c[i].h, JOB_SIZE,
				   value_of(i, rep, JOBS_EACH - 1));
	}
}

static void row(const char *name, const double *v, double scale, const char *unit)
{
	bench_row("gembuf_jobs", 40, name, v, REPS, scale, unit);
}

igt_simple_main
{
	/* clients 0..CLIENTS-1 run together; client CLIENTS runs alone */
	struct client c[CLIENTS + 1];
	double rate1[REPS], rate4[REPS], sub1[REPS], sub4[REPS], info[REPS];
	double r41[REPS], r1b[REPS], rs1[REPS], rs4[REPS];
	char name[64];

	for (unsigned int i = 0; i <= CLIENTS; i++) {
		c[i].fd = gembuf_open_engine();
		c[i].h = gembuf_create(c[i].fd, JOB_SIZE, 0, GEMBUF_CACHE_WB);
	}
	/* Warm-up: every object mapped for the engine, every file used once. */
	for (unsigned int i = 0; i <= CLIENTS; i++)
		igt_assert_eq(__gembuf_fill(c[i].fd, c[i].h, 0, JOB_SIZE,
					    value_of(i, 0xff, 0)), 0);
	for (unsigned int i = 0; i <= CLIENTS; i++) {
		gembuf_wait(c[i].fd, c[i].h);
		gembuf_check_words(c[i].fd, c[i].h, JOB_SIZE, value_of(i, 0xff, 0));
	}

	for (unsigned int rep = 0; rep < REPS; rep++) {
		run_one(&c[CLIENTS], CLIENTS, rep, &rate1[rep], &sub1[rep], &info[rep]);
		run_four(c, rep, &rate4[rep], &sub4[rep]);
		r41[rep] = rate4[rep] / rate1[rep];
		r1b[rep] = rate1[rep] / EDU_BOUND;
		rs1[rep] = sub1[rep] / info[rep];
		rs4[rep] = sub4[rep] / info[rep];
	}

	printf("gembuf_jobs: %d KiB fills, %d runs per case; edu bound %.2f jobs/s (%d commands of %.0f ms per job)\n",
	       JOB_SIZE / 1024, REPS, EDU_BOUND, 1 + JOB_SIZE / EDU_XFER, EDU_CMD_S * 1e3);
	bench_table_header("gembuf_jobs", 40);
	snprintf(name, sizeof(name), "1 client, %d jobs", JOBS_1);
	row(name, rate1, 1, "jobs/s");
	snprintf(name, sizeof(name), "%d clients, %dx%d jobs", CLIENTS, CLIENTS, JOBS_EACH);
	row(name, rate4, 1, "jobs/s");
	snprintf(name, sizeof(name), "ratio %d clients / 1 client", CLIENTS);
	row(name, r41, 1, "x");
	row("ratio 1 client / edu bound", r1b, 1, "x");
	row("DMA_FILL submit, 1 client", sub1, 1e6, "us");
	snprintf(name, sizeof(name), "DMA_FILL submit, %d clients", CLIENTS);
	row(name, sub4, 1e6, "us");
	row("GEM_MMAP_OFFSET round trip (anchor)", info, 1e6, "us");
	row("ratio submit 1 client / GEM_MMAP_OFFSET", rs1, 1, "x");
	snprintf(name, sizeof(name), "ratio submit %d clients / GEM_MMAP_OFFSET", CLIENTS);
	row(name, rs4, 1, "x");

	for (unsigned int i = 0; i <= CLIENTS; i++) {
		gem_close(c[i].fd, c[i].h);
		drm_close_driver(c[i].fd);
	}
}
