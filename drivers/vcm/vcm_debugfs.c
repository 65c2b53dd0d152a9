// SPDX-License-Identifier: GPL-2.0-only
/*
 * debugfs view of VCM: vcm/vcms, vcm/physmem and vcm/stats.
 */

#include <kunit/visibility.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/iommu.h>
#include <linux/seq_file.h>

#include "vcm_priv.h"

static const char *const vcm_type_names[] = {
	[VCM_DEVICE] = "iommu",
	[VCM_DMA] = "dma",
	[VCM_EXT_KERNEL] = "kernel",
	[VCM_ONE_TO_ONE] = "one-to-one",
};

static const char *const vcm_cclass_names[] = {
	[VCM_CC_NONE] = "none",
	[VCM_CC_CACHED] = "cached",
	[VCM_CC_WC] = "write-combined",
};

static void vcm_show_res(struct seq_file *m, struct vcm_res *res)
{
	seq_printf(m, "  res %pad+%#zx attr %#x align %#zx",
		   &res->dev_addr, res->len, res->attr, res->align);
	if (!res->placed)
		seq_puts(m, " unplaced");
	if (res->physmem)
		seq_printf(m, " physmem %u", res->physmem->id);
	if (res->mapped)
		seq_printf(m, " ptes %zu", res->num_ptes);
	seq_putc(m, '\n');
}

VISIBLE_IF_KUNIT int vcm_vcms_show(struct seq_file *m, void *unused)
{
	struct vcm_avcm *avcm;
	struct vcm_bound *bound;
	struct vcm_res *res;
	struct vcm *vcm;

	mutex_lock(&vcm_list_lock);
	list_for_each_entry(vcm, &vcm_list, node) {
		mutex_lock(&vcm->lock);
		seq_printf(m, "vcm %u %s %pad+%#zx reservations %zu used %#zx",
			   vcm->id, vcm_type_names[vcm->type], &vcm->start,
			   vcm->len, vcm->num_res, vcm->space.used);
		if (vcm->domain)
			seq_printf(m, " pgsizes %#lx", vcm->domain->pgsize_bitmap);
		seq_putc(m, '\n');
		list_for_each_entry(avcm, &vcm->assoc_list, node)
			seq_printf(m, "  dev %s %s attr %#x\n", dev_name(avcm->dev),
				   avcm->active ? "active" : "inactive",
				   avcm->attr);
		list_for_each_entry(bound, &vcm->bound_list, node)
			seq_printf(m, "  bound %pad+%#zx reservations %zu\n",
				   &bound->start, bound->len, bound->num_res);
		list_for_each_entry(res, &vcm->res_list, vcm_node)
			vcm_show_res(m, res);
		mutex_unlock(&vcm->lock);
	}
	mutex_unlock(&vcm_list_lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_vcms_show);
DEFINE_SHOW_ATTRIBUTE(vcm_vcms);

VISIBLE_IF_KUNIT int vcm_physmem_show(struct seq_file *m, void *unused)
{
	unsigned int hist[BITS_PER_LONG], i, order;
	struct vcm_physmem *pm;
	struct scatterlist *sg;
	struct vcm_res *res;

	mutex_lock(&vcm_phys_lock);
	list_for_each_entry(pm, &vcm_phys_list, node) {
		mutex_lock(&pm->lock);
		seq_printf(m, "physmem %u %s len %#zx attr %#x%s cache %s reservations %u\n",
			   pm->id,
			   pm->memtype == VCM_MEMTYPE_FOREIGN ? "foreign" : "system",
			   pm->len, pm->attr, pm->contiguous ? " contiguous" : "",
			   vcm_cclass_names[pm->cclass], pm->num_res);

		memset(hist, 0, sizeof(hist));
		for_each_sgtable_sg(&pm->sgt, sg, i)
			hist[min_t(unsigned int, __fls(sg->length), BITS_PER_LONG - 1)]++;
		seq_puts(m, "  chunks");
		for (order = BITS_PER_LONG; order-- > 0; )
			if (hist[order])
				seq_printf(m, " %luK:%u", BIT(order) >> 10, hist[order]);
		seq_putc(m, '\n');

		list_for_each_entry(res, &pm->res_list, phys_node)
			seq_printf(m, "  backs vcm %u %pad+%#zx\n", res->vcm->id,
				   &res->dev_addr, res->len);
		mutex_unlock(&pm->lock);
	}
	mutex_unlock(&vcm_phys_lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_physmem_show);
DEFINE_SHOW_ATTRIBUTE(vcm_physmem);

static int vcm_stats_show(struct seq_file *m, void *unused)
{
	int i;

	for (i = 0; i < VCM_STAT_NR; i++)
		seq_printf(m, "%s %ld\n", vcm_stat_names[i], vcm_stat_read(i));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vcm_stats);

/**
 * vcm_debugfs_init() - create the vcm/ debugfs folder
 */
void vcm_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("vcm", NULL);

	debugfs_create_file("vcms", 0444, dir, NULL, &vcm_vcms_fops);
	debugfs_create_file("physmem", 0444, dir, NULL, &vcm_physmem_fops);
	debugfs_create_file("stats", 0444, dir, NULL, &vcm_stats_fops);
}
