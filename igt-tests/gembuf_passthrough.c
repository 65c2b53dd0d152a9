// SPDX-License-Identifier: MIT
/*
 * gembuf_passthrough: the DMA engine's sharing paths, with and without an
 * IOMMU that translates for it.
 *
 * `make test` runs this in the usual guest (SMMUv3 translating: the
 * engine's DMA API is iommu-dma) and again in a guest booted with
 * iommu.passthrough=1 (identity default domains: the DMA API is
 * dma-direct, and DMA addresses are physical addresses).  Every subtest
 * holds in both: each path works, with exact data, or fails with a clear
 * errno, never with wrong data; and no physical address reaches the
 * client.  The configuration (the IOMMU group type of the engine's PCI
 * device) is printed; the one thing checked against it is what only
 * passthrough implies: the engine's mappings are then the DMA API's
 * (GEMBUF_MAPPING_DMA_API), whose addresses are never reported.
 *
 * Without translation the engine's DMA addresses are those of scattered
 * pages: the engine walks the DMA API's segments, so its own objects need
 * only memory below its mask, and a foreign dma-buf (vgem, the system
 * heap, udmabuf) works as it is.  The second engine's 28-bit mask reaches
 * no RAM at all (the guest's RAM starts at 1 GiB): its objects fail with
 * an errno, or the engine is refused at probe.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/dma-buf.h>
#include <linux/sync_file.h>
#include <linux/udmabuf.h>

#include "igt.h"
#include "igt_syncobj.h"
#include "gembuf.h"

IGT_TEST_DESCRIPTION("The DMA engine's own objects and foreign dma-bufs, with and without IOMMU translation.");

/* The engines' DMA masks: edu_dma_bits=40,28 (qemu/rootfs.sh, qemu/boot.sh). */
#define ENGINE0_BITS	40
#define ENGINE1_BITS	28

/* An object of the engine's own: more than one chunk where chunks may do. */
#define OBJ_SIZE	((1u << 20) + (64u << 10))
/* The first DMA of each object, before any CPU mapping allocates it. */
#define PROBE_LEN	4096u
#define PROBE_VALUE	0x5ca1ab1eu
/* What the CPU writes: the destination's background, the source's words. */
#define BG_VALUE	0x11111111u
#define SRC_BASE	0xa5000000u
/* A fill across the destination's 1 MiB mark, a word past a page. */
#define FILL_OFF	((1u << 20) - (16u << 10) + 4)
#define FILL_LEN	(32u << 10)
#define FILL_VALUE	0xf111f111u
/* A copy of the source's last bytes, into the destination's start. */
#define COPY_LEN	((32u << 10) + 4)
#define COPY_SRC	(OBJ_SIZE - COPY_LEN)
#define COPY_DST	((128u << 10) - 4)

/* Foreign buffers: the CPU's words, and the engine's fill. */
#define IMPORT_BASE	0xc3000000u
#define IMPORT_VALUE	0x7e57da7au
#define IMPORT_FILL_LEN	(12u << 10)

static int engine = -1;
static char engine_bdf[64], engine_iommu[32];

/*
 * The errnos that tell a client clearly that the engine cannot use some
 * memory: none it can reach (ENOMEM, ERANGE), no room for a mapping
 * (ENOSPC), or memory of a kind it cannot take (EINVAL).
 */
static const struct {
	int err;
	const char *name;
} clear_errnos[] = {
	{ ENOMEM, "ENOMEM" }, { ENOSPC, "ENOSPC" },
	{ ERANGE, "ERANGE" }, { EINVAL, "EINVAL" },
};

/* Whether @err (negative) is one of clear_errnos. */
static bool is_clear_errno(int err)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(clear_errnos); i++)
		if (err == -clear_errnos[i].err)
			return true;
	return false;
}

static const char *errname(int err)
{
	static char buf[32];

	for (unsigned int i = 0; i < ARRAY_SIZE(clear_errnos); i++)
		if (err == -clear_errnos[i].err)
			return clear_errnos[i].name;
	snprintf(buf, sizeof(buf), "%d (%s)", err, strerror(-err));
	return buf;
}

/* The PCI device of a DRM file's node ("0000:00:01.0"), "" if none. */
static void drm_fd_pci_name(int fd, char *out, size_t len)
{
	char path[64], link[PATH_MAX];
	const char *base;
	struct stat st;
	ssize_t n;

	out[0] = 0;
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode))
		return;
	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/device",
		 major(st.st_rdev), minor(st.st_rdev));
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return;
	link[n] = 0;
	base = strrchr(link, '/');
	snprintf(out, len, "%.*s", (int)len - 1, base ? base + 1 : link);
}

/*
 * The type of @bdf's IOMMU group: "identity" under iommu.passthrough=1,
 * "DMA" or "DMA-FQ" where the IOMMU translates; "none" without a group.
 */
static void pci_iommu_type(const char *bdf, char *out, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(out, len, "none");
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/iommu_group/type", bdf);
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(out, len, f))
		snprintf(out, len, "none");
	out[strcspn(out, "\n")] = 0;
	fclose(f);
}

static bool is_passthrough(const char *type)
{
	return !strcmp(type, "identity") || !strcmp(type, "none");
}

static void print_config(const char *what, const char *bdf, const char *type)
{
	igt_info("%s: %s, IOMMU group type %s: %s\n", what, bdf[0] ? bdf : "?",
		 type, is_passthrough(type) ?
		 "no translation (dma-direct, DMA addresses are physical)" :
		 "translated (iommu-dma, DMA addresses are IOVAs)");
}

/*
 * An edu with no driver, and none but gembuf's that may bind it (vcm_edu's
 * edu has a driver_override of its own): an engine gembuf refused.
 */
static bool find_refused_edu(char *bdf, size_t len)
{
	struct dirent *de;
	bool found = false;
	DIR *dir;

	dir = opendir("/sys/bus/pci/devices");
	if (!dir)
		return false;
	while (!found && (de = readdir(dir))) {
		char path[PATH_MAX], vendor[16] = "", device[16] = "", ovr[64] = "";
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor", de->d_name);
		if ((f = fopen(path, "r"))) {
			if (!fgets(vendor, sizeof(vendor), f))
				vendor[0] = 0;
			fclose(f);
		}
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device", de->d_name);
		if ((f = fopen(path, "r"))) {
			if (!fgets(device, sizeof(device), f))
				device[0] = 0;
			fclose(f);
		}
		if (strncmp(vendor, "0x1234", 6) || strncmp(device, "0x11e8", 6))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", de->d_name);
		if (!access(path, F_OK))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver_override",
			 de->d_name);
		if ((f = fopen(path, "r"))) {
			if (!fgets(ovr, sizeof(ovr), f))
				ovr[0] = 0;
			fclose(f);
		}
		ovr[strcspn(ovr, "\n")] = 0;
		if (ovr[0] && strcmp(ovr, "(null)") && strcmp(ovr, "gembuf_dma"))
			continue;
		snprintf(bdf, len, "%.*s", (int)len - 1, de->d_name);
		found = true;
	}
	closedir(dir);
	return found;
}

/*
 * The errno the driver core logged for gembuf_dma's probe of @bdf
 * ("probe with driver gembuf_dma failed with error -N"), 0 if the kernel
 * log (still) has none.
 */
static int probe_error(const char *bdf)
{
	static const char needle[] = "probe with driver gembuf_dma failed with error ";
	char rec[8192];
	int fd, err = 0;
	ssize_t n;

	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	for (;;) {
		const char *msg, *at;

		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten while reading */
			continue;
		if (n <= 0)
			break;
		rec[n] = 0;
		msg = strchr(rec, ';');
		if (!msg || !strstr(msg, bdf))
			continue;
		at = strstr(msg, needle);
		if (at)
			err = atoi(at + strlen(needle));
	}
	close(fd);
	return err;
}

/* What a subtest may not leave behind. */
struct leaks {
	long objects, mappings, jobs;
	int fds, maps;
};

static int count_fds(void)
{
	struct dirent *de;
	DIR *dir = opendir("/proc/self/fd");
	int n = 0;

	igt_assert(dir);
	while ((de = readdir(dir)))
		n += de->d_name[0] != '.';
	closedir(dir);
	return n;
}

/* Mappings of DRM nodes, dma-bufs and memfds in this process. */
static int count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	igt_assert(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, "/dev/dri/") || strstr(line, "dmabuf") ||
		     strstr(line, "memfd:");
	fclose(f);
	return n;
}

static void leaks_start(struct leaks *l)
{
	l->objects = gembuf_state("objects");
	l->mappings = gembuf_state("mappings");
	l->jobs = gembuf_state("jobs");
	l->fds = count_fds();
	l->maps = count_maps();
}

/*
 * Finished jobs drop their objects from a worker: the counters settle.
 * A file's scheduler entity keeps its last job's fence, and so the job,
 * until the file goes: the shared engine file is opened again first.
 */
static void leaks_check(const struct leaks *l)
{
	if (engine >= 0) {
		drm_close_driver(engine);
		engine = gembuf_open_engine();
		igt_assert_lte(0, engine);
	}
	if (l->jobs >= 0)
		igt_assert_eq(gembuf_state_settle("jobs", l->jobs), l->jobs);
	if (l->objects >= 0)
		igt_assert_eq(gembuf_state_settle("objects", l->objects), l->objects);
	if (l->mappings >= 0)
		igt_assert_eq(gembuf_state_settle("mappings", l->mappings), l->mappings);
	igt_assert_eq(count_fds(), l->fds);
	igt_assert_eq(count_maps(), l->maps);
}

/* What became of an engine job: @err 0 when it ran to the end. */
struct job {
	int err;
	bool refused;	/* by the ioctl: nothing was submitted, nothing written */
};

static uint64_t deadline_ns(unsigned int seconds)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)(ts.tv_sec + seconds) * 1000000000ull + ts.tv_nsec;
}

/*
 * A job's result after its ioctl returned @ret.  A mapping the engine
 * cannot make fails the ioctl (the objects are mapped before the job is
 * queued).  GEM_WAIT tells only that the object is idle: an error the job
 * met on the engine is its fence's, read from its out-syncobj through a
 * sync_file.
 */
static struct job job_result(int fd, uint32_t h, uint32_t syncobj, int ret)
{
	struct sync_file_info info = {};
	struct job j = { .err = ret, .refused = ret != 0 };
	int sf;

	if (!ret) {
		gembuf_wait(fd, h);
		igt_assert(syncobj_wait(fd, &syncobj, 1, deadline_ns(60), 0, NULL));
		sf = syncobj_handle_to_fd(fd, syncobj,
					  DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE);
		do_ioctl(sf, SYNC_IOC_FILE_INFO, &info);
		close(sf);
		igt_assert_f(info.status, "the job's fence is unsignalled after the wait\n");
		if (info.status < 0)
			j.err = info.status;
	}
	syncobj_destroy(fd, syncobj);
	return j;
}

static struct job job_fill(int fd, uint32_t h, uint64_t offset, uint64_t size,
			   uint32_t value)
{
	uint32_t syncobj = syncobj_create(fd, 0);
	struct drm_gembuf_dma_fill f = {
		.handle = h, .value = value, .offset = offset, .size = size,
		.out_sync = { .handle = syncobj },
	};
	int ret = igt_ioctl(fd, DRM_IOCTL_GEMBUF_DMA_FILL, &f) ? -errno : 0;

	return job_result(fd, h, syncobj, ret);
}

static struct job job_copy(int fd, uint32_t dst, uint64_t dst_offset,
			   uint32_t src, uint64_t src_offset, uint64_t size)
{
	uint32_t syncobj = syncobj_create(fd, 0);
	struct drm_gembuf_dma_copy c = {
		.dst_handle = dst, .src_handle = src, .dst_offset = dst_offset,
		.src_offset = src_offset, .size = size,
		.out_sync = { .handle = syncobj },
	};
	int ret = igt_ioctl(fd, DRM_IOCTL_GEMBUF_DMA_COPY, &c) ? -errno : 0;

	return job_result(fd, dst, syncobj, ret);
}

static void job_print(const char *what, const struct job *j)
{
	if (!j->err)
		igt_info("%s: done\n", what);
	else
		igt_info("%s: %s %s\n", what, j->refused ?
			 "refused by the ioctl with" : "failed on the engine with",
			 errname(j->err));
}

/*
 * What an object must hold: a word per 4 bytes, and whether it is known
 * (a job that failed on the engine may have written part of its range).
 */
struct shadow {
	uint32_t *want;
	uint8_t *known;
	size_t words;
};

static void shadow_init(struct shadow *s, size_t size)
{
	s->words = size / 4;
	s->want = calloc(s->words, sizeof(*s->want));
	s->known = calloc(s->words, 1);
	igt_assert(s->want && s->known);
}

static void shadow_fini(struct shadow *s)
{
	free(s->want);
	free(s->known);
}

/* The CPU wrote @p's words: they are what @s must hold from now on. */
static void shadow_from(struct shadow *s, const uint32_t *p)
{
	memcpy(s->want, p, s->words * 4);
	memset(s->known, 1, s->words);
}

static void shadow_fill(struct shadow *s, uint64_t offset, uint64_t size,
			uint32_t value, const struct job *j)
{
	for (size_t i = offset / 4; i < (offset + size) / 4; i++) {
		if (!j->err)
			s->want[i] = value;
		else if (!j->refused)
			s->known[i] = 0;
	}
}

static void shadow_copy(struct shadow *d, uint64_t dst_offset,
			const struct shadow *s, uint64_t src_offset,
			uint64_t size, const struct job *j)
{
	for (size_t i = 0; i < size / 4; i++) {
		size_t di = dst_offset / 4 + i, si = src_offset / 4 + i;

		if (!j->err) {
			d->want[di] = s->want[si];
			d->known[di] = s->known[si];
		} else if (!j->refused) {
			d->known[di] = 0;
		}
	}
}

/* Every known word of @p is what @s says: the jobs' ranges and around. */
static void shadow_check(const struct shadow *s, const uint32_t *p,
			 const char *what)
{
	for (size_t i = 0; i < s->words; i++)
		igt_assert_f(!s->known[i] || p[i] == s->want[i],
			     "%s, byte 0x%zx: %08x, want %08x\n",
			     what, i * 4, p[i], s->want[i]);
}

/*
 * What debugfs says of @h's mappings: an address only for an IOVA of the
 * engine, none for the CPU mappings (one line that counts the processes'
 * VMAs, which @own, the caller's own mapping or NULL, is among); the engine
 * (@bdf, of IOMMU group type @type, with @bits address bits) maps it once:
 * an IOVA inside its mask where the IOMMU translates, a DMA API mapping
 * without an address where it does not, then in memory the engine reaches
 * as it is: one physical range below its mask.
 */
static void check_mappings(int fd, uint32_t h, const char *bdf, const char *type,
			   unsigned int bits, const void *own, bool own_object)
{
	struct gembuf_report gi = { .handle = h };
	struct gembuf_report_mapping maps[16], em = {};
	uint64_t mask = (1ull << bits) - 1;
	int engine_maps = 0, user = 0;

	igt_assert_eq(__gembuf_info(fd, &gi, maps, 16), 0);
	igt_assert_lte(gi.num_mappings, 16);
	for (unsigned int i = 0; i < gi.num_mappings; i++) {
		const struct gembuf_report_mapping *m = &maps[i];

		igt_info("  mapped by %s (%s): %llu bytes, address 0x%llx\n",
			 m->device, gembuf_mapping_kind_name(m->kind),
			 (unsigned long long)m->size,
			 (unsigned long long)m->dev_addr);
		if (m->kind == GEMBUF_MAPPING_USER) {
			igt_assert_f(!m->dev_addr,
				     "a CPU mapping's address reported: 0x%llx\n",
				     (unsigned long long)m->dev_addr);
			user++;
		} else if (m->kind != GEMBUF_MAPPING_IOMMU) {
			igt_assert_f(!m->dev_addr,
				     "%s (%s) reports address 0x%llx: no IOVA, never told\n",
				     m->device, gembuf_mapping_kind_name(m->kind),
				     (unsigned long long)m->dev_addr);
		}
		if (!strcmp(m->device, bdf)) {
			engine_maps++;
			em = *m;
		}
	}
	igt_assert_eq(engine_maps, 1);
	igt_assert_lte(user, 1);
	if (own)
		igt_assert_eq(user, 1);
	igt_assert_eq_u64(em.size, gi.size);
	if (is_passthrough(type))
		igt_assert_f(em.kind == GEMBUF_MAPPING_DMA_API,
			     "untranslated engine's mapping is %s, not dma-api\n",
			     gembuf_mapping_kind_name(em.kind));
	if (em.kind == GEMBUF_MAPPING_IOMMU) {
		igt_assert_neq_u64(em.dev_addr, 0);
		igt_assert_lte_u64(em.dev_addr + em.size - 1, mask);
		return;
	}
	igt_assert_eq_u32(em.kind, GEMBUF_MAPPING_DMA_API);
	igt_assert_eq_u64(em.dev_addr, 0);
	if (!own_object)
		return;
	/*
	 * DMA addresses are physical: memory below the engine's mask, in
	 * any chunks (the DMA API maps them segment by segment).
	 */
	gembuf_placement_print("untranslated engine's object", &gi);
	igt_assert(gi.flags & GEMBUF_INFO_ALLOCATED);
	igt_assert(!(gi.placement.need & GEMBUF_NEED_CONTIGUOUS));
	igt_assert(gi.placement.need & GEMBUF_NEED_LIMIT);
	igt_assert_lte_u64(gi.placement.dma_limit, mask);
	/* Told to CAP_SYS_ADMIN only. */
	if (gi.placement.addr_bits)
		igt_assert_lte(gi.placement.addr_bits, (int)bits);
}

/*
 * The first DMA of a new object, before any CPU mapping allocates its
 * memory: where the engine cannot use memory for it, the job fails (and
 * not a CPU access, with SIGBUS).
 */
static struct job first_dma(int fd, uint32_t h, const char *what)
{
	struct job j = job_fill(fd, h, 0, PROBE_LEN, PROBE_VALUE);

	job_print(what, &j);
	return j;
}

/*
 * A fill and a copy on two objects of the engine's own, checked word by
 * word.  With @may_fail, each step may instead fail with a clear errno,
 * and what it did not write must be as it was; without, everything must
 * work.
 */
static void own_object(int fd, unsigned int bits, const char *bdf,
		       const char *type, bool may_fail)
{
	uint64_t size = OBJ_SIZE;
	struct shadow ss, ds;
	uint32_t src = 0, dst = 0;
	uint32_t *s = NULL, *d = NULL;
	struct job j, fill, copy;
	int ret;

	ret = __gembuf_create(fd, &size, 0, GEMBUF_CACHE_WB, &dst);
	if (!ret) {
		igt_assert_eq_u64(size, OBJ_SIZE);
		ret = __gembuf_create(fd, &size, 0, GEMBUF_CACHE_WB, &src);
	}
	if (ret) {
		igt_info("outcome: create refused with %s\n", errname(ret));
		igt_assert_f(may_fail && is_clear_errno(ret), "create: %s\n",
			     errname(ret));
		goto out;
	}

	j = first_dma(fd, dst, "first DMA of the destination");
	if (!j.err)
		j = first_dma(fd, src, "first DMA of the source");
	if (j.err) {
		igt_info("outcome: the first DMA %s %s\n", j.refused ?
			 "refused by the ioctl with" : "failed on the engine with",
			 errname(j.err));
		igt_assert_f(may_fail && is_clear_errno(j.err),
			     "first DMA: %s\n", errname(j.err));
		goto out;
	}

	shadow_init(&ss, OBJ_SIZE);
	shadow_init(&ds, OBJ_SIZE);
	s = gembuf_mmap(fd, src, OBJ_SIZE);
	d = gembuf_mmap(fd, dst, OBJ_SIZE);
	for (size_t i = 0; i < PROBE_LEN / 4; i++) {
		igt_assert_eq_u32(s[i], PROBE_VALUE);
		igt_assert_eq_u32(d[i], PROBE_VALUE);
	}
	for (size_t i = 0; i < OBJ_SIZE / 4; i++) {
		s[i] = SRC_BASE + i;
		d[i] = BG_VALUE;
	}
	shadow_from(&ss, s);
	shadow_from(&ds, d);

	/* Across the 1 MiB mark, and from the source's last byte. */
	fill = job_fill(fd, dst, FILL_OFF, FILL_LEN, FILL_VALUE);
	job_print("fill", &fill);
	igt_assert_f(!fill.err || (may_fail && is_clear_errno(fill.err)),
		     "fill: %s\n", errname(fill.err));
	shadow_fill(&ds, FILL_OFF, FILL_LEN, FILL_VALUE, &fill);

	copy = job_copy(fd, dst, COPY_DST, src, COPY_SRC, COPY_LEN);
	job_print("copy", &copy);
	igt_assert_f(!copy.err || (may_fail && is_clear_errno(copy.err)),
		     "copy: %s\n", errname(copy.err));
	shadow_copy(&ds, COPY_DST, &ss, COPY_SRC, COPY_LEN, &copy);

	shadow_check(&ds, d, "destination");
	shadow_check(&ss, s, "source");
	if (!fill.err && !copy.err)
		igt_info("outcome: the jobs ran, the data is exact\n");
	else
		igt_info("outcome: a job failed with a clear errno; what it did not write is intact\n");

	igt_info("destination:\n");
	check_mappings(fd, dst, bdf, type, bits, d, true);
	igt_info("source:\n");
	check_mappings(fd, src, bdf, type, bits, s, true);

	munmap(s, OBJ_SIZE);
	munmap(d, OBJ_SIZE);
	shadow_fini(&ss);
	shadow_fini(&ds);
out:
	if (src)
		gem_close(fd, src);
	if (dst)
		gem_close(fd, dst);
}

/* Around the CPU's access to a dma-buf's memory, as its exporter wants. */
static void cpu_access(int dmabuf, bool start)
{
	struct dma_buf_sync sync = {
		.flags = (start ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) |
			 DMA_BUF_SYNC_RW,
	};

	if (dmabuf >= 0)
		do_ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync);
}

/*
 * The 40-bit engine imports @dmabuf, whose memory the CPU sees at @cpu
 * (@sync: the dma-buf to bracket that access with, or -1), and fills
 * [@offset, @offset + IMPORT_FILL_LEN).  The fill works, whether the
 * attachment is one range of DMA addresses or scattered pages, and the
 * exporter's mapping shows exactly it.
 */
static void import_fill(int dmabuf, uint32_t *cpu, size_t size, int sync,
			uint64_t offset)
{
	size_t from = offset / 4, to = (offset + IMPORT_FILL_LEN) / 4;
	uint32_t h;
	struct job j;

	igt_assert_lte_u64(offset + IMPORT_FILL_LEN, size);
	cpu_access(sync, true);
	for (size_t i = 0; i < size / 4; i++)
		cpu[i] = IMPORT_BASE + i;
	cpu_access(sync, false);

	h = prime_fd_to_handle(engine, dmabuf);
	j = job_fill(engine, h, offset, IMPORT_FILL_LEN, IMPORT_VALUE);
	job_print("fill of the import", &j);
	igt_assert_f(!j.err, "fill of the import: %s\n", errname(j.err));

	cpu_access(sync, true);
	for (size_t i = 0; i < size / 4; i++) {
		bool in = i >= from && i < to;

		if (in && j.err && !j.refused)
			continue;
		igt_assert_f(cpu[i] == (in && !j.err ? IMPORT_VALUE : IMPORT_BASE + i),
			     "byte 0x%zx: %08x\n", i * 4, cpu[i]);
	}
	cpu_access(sync, false);

	if (!j.err)
		check_mappings(engine, h, engine_bdf, engine_iommu, ENGINE0_BITS,
			       NULL, false);
	gem_close(engine, h);
}

igt_main
{
	igt_fixture {
		engine = gembuf_open_engine();
		drm_fd_pci_name(engine, engine_bdf, sizeof(engine_bdf));
		igt_assert_f(engine_bdf[0], "no PCI device for the engine's node\n");
		pci_iommu_type(engine_bdf, engine_iommu, sizeof(engine_iommu));
		print_config("40-bit engine", engine_bdf, engine_iommu);
	}

	igt_describe("An object of the 40-bit engine's own, filled and copied by DMA, holds exactly what the jobs wrote, translated or not; debugfs tells an IOVA or, without translation, a DMA API mapping without address.");
	igt_subtest("own-object-40") {
		struct leaks l;
		int fd;

		/*
		 * A file of its own: a file's scheduler entity keeps its last
		 * job's fence, and so the job, until the file goes.
		 */
		leaks_start(&l);
		fd = gembuf_open_engine();
		own_object(fd, ENGINE0_BITS, engine_bdf, engine_iommu, false);
		drm_close_driver(fd);
		leaks_check(&l);
	}

	igt_describe("On the 28-bit engine, whose mask reaches no RAM without translation, the same jobs work with exact data or fail with a clear errno (or the engine was refused at probe with one), never with wrong data.");
	igt_subtest("own-object-28") {
		char bdf[64], type[32];
		struct leaks l;
		int fd, err;

		leaks_start(&l);
		fd = gembuf_open_engine_nth(1);
		if (fd < 0) {
			igt_require_f(find_refused_edu(bdf, sizeof(bdf)),
				      "no second DMA engine\n");
			pci_iommu_type(bdf, type, sizeof(type));
			print_config("28-bit engine", bdf, type);
			err = probe_error(bdf);
			igt_info("outcome: the engine was refused at probe, %s\n",
				 err ? errname(err) : "its error not in the kernel log");
			/*
			 * dma_set_mask() says -EIO for a mask the DMA API
			 * cannot serve: no RAM below it, without an IOMMU.
			 */
			igt_assert_f(!err || is_clear_errno(err) || err == -EIO,
				     "probe of %s: %s\n", bdf, errname(err));
		} else {
			drm_fd_pci_name(fd, bdf, sizeof(bdf));
			igt_assert_f(bdf[0], "no PCI device for the engine's node\n");
			pci_iommu_type(bdf, type, sizeof(type));
			print_config("28-bit engine", bdf, type);
			own_object(fd, ENGINE1_BITS, bdf, type, true);
			drm_close_driver(fd);
		}
		leaks_check(&l);
	}

	igt_describe("A vgem buffer imported by the 40-bit engine: the fill, over whatever DMA segments the attachment has, shows exactly in vgem's mapping.");
	igt_subtest("import-vgem") {
		unsigned int stride;
		struct leaks l;
		uint64_t size;
		uint32_t vh, *v;
		int vgem, fd;

		leaks_start(&l);
		vgem = __drm_open_driver(DRIVER_VGEM);
		igt_require(vgem >= 0);
		vh = kmstest_dumb_create(vgem, 1024, 256, 32, &stride, &size);
		v = kmstest_dumb_map_buffer(vgem, vh, size, PROT_READ | PROT_WRITE);
		fd = prime_handle_to_fd(vgem, vh);
		import_fill(fd, v, size, fd, size / 2 - 6140);
		close(fd);
		munmap(v, size);
		gem_close(vgem, vh);
		drm_close_driver(vgem);
		leaks_check(&l);
	}

	igt_describe("A system-heap dma-buf (chunks of 1 MiB, 64 KiB and 4 KiB) imported by the 40-bit engine: a fill across its 1 MiB mark shows exactly in the heap's mapping.");
	igt_subtest("import-system-heap") {
		size_t size = OBJ_SIZE + 4096;
		struct leaks l;
		uint32_t *v;
		int fd;

		leaks_start(&l);
		fd = gembuf_heap_alloc("system", size);
		v = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		igt_assert(v != MAP_FAILED);
		import_fill(fd, v, size, fd, (1u << 20) - 6140);
		munmap(v, size);
		close(fd);
		leaks_check(&l);
	}

	igt_describe("A udmabuf (memfd pages) imported by the 40-bit engine: the fill shows exactly through the memfd.");
	igt_subtest("import-udmabuf") {
		size_t size = 256u << 10;
		struct udmabuf_create c = { .size = size };
		int dev, memfd, fd;
		struct leaks l;
		uint32_t *v;

		leaks_start(&l);
		dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
		igt_require_f(dev >= 0, "no /dev/udmabuf\n");
		memfd = memfd_create("gembuf_passthrough", MFD_ALLOW_SEALING | MFD_CLOEXEC);
		igt_assert_fd(memfd);
		igt_assert_eq(ftruncate(memfd, size), 0);
		igt_assert_eq(fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
		c.memfd = memfd;
		fd = ioctl(dev, UDMABUF_CREATE, &c);
		igt_assert_fd(fd);
		v = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
		igt_assert(v != MAP_FAILED);
		/* The memfd's own mapping, as gembuf_prime's from-udmabuf. */
		import_fill(fd, v, size, -1, size / 2 - 6140);
		munmap(v, size);
		close(fd);
		close(memfd);
		close(dev);
		leaks_check(&l);
	}

	igt_fixture
		drm_close_driver(engine);
}
