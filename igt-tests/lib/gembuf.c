// SPDX-License-Identifier: MIT
/* gembuf ioctl wrappers; see gembuf.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <linux/dma-heap.h>

#include "gembuf.h"

/* The (@skip + 1)-th node of @fmt whose DRM driver is @name. */
static int open_nth_named(const char *fmt, int base, const char *name, int skip)
{
	char path[64];
	int i, fd;

	for (i = 0; i < 16; i++) {
		drmVersionPtr v;

		snprintf(path, sizeof(path), fmt, base + i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		if (v && !strcmp(v->name, name) && !skip--) {
			drmFreeVersion(v);
			return fd;
		}
		if (v)
			drmFreeVersion(v);
		close(fd);
	}
	return -1;
}

static int open_named(const char *fmt, int base, const char *name)
{
	return open_nth_named(fmt, base, name, 0);
}

struct engine_node {
	char bdf[512];
	int minor;
};

static int engine_node_cmp(const void *a, const void *b)
{
	return strcmp(((const struct engine_node *)a)->bdf,
		      ((const struct engine_node *)b)->bdf);
}

/**
 * gembuf_open_engine_nth() - open one of the DMA engines
 * @n: 0 for the first engine (edu with a 40-bit mask in the guest), 1 for
 *	the second (edu with QEMU's 28-bit mask)
 *
 * The engines are told apart by their PCI devices' addresses (the guest's
 * edus sit at fixed slots), not by the order of their render nodes: an
 * engine unbound while its DRM device lives on (a file or a fence still
 * held) comes back on a new minor, after the other's.
 *
 * Return: the render node's fd, or -1 when there is no such engine.
 */
int gembuf_open_engine_nth(int n)
{
	struct engine_node nodes[16];
	char path[64], link[512];
	int i, count = 0;
	ssize_t len;

	for (i = 0; i < 16; i++) {
		int fd = open_nth_named("/dev/dri/renderD%d", 128 + i,
					"gembuf_dma", 0);
		char *slash;

		if (fd < 0)
			break;
		/* The minor it found: the first of the driver from 128 + i. */
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, link, sizeof(link) - 1);
		close(fd);
		if (len <= 0)
			break;
		link[len] = 0;
		nodes[count].minor = atoi(link + strlen("/dev/dri/renderD"));
		snprintf(path, sizeof(path), "/sys/class/drm/renderD%d/device",
			 nodes[count].minor);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			break;
		link[len] = 0;
		slash = strrchr(link, '/');
		snprintf(nodes[count].bdf, sizeof(nodes[count].bdf), "%s",
			 slash ? slash + 1 : link);
		i = nodes[count++].minor - 128;
	}
	if (n >= count)
		return -1;
	qsort(nodes, count, sizeof(nodes[0]), engine_node_cmp);
	snprintf(path, sizeof(path), "/dev/dri/renderD%d", nodes[n].minor);
	return open(path, O_RDWR | O_CLOEXEC);
}

int gembuf_open_display(void)
{
	int fd = open_named("/dev/dri/card%d", 0, "gembuf");

	igt_require_f(fd >= 0, "no gembuf display device\n");
	return fd;
}

/**
 * gembuf_open_engine_card() - open the first DMA engine's primary node
 *
 * Return: its fd; skips the subtest when there is no engine.
 */
int gembuf_open_engine_card(void)
{
	int fd = open_named("/dev/dri/card%d", 0, "gembuf_dma");

	igt_require_f(fd >= 0, "no gembuf DMA engine\n");
	return fd;
}

int gembuf_open_engine(void)
{
	int fd = gembuf_open_engine_nth(0);

	igt_require_f(fd >= 0, "no gembuf DMA engine\n");
	return fd;
}

int __gembuf_create(int fd, uint64_t *size, uint32_t flags, uint32_t cache,
		    uint32_t *handle)
{
	struct drm_gembuf_gem_create c = {
		.size = *size, .flags = flags, .cache = cache,
	};

	if (igt_ioctl(fd, DRM_IOCTL_GEMBUF_GEM_CREATE, &c))
		return -errno;
	*size = c.size;
	*handle = c.handle;
	return 0;
}

uint32_t gembuf_create(int fd, uint64_t size, uint32_t flags, uint32_t cache)
{
	uint32_t handle = 0;

	igt_assert_eq(__gembuf_create(fd, &size, flags, cache, &handle), 0);
	igt_assert(handle);
	return handle;
}

int __gembuf_mmap_offset(int fd, uint32_t handle, uint64_t *offset)
{
	struct drm_gembuf_gem_mmap_offset m = { .handle = handle };

	if (igt_ioctl(fd, DRM_IOCTL_GEMBUF_GEM_MMAP_OFFSET, &m))
		return -errno;
	*offset = m.offset;
	return 0;
}

void *__gembuf_mmap(int fd, uint32_t handle, uint64_t size, int prot, int flags)
{
	uint64_t offset = 0;
	void *ptr;

	if (__gembuf_mmap_offset(fd, handle, &offset))
		return NULL;
	ptr = mmap(NULL, size, prot, flags, fd, offset);
	return ptr == MAP_FAILED ? NULL : ptr;
}

void *gembuf_mmap(int fd, uint32_t handle, uint64_t size)
{
	void *ptr = __gembuf_mmap(fd, handle, size, PROT_READ | PROT_WRITE,
				  MAP_SHARED);

	igt_assert_f(ptr, "mmap of handle %u failed: %s\n", handle, strerror(errno));
	return ptr;
}

/* The drm-client-id of DRM file @fd, from its fdinfo: 0 or -errno. */
static int client_id(int fd, unsigned long long *id)
{
	char path[64], line[256];
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	errno = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "drm-client-id: %llu", id) == 1) {
			ret = 0;
			break;
		}
	/* A failed read (fail-nth, say) is its errno, not a missing key. */
	if (ret && ferror(f))
		ret = errno ? -errno : -EIO;
	fclose(f);
	return ret;
}

/* The kind of a mapping by its name in the report. */
static uint32_t mapping_kind(const char *name)
{
	for (uint32_t k = 0; k <= GEMBUF_MAPPING_DMA_API; k++)
		if (!strcmp(name, gembuf_mapping_kind_name(k)))
			return k;
	return ~0u;
}

/*
 * What gembuf's debugfs file gembuf_object of @fd's device says of the
 * object @info->handle of @fd: written "<client id> <handle>", it is read
 * back from the start.  Up to @room mappings go to @maps.  0, or -errno:
 * -ENOENT for no such object, -ESRCH for a file gembuf does not know.
 */
int __gembuf_info(int fd, struct gembuf_report *info,
		  struct gembuf_report_mapping *maps, unsigned int room)
{
	uint32_t handle = info->handle;
	char path[96], cmd[48], *buf, *line, *save;
	unsigned long long id;
	unsigned int n = 0;
	struct stat st;
	ssize_t len;
	int dfd, ret = 0;

	if (fstat(fd, &st))
		return -errno;
	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%u/gembuf_object",
		 minor(st.st_rdev));
	ret = client_id(fd, &id);
	if (ret)
		return ret;
	dfd = open(path, O_RDWR);
	if (dfd < 0)
		return -errno;
	snprintf(cmd, sizeof(cmd), "%llu %u\n", id, handle);
	if (write(dfd, cmd, strlen(cmd)) < 0) {
		ret = -errno;
		close(dfd);
		return ret;
	}
	buf = malloc(65536);
	igt_assert(buf);
	len = read(dfd, buf, 65535);
	ret = len < 0 ? -errno : 0;
	close(dfd);
	if (ret) {
		free(buf);
		return ret;
	}
	buf[len] = 0;

	memset(info, 0, sizeof(*info));
	info->handle = handle;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct gembuf_report_placement *p = &info->placement;
		unsigned long long a, b;
		unsigned int o, c, x, y, z;
		char name[64], kind[16];
		int e;

		if (sscanf(line, "size %llu", &a) == 1) {
			info->size = a;
		} else if (sscanf(line, "cache %u", &c) == 1) {
			info->cache = c;
		} else if (!strncmp(line, "flags", 5)) {
			if (strstr(line, " allocated"))
				info->flags |= GEMBUF_INFO_ALLOCATED;
			if (strstr(line, " imported"))
				info->flags |= GEMBUF_INFO_IMPORTED;
			if (strstr(line, " contiguous"))
				info->flags |= GEMBUF_INFO_CONTIGUOUS;
		} else if (sscanf(line, "chunks %u", &c) == 1) {
			info->num_chunks = c;
		} else if (sscanf(line, "chunk %u %u", &o, &c) == 2) {
			info->chunks[o < GEMBUF_INFO_CHUNK_ORDERS ? o :
				     GEMBUF_INFO_CHUNK_ORDERS - 1] += c;
		} else if (sscanf(line, "need %x", &x) == 1) {
			p->need = x;
		} else if (sscanf(line, "devices %u", &c) == 1) {
			p->devices = c;
		} else if (sscanf(line, "dma_limit %llx", &a) == 1) {
			p->dma_limit = a;
		} else if (sscanf(line, "addr_bits %u", &c) == 1) {
			p->addr_bits = c;
		} else if (sscanf(line, "moves %u", &c) == 1) {
			p->moves = c;
		} else if (sscanf(line, "refused %d %x %63s", &e, &x, name) == 3) {
			p->refused = e;
			p->refused_unmet = x;
			snprintf(p->refused_device, sizeof(p->refused_device), "%s",
				 e ? name : "");
		} else if (sscanf(line, "mappings %u", &c) == 1) {
			info->num_mappings = c;
		} else if (sscanf(line, "mapping %63s %15s %llx %llu %x %u %u", name,
				  kind, &a, &b, &x, &y, &z) == 7) {
			if (n < room) {
				struct gembuf_report_mapping *m = &maps[n];

				snprintf(m->device, sizeof(m->device), "%s", name);
				m->kind = mapping_kind(kind);
				m->dev_addr = a;
				m->size = b;
				m->attr = x;
				m->ptes = y;
				m->users = z;
			}
			n++;
		} else {
			igt_warn("gembuf_object: unknown line \"%s\"\n", line);
			ret = -EPROTO;
		}
	}
	free(buf);
	return ret;
}

void gembuf_info(int fd, uint32_t handle, struct gembuf_report *info)
{
	memset(info, 0, sizeof(*info));
	info->handle = handle;
	igt_assert_eq(__gembuf_info(fd, info, NULL, 0), 0);
}

/* How many mappings of @kind the object has; the first is copied to @out. */
int gembuf_find_mapping(int fd, uint32_t handle, uint32_t kind,
			struct gembuf_report_mapping *out)
{
	struct gembuf_report_mapping maps[16];
	struct gembuf_report info = { .handle = handle };
	unsigned int i;
	int n = 0;

	igt_assert_eq(__gembuf_info(fd, &info, maps, 16), 0);
	igt_assert_lte(info.num_mappings, 16);
	for (i = 0; i < info.num_mappings; i++) {
		if (maps[i].kind != kind)
			continue;
		if (!n++ && out)
			*out = maps[i];
	}
	return n;
}

int gembuf_user_vmas(int fd, uint32_t handle)
{
	struct gembuf_report_mapping m;
	int n = gembuf_find_mapping(fd, handle, GEMBUF_MAPPING_USER, &m);

	/* One line for all of them, only while there are any. */
	igt_assert_lte(n, 1);
	if (!n)
		return 0;
	igt_assert_eq_u64(m.dev_addr, 0);
	igt_assert_lt(0, (int)m.users);
	return m.users;
}

int __gembuf_fill(int fd, uint32_t handle, uint64_t offset, uint64_t size,
		  uint32_t value)
{
	struct drm_gembuf_dma_fill f = {
		.handle = handle, .offset = offset, .size = size, .value = value,
	};

	if (igt_ioctl(fd, DRM_IOCTL_GEMBUF_DMA_FILL, &f))
		return -errno;
	return 0;
}

int __gembuf_copy(int fd, uint32_t dst, uint64_t dst_offset, uint32_t src,
		  uint64_t src_offset, uint64_t size)
{
	struct drm_gembuf_dma_copy c = {
		.dst_handle = dst, .src_handle = src, .dst_offset = dst_offset,
		.src_offset = src_offset, .size = size,
	};

	if (igt_ioctl(fd, DRM_IOCTL_GEMBUF_DMA_COPY, &c))
		return -errno;
	return 0;
}

int __gembuf_wait(int fd, uint32_t handle, uint32_t flags, int64_t timeout_ns)
{
	struct drm_gembuf_gem_wait w = {
		.handle = handle, .flags = flags, .deadline_ns = timeout_ns,
	};
	struct timespec ts;

	/* The ioctl takes a deadline; 0 polls, a negative time is refused. */
	if (timeout_ns > 0) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		w.deadline_ns += ts.tv_sec * 1000000000ll + ts.tv_nsec;
	}

	if (igt_ioctl(fd, DRM_IOCTL_GEMBUF_GEM_WAIT, &w))
		return -errno;
	return 0;
}

void gembuf_wait(int fd, uint32_t handle)
{
	igt_assert_eq(__gembuf_wait(fd, handle, 0, 60ll * 1000000000), 0);
}

/* A counter of gembuf's debugfs gembuf_state file, -1 if not found. */
long gembuf_state(const char *key)
{
	char path[300], name[64];
	long value = -1, v;
	struct dirent *de;
	DIR *dir;
	FILE *f;

	dir = opendir("/sys/kernel/debug/dri");
	if (!dir)
		return -1;
	while (value < 0 && (de = readdir(dir))) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%s/gembuf_state",
			 de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fscanf(f, "%63s %ld", name, &v) == 2)
			if (!strcmp(name, key))
				value = v;
		fclose(f);
	}
	closedir(dir);
	return value;
}

long vcm_stat(const char *key)
{
	FILE *f = fopen("/sys/kernel/debug/vcm/stats", "r");
	char name[64];
	long value = -1, v;

	while (f && fscanf(f, "%63s %ld", name, &v) == 2)
		if (!strcmp(name, key))
			value = v;
	if (f)
		fclose(f);
	return value;
}

const char *gembuf_fault_attr(const char *name, char *path, size_t len)
{
	DIR *dir = opendir("/sys/kernel/debug/dri");
	struct dirent *de;

	while (dir && (de = readdir(dir))) {
		snprintf(path, len, "/sys/kernel/debug/dri/%s/%s", de->d_name, name);
		if (!access(path, F_OK)) {
			closedir(dir);
			return path;
		}
	}
	if (dir)
		closedir(dir);
	return NULL;
}

void gembuf_knob_write(const char *dir, const char *file, const char *v)
{
	char path[300];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY);
	igt_assert_f(fd >= 0, "%s\n", path);
	igt_assert_eq(write(fd, v, strlen(v)), (ssize_t)strlen(v));
	close(fd);
}

void gembuf_inject_once(const char *name)
{
	char path[300];

	igt_require_f(gembuf_fault_attr(name, path, sizeof(path)),
		      "no %s fault attribute\n", name);
	gembuf_knob_write(path, "verbose", "0");
	gembuf_knob_write(path, "interval", "1");
	gembuf_knob_write(path, "probability", "100");
	gembuf_knob_write(path, "times", "1");
}

void gembuf_check_words(int fd, uint32_t h, size_t size, uint32_t v)
{
	uint32_t *p = gembuf_mmap(fd, h, size);

	for (size_t i = 0; i < size / 4; i++)
		igt_assert_f(p[i] == v, "word %zu: %08x, not %08x\n", i, p[i], v);
	munmap(p, size);
}

void gembuf_engine_check(int fd, uint32_t v)
{
	uint32_t h = gembuf_create(fd, 4096, 0, GEMBUF_CACHE_WB);

	igt_assert_eq(__gembuf_fill(fd, h, 0, 4096, v), 0);
	gembuf_wait(fd, h);
	gembuf_check_words(fd, h, 4096, v);
	gem_close(fd, h);
}

long gembuf_state_settle(const char *key, long want)
{
	long v = gembuf_state(key);

	for (int i = 0; i < 50 && v != want; i++) {
		usleep(100 * 1000);
		v = gembuf_state(key);
	}
	return v;
}

int gembuf_heap_alloc(const char *name, size_t size)
{
	struct dma_heap_allocation_data a = {
		.len = size, .fd_flags = O_RDWR | O_CLOEXEC,
	};
	char path[64];
	int heap;

	snprintf(path, sizeof(path), "/dev/dma_heap/%s", name);
	heap = open(path, O_RDWR);
	igt_require_f(heap >= 0, "no dma-heaps %s heap\n", name);
	igt_assert_eq(ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &a), 0);
	close(heap);
	return a.fd;
}

/*
 * The devices attached to a dma-buf, from dma-buf's debugfs: the block
 * of the buffer whose inode is @fd's lists one "\t<device>" line each.
 */
int gembuf_dmabuf_attachments(int fd, char names[][64], int max)
{
	char line[256], ino[32];
	struct stat st;
	bool mine = false;
	int n = 0;
	FILE *f;

	igt_assert_eq(fstat(fd, &st), 0);
	snprintf(ino, sizeof(ino), "\t%08lu\t", (unsigned long)st.st_ino);
	f = fopen("/sys/kernel/debug/dma_buf/bufinfo", "r");
	igt_assert(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] != '\t') {
			/* A buffer's first line: size, flags, mode, count, exporter, inode. */
			mine = strstr(line, ino) != NULL;
			continue;
		}
		/* Device names have no blanks; "Attached Devices:" and fences do. */
		if (!mine || strpbrk(line + 1, " \t"))
			continue;
		if (n < max)
			snprintf(names[n], 64, "%.63s", line + 1);
		n++;
	}
	fclose(f);
	return n;
}

void gembuf_placement_print(const char *what, const struct gembuf_report *gi)
{
	igt_info("%s: %s%s%u chunks, need 0x%x for %u devices, limit 0x%llx, %u address bits, %u moves\n",
		 what, gi->flags & GEMBUF_INFO_ALLOCATED ? "" : "not allocated, ",
		 gi->flags & GEMBUF_INFO_CONTIGUOUS ? "contiguous, " : "",
		 gi->num_chunks, gi->placement.need, gi->placement.devices,
		 (unsigned long long)gi->placement.dma_limit,
		 gi->placement.addr_bits, gi->placement.moves);
}

void gembuf_assert_low_range(const struct gembuf_report *gi)
{
	igt_assert(gi->flags & GEMBUF_INFO_ALLOCATED);
	igt_assert(gi->flags & GEMBUF_INFO_CONTIGUOUS);
	igt_assert_eq_u32(gi->num_chunks, 1);
	igt_assert(gi->placement.need & GEMBUF_NEED_CONTIGUOUS);
	igt_assert(gi->placement.need & GEMBUF_NEED_LIMIT);
	igt_assert_eq_u64(gi->placement.dma_limit, 0xffffffffull);
	/* Reported to CAP_SYS_ADMIN only; the tests run as root. */
	igt_assert_lte(gi->placement.addr_bits, 32);
	igt_assert_lt(0, gi->placement.addr_bits);
}

const char *gembuf_mapping_kind_name(uint32_t kind)
{
	static const char *const kinds[] = {
		[GEMBUF_MAPPING_IOMMU] = "iommu", [GEMBUF_MAPPING_KERNEL] = "kernel",
		[GEMBUF_MAPPING_USER] = "user", [GEMBUF_MAPPING_ONE_TO_ONE] = "1:1",
		[GEMBUF_MAPPING_DMA_API] = "dma-api",
	};

	return kind < sizeof(kinds) / sizeof(kinds[0]) ? kinds[kind] : "?";
}

void gembuf_info_print(int fd, uint32_t h, const char *what)
{
	struct gembuf_report gi = { .handle = h };
	struct gembuf_report_mapping maps[16];
	char hist[256];
	size_t at = 0;

	igt_assert_eq(__gembuf_info(fd, &gi, maps, 16), 0);
	hist[0] = 0;
	for (int o = GEMBUF_INFO_CHUNK_ORDERS - 1; o >= 0 && at < sizeof(hist); o--)
		if (gi.chunks[o])
			at += snprintf(hist + at, sizeof(hist) - at, " %ux2^%d",
				       gi.chunks[o], o);
	gembuf_placement_print(what, &gi);
	igt_info("  %llu bytes in %u chunks:%s\n", (unsigned long long)gi.size,
		 gi.num_chunks, hist);
	for (unsigned int i = 0; i < gi.num_mappings && i < 16; i++)
		igt_info("  mapped by %s (%s): %llu bytes, %u IOMMU entries, address 0x%llx\n",
			 maps[i].device, gembuf_mapping_kind_name(maps[i].kind),
			 (unsigned long long)maps[i].size, maps[i].ptes,
			 (unsigned long long)maps[i].dev_addr);
}

int gembuf_dma_api_mappings(const char *dev)
{
	FILE *f = fopen("/sys/kernel/debug/dma-api/dump", "r");
	char line[512], name[128];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %127s", name) == 1 && !strcmp(name, dev))
			n++;
	fclose(f);
	return n;
}

bool gembuf_vgem_on_vcm(void)
{
	FILE *f = fopen("/sys/module/vgem/parameters/vcm", "r");
	int c = f ? fgetc(f) : 'N';

	if (f)
		fclose(f);
	return c == 'Y';
}

long gembuf_read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long n = -1;

	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}
