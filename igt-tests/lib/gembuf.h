/* SPDX-License-Identifier: MIT */
/*
 * Wrappers of the gembuf ioctls for the gembuf igt tests, in the style of
 * igt's ioctl_wrappers: __name() returns -errno, name() asserts success.
 * gembuf has two DRM devices: the display (driver "gembuf", a card node)
 * and the DMA engine (driver "gembuf_dma", a render node).
 */
#ifndef GEMBUF_H
#define GEMBUF_H

#include <stddef.h>
#include <stdint.h>

#include <drm/gembuf_drm.h>

#include "drmtest.h"

/*
 * What debugfs's gembuf_object tells of one object (see
 * Documentation/gpu/gembuf.rst), parsed by __gembuf_info().
 */
#define GEMBUF_INFO_CONTIGUOUS		(1 << 0)
#define GEMBUF_INFO_IMPORTED		(1 << 1)
#define GEMBUF_INFO_ALLOCATED		(1 << 2)	/* memory is there */

/* The constraints of VCM: what the memory must be for its devices. */
#define GEMBUF_NEED_CONTIGUOUS		(1 << 0)	/* one physical range */
#define GEMBUF_NEED_LIMIT		(1 << 1)	/* below dma_limit */
#define GEMBUF_NEED_GRANULE		(1 << 2)	/* IOMMU-sized chunks */

/*
 * The VCM a mapping lives in; GEMBUF_MAPPING_USER is one line for all of
 * the processes' CPU mappings (the mm's, made by page faults), whose
 * users are the VMAs of the object in every process.
 */
#define GEMBUF_MAPPING_IOMMU		0
#define GEMBUF_MAPPING_KERNEL		1
#define GEMBUF_MAPPING_USER		2
#define GEMBUF_MAPPING_ONE_TO_ONE	3
#define GEMBUF_MAPPING_DMA_API		4

#define GEMBUF_INFO_CHUNK_ORDERS	48

struct gembuf_report_placement {
	uint32_t need;		/* GEMBUF_NEED_* */
	uint32_t devices;
	uint64_t dma_limit;	/* all ones for none */
	uint32_t addr_bits;	/* of the memory's highest byte; 0 unallocated */
	uint32_t moves;
	int32_t refused;	/* -errno of the last attach refused, or 0 */
	uint32_t refused_unmet;	/* GEMBUF_NEED_* the memory lacked for it */
	char refused_device[64];
};

struct gembuf_report_mapping {
	char device[64];
	uint64_t dev_addr;	/* an engine's IOVA, else 0 */
	uint64_t size;
	uint32_t kind;		/* GEMBUF_MAPPING_* */
	uint32_t attr;		/* VCM reservation attributes */
	uint32_t ptes;		/* IOMMU entries */
	uint32_t users;		/* for GEMBUF_MAPPING_USER: VMAs */
};

struct gembuf_report {
	uint32_t handle;	/* in */
	uint32_t flags;		/* GEMBUF_INFO_* */
	uint64_t size;
	uint32_t cache;
	uint32_t num_chunks;
	uint32_t chunks[GEMBUF_INFO_CHUNK_ORDERS];	/* of 2^n up to 2^(n+1) - 1 bytes */
	uint32_t num_mappings;	/* all of them, maybe more than were copied */
	struct gembuf_report_placement placement;
};

int gembuf_open_display(void);
int gembuf_open_engine(void);
/* The primary (card) node of the first engine, for what a render node refuses. */
int gembuf_open_engine_card(void);
int gembuf_open_engine_nth(int n);

int __gembuf_create(int fd, uint64_t *size, uint32_t flags, uint32_t cache,
		    uint32_t *handle);
uint32_t gembuf_create(int fd, uint64_t size, uint32_t flags, uint32_t cache);
int __gembuf_mmap_offset(int fd, uint32_t handle, uint64_t *offset);
void *__gembuf_mmap(int fd, uint32_t handle, uint64_t size, int prot, int flags);
void *gembuf_mmap(int fd, uint32_t handle, uint64_t size);
int __gembuf_info(int fd, struct gembuf_report *info,
		  struct gembuf_report_mapping *maps, unsigned int room);
void gembuf_info(int fd, uint32_t handle, struct gembuf_report *info);
int gembuf_find_mapping(int fd, uint32_t handle, uint32_t kind,
			struct gembuf_report_mapping *out);
/* The VMAs of processes that map @handle with the CPU, from its "user" line. */
int gembuf_user_vmas(int fd, uint32_t handle);
int __gembuf_fill(int fd, uint32_t handle, uint64_t offset, uint64_t size,
		  uint32_t value);
int __gembuf_copy(int fd, uint32_t dst, uint64_t dst_offset, uint32_t src,
		  uint64_t src_offset, uint64_t size);
int __gembuf_wait(int fd, uint32_t handle, uint32_t flags, int64_t timeout_ns);
void gembuf_wait(int fd, uint32_t handle);
long gembuf_state(const char *key);
/* A gauge of VCM's debugfs vcm/stats ("physmems", "phys_bytes", ...), -1 if not found. */
long vcm_stat(const char *key);
/*
 * Whether vgem makes its buffers with the GEM VCM helper (its module
 * parameter vcm is Y): not with vcm=0, nor in a kernel without it.
 */
bool gembuf_vgem_on_vcm(void);
/* The number a file (sysfs, debugfs) holds, -1 if it cannot be read. */
long gembuf_read_long(const char *path);
/*
 * Make the next engine job (or frame) hit gembuf's debugfs fault
 * attribute @name ("fail_job", "hang_job", ...) once; skips without it.
 */
void gembuf_inject_once(const char *name);
/* The debugfs directory of gembuf's file @name into @path, or NULL. */
const char *gembuf_fault_attr(const char *name, char *path, size_t len);
/* Write @v to the file @file of the directory @dir, which must take it. */
void gembuf_knob_write(const char *dir, const char *file, const char *v);
/*
 * The devices attached to the dma-buf @fd (dma-buf's debugfs): their
 * number, the first @max names in @names.
 */
int gembuf_dmabuf_attachments(int fd, char names[][64], int max);
/*
 * The DMA API mappings the debug layer tracks for the device named @dev,
 * -1 without the layer (a kernel without CONFIG_DMA_API_DEBUG).
 */
int gembuf_dma_api_mappings(const char *dev);
/* Every 32-bit word of the first @size bytes of @h, mapped, is @v. */
void gembuf_check_words(int fd, uint32_t h, size_t size, uint32_t v);
/*
 * The engine of @fd works: a new 4 KiB object filled with @v by DMA,
 * waited for, read back and closed.
 */
void gembuf_engine_check(int fd, uint32_t v);
/*
 * Counter @key once it reads @want, or after five seconds: finished
 * engine jobs drop their objects from a worker, shortly after the
 * objects went idle.
 */
long gembuf_state_settle(const char *key, long want);
/* One line of what debugfs says of an object's placement, for the log. */
void gembuf_placement_print(const char *what, const struct gembuf_report *gi);
/*
 * The memory a device without an IOMMU and with a 32-bit mask can use:
 * allocated, one range, below 4 GiB, and chosen for that.
 */
void gembuf_assert_low_range(const struct gembuf_report *gi);
/* "iommu", "kernel", "user", "1:1", "dma-api" for GEMBUF_MAPPING_*, else "?". */
const char *gembuf_mapping_kind_name(uint32_t kind);
/* The report of @h on @fd in the log: placement, chunk histogram, mappings. */
void gembuf_info_print(int fd, uint32_t h, const char *what);
/* A dma-buf of @size from dma-heaps heap @name; skips if there is none. */
int gembuf_heap_alloc(const char *name, size_t size);

#endif /* GEMBUF_H */
