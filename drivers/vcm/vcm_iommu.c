// SPDX-License-Identifier: GPL-2.0-only
/*
 * The IOMMU kind of VCM: an IOMMU domain of the kernel's IOMMU API.
 *
 * The domain is allocated for the first device associated with the VCM,
 * which fixes its page sizes and aperture.  Mappings are written with
 * iommu_map_sgtable(), which picks for every piece the largest page size
 * of the domain that the IOVA and physical alignment allow; the chunk
 * sizes of vcm_phys_alloc() and the default alignment of reservations are
 * chosen so that this is the largest page size overall.
 */

#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/platform_device.h>

#include <kunit/visibility.h>

#include "vcm_priv.h"

/**
 * vcm_iommu_count_ptes() - leaf entries a mapping needs
 * @pgsizes: the domain's page sizes
 * @iova: first IOVA
 * @paddr: first physical address
 * @size: length
 *
 * Follows the page size choice of iommu_map(): the largest size that
 * fits the remaining length and to which both addresses are aligned.
 *
 * Exported only for the vcm suite, which checks it.
 *
 * Return: the number of leaf page-table entries.
 */
size_t vcm_iommu_count_ptes(unsigned long pgsizes, unsigned long iova,
			    phys_addr_t paddr, size_t size)
{
	size_t n = 0;

	while (size) {
		unsigned long addr_merge = iova | (unsigned long)paddr;
		unsigned long sizes = pgsizes & GENMASK(__fls(size), 0);
		size_t pgsize;

		if (addr_merge)
			sizes &= GENMASK(__ffs(addr_merge), 0);
		if (!sizes)
			return 0;
		pgsize = 1UL << __fls(sizes);
		iova += pgsize;
		paddr += pgsize;
		size -= pgsize;
		n++;
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_iommu_count_ptes);

/**
 * vcm_iommu_count_sgt_ptes() - leaf entries iommu_map_sgtable() makes
 * @pgsizes: the domain's page sizes
 * @iova: the IOVA the table is mapped at
 * @sgt: a table of pages
 *
 * iommu_map_sg() maps physically contiguous neighbours in one call, so
 * two chunks that happen to meet can share a larger entry: count the
 * runs, not the entries of the table.
 *
 * Exported only for the vcm suite and for the vcm_edu benchmark, which
 * counts the DMA API's entries with it.
 *
 * Return: the number of leaf page-table entries.
 */
size_t vcm_iommu_count_sgt_ptes(unsigned long pgsizes, unsigned long iova,
				struct sg_table *sgt)
{
	phys_addr_t start = 0;
	struct scatterlist *sg;
	size_t run = 0, n = 0;
	unsigned int i;

	for_each_sgtable_sg(sgt, sg, i) {
		if (run && sg_phys(sg) == start + run) {
			run += sg->length;
			continue;
		}
		if (run)
			n += vcm_iommu_count_ptes(pgsizes, iova, start, run);
		iova += run;
		start = sg_phys(sg);
		run = sg->length;
	}
	if (run)
		n += vcm_iommu_count_ptes(pgsizes, iova, start, run);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_iommu_count_sgt_ptes);

static int vcm_iommu_prot(u32 attr)
{
	int prot = 0;

	if (attr & VCM_READ)
		prot |= IOMMU_READ;
	if (attr & VCM_WRITE)
		prot |= IOMMU_WRITE;
	if (!(attr & VCM_EXECUTE))
		prot |= IOMMU_NOEXEC;
	if (attr & VCM_SUPERVISOR)
		prot |= IOMMU_PRIV;
	/* Cached memory is only mapped for coherent devices. */
	if (vcm_cache_class(attr) == VCM_CC_CACHED)
		prot |= IOMMU_CACHE;
	return prot;
}

/**
 * vcm_iommu_map() - write a backed reservation into the domain
 * @res: the reservation, its VCM locked and having a domain
 *
 * Return: 0, -EINVAL for cached memory in a domain of non-coherent devices,
 * or the error of iommu_map_sgtable() with nothing mapped.
 */
int vcm_iommu_map(struct vcm_res *res)
{
	struct iommu_domain *domain = res->vcm->domain;
	struct vcm_physmem *pm = res->physmem;
	int prot = vcm_iommu_prot(res->attr);
	ssize_t mapped;

	/*
	 * A device that does not snoop the CPU caches would see stale
	 * lines of cached memory, and VCM does no cache maintenance for
	 * devices in a domain of its own: such a domain maps write-combined
	 * memory only.
	 */
	if ((prot & IOMMU_CACHE) && !res->vcm->dma_coherent)
		return -EINVAL;
	mapped = iommu_map_sgtable(domain, res->dev_addr, &pm->sgt, prot);
	if (mapped < 0)
		return mapped;
	if (mapped != res->len) {
		iommu_unmap(domain, res->dev_addr, mapped);
		return -ENOMEM;
	}

	res->num_ptes = vcm_iommu_count_sgt_ptes(domain->pgsize_bitmap,
						 res->dev_addr, &pm->sgt);
	res->mapped = true;
	vcm_stat_add(VCM_STAT_IOMMU_BYTES, res->len);
	vcm_stat_add(VCM_STAT_IOMMU_PTES, res->num_ptes);
	return 0;
}

/**
 * vcm_iommu_unmap() - remove a reservation from the domain
 * @res: a mapped reservation, its VCM locked
 *
 * iommu_unmap() flushes the IOTLB before returning.
 */
void vcm_iommu_unmap(struct vcm_res *res)
{
	iommu_unmap(res->vcm->domain, res->dev_addr, res->len);
	vcm_stat_add(VCM_STAT_IOMMU_BYTES, -(long)res->len);
	vcm_stat_add(VCM_STAT_IOMMU_PTES, -(long)res->num_ptes);
	res->num_ptes = 0;
	res->mapped = false;
}

/**
 * vcm_iommu_assoc() - prepare an IOMMU VCM for a new device
 * @vcm: the VCM, locked
 * @dev: the device
 *
 * The first device gets the VCM its domain, and every backed reservation
 * is mapped into it.  Where the IOMMU can enforce cache coherency for
 * the device (%IOMMU_CAP_CACHE_COHERENCY), cached memory is mapped with
 * %IOMMU_CACHE; elsewhere the domain maps write-combined memory only, as
 * VCM does no cache maintenance for a domain of its own.  Devices that
 * share the domain later must agree.
 *
 * Return: 0, -ENODEV if @dev is not behind an IOMMU, -ERANGE if the VCM
 * does not fit the domain's aperture or the device's DMA mask, -EINVAL if
 * @dev's IOMMU coherency differs from the domain's first device, or the
 * error of the domain allocation or of a mapping.
 */
int vcm_iommu_assoc(struct vcm *vcm, struct device *dev)
{
	dma_addr_t last = vcm->start + vcm->len - 1;
	struct iommu_domain *domain;
	struct vcm_res *res;
	int ret;

	if (!device_iommu_mapped(dev))
		return -ENODEV;
	if (last > dma_get_mask(dev))
		return -ERANGE;
	if (vcm->domain)
		return vcm->dma_coherent ==
			device_iommu_capable(dev, IOMMU_CAP_CACHE_COHERENCY) ?
			0 : -EINVAL;

	domain = iommu_paging_domain_alloc(dev);
	if (IS_ERR(domain))
		return PTR_ERR(domain);
	if (vcm->start < domain->geometry.aperture_start ||
	    last > domain->geometry.aperture_end) {
		iommu_domain_free(domain);
		return -ERANGE;
	}
	vcm->domain = domain;
	vcm->dma_coherent = device_iommu_capable(dev, IOMMU_CAP_CACHE_COHERENCY);

	list_for_each_entry(res, &vcm->res_list, vcm_node) {
		if (!res->physmem)
			continue;
		ret = vcm_iommu_map(res);
		if (ret)
			goto unwind;
	}
	return 0;

unwind:
	list_for_each_entry_continue_reverse(res, &vcm->res_list, vcm_node)
		if (res->mapped)
			vcm_iommu_unmap(res);
	vcm->domain = NULL;
	iommu_domain_free(domain);
	return ret;
}

/**
 * vcm_iommu_free() - free the domain of a VCM being freed
 * @vcm: the VCM, with no reservations left
 */
void vcm_iommu_free(struct vcm *vcm)
{
	if (vcm->domain)
		iommu_domain_free(vcm->domain);
	vcm->domain = NULL;
}

/**
 * vcm_iommu_activate() - make the device translate through the VCM
 * @avcm: the association, its VCM locked
 *
 * From here on the DMA API's mappings for the device mean nothing to it:
 * it translates through the VCM's domain only.
 *
 * Return: 0, or the error of iommu_attach_device(): -EBUSY if the device
 * already uses a domain other than its default one.
 */
int vcm_iommu_activate(struct vcm_avcm *avcm)
{
	return iommu_attach_device(avcm->vcm->domain, avcm->dev);
}

/**
 * vcm_iommu_deactivate() - return the device to its default domain
 * @avcm: the association, its VCM locked
 */
void vcm_iommu_deactivate(struct vcm_avcm *avcm)
{
	iommu_detach_device(avcm->vcm->domain, avcm->dev);
}

/* Fault hooks, by device.  Faults may be reported in interrupt context. */
struct vcm_hook {
	struct list_head node;
	struct device *dev;
	vcm_handler handler;
	void *data;
};

static LIST_HEAD(vcm_hooks);
static DEFINE_SPINLOCK(vcm_hook_lock);

static struct vcm_hook *vcm_hook_find(struct device *dev)
{
	struct vcm_hook *hook;

	list_for_each_entry(hook, &vcm_hooks, node)
		if (hook->dev == dev)
			return hook;
	return NULL;
}

/*
 * The IOMMU core reports a fault through the domain's handler, or logs it
 * itself when the domain has none.  So that devices without a hook keep
 * that report, a VCM's domain has the handler below only while one of
 * the VCM's devices has a hook.
 */
static int vcm_iommu_fault(struct iommu_domain *domain, struct device *dev,
			   unsigned long iova, int flags, void *token)
{
	vcm_handler handler = NULL;
	struct vcm_hook *hook;
	unsigned long irqflags;
	void *data = NULL;

	spin_lock_irqsave(&vcm_hook_lock, irqflags);
	hook = vcm_hook_find(dev);
	if (hook) {
		handler = hook->handler;
		data = hook->data;
	}
	spin_unlock_irqrestore(&vcm_hook_lock, irqflags);

	if (!handler)
		return -EOPNOTSUPP;
	return handler(dev, iova, flags, data);
}

/**
 * vcm_iommu_update_fault_handler() - install or remove the fault handler
 * @vcm: an IOMMU VCM, locked
 */
void vcm_iommu_update_fault_handler(struct vcm *vcm)
{
	struct vcm_avcm *avcm;
	unsigned long irqflags;
	bool hooked = false;

	if (!vcm->domain)
		return;
	spin_lock_irqsave(&vcm_hook_lock, irqflags);
	list_for_each_entry(avcm, &vcm->assoc_list, node)
		hooked |= !!vcm_hook_find(avcm->dev);
	spin_unlock_irqrestore(&vcm_hook_lock, irqflags);

	iommu_set_fault_handler(vcm->domain, hooked ? vcm_iommu_fault : NULL,
				vcm);
}

static void vcm_hooks_changed(void)
{
	struct vcm *vcm;

	mutex_lock(&vcm_list_lock);
	list_for_each_entry(vcm, &vcm_list, node) {
		mutex_lock(&vcm->lock);
		if (vcm->type == VCM_DEVICE)
			vcm_iommu_update_fault_handler(vcm);
		mutex_unlock(&vcm->lock);
	}
	mutex_unlock(&vcm_list_lock);
}

static void vcm_hook_release(void *ptr)
{
	struct vcm_hook *hook = ptr;
	unsigned long irqflags;

	spin_lock_irqsave(&vcm_hook_lock, irqflags);
	list_del(&hook->node);
	spin_unlock_irqrestore(&vcm_hook_lock, irqflags);
	kfree(hook);
	vcm_hooks_changed();
}

/**
 * vcm_hook() - install a fault handler for a device
 * @dev: a device with a bound driver; the hook is removed when the driver
 *	unbinds
 * @handler: called for faults of @dev in any IOMMU VCM, NULL to remove the
 *	hook
 * @data: passed to @handler
 *
 * The handler runs from the IOMMU driver's fault reporting
 * (report_iommu_fault()), possibly in interrupt context; its return value
 * goes back to the IOMMU driver.  Not every IOMMU driver reports
 * unrecoverable faults this way (arm-smmu-v3 logs them itself).  While a
 * device of a VCM has a hook, faults of the VCM's other devices are
 * reported as not handled (-EOPNOTSUPP); without hooks the IOMMU driver's
 * own report applies.
 *
 * Context: Process context.
 * Return: 0, -EINVAL for a NULL @dev, -ENODEV if @dev is not behind an
 * IOMMU, -ENOENT when removing a hook that is not there, -ENOMEM.
 */
int vcm_hook(struct device *dev, vcm_handler handler, void *data)
{
	struct vcm_hook *hook, *old;
	unsigned long irqflags;
	int ret;

	if (!dev)
		return -EINVAL;
	if (!device_iommu_mapped(dev))
		return -ENODEV;

	if (!handler) {
		spin_lock_irqsave(&vcm_hook_lock, irqflags);
		old = vcm_hook_find(dev);
		spin_unlock_irqrestore(&vcm_hook_lock, irqflags);
		if (!old)
			return -ENOENT;
		devm_release_action(dev, vcm_hook_release, old);
		return 0;
	}

	hook = kzalloc(sizeof(*hook), GFP_KERNEL);
	if (!hook)
		return -ENOMEM;
	hook->dev = dev;
	hook->handler = handler;
	hook->data = data;

	spin_lock_irqsave(&vcm_hook_lock, irqflags);
	old = vcm_hook_find(dev);
	if (old) {
		old->handler = handler;
		old->data = data;
	} else {
		list_add(&hook->node, &vcm_hooks);
	}
	spin_unlock_irqrestore(&vcm_hook_lock, irqflags);

	if (old) {
		kfree(hook);
		return 0;
	}
	ret = devm_add_action_or_reset(dev, vcm_hook_release, hook);
	if (!ret)
		vcm_hooks_changed();
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_hook);
