// SPDX-License-Identifier: MIT
/* See igt_kms.h. */
#include <string.h>
#include <xf86drm.h>

#include "igt.h"
#include "gembuf_kms.h"
#include "igt_kms.h"

const char *kmstest_pipe_name(int pipe)
{
	static const char *const names[] = { "A", "B", "C", "D", "E", "F", "G", "H" };

	return pipe >= 0 && pipe < 8 ? names[pipe] : "None";
}

static uint32_t wait_vblank(int fd, int pipe, int count, unsigned int flags)
{
	drmVBlank vbl = {};

	/* The high-CRTC field names every CRTC by index, 0 included. */
	vbl.request.type = DRM_VBLANK_RELATIVE | flags |
			   ((pipe << DRM_VBLANK_HIGH_CRTC_SHIFT) &
			    DRM_VBLANK_HIGH_CRTC_MASK);
	vbl.request.sequence = count;
	igt_assert_eq(drmWaitVBlank(fd, &vbl), 0);
	return vbl.reply.sequence;
}

uint32_t kmstest_get_vblank(int fd, int pipe, unsigned int flags)
{
	return wait_vblank(fd, pipe, 0, flags);
}

void igt_wait_for_vblank_count(int drm_fd, int crtc_offset, int count)
{
	wait_vblank(drm_fd, crtc_offset, count, 0);
}

void igt_wait_for_vblank(int drm_fd, int crtc_offset)
{
	igt_wait_for_vblank_count(drm_fd, crtc_offset, 1);
}

void kmstest_set_connector_dpms(int fd, drmModeConnector *connector, int mode)
{
	uint32_t prop = gk_prop(fd, connector->connector_id,
				DRM_MODE_OBJECT_CONNECTOR, "DPMS", NULL);

	igt_assert(prop);
	igt_assert_eq(drmModeConnectorSetProperty(fd, connector->connector_id,
						  prop, mode), 0);
}
