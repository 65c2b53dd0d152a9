/* SPDX-License-Identifier: MIT */
/*
 * The few functions of igt's lib/igt_kms.h the gembuf tests use, with
 * igt's names and semantics; the display itself is driven through
 * gembuf_kms.h rather than igt_display_t.
 */
#ifndef IGT_KMS_H
#define IGT_KMS_H

#include <stdint.h>
#include <xf86drmMode.h>

/* "A", "B", ... for CRTC index @pipe. */
const char *kmstest_pipe_name(int pipe);
/* The vblank count of CRTC @pipe now, after waiting @flags-style 0 vblanks. */
uint32_t kmstest_get_vblank(int fd, int pipe, unsigned int flags);
/* Wait for the next vblank of the CRTC of index @crtc_offset. */
void igt_wait_for_vblank(int drm_fd, int crtc_offset);
/* Wait for @count vblanks of the CRTC of index @crtc_offset. */
void igt_wait_for_vblank_count(int drm_fd, int crtc_offset, int count);
/* Set @connector's legacy DPMS property to @mode (DRM_MODE_DPMS_*). */
void kmstest_set_connector_dpms(int fd, drmModeConnector *connector, int mode);

#endif /* IGT_KMS_H */
