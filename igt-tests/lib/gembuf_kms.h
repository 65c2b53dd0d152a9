/* SPDX-License-Identifier: MIT */
/*
 * A small atomic KMS client for gembuf's display: one CRTC (a pipe), the
 * planes that may go on it, its virtual connector and its writeback
 * connector.  Tests and the demo
 * build a frame from plane descriptions, commit it with a writeback
 * framebuffer and read the composed pixels back.  It drives other KMS
 * drivers with one CRTC and writeback too (vkms, for the benchmark):
 * framebuffers are dumb buffers there, and properties a driver lacks
 * are left out of the commits.
 */
#ifndef GEMBUF_KMS_H
#define GEMBUF_KMS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#define GK_MAX_PLANES	8

struct gk_fb {
	uint32_t handle, fb_id, format, width, height, pitch;
	uint64_t size;
	void *map;
};

struct gk_plane {
	uint32_t id, type;
	uint32_t zpos_prop, alpha_prop, blend_prop, rotation_prop;
	uint32_t colorkey_prop, colorkey_mask_prop;
	uint32_t encoding_prop, range_prop;
	uint32_t in_fence_prop;
};

struct gk_layer {
	const struct gk_fb *fb;		/* NULL: plane disabled */
	int x, y;			/* destination position */
	uint32_t w, h;			/* destination size, 0: source size */
	uint32_t sx, sy, sw, sh;	/* source rectangle in pixels, 0: whole */
	int zpos;			/* -1: leave as is */
	uint16_t alpha;			/* 0xffff opaque */
	int blend;			/* -1: default; 0 premulti, 1 coverage, 2 none */
	uint64_t rotation;		/* 0: DRM_MODE_ROTATE_0 */
	uint32_t colorkey, colorkey_mask;
	int encoding, range;		/* DRM_COLOR_YCBCR_*; 0: BT.601, limited */
};

struct gk {
	int fd;
	unsigned int pipe;		/* index of the CRTC */
	uint32_t crtc_id, conn_id, wb_id, mode_blob;
	drmModeModeInfo mode;
	struct gk_plane planes[GK_MAX_PLANES];
	unsigned int num_planes;
	uint32_t crtc_active, crtc_mode_id, conn_crtc_id, wb_crtc_id;
	uint32_t wb_fb_prop, wb_fence_prop;
	uint32_t p_fb, p_crtc, p_sx, p_sy, p_sw, p_sh, p_cx, p_cy, p_cw, p_ch;
	bool wb_only;		/* drive the CRTC with the writeback connector alone */
	uint32_t crtc_gamma_prop, gamma_blob;	/* GAMMA_LUT; blob 0: none */
	struct drm_color_lut gamma[256];	/* the LUT of gamma_blob */
	uint64_t wb_signal_ns;	/* CLOCK_MONOTONIC the last writeback fence signalled at */
};

/* Id of property @name of @obj (0 if it has none), its value in *@val. */
uint32_t gk_prop(int fd, uint32_t obj, uint32_t type, const char *name,
		 uint64_t *val);
/* gk_init_pipe() on pipe 0. */
void gk_init(struct gk *k, int fd);
/* Drive the CRTC of index @pipe, with the planes and connectors it may use. */
void gk_init_pipe(struct gk *k, int fd, unsigned int pipe);
bool gk_set_mode(struct gk *k, uint16_t width, uint16_t height);
/* Commit @mode, which need not be one of the connector's, from now on. */
void gk_set_mode_info(struct gk *k, const drmModeModeInfo *mode);
/*
 * @mode's timings with the pixel clock that gives @hz frames a second
 * (to the kHz): slow frames make vblank counts that no commit's own cost
 * in the guest can shift.
 */
drmModeModeInfo gk_mode_at_hz(const drmModeModeInfo *mode, unsigned int hz);
void gk_fb_create(struct gk *k, struct gk_fb *fb, uint32_t width, uint32_t height,
		  uint32_t format);
void gk_fb_from_handle(struct gk *k, struct gk_fb *fb, uint32_t handle,
		       uint32_t width, uint32_t height, uint32_t format,
		       uint32_t pitch, uint32_t offset1, uint32_t pitch1);
/* Whether @format is one of the YCbCr formats gk_fb_create() lays out. */
bool gk_format_is_yuv(uint32_t format);
/* Every 32-bit word of @fb's buffer set to @v. */
void gk_fb_fill(const struct gk_fb *fb, uint32_t v);
void gk_fb_destroy(struct gk *k, struct gk_fb *fb);
/*
 * Commit @layers on the first planes with @wb (NULL: none) as writeback
 * target and wait for the writeback; 0 or -errno of the commit.
 */
int gk_commit(struct gk *k, const struct gk_layer *layers, unsigned int n,
	      const struct gk_fb *wb, uint32_t flags);
/*
 * gk_commit() in two halves: the commit, whose writeback out-fence goes
 * to *@fence (-1 without @wb or for TEST_ONLY), and the wait for it.
 * With DRM_MODE_ATOMIC_NONBLOCK the frame is in flight between the two:
 * its framebuffers are prepared (mapped by the display) and the
 * writeback job holds its buffer until the writeback completes, which
 * may be before gk_commit_finish() is called (gk_flip_start() can hold
 * the frame back).  Every commit gets DRM_MODE_ATOMIC_ALLOW_MODESET.
 */
int gk_commit_start(struct gk *k, const struct gk_layer *layers, unsigned int n,
		    const struct gk_fb *wb, uint32_t flags, int *fence);
/*
 * gk_commit_start() with @flags as they are: no ALLOW_MODESET unless
 * @flags has it, so that a commit that would need a modeset is refused
 * rather than done.  With @in_fence >= 0 (a sync_file, which the caller
 * keeps and closes), the plane of @layers[@fenced] gets it as
 * IN_FENCE_FD: a nonblocking commit then takes effect only once it
 * signals, and until then its framebuffers and its writeback job stay
 * prepared.  The fence replaces that plane's implicit fences (DRM's
 * rule for explicit fencing): put it on a plane no device writes.
 */
int gk_flip_start(struct gk *k, const struct gk_layer *layers, unsigned int n,
		  const struct gk_fb *wb, uint32_t flags, unsigned int fenced,
		  int in_fence, int *fence);
void gk_commit_finish(struct gk *k, int fence);
/*
 * Add to @req the writeback connector of @k on its CRTC, into framebuffer
 * @fb_id, with its out-fence into *@fence.
 */
void gk_req_writeback(const struct gk *k, drmModeAtomicReqPtr req, uint32_t fb_id,
		      int32_t *fence);
/*
 * The sequence of the next event read from @fd, which must be a page
 * flip's; its timestamp in microseconds in *@us unless @us is NULL.
 */
unsigned int gk_read_flip(int fd, uint64_t *us);
/*
 * Read every event already queued on @fd and return how many there were.
 * A subtest that failed with a flip in flight leaves its event behind:
 * the next one starts with a blocking commit (which waits for that flip)
 * and then this.
 */
int gk_drain_events(int fd);

/* What a child moving a cursor shares with the test (see gk_mover_start()). */
#define GK_MOVE_SAMPLES 4096

struct gk_mover {
	pid_t pid;
	volatile int stop;
	volatile int expired;	/* the child stopped at its bound, untold */
	volatile unsigned long moves, errors;
	volatile uint64_t max_ns;
	volatile uint32_t us[GK_MOVE_SAMPLES];	/* the first moves' times */
};

/*
 * Fork a child that moves the cursor of @crtc_id on @fd with the legacy
 * ioctl between @at[0] and @at[1], without pause, timing each move, until
 * gk_mover_stop().  Bounded (30 s), killed by the next gk_mover_start()
 * or gk_mover_reap() and by an exit handler: a subtest that failed with
 * its mover running leaves it to a fixture after it to reap.
 */
struct gk_mover *gk_mover_start(int fd, uint32_t crtc_id, const int at[2][2]);
/* Kill and reap a mover that a failed subtest left running, if any. */
void gk_mover_reap(void);
/*
 * Stop @m's child and assert that it exited, that it was still moving
 * (it did not reach its bound) and that no move failed.
 */
void gk_mover_stop(struct gk_mover *m);
/* The median time of the moves @m sampled, in nanoseconds. */
uint64_t gk_mover_median_ns(struct gk_mover *m);
void gk_mover_free(struct gk_mover *m);
/* Every plane, the connectors and the CRTC off; __gk_disable() returns -errno. */
int __gk_disable(struct gk *k);
/* The same with DRM_MODE_ATOMIC_* @flags (NONBLOCK, PAGE_FLIP_EVENT). */
int __gk_disable_flags(struct gk *k, uint32_t flags);
void gk_disable(struct gk *k);
/* Commit @lut (256 entries) as the CRTC's GAMMA_LUT from now on; NULL: none. */
void gk_set_gamma(struct gk *k, const struct drm_color_lut *lut);
/*
 * A layer of all of @fb at 0,0, its own size, opaque, with zpos and blend
 * mode left as they are: what most commits put on a plane.
 */
struct gk_layer gk_layer_of(const struct gk_fb *fb);
/* The number of CRTCs of @fd; 0 without KMS. */
int gk_num_pipes(int fd);
const struct gk_plane *gk_plane(const struct gk *k, uint32_t type, unsigned int idx);

#endif /* GEMBUF_KMS_H */
