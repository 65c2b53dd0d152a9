// SPDX-License-Identifier: GPL-2.0-only
/*
 * gembuf PRIME: the GEM VCM helper's exporter and importer.
 *
 * Every importer, gembuf's other devices included, gets the object's
 * chunks mapped with the DMA API for its device.  An importing gembuf
 * device knows no exporter, gembuf's other device included: it attaches
 * and uses only what the dma-buf rules allow, the DMA addresses of its
 * attachment and the exporter's vmap, mmap and CPU access calls.  Only a
 * dma-buf a device exported itself comes back as its own object.  The
 * helper gives an engine's attachments back when the engine goes away.
 */

#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <linux/dma-buf.h>
#include <linux/iommu.h>

#include "gembuf_drv.h"

/**
 * gembuf_dma_api_kind() - what a device's DMA API addresses are
 * @dev: a device that maps through the DMA API (an importer, an engine)
 *
 * Return: %GEMBUF_MAPPING_IOMMU for IOVAs in a DMA domain,
 * %GEMBUF_MAPPING_DMA_API otherwise.
 */
enum gembuf_mapping_kind gembuf_dma_api_kind(struct device *dev)
{
	struct iommu_domain *domain = iommu_get_domain_for_dev(dev);

	return domain && iommu_is_dma_domain(domain) ? GEMBUF_MAPPING_IOMMU :
						       GEMBUF_MAPPING_DMA_API;
}

/**
 * gembuf_dmabuf_object() - the object of a dma-buf gembuf exported
 * @dmabuf: a dma-buf, or NULL
 *
 * Told by the helper (drm_gem_vcm_dmabuf_object()) for either of
 * gembuf's drivers.
 *
 * Return: its object, which it holds, or NULL for NULL or another
 * exporter's dma-buf.
 */
struct gembuf_object *gembuf_dmabuf_object(const struct dma_buf *dmabuf)
{
	struct drm_gem_vcm_object *vobj;

	vobj = drm_gem_vcm_dmabuf_object(dmabuf, &gembuf_display_driver) ?:
	       drm_gem_vcm_dmabuf_object(dmabuf, &gembuf_engine_driver);
	return vobj ? to_gembuf_object(&vobj->base) : NULL;
}

/**
 * gembuf_prime_exporter() - the object an import of gembuf's dma-buf is of
 * @gem: an object
 *
 * gembuf's devices share objects only through dma-buf attachments, as
 * any other importer does; debugfs and the display's write-back still
 * tell memory of gembuf's own, as drm_gem_prime_import_dev() tells its
 * own dma-bufs, by their operations.
 *
 * Context: for an import on an engine, with its reservation lock held:
 * the engine may go away and give its attachment back
 * (drm_gem_vcm_unplug()).  The display's imports are never given back
 * before their release, and the display's atomic check reads them
 * without it.
 * Return: the exporter's object, which the import's dma-buf reference
 * keeps, if @gem imports a dma-buf gembuf exported; NULL otherwise.
 */
struct gembuf_object *gembuf_prime_exporter(struct drm_gem_object *gem)
{
	struct drm_gem_vcm_object *vobj = &to_gembuf_object(gem)->vcm;

	if (!vobj->imported)
		return NULL;
	return gembuf_dmabuf_object(drm_gem_vcm_import_dmabuf(vobj));
}

/**
 * gembuf_prime_sync_import() - sync the helper's memory around an engine's
 * DMA through an import of it
 * @obj: an object an engine job reads or writes
 * @for_cpu: after the DMA (true) or before it
 *
 * An importer's DMA addresses come with the exporter's sync at mapping
 * time, and around the CPU access calls of the dma-buf.  The owner of
 * memory the GEM VCM helper exports reads and writes it with the CPU
 * without those calls (gembuf's composer, a process's mapping of the
 * object), so the engine has its attachment's DMA API mapping synced
 * around each job (drm_gem_vcm_prime_sync()), as it syncs its objects'
 * own mappings.  Nothing for any other object.
 *
 * Context: the job's run.  The engine's unplug gives the attachment back
 * only after drm_dev_unplug(), which waits for this to finish.
 */
void gembuf_prime_sync_import(struct gembuf_object *obj, bool for_cpu)
{
	int idx;

	if (!obj->vcm.imported || !drm_dev_enter(obj->vcm.base.dev, &idx))
		return;
	if (obj->vcm.sgt)
		drm_gem_vcm_prime_sync(obj->vcm.attach, for_cpu);
	drm_dev_exit(idx);
}
