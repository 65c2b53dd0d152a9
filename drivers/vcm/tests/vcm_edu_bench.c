// SPDX-License-Identifier: GPL-2.0-only
/*
 * The vcm_edu module's benchmark: map and unmap a buffer for QEMU's edu
 * through a DMA VCM, as gembuf's engine maps its objects, and through the
 * DMA API on a dma-buf of the system heap, driven through debugfs
 * (vcm_edu/bench) by igt's vcm_map.  Both go through the DMA API into
 * edu's DMA domain: what differs is the chunks.
 */

#include <linux/debugfs.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/module.h>
#include <linux/vcm.h>

#include "../vcm_priv.h"
#include "vcm_test_util.h"
#include "vcm_edu.h"

/* --- benchmark ------------------------------------------------------- */

/*
 * Map and unmap @len bytes for edu @iters times through a DMA VCM, in
 * memory allocated for what that VCM needs (chunks sized for the SMMU's
 * blocks), then through the DMA API with the dma-buf given (a dma-heaps
 * system-heap buffer: dma_buf_map_attachment() there is
 * dma_map_sgtable() of the heap's 1 MiB, 64 KiB and 4 KiB chunks), and
 * report both.  The caller holds @edu's lock.
 */
static int vcm_edu_bench(struct vcm_edu *edu, struct device *dev, int fd,
			 unsigned int iters)
{
	struct dma_buf_attachment *attach;
	u64 t0, vcm_ns, dma_ns;
	size_t vcm_ptes = 0;
	struct vcm_constraint c;
	struct vcm_physmem *pm;
	struct vcm_avcm *avcm;
	struct dma_buf *dmabuf;
	struct sg_table *sgt;
	struct vcm_res *res;
	struct vcm *vcm;
	unsigned int i;
	int ret;

	dmabuf = dma_buf_get(fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);

	vcm = vcm_create_dma();
	ret = PTR_ERR_OR_ZERO(vcm);
	if (ret)
		goto put_buf;
	avcm = vcm_assoc(vcm, dev, 0);
	ret = PTR_ERR_OR_ZERO(avcm);
	if (ret)
		goto free_vcm;
	ret = vcm_activate(avcm);
	if (ret)
		goto deassoc;
	ret = vcm_constraint_of_vcm(vcm, &c);
	if (ret)
		goto deactivate;
	pm = vcm_phys_alloc_for(dmabuf->size, 0, &c);
	ret = PTR_ERR_OR_ZERO(pm);
	if (ret)
		goto deactivate;
	res = vcm_reserve(vcm, dmabuf->size, RW_CACHED);
	ret = PTR_ERR_OR_ZERO(res);
	if (ret)
		goto free_pm;

	t0 = ktime_get_ns();
	for (i = 0; i < iters && !ret; i++) {
		ret = vcm_back(res, pm);
		if (i == 0)
			vcm_ptes = vcm_get_res_num_ptes(res);
		if (!ret)
			vcm_unback(res);
	}
	vcm_ns = ktime_get_ns() - t0;
	vcm_unreserve(res);
free_pm:
	vcm_phys_free(pm);
deactivate:
	vcm_deactivate(avcm);
deassoc:
	vcm_deassoc(avcm);
free_vcm:
	vcm_free(vcm);
	if (ret)
		goto put_buf;

	/* The same device and domain, the system heap's chunks. */
	attach = dma_buf_attach(dmabuf, dev);
	ret = PTR_ERR_OR_ZERO(attach);
	if (ret)
		goto put_buf;
	t0 = ktime_get_ns();
	for (i = 0; i < iters; i++) {
		sgt = dma_buf_map_attachment_unlocked(attach, DMA_BIDIRECTIONAL);
		if (IS_ERR(sgt)) {
			ret = PTR_ERR(sgt);
			break;
		}
		/* Its pages are the heap's: an importer counts nothing of them. */
		dma_buf_unmap_attachment_unlocked(attach, sgt, DMA_BIDIRECTIONAL);
	}
	dma_ns = ktime_get_ns() - t0;
	dma_buf_detach(dmabuf, attach);

	if (!ret)
		scnprintf(edu->bench, sizeof(edu->bench),
			  "size %zu iterations %u\n"
			  "vcm_ns %llu vcm_ptes %zu\n"
			  "dma_api_ns %llu\n",
			  dmabuf->size, iters, vcm_ns, vcm_ptes, dma_ns);
put_buf:
	dma_buf_put(dmabuf);
	return ret;
}

static ssize_t vcm_edu_bench_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct vcm_edu *edu = file->private_data;
	unsigned int iters;
	char buf[32];
	int fd, ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%d %u", &fd, &iters) != 2 || !iters || iters > 1000)
		return -EINVAL;

	/* edu stays bound while it runs: unbinding waits for the lock. */
	mutex_lock(&edu->lock);
	edu->bench[0] = '\0';
	ret = edu->dev ? vcm_edu_bench(edu, edu->dev, fd, iters) : -ENODEV;
	mutex_unlock(&edu->lock);
	return ret ?: count;
}

static ssize_t vcm_edu_bench_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct vcm_edu *edu = file->private_data;
	ssize_t ret;

	mutex_lock(&edu->lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, edu->bench,
				      strlen(edu->bench));
	mutex_unlock(&edu->lock);
	return ret;
}

static const struct file_operations vcm_edu_bench_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = vcm_edu_bench_read,
	.write = vcm_edu_bench_write,
	.llseek = default_llseek,
};

/* --- set up from the module's init ------------------------------------ */

/**
 * vcm_edu_bench_init() - create the benchmark's debugfs file
 * @edu: the module's edu
 */
void vcm_edu_bench_init(struct vcm_edu *edu)
{
	edu->dir = debugfs_create_dir("vcm_edu", NULL);
	debugfs_create_file("bench", 0600, edu->dir, edu, &vcm_edu_bench_fops);
}

/**
 * vcm_edu_bench_exit() - remove it, once no benchmark runs
 * @edu: the module's edu
 */
void vcm_edu_bench_exit(struct vcm_edu *edu)
{
	debugfs_remove_recursive(edu->dir);
}
