// SPDX-License-Identifier: GPL-2.0-only
/*
 * gembuf debugfs: the module's counters, on every gembuf DRM minor; the
 * placement of every object ("gembuf_objects"); what one object is made
 * of and who maps it ("gembuf_object": write a client's drm-client-id
 * and a handle, then read); and fault injection
 * into the work the drivers do outside any client's task, where fail-nth
 * cannot reach: "fail_job" fails DMA engine jobs
 * (their fences signal with -EIO), "hang_job" hangs the engine on a job
 * until the scheduler's timeout resets it (-ETIMEDOUT), "fail_compose"
 * fails the display's frames (writeback jobs complete with -EIO).
 * All three are the kernel's fault attributes, there only with
 * CONFIG_FAULT_INJECTION_DEBUG_FS (Documentation/fault-injection/).
 */

#include <drm/drm_debugfs.h>
#include <drm/drm_file.h>
#include <drm/drm_gem_vcm_helper.h>
#include <linux/debugfs.h>
#include <linux/fault-inject.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "gembuf_kms.h"

DECLARE_FAULT_ATTR(gembuf_fail_job);
DECLARE_FAULT_ATTR(gembuf_hang_job);
DECLARE_FAULT_ATTR(gembuf_fail_compose);

/*
 * The module's live objects, imports included, and mappings: those
 * gembuf made for its devices, and the kernel's vmaps and importers' DMA
 * mappings, which the GEM VCM helper makes and counts in the context of
 * the device the object is of (listed until the device is released,
 * after its last object).
 */
static void gembuf_state_objects(struct seq_file *m)
{
	int objects = 0, mappings = atomic_read(&gembuf.mappings);
	struct drm_gem_vcm_context *ctx;
	struct gembuf_device *gdev;

	mutex_lock(&gembuf.devices_lock);
	list_for_each_entry(gdev, &gembuf.devices, node) {
		ctx = &gdev->gem_vcm;
		objects += atomic_read(&ctx->objects);
		mappings += atomic_read(&ctx->maps);
	}
	mutex_unlock(&gembuf.devices_lock);
	seq_printf(m, "objects %d\n", objects);
	seq_printf(m, "mappings %d\n", mappings);
}

static int gembuf_state_show(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct gembuf_kms *kms = to_gembuf_device(entry->dev)->kms;
	s64 composed = 0, compose_ns = 0, flips = 0, foreign = 0;
	unsigned int i;

	gembuf_state_objects(m);
	seq_printf(m, "jobs %d\n", atomic_read(&gembuf.jobs));
	if (!kms)
		return 0;
	/* The display's counters are summed over its CRTCs. */
	for (i = 0; i < GEMBUF_NUM_CRTCS; i++) {
		composed += atomic64_read(&kms->outputs[i].frames_composed);
		compose_ns += atomic64_read(&kms->outputs[i].compose_ns);
		flips += atomic64_read(&kms->outputs[i].fb_flips);
		foreign += atomic64_read(&kms->outputs[i].fb_flips_foreign);
	}
	seq_printf(m, "frames_composed %lld\n", composed);
	seq_printf(m, "compose_ns %lld\n", compose_ns);
	seq_printf(m, "fb_flips %lld\n", flips);
	seq_printf(m, "fb_flips_foreign %lld\n", foreign);
	return 0;
}

/* Room for an object's report with GEMBUF_DESCRIBE_MAPPINGS mappings. */
#define GEMBUF_REPORT_SIZE	SZ_16K

struct gembuf_report {
	struct drm_device *dev;
	struct mutex lock;	/* serialises the requests of one open file */
	struct seq_buf s;
	char buf[GEMBUF_REPORT_SIZE];
};

/*
 * The drm_device is not referenced: debugfs_create_file()'s proxy makes
 * every call here wait for the file's removal, which drm_dev_unregister()
 * does (with the device's debugfs directory) before the device goes, and
 * fail after it.  The file must not become debugfs_create_file_unsafe().
 */
static int gembuf_object_open(struct inode *inode, struct file *f)
{
	struct gembuf_report *r = kvzalloc(sizeof(*r), GFP_KERNEL);

	if (!r)
		return -ENOMEM;
	r->dev = inode->i_private;
	mutex_init(&r->lock);
	seq_buf_init(&r->s, r->buf, sizeof(r->buf));
	f->private_data = r;
	return 0;
}

/*
 * "<client id> <handle>": the report of that object, read from the
 * start of the file next; the errors of gembuf_gem_describe().
 */
static ssize_t gembuf_object_write(struct file *f, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	struct gembuf_report *r = f->private_data;
	char cmd[48];
	u64 client;
	u32 handle;
	int ret;

	if (!len || len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, len))
		return -EFAULT;
	cmd[len] = '\0';
	if (sscanf(cmd, "%llu %u", &client, &handle) != 2)
		return -EINVAL;
	mutex_lock(&r->lock);
	seq_buf_clear(&r->s);
	ret = gembuf_gem_describe(r->dev, client, handle, &r->s);
	if (ret)
		seq_buf_clear(&r->s);
	mutex_unlock(&r->lock);
	if (ret)
		return ret;
	*ppos = 0;
	return len;
}

static ssize_t gembuf_object_read(struct file *f, char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	struct gembuf_report *r = f->private_data;
	ssize_t ret;

	mutex_lock(&r->lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, r->buf,
				      seq_buf_used(&r->s));
	mutex_unlock(&r->lock);
	return ret;
}

static int gembuf_object_release(struct inode *inode, struct file *f)
{
	struct gembuf_report *r = f->private_data;

	mutex_destroy(&r->lock);
	kvfree(r);
	return 0;
}

static const struct file_operations gembuf_object_fops = {
	.owner = THIS_MODULE,
	.open = gembuf_object_open,
	.write = gembuf_object_write,
	.read = gembuf_object_read,
	.llseek = default_llseek,
	.release = gembuf_object_release,
};

/*
 * One line per object with memory of gembuf's own: its size, whether
 * the memory is there, what its devices need, their number, the DMA
 * limit, the moves, and the last refusal (errno, device, what the
 * memory lacked): drm_gem_vcm_show_placement().
 */
static int gembuf_objects_show(struct seq_file *m, void *data)
{
	struct gembuf_object *obj;

	seq_puts(m, "size allocated need devices limit moves refused\n");
	mutex_lock(&gembuf.objects_lock);
	list_for_each_entry(obj, &gembuf.object_list, list_node)
		drm_gem_vcm_show_placement(&obj->vcm, m);
	mutex_unlock(&gembuf.objects_lock);
	return 0;
}

static const struct drm_debugfs_info gembuf_debugfs_list[] = {
	{ "gembuf_state", gembuf_state_show, 0 },
	{ "gembuf_objects", gembuf_objects_show, 0 },
};

/**
 * gembuf_debugfs_init() - add gembuf's files to a DRM minor
 * @minor: the minor
 */
void gembuf_debugfs_init(struct drm_minor *minor)
{
	struct gembuf_device *gdev = to_gembuf_device(minor->dev);

	drm_debugfs_add_files(minor->dev, gembuf_debugfs_list,
			      ARRAY_SIZE(gembuf_debugfs_list));
	debugfs_create_file("gembuf_object", 0600, minor->debugfs_root,
			    minor->dev, &gembuf_object_fops);
	if (gdev->role == GEMBUF_ENGINE) {
		fault_create_debugfs_attr("fail_job", minor->debugfs_root,
					  &gembuf_fail_job);
		fault_create_debugfs_attr("hang_job", minor->debugfs_root,
					  &gembuf_hang_job);
	} else {
		fault_create_debugfs_attr("fail_compose", minor->debugfs_root,
					  &gembuf_fail_compose);
	}
}
