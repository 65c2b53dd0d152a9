/* SPDX-License-Identifier: MIT */
/*
 * The subset of igt's pipe CRC API (lib/igt_debugfs.h) the gembuf tests
 * use: the same names and semantics, reading the per-CRTC debugfs files
 * crtc-<n>/crc/{control,data} that every KMS driver with CRCs provides.
 */
#ifndef IGT_PIPE_CRC_H
#define IGT_PIPE_CRC_H

#include <stdbool.h>
#include <stdint.h>

#define DRM_MAX_CRC_NR		10
#define IGT_PIPE_CRC_SOURCE_AUTO "auto"

typedef struct {
	uint32_t frame;
	bool has_valid_frame;
	int n_words;
	uint32_t crc[DRM_MAX_CRC_NR];
} igt_crc_t;

typedef struct _igt_pipe_crc igt_pipe_crc_t;

igt_pipe_crc_t *igt_pipe_crc_new(int fd, int pipe, const char *source);
igt_pipe_crc_t *igt_pipe_crc_new_nonblock(int fd, int pipe, const char *source);
void igt_pipe_crc_free(igt_pipe_crc_t *pipe_crc);
void igt_pipe_crc_start(igt_pipe_crc_t *pipe_crc);
void igt_pipe_crc_stop(igt_pipe_crc_t *pipe_crc);
int igt_pipe_crc_get_crcs(igt_pipe_crc_t *pipe_crc, int n, igt_crc_t **out_crcs);
void igt_pipe_crc_get_single(igt_pipe_crc_t *pipe_crc, igt_crc_t *crc);
/* The first CRC of a frame after the current one (started collector). */
void igt_pipe_crc_get_current(int drm_fd, igt_pipe_crc_t *pipe_crc, igt_crc_t *crc);
void igt_pipe_crc_collect_crc(igt_pipe_crc_t *pipe_crc, igt_crc_t *out_crc);
bool igt_check_crc_equal(const igt_crc_t *a, const igt_crc_t *b);
void igt_assert_crc_equal(const igt_crc_t *a, const igt_crc_t *b);
char *igt_crc_to_string(const igt_crc_t *crc);

/* The debugfs directory of DRM fd @device, opened (igt_debugfs.h). */
int igt_debugfs_dir(int device);
/* Write @value to @attr under directory fd @dir; false on error (igt_sysfs.h). */
bool igt_sysfs_set(int dir, const char *attr, const char *value);

#endif /* IGT_PIPE_CRC_H */
