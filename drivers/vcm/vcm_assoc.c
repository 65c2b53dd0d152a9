// SPDX-License-Identifier: GPL-2.0-only
/*
 * Associations of VCMs with devices, and their activation.
 *
 * One VCM can be associated with many devices and one device with many
 * VCMs.  For the IOMMU kind, activation attaches the VCM's domain to the
 * device, so a device has at most one active IOMMU VCM, and its DMA API
 * mappings do not work while it is active.  The other kinds are active as
 * soon as they are associated; activation only counts users.
 */

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/slab.h>

#include <kunit/visibility.h>

#include "vcm_priv.h"

#define VCM_ASSOC_ATTR_ALL	(VCM_USE_HIGH_BASE | VCM_USE_LOW_BASE | VCM_SPLIT)

static int vcm_check_assoc_attr(u32 attr)
{
	if (attr & ~VCM_ASSOC_ATTR_ALL)
		return -EINVAL;
	if (attr & (VCM_USE_HIGH_BASE | VCM_SPLIT))
		return -EOPNOTSUPP;
	return 0;
}

static int vcm_one_to_one_assoc(struct vcm *vcm, struct device *dev)
{
	struct iommu_domain *domain = iommu_get_domain_for_dev(dev);

	if (domain && domain->type != IOMMU_DOMAIN_IDENTITY) {
		dev_dbg(dev, "translated by an IOMMU, cannot use one-to-one VCM %u\n",
			vcm->id);
		return -EINVAL;
	}
	if (vcm->start + vcm->len - 1 > dma_get_mask(dev))
		return -ERANGE;
	return 0;
}

/**
 * vcm_assoc() - associate a VCM with a device
 * @vcm: a live VCM, the caller's or lent to it by its owner
 * @dev: the device; for the kernel VCM, the CPU device
 *	(get_cpu_device()) or the device on whose behalf the CPU maps
 * @attr: association attributes: 0 or %VCM_USE_LOW_BASE
 *
 * The first device associated with an IOMMU VCM gives it its domain;
 * backed reservations are mapped into it now.  The caller owns the
 * association: it removes it with vcm_deassoc() and does not use it
 * afterwards.  The association holds @vcm, which vcm_free() refuses to
 * free until it is removed, and a reference to @dev.  A DMA VCM takes
 * one device, the one whose DMA API maps for it.
 *
 * Context: Process context; takes the VCM's lock.
 * Return: the association, ERR_PTR(-EINVAL) for a NULL or ERR_PTR() @vcm,
 * a NULL @dev, a device already associated with @vcm, a device behind
 * a translating IOMMU for a one-to-one VCM, or a device whose IOMMU
 * coherency differs from the IOMMU VCM's first device; ERR_PTR(-EBUSY)
 * for a second device of a DMA VCM; ERR_PTR(-EOPNOTSUPP) for the split
 * and high-base attributes; ERR_PTR(-ENODEV) for an IOMMU VCM and a
 * device without IOMMU; ERR_PTR(-ERANGE) if the VCM exceeds the device's
 * DMA mask or the domain's aperture; ERR_PTR(-ENOMEM).
 */
struct vcm_avcm *vcm_assoc(struct vcm *vcm, struct device *dev, u32 attr)
{
	struct vcm_avcm *avcm, *a;
	int ret;

	if (IS_ERR_OR_NULL(vcm) || !dev)
		return ERR_PTR(-EINVAL);
	ret = vcm_check_assoc_attr(attr);
	if (ret)
		return ERR_PTR(ret);

	avcm = kzalloc(sizeof(*avcm), GFP_KERNEL);
	if (!avcm)
		return ERR_PTR(-ENOMEM);
	avcm->vcm = vcm;
	avcm->dev = dev;
	avcm->attr = attr;

	mutex_lock(&vcm->lock);
	ret = 0;
	list_for_each_entry(a, &vcm->assoc_list, node)
		if (a->dev == dev)
			ret = -EINVAL;
	if (!ret && vcm->type == VCM_DEVICE)
		ret = vcm_iommu_assoc(vcm, dev);
	else if (!ret && vcm->type == VCM_DMA)
		ret = vcm_dma_assoc(vcm, dev);
	else if (!ret && vcm->type == VCM_ONE_TO_ONE)
		ret = vcm_one_to_one_assoc(vcm, dev);
	if (!ret) {
		get_device(dev);
		list_add_tail(&avcm->node, &vcm->assoc_list);
		if (vcm->type == VCM_DEVICE)
			vcm_iommu_update_fault_handler(vcm);
		vcm_get(vcm);
		vcm_stat_add(VCM_STAT_ASSOCS, 1);
	}
	mutex_unlock(&vcm->lock);

	if (ret) {
		kfree(avcm);
		return ERR_PTR(ret);
	}
	return avcm;
}
EXPORT_SYMBOL_GPL(vcm_assoc);

/**
 * vcm_deassoc() - remove an association
 * @avcm: a live association the caller made
 *
 * An IOMMU VCM keeps its domain and mappings after its last device goes.
 * The caller serialises vcm_deassoc() against every other use of @avcm
 * and does not use @avcm once this returned 0: removing twice is a bug,
 * not an error.
 *
 * Context: Process context; takes the VCM's lock.
 * Return: 0, -EINVAL for a NULL or ERR_PTR() @avcm, -EBUSY while it is
 * active.
 */
int vcm_deassoc(struct vcm_avcm *avcm)
{
	struct vcm *vcm;

	if (IS_ERR_OR_NULL(avcm))
		return -EINVAL;

	vcm = avcm->vcm;
	mutex_lock(&vcm->lock);
	if (avcm->active) {
		mutex_unlock(&vcm->lock);
		return -EBUSY;
	}
	list_del(&avcm->node);
	if (vcm->type == VCM_DEVICE)
		vcm_iommu_update_fault_handler(vcm);
	else if (vcm->type == VCM_DMA)
		vcm_dma_deassoc(vcm);
	mutex_unlock(&vcm->lock);

	put_device(avcm->dev);
	kfree(avcm);
	vcm_stat_add(VCM_STAT_ASSOCS, -1);
	/* The association's reference, once the VCM's lock is released. */
	vcm_put(vcm);
	return 0;
}
EXPORT_SYMBOL_GPL(vcm_deassoc);

/**
 * vcm_set_assoc_attr() - change the attributes of an inactive association
 * @avcm: a live association of the caller's
 * @attr: the new attributes
 *
 * Context: Process context; takes the VCM's lock.
 * Return: 0, -EINVAL for a NULL or ERR_PTR() @avcm or an invalid attribute,
 * -EOPNOTSUPP as vcm_assoc(), -EBUSY while it is active.
 */
int vcm_set_assoc_attr(struct vcm_avcm *avcm, u32 attr)
{
	int ret;

	if (IS_ERR_OR_NULL(avcm))
		return -EINVAL;
	ret = vcm_check_assoc_attr(attr);
	if (ret)
		return ret;

	mutex_lock(&avcm->vcm->lock);
	if (avcm->active)
		ret = -EBUSY;
	else
		avcm->attr = attr;
	mutex_unlock(&avcm->vcm->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_set_assoc_attr);

/**
 * vcm_get_assoc_attr() - attributes of an association
 * @avcm: a live association
 *
 * Return: the attributes.
 */
u32 vcm_get_assoc_attr(const struct vcm_avcm *avcm)
{
	return avcm->attr;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_get_assoc_attr);

/**
 * vcm_activate() - let the device use the VCM
 * @avcm: a live association of the caller's
 *
 * For an IOMMU VCM this attaches the domain: from now on the device's
 * accesses translate through the VCM's reservations.  For a DMA VCM it
 * maps the backed reservations with the DMA API, and later backings are
 * mapped as they come.
 *
 * Context: Process context; takes the VCM's lock.
 * Return: 0, -EINVAL for a NULL or ERR_PTR() @avcm, -EBUSY if it is
 * active already or the device uses another IOMMU VCM, or the error of the
 * IOMMU attach.
 */
int vcm_activate(struct vcm_avcm *avcm)
{
	struct vcm *vcm;
	int ret = 0;

	if (IS_ERR_OR_NULL(avcm))
		return -EINVAL;

	vcm = avcm->vcm;
	mutex_lock(&vcm->lock);
	if (avcm->active)
		ret = -EBUSY;
	else if (vcm->type == VCM_DEVICE)
		ret = vcm_iommu_activate(avcm);
	else if (vcm->type == VCM_DMA)
		ret = vcm_dma_activate(vcm);
	if (!ret) {
		avcm->active = true;
		vcm_stat_add(VCM_STAT_ACTIVE, 1);
	}
	mutex_unlock(&vcm->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(vcm_activate);

/**
 * vcm_deactivate() - stop the device using the VCM
 * @avcm: a live association of the caller's
 *
 * An IOMMU device goes back to its default domain and DMA API.  A DMA
 * VCM's reservations are unmapped for its device: a driver deactivates
 * before its device goes, as no DMA API mapping may outlive the driver.
 *
 * Context: Process context; takes the VCM's lock.
 * Return: 0, -EINVAL for a NULL or ERR_PTR() @avcm, -ENOENT if it is not
 * active.
 */
int vcm_deactivate(struct vcm_avcm *avcm)
{
	struct vcm *vcm;
	int ret = 0;

	if (IS_ERR_OR_NULL(avcm))
		return -EINVAL;

	vcm = avcm->vcm;
	mutex_lock(&vcm->lock);
	if (!avcm->active) {
		ret = -ENOENT;
	} else {
		if (vcm->type == VCM_DEVICE)
			vcm_iommu_deactivate(avcm);
		else if (vcm->type == VCM_DMA)
			vcm_dma_deactivate(vcm);
		avcm->active = false;
		vcm_stat_add(VCM_STAT_ACTIVE, -1);
	}
	mutex_unlock(&vcm->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(vcm_deactivate);

/**
 * vcm_is_active() - whether an association is active
 * @avcm: a live association
 *
 * Return: 1 if active, 0 if not.
 */
int vcm_is_active(const struct vcm_avcm *avcm)
{
	return avcm->active;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_is_active);

/**
 * vcm_dev_addr_to_phys_addr() - look a device address up in the device's
 * page tables
 * @dev: a device with an active association
 * @dev_addr: the address the device would access
 * @phys: output, the physical address it reaches
 *
 * For an IOMMU VCM this asks the IOMMU driver to walk the domain's page
 * tables (iommu_iova_to_phys()), so it reports what the hardware would
 * use; for a one-to-one VCM it follows the backing of the reservation.
 * A DMA VCM keeps no map of its addresses: they are the DMA API's, in
 * the segments of each reservation's table (vcm_get_dma_sgt()), and
 * need not be one reservation's alone.
 *
 * Context: Process context; takes vcm_list_lock and VCM locks.
 * Return: 0, -EINVAL for a NULL @dev or @phys, -ENODEV if @dev has no
 * active association, -EOPNOTSUPP if that association is with a DMA VCM,
 * -ENOENT if @dev_addr is not mapped.
 */
int vcm_dev_addr_to_phys_addr(struct device *dev, dma_addr_t dev_addr,
			      phys_addr_t *phys)
{
	struct vcm_avcm *avcm;
	struct vcm_res *res;
	struct vcm *vcm;
	int ret = -ENODEV;

	if (!dev || !phys)
		return -EINVAL;

	mutex_lock(&vcm_list_lock);
	list_for_each_entry(vcm, &vcm_list, node) {
		mutex_lock(&vcm->lock);
		list_for_each_entry(avcm, &vcm->assoc_list, node) {
			if (avcm->dev != dev || !avcm->active)
				continue;
			ret = -ENOENT;
			if (vcm->type == VCM_DEVICE) {
				*phys = iommu_iova_to_phys(vcm->domain, dev_addr);
				if (*phys)
					ret = 0;
			} else if (vcm->type == VCM_DMA) {
				ret = -EOPNOTSUPP;
			} else {
				res = vcm_res_lookup(vcm, dev_addr);
				if (res && res->physmem)
					ret = vcm_res_phys(res, dev_addr - res->dev_addr,
							   phys);
			}
			break;
		}
		mutex_unlock(&vcm->lock);
		if (ret != -ENODEV)
			break;
	}
	mutex_unlock(&vcm_list_lock);

	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(vcm_dev_addr_to_phys_addr);
