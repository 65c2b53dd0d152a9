// SPDX-License-Identifier: MIT
/*
 * kms_setmode: upstream igt's kms_setmode contract for CRTC and connector
 * combinations, with its subtest names, through the legacy SETCRTC ioctl
 * upstream uses.  Every connector an encoder says a CRTC can drive
 * (possible_crtcs) must light on that CRTC, alone; two connectors whose
 * encoders are not each other's clones (possible_clones) must be refused
 * on one CRTC, also right after each of them was lit alone on it
 * ("stealing" the connector from its previous CRTC).
 *
 * Upstream's basic also times 120 vblanks against the mode; here each
 * combination must deliver vblanks.  Upstream's basic-clone-single-crtc
 * and *-exclusive-crtc need connectors that are clones of each other,
 * which gembuf does not have (upstream skips them on it), so they are
 * left out rather than skipped.
 */
#include <errno.h>
#include <string.h>
#include <drm_fourcc.h>

#include "igt.h"
#include "gembuf.h"
#include "gembuf_kms.h"
#include "igt_kms.h"

IGT_TEST_DESCRIPTION("Tests the mode by iterating through all valid/invalid crtc/connector combinations");

#define MAX_CONNECTORS	8

static int fd = -1;
static drmModeResPtr res;
static uint32_t conns[MAX_CONNECTORS];
static drmModeModeInfo modes[MAX_CONNECTORS];
static uint32_t possible_crtcs[MAX_CONNECTORS], encoders[MAX_CONNECTORS];
static int num_conns;
static struct gk k;
static struct gk_fb fb;

/* Every connector a legacy client sees, with its encoder and first mode. */
static void find_connectors(void)
{
	for (int i = 0; i < res->count_connectors && num_conns < MAX_CONNECTORS; i++) {
		drmModeConnectorPtr c = drmModeGetConnector(fd, res->connectors[i]);
		drmModeEncoderPtr e;

		igt_assert(c);
		igt_assert_eq(c->count_encoders, 1);
		e = drmModeGetEncoder(fd, c->encoders[0]);
		igt_assert(e && c->count_modes > 0);
		conns[num_conns] = c->connector_id;
		encoders[num_conns] = e->encoder_id;
		possible_crtcs[num_conns] = e->possible_crtcs;
		modes[num_conns] = c->modes[0];
		for (int m = 0; m < c->count_modes; m++)
			if (c->modes[m].type & DRM_MODE_TYPE_PREFERRED)
				modes[num_conns] = c->modes[m];
		num_conns++;
		drmModeFreeEncoder(e);
		drmModeFreeConnector(c);
	}
}

static bool clones(int a, int b)
{
	drmModeEncoderPtr e = drmModeGetEncoder(fd, encoders[a]);
	bool ok = true;

	igt_assert(e);
	for (int i = 0; i < res->count_encoders; i++)
		if (res->encoders[i] == encoders[b])
			ok = e->possible_clones & (1u << i);
	drmModeFreeEncoder(e);
	return ok;
}

static int set_crtc(int crtc, const uint32_t *ids, int n, const drmModeModeInfo *m)
{
	return drmModeSetCrtc(fd, res->crtcs[crtc], fb.fb_id, 0, 0,
			      (uint32_t *)ids, n, (drmModeModeInfo *)m);
}

static void unset_all(void)
{
	for (int c = 0; c < res->count_crtcs; c++)
		igt_assert_eq(drmModeSetCrtc(fd, res->crtcs[c], 0, 0, 0, NULL, 0, NULL), 0);
}

/* Connectors @i and @j together on @crtc, in @i's mode. */
static int set_pair(int crtc, int i, int j)
{
	uint32_t ids[2] = { conns[i], conns[j] };

	return set_crtc(crtc, ids, 2, &modes[i]);
}

/*
 * Call @fn for every CRTC and every pair of connectors i < j that are
 * not each other's clones; returns how many it tried.
 */
static int for_each_non_clone_pair(void (*fn)(int crtc, int i, int j))
{
	int tried = 0;

	for (int c = 0; c < res->count_crtcs; c++) {
		for (int i = 0; i < num_conns; i++) {
			for (int j = i + 1; j < num_conns; j++) {
				if (clones(i, j) && clones(j, i))
					continue;
				fn(c, i, j);
				tried++;
			}
		}
	}
	return tried;
}

static void refuse_pair(int crtc, int i, int j)
{
	igt_assert_eq(set_pair(crtc, i, j), -EINVAL);
}

/*
 * @i alone on @crtc, then @j, taken from another CRTC where it can be lit
 * first: after each, the pair is refused on @crtc.
 */
static void refuse_pair_stealing(int crtc, int i, int j)
{
	/* Each connector on another CRTC first, when it can be. */
	for (int other = 0; other < res->count_crtcs; other++) {
		if (other == crtc || !(possible_crtcs[j] & (1u << other)))
			continue;
		igt_assert_eq(set_crtc(other, &conns[j], 1, &modes[j]), 0);
		break;
	}
	igt_assert_eq(set_crtc(crtc, &conns[i], 1, &modes[i]), 0);
	igt_assert_eq(set_pair(crtc, i, j), -EINVAL);
	igt_assert_eq(set_crtc(crtc, &conns[j], 1, &modes[j]), 0);
	igt_assert_eq(set_pair(crtc, i, j), -EINVAL);
	unset_all();
}

static void lit(int crtc, int conn)
{
	uint32_t seq;

	igt_assert_eq(set_crtc(crtc, &conns[conn], 1, &modes[conn]), 0);
	seq = kmstest_get_vblank(fd, crtc, 0);
	igt_wait_for_vblank_count(fd, crtc, 2);
	igt_assert_lte(2, (int)(kmstest_get_vblank(fd, crtc, 0) - seq));
}

igt_main
{
	igt_fixture {
		fd = drm_open_driver_master(DRIVER_ANY);
		igt_require(gk_num_pipes(fd) > 0);
		gk_init(&k, fd);
		gk_fb_create(&k, &fb, 1920, 1080, DRM_FORMAT_XRGB8888);
		/* What a legacy client sees: no writeback connectors. */
		igt_assert_eq(drmSetClientCap(fd, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 0), 0);
		res = drmModeGetResources(fd);
		igt_assert(res);
		find_connectors();
		igt_assert_lt(1, num_conns);
	}

	igt_describe("Every connector lights on every CRTC its encoder names in possible_crtcs, and vblanks arrive.");
	igt_subtest_with_dynamic("basic") {
		for (int c = 0; c < res->count_crtcs; c++) {
			for (int i = 0; i < num_conns; i++) {
				if (!(possible_crtcs[i] & (1u << c)))
					continue;
				igt_dynamic_f("pipe-%s-connector-%u", kmstest_pipe_name(c), conns[i]) {
					lit(c, i);
					unset_all();
				}
			}
		}
	}

	igt_describe("Two connectors that are not clones are refused on one CRTC.");
	igt_subtest("invalid-clone-single-crtc") {
		int tried = for_each_non_clone_pair(refuse_pair);

		igt_assert_lt(0, tried);
		unset_all();
	}

	igt_describe("Each of two connectors that are not clones lights on a CRTC alone, taking it from wherever it was; both at once are refused.");
	igt_subtest("invalid-clone-single-crtc-stealing") {
		int tried = for_each_non_clone_pair(refuse_pair_stealing);

		igt_assert_lt(0, tried);
	}

	igt_fixture {
		unset_all();
		gk_fb_destroy(&k, &fb);
		drmModeFreeResources(res);
		drm_close_driver(fd);
	}
}
