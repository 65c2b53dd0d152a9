/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gembuf KMS: the display's CRTC, planes, connectors and composer.
 *
 * The display has GEMBUF_NUM_CRTCS outputs, each a CRTC with its own
 * primary plane, GEMBUF_NUM_OVERLAYS overlay planes and cursor, a
 * virtual connector and a writeback connector.  Planes read their
 * framebuffers in place: each framebuffer object is mapped for the
 * display (its VCM) when the framebuffer is prepared, and the composer
 * reads it through the kernel mapping each commit's plane state holds
 * (struct drm_shadow_plane_state).  The composer blends the planes into
 * an ARGB16161616 line buffer per output line (a line of XRGB8888 words
 * while only opaque 32-bit RGB planes lie on it) and writes the frame to
 * the writeback framebuffer and to the CRC.
 */
#ifndef _GEMBUF_KMS_H_
#define _GEMBUF_KMS_H_

#include <drm/drm_atomic.h>
#include <drm/drm_crtc.h>
#include <drm/drm_encoder.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_gem_atomic_helper.h>
#include <drm/drm_plane.h>
#include <drm/drm_writeback.h>
#include <linux/hrtimer.h>
#include <linux/init.h>
#include <linux/iosys-map.h>
#include <linux/refcount.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "gembuf_drv.h"
#include "gembuf_simd.h"

/* Framebuffers, and so plane sources, go down to one pixel. */
#define GEMBUF_XRES_MIN		1
#define GEMBUF_YRES_MIN		1
#define GEMBUF_XRES_MAX		1920
#define GEMBUF_YRES_MAX		1080
#define GEMBUF_XRES_DEF		1024
#define GEMBUF_YRES_DEF		768
#define GEMBUF_NUM_CRTCS	2
#define GEMBUF_NUM_OVERLAYS	3
#define GEMBUF_CURSOR_SIZE	512
#define GEMBUF_MAX_PLANES	(GEMBUF_NUM_OVERLAYS + 2)
#define GEMBUF_LUT_SIZE		256
/* The highest pixel clock, in kHz, a CRTC accepts (mode_valid). */
#define GEMBUF_MAX_DOTCLOCK	600000

struct gembuf_object;
struct gembuf_mapping;
struct gembuf_output;

/**
 * struct gembuf_pixel - one pixel on the composer's way, 16 bits a channel
 * @a: alpha
 * @r: red
 * @g: green
 * @b: blue
 */
struct gembuf_pixel {
	u16 a, r, g, b;
};

/* The SIMD loops (gembuf_simd.h) take a pixel as these four u16. */
static_assert(sizeof(struct gembuf_pixel) == 4 * sizeof(u16) &&
	      offsetof(struct gembuf_pixel, b) == 3 * sizeof(u16));

/**
 * typedef gembuf_read_fn - read a run of pixels of one framebuffer line
 * @planes: the kernel addresses of the framebuffer's planes
 * @fb: the framebuffer
 * @y: line in the framebuffer
 * @xs: column in the framebuffer of each pixel wanted, or NULL
 * @x0: without @xs, the first of @n consecutive columns
 * @n: number of pixels, at least one
 * @state: the plane state, for the YCbCr encoding and range
 * @out: the @n pixels, alpha not premultiplied
 * @simd: the caller holds kernel-mode NEON (gembuf_simd_begin() returned
 *	true): a reader that has a SIMD loop may run it
 *
 * @x0 is ignored when @xs is given.
 */
typedef void (*gembuf_read_fn)(void *const planes[DRM_FORMAT_MAX_PLANES],
			       const struct drm_framebuffer *fb, int y,
			       const int *xs, int x0, int n,
			       const struct drm_plane_state *state,
			       struct gembuf_pixel *out, bool simd);

/**
 * struct gembuf_yuv_lut - the terms of YCbCr to RGB for every 8-bit value
 * @y: luma, scaled from the range, in 16.16
 * @r: Cr's part of red
 * @gu: Cb's part of green, subtracted
 * @gv: Cr's part of green, subtracted
 * @b: Cb's part of blue
 * @arith: the same terms as the SIMD loops work them out
 *
 * One for each COLOR_ENCODING and COLOR_RANGE, made when the module
 * loads (gembuf_formats_init()), found with gembuf_yuv_lut().
 */
struct gembuf_yuv_lut {
	s32 y[256];
	s32 r[256];
	s32 gu[256];
	s32 gv[256];
	s32 b[256];
	struct gembuf_yuv_arith arith;
};

/**
 * typedef gembuf_words_fn - read a run of opaque pixels as XRGB8888 words
 * @planes: the kernel addresses of the framebuffer's planes
 * @fb: the framebuffer
 * @y: line in the framebuffer
 * @xs: column in the framebuffer of each pixel wanted, or NULL
 * @x0: without @xs, the first of @n consecutive columns
 * @n: number of pixels, at least one
 * @lut: for a YCbCr format, gembuf_yuv_lut() of the plane state
 * @out: the @n pixels, little-endian, X 0: each channel the 8 high bits
 *	of the format's gembuf_read_fn's
 * @simd: as for gembuf_read_fn
 */
typedef void (*gembuf_words_fn)(void *const planes[DRM_FORMAT_MAX_PLANES],
				const struct drm_framebuffer *fb, int y,
				const int *xs, int x0, int n,
				const struct gembuf_yuv_lut *lut, __le32 *out,
				bool simd);

/**
 * struct gembuf_plane_state - plane state with what composition needs
 * @base: the shadow-plane state, first: the DRM plane state, and the
 *	kernel mapping of the framebuffer (&drm_shadow_plane_state.map and
 *	.data), set by begin_fb_access for the commit
 * @maps: the display's mapping of each framebuffer object (prepare_fb):
 *	the object placed for the display, in its VCM
 * @vmapped: begin_fb_access mapped the framebuffer with the shadow-plane
 *	helper, the display's mappings having no kernel address
 *	(display_dma); else @base's mapping is the display's own
 * @vaddr: &drm_shadow_plane_state.data of each framebuffer plane (object
 *	+ offset) as the plain pointers the readers take, set with them
 * @cpu_access: atomic_update, in the commit tail, began the CPU access
 *	to the framebuffer (drm_gem_fb_begin_cpu_access(): the exporter's,
 *	for a foreign buffer); the composer reads the plane only if set,
 *	and end_fb_access ends the access only if set
 * @read: the pixel reader of the framebuffer's format
 * @colorkey: XRGB8888 color made transparent, where @colorkey_mask says
 * @colorkey_mask: bits of the color compared; 0 disables the key
 */
struct gembuf_plane_state {
	struct drm_shadow_plane_state base;
	struct gembuf_mapping *maps[DRM_FORMAT_MAX_PLANES];
	bool vmapped;
	void *vaddr[DRM_FORMAT_MAX_PLANES];
	bool cpu_access;
	gembuf_read_fn read;
	u32 colorkey;
	u32 colorkey_mask;
};

#define to_gembuf_plane_state(s) \
	container_of(s, struct gembuf_plane_state, base.base)

/**
 * struct gembuf_plane - a gembuf plane
 * @base: the DRM plane
 * @out: the output whose CRTC is the only one in its possible_crtcs
 */
struct gembuf_plane {
	struct drm_plane base;
	struct gembuf_output *out;
};

#define to_gembuf_plane(p) container_of(p, struct gembuf_plane, base)

/* The lines of a transposed plane gathered together, four words a read. */
#define GEMBUF_TILE_LINES	4

/**
 * struct gembuf_lines - the composer's line buffers for one frame width
 * @ref: a reference for each CRTC state holding them: states of one
 *	width share them, as one output composes one frame at a time
 * @width: the frame width they are for
 * @line: a line as composer pixels
 * @px: a plane's line as its reader gives it
 * @words: a line as little-endian XRGB8888 words, 8-byte aligned
 * @xs: the source columns of each of %GEMBUF_MAX_PLANES planes, @width
 *	each
 * @gather: the gathered words of each plane, %GEMBUF_TILE_LINES lines of
 *	@width each (after @xs, in its allocation)
 * @pick: the picking table of each plane, @width / %GEMBUF_SIMD_PIXELS
 *	entries each
 *
 * Allocated by the CRTC's atomic_check, in the committing task, so that
 * the composer, which signals the writeback out-fence, allocates nothing.
 */
struct gembuf_lines {
	refcount_t ref;
	int width;
	struct gembuf_pixel *line;
	struct gembuf_pixel *px;
	__le32 *words;
	int *xs;
	__le32 *gather;
	struct gembuf_pick *pick;
};

/**
 * struct gembuf_wb_job - what a writeback job holds of its framebuffer
 * @fb: the framebuffer
 * @maps: the display's mapping of its objects
 * @map: their kernel mapping: the display's own, or drm_gem_fb_vmap()'s
 *	if @vmapped
 * @data: the kernel address of each framebuffer plane
 * @vmapped: @map is drm_gem_fb_vmap()'s (display_dma)
 */
struct gembuf_wb_job {
	struct drm_framebuffer *fb;
	struct gembuf_mapping *maps[DRM_FORMAT_MAX_PLANES];
	struct iosys_map map[DRM_FORMAT_MAX_PLANES];
	struct iosys_map data[DRM_FORMAT_MAX_PLANES];
	bool vmapped;
};

/**
 * struct gembuf_crtc_state - CRTC state with the planes to compose
 * @base: the DRM CRTC state, first
 * @lines: the composer's line buffers, for the mode's width while the
 *	CRTC is active, else NULL
 * @planes: the visible planes, by increasing normalized zpos
 * @num_planes: their number
 * @wb_pending: a writeback job waits for the next frame
 * @wb_vaddr: kernel address of the writeback framebuffer
 * @wb_cached: that address maps it write-back cached, not write-combined
 * @wb_fb: the writeback framebuffer
 * @wb_job: that job's framebuffer mappings and CPU access
 */
struct gembuf_crtc_state {
	struct drm_crtc_state base;
	struct gembuf_lines *lines;
	struct gembuf_plane_state *planes[GEMBUF_MAX_PLANES];
	unsigned int num_planes;
	bool wb_pending;
	void *wb_vaddr;
	bool wb_cached;
	struct drm_framebuffer *wb_fb;
	struct gembuf_wb_job *wb_job;
};

#define to_gembuf_crtc_state(s) container_of(s, struct gembuf_crtc_state, base)

/**
 * struct gembuf_output - one KMS pipeline of the display
 * @index: its CRTC's index
 * @crtc: the CRTC
 * @encoder: the encoder of the virtual connector
 * @connector: the virtual connector
 * @wb: the writeback connector
 * @primary: the primary plane
 * @overlays: the overlay planes
 * @cursor: the cursor plane
 * @vblank_timer: emulated vblank
 * @period_ns: frame period of the current mode
 * @composer_wq: ordered queue of composition work
 * @composer_work: composes one frame
 * @composer_idle: woken when a composer run ends
 * @lock: protects @composer_state, @composing, @crc_enabled and the frame
 *	numbers, and the place of the cursor in its current state, which an
 *	asynchronous move changes and the composer copies once a frame
 * @composer_state: the CRTC state the next frame is composed from
 * @composing: the CRTC state the running composer run took, NULL between
 *	runs
 * @crc_enabled: a CRC source is set
 * @frames_queued: vblanks passed since the composer took the last frame
 * @frame_start: vblank count of the first of them
 * @frame_end: vblank count of the last; a composer falling behind the
 *	vblank timer gives each of those frames the CRC of the one it made
 * @frames_composed: frames the composer produced (debugfs)
 * @compose_ns: time it took for them, each from the start of its work to
 *	its last pixel written (debugfs)
 * @fb_flips: framebuffers latched onto a plane by a commit (debugfs)
 * @fb_flips_foreign: those of them over memory another driver allocated
 *	(a foreign dma-buf import), scanned out in place all the same
 */
struct gembuf_output {
	unsigned int index;
	struct drm_crtc crtc;
	struct drm_encoder encoder;
	struct drm_connector connector;
	struct drm_writeback_connector wb;
	struct drm_plane *primary;
	struct drm_plane *overlays[GEMBUF_NUM_OVERLAYS];
	struct drm_plane *cursor;
	struct hrtimer vblank_timer;
	ktime_t period_ns;
	struct workqueue_struct *composer_wq;
	struct work_struct composer_work;
	wait_queue_head_t composer_idle;
	spinlock_t lock;	/* see the kernel-doc above */
	struct gembuf_crtc_state *composer_state;
	struct gembuf_crtc_state *composing;
	bool crc_enabled;
	bool frames_queued;
	u64 frame_start;
	u64 frame_end;
	atomic64_t frames_composed;
	atomic64_t compose_ns;
	atomic64_t fb_flips;
	atomic64_t fb_flips_foreign;
};

#define crtc_to_output(c) container_of(c, struct gembuf_output, crtc)

/**
 * struct gembuf_kms - the display's KMS side
 * @outputs: its pipelines
 * @colorkey_prop: the "COLORKEY" plane property
 * @colorkey_mask_prop: the "COLORKEY_MASK" plane property
 */
struct gembuf_kms {
	struct gembuf_output outputs[GEMBUF_NUM_CRTCS];
	struct drm_property *colorkey_prop;
	struct drm_property *colorkey_mask_prop;
};

/* gembuf_kms.c */
int gembuf_kms_init(struct gembuf_device *gdev);
void gembuf_kms_fini(struct gembuf_device *gdev);

/* gembuf_crtc.c */
int gembuf_crtc_init(struct gembuf_device *gdev, struct gembuf_output *out);
extern const char *const gembuf_crc_sources[];

/* gembuf_plane.c */
struct drm_plane *gembuf_plane_create(struct gembuf_device *gdev,
				      struct gembuf_output *out,
				      enum drm_plane_type type, unsigned int zpos);
int gembuf_fb_map(struct gembuf_device *gdev, struct drm_framebuffer *fb,
		  struct gembuf_mapping *maps[DRM_FORMAT_MAX_PLANES]);
void gembuf_fb_unmap(struct drm_framebuffer *fb,
		     struct gembuf_mapping *maps[DRM_FORMAT_MAX_PLANES]);
bool gembuf_fb_foreign(const struct drm_framebuffer *fb);
bool gembuf_fb_kernel_view(const struct drm_framebuffer *fb,
			   struct gembuf_mapping *const maps[DRM_FORMAT_MAX_PLANES],
			   struct iosys_map map[DRM_FORMAT_MAX_PLANES],
			   struct iosys_map data[DRM_FORMAT_MAX_PLANES]);

/* gembuf_writeback.c */
int gembuf_writeback_init(struct gembuf_device *gdev, struct gembuf_output *out);

/* gembuf_formats.c */
extern const u32 gembuf_plane_formats[];
extern const unsigned int gembuf_num_plane_formats;
extern const u32 gembuf_cursor_formats[];
extern const unsigned int gembuf_num_cursor_formats;
extern const u32 gembuf_wb_formats[];
extern const unsigned int gembuf_num_wb_formats;
gembuf_read_fn gembuf_format_reader(u32 format);
gembuf_words_fn gembuf_format_words(u32 format);
void __init gembuf_formats_init(void);
const struct gembuf_yuv_lut *gembuf_yuv_lut(const struct drm_plane_state *state);
void gembuf_write_line(const struct drm_framebuffer *fb, void *vaddr, int y,
		       const struct gembuf_pixel *line, int width);
void gembuf_write_words(const struct drm_framebuffer *fb, void *vaddr, int y,
			const __le32 *words, int width);

/* gembuf_composer.c */

/**
 * struct gembuf_run - opaque 32-bit RGB pixels a plane shows on a line
 * @x1: the first column on the CRTC
 * @x2: the column after the last
 * @words: the pixel shown at @x1, and those after it, little-endian as
 *	the framebuffer holds them
 */
struct gembuf_run {
	int x1;
	int x2;
	const __le32 *words;
};

struct gembuf_lines *gembuf_lines_alloc(int width);
void gembuf_lines_put(struct gembuf_lines *lines);
void gembuf_composer_work(struct work_struct *work);
void gembuf_composer_wait_stale(struct gembuf_output *out);
#if IS_ENABLED(CONFIG_KUNIT)
void gembuf_source_point(const struct drm_plane_state *s, int x, int y,
			 int *sx, int *sy);
void gembuf_blend(struct gembuf_pixel *dst, const struct gembuf_pixel *src,
		  u16 plane_alpha, u16 mode);
void gembuf_lay_runs(__le32 *dst, int width, const struct gembuf_run *runs,
		     int n);
void gembuf_clear_x_line(__le32 *words, int n, bool simd);
struct gembuf_pick;
bool gembuf_pick_init(struct gembuf_pick *pick, const int *xs, int n, int sx1,
		      int sx2);
int gembuf_layer_line(const struct gembuf_plane_state *ps, int y, __le32 *out);
void gembuf_widen_line(struct gembuf_pixel *line, const __le32 *words, int n,
		       bool simd);
void gembuf_narrow_line(__le32 *words, const struct gembuf_pixel *line, int n,
			bool simd);
u32 gembuf_compose(struct gembuf_crtc_state *state,
		   struct gembuf_plane_state *const *planes, bool crc_on, bool wb);
void gembuf_blend_rgb32_line(struct gembuf_pixel *dst, const __le32 *src, int n,
			     const struct drm_plane_state *s, bool simd);
void gembuf_blend_rgb32_words(__le32 *dst, const __le32 *src, int n,
			      const struct drm_plane_state *s, bool simd);
#endif

#endif /* _GEMBUF_KMS_H_ */
