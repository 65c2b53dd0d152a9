/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * gembuf: buffer objects shared between devices, on VCM.
 *
 * gembuf registers two DRM devices: the display ("gembuf" on a card
 * node, KMS) and the DMA engine ("gembuf" on a render node), whose
 * buffers are GEM objects backed by VCM physical memory.  Every device
 * that uses an object maps it through its own VCM.  What an object is
 * made of and who maps it is in debugfs (gembuf_object, for root), not
 * in this uapi.
 */
#ifndef _UAPI_GEMBUF_DRM_H_
#define _UAPI_GEMBUF_DRM_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

#define DRM_GEMBUF_GEM_CREATE		0x00
#define DRM_GEMBUF_GEM_MMAP_OFFSET	0x01
/* 0x02: reserved */
#define DRM_GEMBUF_DMA_FILL		0x03
#define DRM_GEMBUF_DMA_COPY		0x04
#define DRM_GEMBUF_GEM_WAIT		0x05

#define DRM_IOCTL_GEMBUF_GEM_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_GEMBUF_GEM_CREATE, struct drm_gembuf_gem_create)
#define DRM_IOCTL_GEMBUF_GEM_MMAP_OFFSET \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_GEMBUF_GEM_MMAP_OFFSET, struct drm_gembuf_gem_mmap_offset)
#define DRM_IOCTL_GEMBUF_DMA_FILL \
	DRM_IOW(DRM_COMMAND_BASE + DRM_GEMBUF_DMA_FILL, struct drm_gembuf_dma_fill)
#define DRM_IOCTL_GEMBUF_DMA_COPY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_GEMBUF_DMA_COPY, struct drm_gembuf_dma_copy)
#define DRM_IOCTL_GEMBUF_GEM_WAIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_GEMBUF_GEM_WAIT, struct drm_gembuf_gem_wait)

/* drm_gembuf_gem_create.flags */
#define GEMBUF_GEM_CONTIGUOUS		(1 << 0)
#define GEMBUF_GEM_CREATE_FLAGS		GEMBUF_GEM_CONTIGUOUS

/*
 * Cache policies of an object's CPU mappings.  There is no "uncached"
 * beyond write-combined: on arm64 that is normal non-cacheable memory,
 * the only uncached type RAM may take (device memory for RAM faults on
 * unaligned accesses and conflicts with the kernel's linear map), so
 * GEMBUF_CACHE_UNCACHED, which asked for device memory, is refused with
 * -EINVAL.  The DMA engine maps objects with the DMA API's streaming
 * mappings, which assume the CPU maps the memory cacheable: it cannot map
 * a GEMBUF_CACHE_WC object, and DMA_FILL and DMA_COPY on one fail with
 * -EINVAL.
 */
#define GEMBUF_CACHE_WB			0	/* write-back (cached) */
#define GEMBUF_CACHE_WC			1	/* write-combined, not cached */
#define GEMBUF_CACHE_UNCACHED		2	/* refused: use GEMBUF_CACHE_WC */

/**
 * struct drm_gembuf_gem_create - create a buffer object
 * @size: in: bytes (rounded up to the page size); out: the object's size
 * @flags: GEMBUF_GEM_* flags
 * @cache: GEMBUF_CACHE_* policy of every CPU mapping of the object
 * @handle: out: the GEM handle
 * @pad: must be zero
 *
 * The memory is chosen for the devices that use the object: the device
 * it is created on, and every device that imports it or attaches to its
 * dma-buf before it is allocated.  It is allocated when a device first
 * needs it (its first DMA mapping, CPU mapping or scan-out); a device
 * that attaches later and cannot use it gets it moved while nothing maps
 * it, and is refused with -EBUSY after.  A client that knows which
 * devices will share a buffer has them attach (import the dma-buf, queue
 * it) before the first use.  With %GEMBUF_GEM_CONTIGUOUS the memory is
 * one physical range, from CMA, allocated here: on a render node that
 * takes CAP_SYS_ADMIN.  The memory is charged to the creator's memory
 * cgroup, whoever later makes it be allocated.
 *
 * Errors: -EINVAL for bad flags, cache policy, size or padding; -EACCES
 * for one physical range without the privilege to take it; -E2BIG above
 * 1 GiB, or for one physical range larger than the device it is
 * allocated for can take; -ERANGE when no memory meets the needs of the
 * device it is created on and the flags; -ENOMEM, also when no range
 * that large is free where the DMA API allocates it or the memory cgroup
 * is at its limit (see Documentation/gpu/gembuf.rst).
 */
struct drm_gembuf_gem_create {
	__u64 size;
	__u32 flags;
	__u32 cache;
	__u32 handle;
	__u32 pad;
};

/**
 * struct drm_gembuf_gem_mmap_offset - the fake offset to mmap() an object at
 * @handle: the object
 * @pad: must be zero
 * @offset: out: the offset to pass to mmap() on the DRM file
 */
struct drm_gembuf_gem_mmap_offset {
	__u32 handle;
	__u32 pad;
	__u64 offset;
};

/* The most in-syncobjs one job may wait for. */
#define GEMBUF_MAX_IN_SYNCS		64

/*
 * The most jobs (fills and copies together) one open file of the engine
 * may have queued, submitted and not yet released; one more fails with
 * -EAGAIN (see &drm_gembuf_dma_fill).  A job is released, and drops its
 * objects, right after its fence signalled: done, failed or cancelled.
 */
#define GEMBUF_MAX_QUEUED		256

/*
 * The most bytes one fill or copy may move: the engine runs one job at
 * a time, and a job that keeps it much longer than this takes is taken
 * for a hang and stopped.
 */
#define GEMBUF_DMA_MAX_SIZE		(256 * 1024)

/**
 * struct drm_gembuf_sync - a syncobj a job waits for or signals
 * @handle: the syncobj (DRM_IOCTL_SYNCOBJ_CREATE)
 * @flags: must be zero
 * @point: the timeline point; 0 for a binary syncobj
 *
 * A job waits for the fence of each of its in-syncobjs, as it is when
 * the job is submitted (a timeline point must have been submitted:
 * -EINVAL otherwise; an unknown handle is -ENOENT).  Its out-syncobj
 * gets the job's fence: replaced in a binary syncobj (@point 0), added
 * at @point on a timeline.  The kernel cannot tell the two kinds apart:
 * a non-zero @point on a binary syncobj makes it a timeline.
 */
struct drm_gembuf_sync {
	__u32 handle;
	__u32 flags;
	__u64 point;
};

/**
 * struct drm_gembuf_dma_fill - fill a range of an object by engine DMA
 * @handle: the object
 * @value: the 32-bit word to fill with
 * @offset: first byte, a multiple of 4
 * @size: bytes, a non-zero multiple of 4, at most %GEMBUF_DMA_MAX_SIZE
 * @flags: must be zero
 * @pad: must be zero
 * @in_syncs: user pointer to @in_sync_count &struct drm_gembuf_sync the
 *	job waits for, besides the fences on its objects
 * @in_sync_count: at most %GEMBUF_MAX_IN_SYNCS
 * @pad2: must be zero
 * @out_sync: the syncobj that gets the job's fence; handle 0 for none
 *
 * Only the DMA engine has this ioctl: on the display it fails with
 * -EINVAL.  The engine writes through its
 * DMA API mapping of the object, segment by segment; the job's fence is
 * added to the object's reservation object as a write fence.
 *
 * The object is mapped for the engine here, if it is not yet: an object
 * of %GEMBUF_CACHE_WC fails with -EINVAL, as the engine's streaming DMA
 * mappings need cacheable CPU mappings, and memory that cannot be
 * allocated or mapped for the engine with the error of doing so.
 *
 * A file may have %GEMBUF_MAX_QUEUED jobs queued; past that the ioctl
 * fails with -EAGAIN and does not wait: the client waits for the fence
 * of one of its jobs (its out-syncobj, or GEM_WAIT on its object), for
 * as long as it chooses, and submits again.  A worker releases a job
 * right after its fence signals, so a submission made at once may still
 * be refused: it is tried again after a later fence, or a moment.
 * libdrm's drmIoctl() retries -EAGAIN at once, in a loop: through it, a
 * client does not see the error but spins until a job of its file is
 * released.
 *
 * Errors: -EINVAL for a bad scalar argument
 * (checked first, before the limit), a range outside the object, a
 * sync &struct drm_gembuf_sync refuses, or an object the engine cannot
 * map; -ENOENT for an unknown object or syncobj; -EFAULT; -EAGAIN when
 * the file has %GEMBUF_MAX_QUEUED jobs; -EINTR when a signal interrupts
 * the wait for the objects' locks; -ENODEV once the engine is unplugged;
 * -ENOMEM, and the errors of allocating or mapping the object's memory
 * for the engine.
 */
struct drm_gembuf_dma_fill {
	__u32 handle;
	__u32 value;
	__u64 offset;
	__u64 size;
	__u32 flags;
	__u32 pad;
	__u64 in_syncs;
	__u32 in_sync_count;
	__u32 pad2;
	struct drm_gembuf_sync out_sync;
};

/**
 * struct drm_gembuf_dma_copy - copy between objects by engine DMA
 * @dst_handle: the destination object
 * @src_handle: the source object (may be @dst_handle, ranges apart)
 * @dst_offset: first destination byte, a multiple of 4
 * @src_offset: first source byte, a multiple of 4
 * @size: bytes, a non-zero multiple of 4, at most %GEMBUF_DMA_MAX_SIZE
 * @flags: must be zero
 * @pad: must be zero
 * @in_syncs: as &drm_gembuf_dma_fill.in_syncs
 * @in_sync_count: as &drm_gembuf_dma_fill.in_sync_count
 * @pad2: must be zero
 * @out_sync: as &drm_gembuf_dma_fill.out_sync
 *
 * Only the DMA engine has this ioctl.  Both objects are mapped for the
 * engine as for &drm_gembuf_dma_fill, with its errors: -EINVAL if either
 * is of %GEMBUF_CACHE_WC.
 *
 * Errors: those of &drm_gembuf_dma_fill, -EAGAIN included (fills and
 * copies count against the same %GEMBUF_MAX_QUEUED), and -EINVAL for
 * overlapping ranges of one object.
 */
struct drm_gembuf_dma_copy {
	__u32 dst_handle;
	__u32 src_handle;
	__u64 dst_offset;
	__u64 src_offset;
	__u64 size;
	__u32 flags;
	__u32 pad;
	__u64 in_syncs;
	__u32 in_sync_count;
	__u32 pad2;
	struct drm_gembuf_sync out_sync;
};

/* drm_gembuf_gem_wait.flags */
#define GEMBUF_WAIT_READ		(1 << 0)	/* wait for writers only */

/**
 * struct drm_gembuf_gem_wait - wait for the DMA on an object
 * @handle: the object
 * @flags: GEMBUF_WAIT_* flags
 * @deadline_ns: the CLOCK_MONOTONIC time to wait until, in nanoseconds,
 *	as msm and panfrost take it; a time already past (0) polls
 *
 * Returns 0 when idle, -ETIME when the deadline passed first; -EINVAL
 * for unknown flags or a negative time, -ENOENT for an unknown object.
 * A signal interrupts the wait: the ioctl is restarted with the same
 * deadline (SA_RESTART), or fails with -EINTR, and a caller that retries
 * it keeps its deadline, so signals do not make it wait longer.
 */
struct drm_gembuf_gem_wait {
	__u32 handle;
	__u32 flags;
	__s64 deadline_ns;
};

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_GEMBUF_DRM_H_ */
