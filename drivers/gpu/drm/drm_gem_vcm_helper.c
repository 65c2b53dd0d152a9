// SPDX-License-Identifier: GPL-2.0-only
/*
 * GEM objects on VCM physical memory, for any DRM driver.
 */

#include <linux/bitops.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/export.h>
#include <linux/iosys-map.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/string_choices.h>
#include <linux/vcm.h>

#include <kunit/visibility.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_vcm_helper.h>
#include <drm/drm_managed.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>
#include <drm/drm_vma_manager.h>

MODULE_IMPORT_NS(DMA_BUF);

/**
 * DOC: overview
 *
 * This library provides GEM objects whose memory is a VCM physmem
 * (Documentation/mm/vcm.rst): memory chosen for every device that uses
 * an object, allocated when one of them first needs it, and mapped by
 * each through its own VCM with the object's one cache policy.
 *
 * A DRM device that makes such objects has a context, struct
 * &drm_gem_vcm_context, which the driver embeds in its device structure
 * and sets up with drmm_gem_vcm_init(), and which it passes to
 * drm_gem_vcm_create(); each object keeps it.  It has the VCM the
 * device reaches memory
 * through (the kernel's for a device the CPU stands in for, a DMA VCM
 * for one that stays on the DMA API, a one-to-one VCM for one without
 * an IOMMU), its association, active until drm_gem_vcm_unplug(), and
 * what the device needs of the memory it maps, asked of the VCM once.
 *
 * An object, struct &drm_gem_vcm_object, has no memory when it is made.
 * Each device that uses it adds what it needs, as a VCM constraint, to
 * what the object needs: the device it is made on when it is created,
 * every other device at its first mapping of the object's dma-buf, and
 * the driver what else it wants, one physical range say
 * (drm_gem_vcm_place()).  The helper is the dma-buf's exporter
 * (drm_gem_vcm_prime_export()): an attached device counts among the
 * object's users from its attach to its last detach, once per struct
 * device however often it attaches, and needs nothing until it maps:
 * one that only vmaps or mmaps the dma-buf needs nothing of the memory.
 * Each mapping of an attachment is the object's chunks mapped with the
 * importer's DMA API (struct &drm_gem_vcm_dma_map), synced around the
 * dma-buf's CPU access calls.  The
 * memory is allocated when it is first needed (drm_gem_vcm_populate():
 * a device or kernel mapping, a process's mmap()), the cheapest that
 * meets every need known by then.  A need that comes later and that the
 * memory does not meet has the memory moved, contents kept, while
 * nothing maps it, and is refused with -EBUSY once something does: the
 * choice the dma-buf rules leave to an exporter up to the first mapping.
 * Needs only accumulate.
 *
 * The memory is charged to the memory cgroup of the task that created
 * the object, whichever task makes it be allocated or moved.  Each
 * object pins its creator's memory cgroup: it holds a reference from
 * its creation until it is freed, so a cgroup removed while its objects
 * live stays, offline, until the last of them goes.  The object itself
 * and each device's entry among its users are accounted to the task
 * that allocates them (GFP_KERNEL_ACCOUNT).
 *
 * The kernel maps an object with drm_gem_vcm_vmap(): one reservation of
 * the kernel VCM shared by its users, or the exporter's vmap for an
 * import.  Processes map it with drm_gem_vcm_mmap(), which allocates
 * the memory if it is not yet, and &drm_gem_vcm_vm_ops: each page goes
 * in when it is first touched, from the fault handler, which only looks
 * it up, and the VMAs are counted.  A driver that maps
 * the memory for its devices itself counts those mappings in
 * &drm_gem_vcm_object.map_count.  While any mapping, VMA or vmap exists,
 * the memory stays where it is.
 *
 * Locking: an object's memory, placement and mappings are under its
 * reservation lock (&drm_gem_object.resv), as the DRM core and the
 * dma-buf core already hold it around vmap and around an exporter's map
 * and unmap; an import's is its dma-buf's, the exporter's.  The helper
 * takes it itself for the rest: creation and free, attach and detach,
 * the CPU access calls, mmap and faults, and drm_gem_vcm_unplug();
 * drm_gem_vcm_show_placement() only tries it.  None of those
 * may be called with a reservation lock held, and an object's last
 * reference must not go under one.  The helper never holds two objects'
 * locks; a driver that locks several does so with drm_exec.  From
 * outermost to innermost: the mmap lock (the mmap and fault handlers run
 * under it), the reservation lock, a VCM's lock, a physmem's lock.
 *
 * A device imports a dma-buf with drm_gem_vcm_prime_import(): its own
 * comes back as the same object; any other is an object of the
 * importer's, for the device's own attachment, whoever exported it.  A
 * device on a DMA VCM maps the attachment and has its DMA addresses
 * wrapped as a physmem of its VCM; one without an IOMMU takes only a
 * dma-buf that is one DMA range; one the CPU stands in for attaches
 * without mapping, and reads and writes through the exporter.
 *
 * Functions that operate on the GEM object take struct
 * &drm_gem_vcm_object.  The &drm_gem_object_funcs callbacks are the
 * likewise named functions with an _object_ infix in the header, which
 * convert (drm_gem_vcm_object_vmap() wraps drm_gem_vcm_vmap()); the
 * helper sets them for an object whose driver sets none.
 */

/* Pages put in at a fault: the faulting one and up to 15 more. */
#define DRM_GEM_VCM_FAULT_PAGES	16

static const struct drm_gem_object_funcs drm_gem_vcm_funcs = {
	.free = drm_gem_vcm_object_free,
	.print_info = drm_gem_vcm_object_print_info,
	.status = drm_gem_vcm_object_status,
	.export = drm_gem_vcm_prime_export,
	.vmap = drm_gem_vcm_object_vmap,
	.vunmap = drm_gem_vcm_object_vunmap,
	.mmap = drm_gem_vcm_object_mmap,
	.vm_ops = &drm_gem_vcm_vm_ops,
};

/*
 * The context
 */

static void drm_gem_vcm_fini(struct drm_device *dev, void *data)
{
	struct drm_gem_vcm_context *ctx = data;

	/* Already deactivated if the device was unplugged. */
	vcm_deactivate(ctx->avcm);
	vcm_deassoc(ctx->avcm);
	/* Every object went before the device: its VCM is empty. */
	if (ctx->vcm != vcm_kernel())
		drm_WARN_ON(dev, vcm_free(ctx->vcm));
	ctx->avcm = NULL;
	ctx->vcm = NULL;
	ctx->drm = NULL;
	mutex_destroy(&ctx->imports_lock);
}

/* The length of the physical range from 0 to @limit, in whole pages. */
static size_t drm_gem_vcm_range(phys_addr_t limit)
{
	return round_down(min_t(u64, limit, PHYS_ADDR_MAX - PAGE_SIZE) + 1,
			  PAGE_SIZE);
}

/**
 * drmm_gem_vcm_init() - give a DRM device its VCM, for its objects
 * @dev: the DRM device, with its struct device's DMA set up
 * @ctx: the context, embedded in the driver's device structure, zeroed
 * @kind: how the device reaches memory
 *
 * Creates the device's VCM (the kernel's is shared; for
 * %DRM_GEM_VCM_ONE_TO_ONE, one from physical address 0 up to the DMA
 * mask of &drm_device.dev), associates it with &drm_device.dev and
 * activates the association, and asks it once what the device needs of
 * the memory it maps.  The context is released with the DRM device,
 * after its last object: objects hold the device.
 *
 * Return: 0 or a negative errno: -EINVAL for an unknown @kind, -EBUSY if
 * @ctx is set up already, the errors of VCM's.
 */
int drmm_gem_vcm_init(struct drm_device *dev, struct drm_gem_vcm_context *ctx,
		      enum drm_gem_vcm_kind kind)
{
	u64 mask = dma_get_mask(dev->dev);
	struct vcm_avcm *avcm;
	struct vcm *vcm;
	int ret;

	if (ctx->drm)
		return -EBUSY;
	switch (kind) {
	case DRM_GEM_VCM_CPU:
		vcm = vcm_kernel();
		break;
	case DRM_GEM_VCM_DMA:
		vcm = vcm_create_dma();
		break;
	case DRM_GEM_VCM_ONE_TO_ONE:
		vcm = vcm_create_one_to_one(0, drm_gem_vcm_range(mask));
		break;
	default:
		return -EINVAL;
	}
	if (IS_ERR(vcm))
		return PTR_ERR(vcm);

	avcm = vcm_assoc(vcm, dev->dev, 0);
	if (IS_ERR(avcm)) {
		ret = PTR_ERR(avcm);
		goto err_vcm;
	}
	ret = vcm_activate(avcm);
	if (ret)
		goto err_assoc;
	mutex_init(&ctx->imports_lock);
	INIT_LIST_HEAD(&ctx->imports);
	ctx->drm = dev;
	ctx->kind = kind;
	ctx->vcm = vcm;
	ctx->avcm = avcm;
	/* Asked once: every object made on the device adds it. */
	if (vcm_constraint_of_vcm(ctx->vcm, &ctx->need))
		vcm_constraint_init(&ctx->need);
	ctx->need.devices = 1;
	return drmm_add_action_or_reset(dev, drm_gem_vcm_fini, ctx);

err_assoc:
	vcm_deassoc(avcm);
err_vcm:
	if (vcm != vcm_kernel())
		drm_WARN_ON(dev, vcm_free(vcm));
	return ret;
}
EXPORT_SYMBOL_GPL(drmm_gem_vcm_init);

static void drm_gem_vcm_revoke_imports(struct drm_gem_vcm_context *ctx);

/**
 * drm_gem_vcm_unplug() - stop a device's use of its VCM and of dma-bufs
 * @ctx: the context of the DRM device, unplugged (drm_dev_unplug()), its
 *	own mappings of objects gone
 *
 * Deactivates the association: a DMA VCM unmaps what is left for the
 * device, as no DMA API mapping may outlive its driver.  Then gives back
 * the attachments of the device's imports: an attachment is for its
 * device, and the exporter must unmap it while the device's DMA setup
 * still exists, not when the last handle of the import is closed, which
 * may come after the device was removed.  The imports stay as objects,
 * holding their dma-bufs: their handles are still the clients'.  Once
 * unplugged, nothing reaches an import but its release (every ioctl and
 * mmap of the device fails first), and no new import is made.  The
 * objects and the context stay until the DRM device is released.  Does
 * nothing for a context that drmm_gem_vcm_init() did not set up (or
 * NULL).
 *
 * Context: takes each import's reservation lock in turn: no reservation
 * lock may be held.
 */
void drm_gem_vcm_unplug(struct drm_gem_vcm_context *ctx)
{
	/* A driver that never set its context up has nothing to stop. */
	if (!ctx || !ctx->avcm)
		return;
	vcm_deactivate(ctx->avcm);
	drm_gem_vcm_revoke_imports(ctx);
}
EXPORT_SYMBOL_GPL(drm_gem_vcm_unplug);

/*
 * Placement
 */

/* Whether anything maps the memory: it must not move then. */
static bool drm_gem_vcm_busy(const struct drm_gem_vcm_object *obj)
{
	return obj->map_count || obj->vmap_use_count ||
	       atomic_read(&obj->user_vmas);
}

static void drm_gem_vcm_refuse(struct drm_gem_vcm_object *obj, int err,
			       u32 unmet, const char *who)
{
	obj->refused = err;
	obj->refused_unmet = unmet;
	strscpy(obj->refused_dev, who, sizeof(obj->refused_dev));
	drm_dbg_driver(obj->base.dev,
		       "object of %zu bytes refused for %s: %s memory needed (%d)\n",
		       obj->base.size, who, vcm_constraint_name(unmet), err);
}

/* Memory that meets @need, charged to the object's creator. */
static struct vcm_physmem *drm_gem_vcm_alloc(struct drm_gem_vcm_object *obj,
					     const struct vcm_constraint *need)
{
	struct mem_cgroup *old = set_active_memcg(obj->memcg);
	struct vcm_physmem *pm;

	pm = vcm_phys_alloc_for(obj->base.size, 0, need);
	set_active_memcg(old);
	return pm;
}

/* Memory that meets @need, with the old memory's contents. */
static int drm_gem_vcm_move(struct drm_gem_vcm_object *obj,
			    const struct vcm_constraint *need)
{
	struct vcm_physmem *pm, *old;
	int ret;

	pm = drm_gem_vcm_alloc(obj, need);
	if (IS_ERR(pm))
		return PTR_ERR(pm);
	ret = vcm_phys_copy(pm, obj->physmem);
	if (ret) {
		vcm_phys_free(pm);
		return ret;
	}
	/* Published before the old memory goes: see drm_gem_vcm_status(). */
	old = obj->physmem;
	WRITE_ONCE(obj->physmem, pm);
	drm_WARN_ON(obj->base.dev, vcm_phys_free(old));
	/* The copy went through the new memory's cacheable alias. */
	obj->wc_clean = false;
	obj->moves++;
	return 0;
}

/**
 * drm_gem_vcm_place() - add a need to what an object's memory must meet
 * @obj: an object of the helper's own (not an import), its
 *	reservation lock held
 * @c: what is needed of the memory, a device's constraint or the
 *	driver's
 * @who: whose need it is (a device's name), for messages and debugfs
 *
 * Before the memory is allocated this only narrows what it will be.
 * Memory that does not meet the result is moved, contents kept, while
 * nothing maps it.
 *
 * Return: 0; -ERANGE or -E2BIG when no memory can meet every need,
 * -EINVAL when the object's size is not a multiple of an IOMMU's granule
 * (or for an import, whose memory is not the helper's to place); -EBUSY
 * when the memory does not meet them and is mapped; the error of the
 * move otherwise.  On error the object's needs and memory are as they
 * were, and the refusal is recorded for debugfs.
 */
int drm_gem_vcm_place(struct drm_gem_vcm_object *obj,
		      const struct vcm_constraint *c, const char *who)
{
	struct vcm_constraint need = obj->need;
	u32 unmet = 0;
	int ret;

	dma_resv_assert_held(obj->base.resv);
	if (drm_WARN_ON(obj->base.dev, obj->imported))
		return -EINVAL;
	ret = vcm_constraint_merge(&need, c);
	if (!ret)
		ret = vcm_constraint_check_len(&need, obj->base.size);
	if (ret) {
		unmet = c->flags;
		goto refuse;
	}
	if (obj->physmem)
		unmet = vcm_constraint_unmet(&need, obj->physmem);
	if (unmet) {
		ret = drm_gem_vcm_busy(obj) ? -EBUSY :
					      drm_gem_vcm_move(obj, &need);
		if (ret)
			goto refuse;
	}
	/* The device memory is allocated through outlives its attachment. */
	if (need.dev != obj->need.dev) {
		get_device(need.dev);
		put_device(obj->need.dev);
	}
	obj->need = need;
	return 0;

refuse:
	drm_gem_vcm_refuse(obj, ret, unmet, who);
	return ret;
}
EXPORT_SYMBOL_GPL(drm_gem_vcm_place);

static struct drm_gem_vcm_user *
drm_gem_vcm_find_user(struct drm_gem_vcm_object *obj, struct device *dev)
{
	struct drm_gem_vcm_user *user;

	list_for_each_entry(user, &obj->users, node)
		if (user->dev == dev)
			return user;
	return NULL;
}

/**
 * drm_gem_vcm_place_user() - count a device among an object's users
 * @obj: an object of the helper's own, its reservation lock held
 * @dev: a device that uses it: the one it is made on (@c its needs), or
 *	one attaching to its dma-buf (@c NULL: its needs count from its
 *	first mapping, see drm_gem_vcm_place_map())
 * @c: what @dev needs of the memory, or NULL
 *
 * A device counts once however many times it attaches, as long as one
 * of its attachments lasts (drm_gem_vcm_place_unuse()); the device the
 * object is made on, for the object's life.  Nothing bounds how many
 * devices use an object.
 *
 * Return: 0, -ENOMEM, or the error of drm_gem_vcm_place().
 */
VISIBLE_IF_KUNIT int drm_gem_vcm_place_user(struct drm_gem_vcm_object *obj,
					    struct device *dev,
					    const struct vcm_constraint *c)
{
	struct drm_gem_vcm_user *user;
	struct vcm_constraint none;
	int ret;

	dma_resv_assert_held(obj->base.resv);
	user = drm_gem_vcm_find_user(obj, dev);
	if (user) {
		user->attachments++;
		return 0;
	}
	user = kzalloc(sizeof(*user), GFP_KERNEL_ACCOUNT);
	if (!user)
		return -ENOMEM;
	/* No needs yet, but one device more. */
	if (!c) {
		vcm_constraint_init(&none);
		none.devices = 1;
	}
	ret = drm_gem_vcm_place(obj, c ?: &none, dev_name(dev));
	if (ret) {
		kfree(user);
		return ret;
	}
	user->dev = get_device(dev);
	user->attachments = 1;
	user->placed = !!c;
	list_add_tail(&user->node, &obj->users);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(drm_gem_vcm_place_user);

/**
 * drm_gem_vcm_place_unuse() - drop an attachment of a device to an object
 * @obj: an object of the helper's own, its reservation lock held
 * @dev: the device of the attachment, counted by drm_gem_vcm_place_user()
 *
 * With its last attachment the device leaves the users, and its
 * reference goes; what it needed of the memory stays in the object's
 * needs (they only accumulate).
 */
VISIBLE_IF_KUNIT void drm_gem_vcm_place_unuse(struct drm_gem_vcm_object *obj,
					      struct device *dev)
{
	struct drm_gem_vcm_user *user;

	dma_resv_assert_held(obj->base.resv);
	user = drm_gem_vcm_find_user(obj, dev);
	if (drm_WARN_ON(obj->base.dev, !user) || --user->attachments)
		return;
	list_del(&user->node);
	put_device(user->dev);
	kfree(user);
}
EXPORT_SYMBOL_IF_KUNIT(drm_gem_vcm_place_unuse);

/**
 * drm_gem_vcm_place_map() - add an attached device's needs at its first
 *	mapping
 * @obj: an object of the helper's own, its reservation lock held
 * @dev: the device of the attachment being mapped, counted by
 *	drm_gem_vcm_place_user()
 *
 * The dma-buf rules leave the memory to the exporter up to the first
 * mapping: a device that attaches only to vmap or mmap the dma-buf (a
 * display that composes with the CPU) needs nothing of it, so an
 * attached device's needs count from its first mapping, when it asks
 * for DMA addresses: what the DMA API knows of it
 * (vcm_constraint_of_dev()), nothing for a device without DMA.  Later
 * mappings add nothing.
 *
 * Return: 0, or the error of drm_gem_vcm_place(): -EBUSY when the memory
 * does not meet the device's needs and something maps it.  The device
 * stays a user either way, and its next mapping tries again.
 */
VISIBLE_IF_KUNIT int drm_gem_vcm_place_map(struct drm_gem_vcm_object *obj,
					   struct device *dev)
{
	struct drm_gem_vcm_user *user;
	struct vcm_constraint c;
	int ret;

	dma_resv_assert_held(obj->base.resv);
	user = drm_gem_vcm_find_user(obj, dev);
	if (drm_WARN_ON(obj->base.dev, !user) || user->placed)
		return 0;
	/* No DMA setup: nothing the memory must meet. */
	if (vcm_constraint_of_dev(dev, &c)) {
		user->placed = true;
		return 0;
	}
	/* Counted among the devices at attach already. */
	c.devices = 0;
	ret = drm_gem_vcm_place(obj, &c, dev_name(dev));
	if (!ret)
		user->placed = true;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(drm_gem_vcm_place_map);

/**
 * drm_gem_vcm_populate() - allocate an object's memory if it has none
 * @obj: the object, its reservation lock held
 *
 * The cheapest memory that meets every need known by now.
 *
 * Return: 0, -EINVAL for an import without memory the driver made of
 * it, or the error of vcm_phys_alloc_for().
 */
int drm_gem_vcm_populate(struct drm_gem_vcm_object *obj)
{
	struct vcm_physmem *pm;

	dma_resv_assert_held(obj->base.resv);
	if (obj->physmem)
		return 0;
	if (obj->imported)
		return -EINVAL;
	pm = drm_gem_vcm_alloc(obj, &obj->need);
	if (IS_ERR(pm))
		return PTR_ERR(pm);
	/* Read without the reservation lock by drm_gem_vcm_status(). */
	WRITE_ONCE(obj->physmem, pm);
	return 0;
}
EXPORT_SYMBOL_GPL(drm_gem_vcm_populate);

/* The names of a constraint's bits, into a report. */
static void drm_gem_vcm_describe_flags(struct seq_buf *s, u32 flags)
{
	u32 bit;

	if (!flags)
		seq_buf_puts(s, "-");
	for (bit = 1; flags; bit <<= 1) {
		if (!(flags & bit))
			continue;
		flags &= ~bit;
		seq_buf_printf(s, "%s%s", vcm_constraint_name(bit),
			       flags ? "," : "");
	}
}

/**
 * drm_gem_vcm_describe_placement() - describe an object's placement
 * @obj: the object, its reservation lock held
 * @s: the report, to which one "key value..." line each is added
 *
 * What its users need ("need": the VCM_CONSTRAINT_* bits, then their
 * names), how many they are ("devices"), the DMA limit ("dma_limit"),
 * how many address bits the memory's highest byte needs ("addr_bits"),
 * how often the memory moved ("moves"), and the last refusal
 * ("refused": errno, what the memory lacked, who).  All zero for an
 * import, whose memory is its exporter's.
 */
void drm_gem_vcm_describe_placement(struct drm_gem_vcm_object *obj,
				    struct seq_buf *s)
{
	phys_addr_t phys, top = 0, limit = 0;
	unsigned int cursor, addr_bits = 0;
	size_t len;

	dma_resv_assert_held(obj->base.resv);
	if (obj->imported) {
		seq_buf_printf(s, "need 0x0 -\ndevices 0\ndma_limit %pa\n", &limit);
		seq_buf_puts(s, "addr_bits 0\nmoves 0\nrefused 0 0x0 -\n");
		return;
	}
	if (obj->physmem) {
		vcm_for_each_phys_chunk(obj->physmem, cursor, phys, len)
			top = max(top, phys + len - 1);
		addr_bits = fls64(top);
	}
	seq_buf_printf(s, "need 0x%x ", obj->need.flags);
	drm_gem_vcm_describe_flags(s, obj->need.flags);
	seq_buf_printf(s, "\ndevices %u\ndma_limit %pa\naddr_bits %u\nmoves %u\n",
		       obj->need.devices, &obj->need.dma_limit, addr_bits,
		       obj->moves);
	seq_buf_printf(s, "refused %d 0x%x %s\n", obj->refused,
		       obj->refused_unmet, obj->refused ? obj->refused_dev : "-");
}
EXPORT_SYMBOL_GPL(drm_gem_vcm_describe_placement);

/* The names of a constraint's bits, for a seq_file. */
static void drm_gem_vcm_show_flags(struct seq_file *m, u32 flags)
{
	char names[64];
	struct seq_buf s;

	seq_buf_init(&s, names, sizeof(names));
	drm_gem_vcm_describe_flags(&s, flags);
	seq_puts(m, seq_buf_str(&s));
}

/**
 * drm_gem_vcm_show_placement() - show an object's placement as a table row
 * @obj: an object of the helper's own, its reservation lock not held
 * @m: the seq_file
 *
 * The columns are "size allocated need devices limit moves refused":
 * the size, whether the memory is there (0 or 1), the names of what its
 * users need, their number, the DMA limit, the moves, and the errno of
 * the last refusal, followed for a refusal by the name of its device and
 * what the memory lacked.  An object whose reservation lock is held (a
 * move or an allocation may take long, a job may be being submitted) is
 * shown as its size and "busy", rather than waited for.
 */
void drm_gem_vcm_show_placement(struct drm_gem_vcm_object *obj,
				struct seq_file *m)
{
	if (!dma_resv_trylock(obj->base.resv)) {
		seq_printf(m, "%zu busy\n", obj->base.size);
		return;
	}
	seq_printf(m, "%zu %d ", obj->base.size, !!obj->physmem);
	drm_gem_vcm_show_flags(m, obj->need.flags);
	seq_printf(m, " %u %pa %u %d", obj->need.devices,
		   &obj->need.dma_limit, obj->moves, obj->refused);
	if (obj->refused) {
		seq_printf(m, " %s ", obj->refused_dev);
		drm_gem_vcm_show_flags(m, obj->refused_unmet);
	}
	seq_putc(m, '\n');
	dma_resv_unlock(obj->base.resv);
}
EXPORT_SYMBOL_GPL(drm_gem_vcm_show_placement);

/*
 * Objects
 */

static struct drm_gem_vcm_object *
__drm_gem_vcm_create(struct drm_gem_vcm_context *ctx, size_t size, bool import)
{
	struct drm_device *dev = ctx->drm;
	struct drm_gem_vcm_object *obj;
	struct drm_gem_object *gem;
	int ret;

	if (WARN_ON(!dev))
		return ERR_PTR(-ENODEV);

	if (dev->driver->gem_create_object) {
		gem = dev->driver->gem_create_object(dev, size);
		if (IS_ERR(gem))
			return ERR_CAST(gem);
		obj = to_drm_gem_vcm_obj(gem);
	} else {
		obj = kzalloc(sizeof(*obj), GFP_KERNEL_ACCOUNT);
		if (!obj)
			return ERR_PTR(-ENOMEM);
		gem = &obj->base;
	}
	if (!gem->funcs)
		gem->funcs = &drm_gem_vcm_funcs;
	INIT_LIST_HEAD(&obj->users);
	INIT_LIST_HEAD(&obj->dma_maps);
	INIT_LIST_HEAD(&obj->import_node);
	vcm_constraint_init(&obj->need);
	obj->ctx = ctx;
	obj->imported = import;
	/*
	 * The memory is a physmem, not a shmem file.  The map offset is
	 * made on first use (drm_gem_dumb_map_offset()): most objects are
	 * never mapped by a process, and their create and free then skip
	 * the offset manager.
	 */
	drm_gem_private_object_init(dev, gem, size);
	/*
	 * The object's mappings are in its device's VCM, which goes with
	 * the device: keep it, even once its bus device is unbound.
	 */
	drm_dev_get(dev);
	atomic_inc(&ctx->objects);
	if (import)
		return obj;

	/*
	 * Pinned until the object is freed.  Not get_mem_cgroup_from_current(),
	 * which 6.12 does not export to modules such as this one.
	 */
	obj->memcg = get_mem_cgroup_from_mm(current->mm);
	/*
	 * The device it is made on uses it: a dumb buffer is scanned out.
	 * Nothing else reaches the object yet, but the placement's rule is
	 * its lock.
	 */
	dma_resv_lock(gem->resv, NULL);
	ret = drm_gem_vcm_place_user(obj, dev->dev, &ctx->need);
	dma_resv_unlock(gem->resv);
	if (ret) {
		drm_gem_object_put(gem);
		return ERR_PTR(ret);
	}
	return obj;
}

/**
 * drm_gem_vcm_create() - create an object
 * @ctx: the context of the DRM device to make it on, set up by
 *	drmm_gem_vcm_init()
 * @size: bytes, rounded up to the page size
 *
 * The object is made by &drm_driver.gem_create_object if the driver has
 * one, and gets the helper's object functions if that set none.  It has
 * no memory yet: the device it is made on is its first user, and the
 * memory is allocated when first needed (drm_gem_vcm_populate()), in the
 * memory cgroup of the calling task.
 *
 * Return: the object, or an ERR_PTR(): -EINVAL for a zero size, -ENOMEM,
 * the errors of drm_gem_vcm_place() when no memory can meet the device's
 * needs at that size.
 */
struct drm_gem_vcm_object *drm_gem_vcm_create(struct drm_gem_vcm_context *ctx,
					      size_t size)
{
	size = PAGE_ALIGN(size);
	if (!size)
		return ERR_PTR(-EINVAL);
	return __drm_gem_vcm_create(ctx, size, false);
}
EXPORT_SYMBOL_GPL(drm_gem_vcm_create);

/**
 * drm_gem_vcm_create_import() - create an object for an imported dma-buf
 * @ctx: the context of the importing DRM device
 * @size: the dma-buf's size, whole pages
 *
 * For the helper's imports: the object has no memory of its own and
 * never allocates any.  The import records what its device maps of the
 * attachment, if anything, in &drm_gem_vcm_object.physmem
 * (vcm_phys_from_dma()), which the object then owns, and the mapped
 * table in &drm_gem_vcm_object.sgt, which drm_gem_vcm_free() gives back
 * with drm_prime_gem_destroy() while &drm_gem_object.import_attach is
 * set.
 *
 * Return: the object, or an ERR_PTR(): -EINVAL for a size of no whole
 * pages, -ENOMEM.
 */
VISIBLE_IF_KUNIT struct drm_gem_vcm_object *
drm_gem_vcm_create_import(struct drm_gem_vcm_context *ctx, size_t size)
{
	if (!size || !PAGE_ALIGNED(size))
		return ERR_PTR(-EINVAL);
	return __drm_gem_vcm_create(ctx, size, true);
}
EXPORT_SYMBOL_IF_KUNIT(drm_gem_vcm_create_import);

/**
 * drm_gem_vcm_free() - free an object
 * @obj: the object, which nothing maps any more
 *
 * Frees the memory, lets go of the devices that used it and, for an
 * import still attached, of the attachment, and frees the object: the
 * whole allocation of a driver's subclass, which embeds it first.
 *
 * Context: takes the object's reservation lock (an import's, its
 * dma-buf's, also to give the attachment back in drm_prime_gem_destroy()),
 * as drm_gem_shmem_free() does: the last reference to an object must
 * not go while a reservation lock is held.
 */
void drm_gem_vcm_free(struct drm_gem_vcm_object *obj)
{
	struct drm_gem_object *gem = &obj->base;
	struct drm_device *dev = gem->dev;
	struct drm_gem_vcm_user *user, *next;

	/* Whoever drops the last reference must not hold such a lock. */
	might_lock(&gem->resv->lock.base);
	/* First: the device's unplug must not find it any more. */
	if (obj->imported) {
		mutex_lock(&obj->ctx->imports_lock);
		list_del_init(&obj->import_node);
		mutex_unlock(&obj->ctx->imports_lock);
	}
	/* As drm_gem_shmem_free(): the state is the lock's, to the end. */
	dma_resv_lock(gem->resv, NULL);
	/* Every mapping, VMA or vmap holds a reference to the object. */
	drm_WARN_ON(dev, drm_gem_vcm_busy(obj));
	if (obj->physmem)
		drm_WARN_ON(dev, vcm_phys_free(obj->physmem));
	list_for_each_entry_safe(user, next, &obj->users, node) {
		put_device(user->dev);
		kfree(user);
	}
	dma_resv_unlock(gem->resv);
	put_device(obj->need.dev);
	mem_cgroup_put(obj->memcg);
	atomic_dec(&obj->ctx->objects);
	if (gem->import_attach)
		drm_prime_gem_destroy(gem, obj->sgt);
	/* After the memory it wrapped, which went first. */
	if (obj->revoked)
		dma_buf_put(obj->revoked);
	drm_gem_object_release(gem);
	kfree(obj);
	drm_dev_put(dev);
}
EXPORT_SYMBOL_GPL(drm_gem_vcm_free);

/**
 * drm_gem_vcm_status() - report an object's status for fdinfo
 * @obj: the object
 *
 * drm_show_memory_stats() asks without the reservation lock, and a race
 * with a first allocation only reads it a little early.  An object has
 * memory once its physmem is allocated, which stays until the object is
 * freed (a move replaces it).  An import stands for the exporter's
 * memory, in use while it is attached, mapped for the device or not.
 * Either is resident in full, as the DRM core counts without
 * &drm_gem_object_funcs.rss.
 *
 * Return: %DRM_GEM_OBJECT_RESIDENT or 0.
 */
enum drm_gem_object_status drm_gem_vcm_status(struct drm_gem_vcm_object *obj)
{
	if (obj->imported)
		return READ_ONCE(obj->base.import_attach) ?
		       DRM_GEM_OBJECT_RESIDENT : 0;
	return READ_ONCE(obj->physmem) ? DRM_GEM_OBJECT_RESIDENT : 0;
}
EXPORT_SYMBOL_GPL(drm_gem_vcm_status);

/**
 * drm_gem_vcm_print_info() - print an object's state for debugfs
 * @obj: the object
 * @p: DRM printer
 * @indent: tab indentation level
 *
 * Read without the reservation lock: the counts may be a moment old.  No
 * address is printed.
 */
void drm_gem_vcm_print_info(const struct drm_gem_vcm_object *obj,
			    struct drm_printer *p, unsigned int indent)
{
	if (obj->imported) {
		drm_printf_indent(p, indent, "imported=yes\n");
		return;
	}
	drm_printf_indent(p, indent, "allocated=%s\n",
			  str_yes_no(!!READ_ONCE(obj->physmem)));
	drm_printf_indent(p, indent, "map_wc=%s\n", str_yes_no(obj->map_wc));
	drm_printf_indent(p, indent, "need=0x%x devices=%u\n",
			  READ_ONCE(obj->need.flags),
			  READ_ONCE(obj->need.devices));
	drm_printf_indent(p, indent, "vmap_use_count=%u\n",
			  READ_ONCE(obj->vmap_use_count));
	drm_printf_indent(p, indent, "map_count=%u\n",
			  READ_ONCE(obj->map_count));
	drm_printf_indent(p, indent, "user_vmas=%d\n",
			  atomic_read(&obj->user_vmas));
	drm_printf_indent(p, indent, "moves=%u\n", READ_ONCE(obj->moves));
}
EXPORT_SYMBOL_GPL(drm_gem_vcm_print_info);

/*
 * Kernel mappings
 */

/**
 * drm_gem_vcm_vmap() - map an object into the kernel
 * @obj: the object
 * @map: returns the kernel address
 *
 * An object of the helper's own is mapped once, by a reservation of the
 * kernel VCM with the object's cache policy, shared by every user; its
 * memory is allocated first if it is not yet.  An import is mapped by
 * its exporter (dma_buf_vmap()), with the exporter's attributes; I/O
 * memory is refused, as users read and write with plain loads and
 * stores.
 *
 * Context: the object's reservation lock held, as drm_gem_vmap() does.
 * Return: 0, -EINVAL for an import whose attachment is gone,
 * -EOPNOTSUPP for an exporter's I/O memory, the errors of
 * drm_gem_vcm_populate() and VCM's.
 */
int drm_gem_vcm_vmap(struct drm_gem_vcm_object *obj, struct iosys_map *map)
{
	struct drm_gem_object *gem = &obj->base;
	struct vcm_res *res;
	int ret;

	dma_resv_assert_held(gem->resv);
	if (gem->import_attach) {
		ret = dma_buf_vmap(gem->import_attach->dmabuf, map);
		if (!ret && map->is_iomem) {
			dma_buf_vunmap(gem->import_attach->dmabuf, map);
			ret = -EOPNOTSUPP;
		}
		return ret;
	}
	if (obj->imported)
		return -EINVAL;

	if (obj->vmap_use_count) {
		obj->vmap_use_count++;
		goto out;
	}
	ret = drm_gem_vcm_populate(obj);
	if (ret)
		return ret;
	res = vcm_reserve(vcm_kernel(), gem->size, drm_gem_vcm_res_attr(obj));
	if (IS_ERR(res))
		return PTR_ERR(res);
	ret = vcm_back(res, obj->physmem);
	if (ret) {
		vcm_unreserve(res);
		return ret;
	}
	obj->vmap_res = res;
	obj->vmap_use_count = 1;
	atomic_inc(&obj->ctx->maps);
out:
	iosys_map_set_vaddr(map, vcm_get_vaddr(obj->vmap_res));
	return 0;
}
EXPORT_SYMBOL_GPL(drm_gem_vcm_vmap);

/**
 * drm_gem_vcm_vunmap() - drop a user of an object's kernel mapping
 * @obj: the object
 * @map: the kernel address drm_gem_vcm_vmap() gave
 *
 * The last user of an object's own mapping unmaps it.
 *
 * Context: the object's reservation lock held.
 */
void drm_gem_vcm_vunmap(struct drm_gem_vcm_object *obj, struct iosys_map *map)
{
	struct drm_gem_object *gem = &obj->base;

	dma_resv_assert_held(gem->resv);
	/* The exporter's, even once the attachment went back (unplug). */
	if (obj->imported) {
		dma_buf_vunmap(drm_gem_vcm_import_dmabuf(obj), map);
		return;
	}
	if (!drm_WARN_ON(gem->dev, !obj->vmap_use_count) &&
	    !--obj->vmap_use_count) {
		vcm_unback(obj->vmap_res);
		vcm_unreserve(obj->vmap_res);
		obj->vmap_res = NULL;
		atomic_dec(&obj->ctx->maps);
	}
}
EXPORT_SYMBOL_GPL(drm_gem_vcm_vunmap);

/*
 * Processes' mappings
 */

/*
 * The page of the object a VMA's page offset names.  Both mmap paths
 * leave the fake offset in vm_pgoff (drm_vma_node_unmap() finds the VMAs
 * by it): the GEM one as DRM looked it up, exactly the object's start,
 * and the dma-buf one as drm_gem_prime_mmap() added it to the page the
 * client asked for.  The part of a split VMA that starts later has it
 * plus the pages it starts later by, and a moved VMA keeps it as it is.
 */
static pgoff_t drm_gem_vcm_vma_page(struct drm_gem_object *gem, pgoff_t pgoff)
{
	return pgoff - drm_vma_node_start(&gem->vma_node);
}

/*
 * VCM writes a physmem's linear-map alias back and invalidates it before
 * the memory is first mapped non-cacheable, and again before a copy from
 * it after that (Documentation/mm/vcm.rst, "Cache policy"): what was
 * written through the alias (the zeroing of new memory) must neither
 * shadow nor be evicted over what a write-combined mapping writes.
 * Processes' pages go in without VCM, so when a write-combined object is
 * first mapped by a process, a reservation of the kernel's is backed
 * with the memory, write-combined, for a moment: VCM does the
 * maintenance and marks the physmem for vcm_phys_copy().  No mapping of
 * the object is cacheable (every one has its cache policy), so that
 * holds until the memory moves.
 */
static int drm_gem_vcm_prepare_wc(struct drm_gem_vcm_object *obj)
{
	struct vcm_res *res;
	int ret;

	dma_resv_assert_held(obj->base.resv);
	if (!obj->map_wc || obj->wc_clean)
		return 0;
	res = vcm_reserve(vcm_kernel(), obj->base.size,
			  drm_gem_vcm_res_attr(obj));
	if (IS_ERR(res))
		return PTR_ERR(res);
	ret = vcm_back(res, obj->physmem);
	if (!ret)
		vcm_unback(res);
	vcm_unreserve(res);
	obj->wc_clean = !ret;
	return ret;
}

/*
 * An import is mapped by its exporter.  Its device may give the
 * attachment back meanwhile (drm_gem_vcm_unplug()): the dma-buf is taken
 * under the lock, and one whose attachment went has no pages here.
 */
static int drm_gem_vcm_mmap_import(struct drm_gem_vcm_object *obj,
				   struct vm_area_struct *vma)
{
	struct drm_gem_object *gem = &obj->base;
	struct dma_buf *dmabuf = NULL;
	int ret;

	dma_resv_lock(gem->resv, NULL);
	if (gem->import_attach) {
		dmabuf = gem->import_attach->dmabuf;
		get_dma_buf(dmabuf);
	}
	dma_resv_unlock(gem->resv);
	if (!dmabuf)
		return -EINVAL;
	/*
	 * As the shmem helper: the dma-buf's own VMA operations and file
	 * replace the object's, and its reference on success.
	 */
	vma->vm_private_data = NULL;
	vma->vm_ops = NULL;
	ret = dma_buf_mmap(dmabuf, vma, 0);
	dma_buf_put(dmabuf);
	if (!ret)
		drm_gem_object_put(gem);
	return ret;
}

/**
 * drm_gem_vcm_mmap() - map an object into a process
 * @obj: the object
 * @vma: the VMA, of the object's fake offset or of its dma-buf
 *
 * The object's memory is allocated here if it is not yet, where a
 * failure is an errno of mmap() rather than a fault that could only be
 * retried, and for a write-combined object its linear-map alias is
 * cleaned; nothing is mapped: each page goes in at its first touch, from
 * the fault handler of &drm_gem_vcm_vm_ops.  The VMA is counted, so
 * that the memory does not move under it.  An import is mapped by its
 * exporter (dma_buf_mmap()).
 *
 * The VMA is the caller's to bound, as for any GEM object: DRM's mmap
 * (drm_gem_mmap()) starts it exactly at the object's fake offset, no
 * longer than the object, and the dma-buf core keeps it inside the
 * dma-buf before drm_gem_prime_mmap() adds the fake offset.  A driver
 * that calls this itself must bound the VMA the same way.
 *
 * Context: takes the object's reservation lock, under the mmap lock.
 * Return: 0; -EINVAL for a copy-on-write mapping (the pages are
 * PFN-mapped) or an import whose attachment is gone; the errors of drm_gem_vcm_populate() (-ENOMEM
 * over the memory cgroup's limit) and VCM's; the error of
 * dma_buf_mmap().
 */
int drm_gem_vcm_mmap(struct drm_gem_vcm_object *obj, struct vm_area_struct *vma)
{
	struct drm_gem_object *gem = &obj->base;
	int ret;

	if (obj->imported)
		return drm_gem_vcm_mmap_import(obj, vma);

	/* Pages go in with vmf_insert_pfn(), which cannot do copy-on-write. */
	if (is_cow_mapping(vma->vm_flags))
		return -EINVAL;

	/*
	 * No VM_DONTCOPY, ->may_split or ->mremap: a fork, a split (a
	 * partial munmap() or mprotect()) or a move of the VMA calls
	 * ->open and ->close, and every VMA finds its pages by its own page
	 * offset when it faults.  VM_DONTEXPAND keeps mremap() from growing
	 * it past the object.
	 */
	vm_flags_set(vma, VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_page_prot = vm_get_page_prot(vma->vm_flags);
	if (obj->map_wc)
		vma->vm_page_prot = pgprot_writecombine(vma->vm_page_prot);

	dma_resv_lock(gem->resv, NULL);
	ret = drm_gem_vcm_populate(obj);
	if (!ret)
		ret = drm_gem_vcm_prepare_wc(obj);
	/* Nothing fails past here: the VMA's ->close undoes this. */
	if (!ret)
		atomic_inc(&obj->user_vmas);
	dma_resv_unlock(gem->resv);
	return ret;
}
EXPORT_SYMBOL_GPL(drm_gem_vcm_mmap);

/*
 * A fault on a CPU mapping: the object's page at the faulting address,
 * its memory allocated at mmap().  The rest of its chunk goes in
 * too, inside the VMA, up to DRM_GEM_VCM_FAULT_PAGES pages in all, so
 * that a linear walk faults once every 16 pages.  The memory does not
 * move while the VMA exists (user_vmas), so the object's reservation
 * lock is enough.
 */
static vm_fault_t drm_gem_vcm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct drm_gem_object *gem = vma->vm_private_data;
	struct drm_gem_vcm_object *obj = to_drm_gem_vcm_obj(gem);
	unsigned long addr = vmf->address, pfn, nr, i;
	pgoff_t pgoff = drm_gem_vcm_vma_page(gem, vmf->pgoff);
	vm_fault_t ret;
	int err;

	if (pgoff >= gem->size >> PAGE_SHIFT)
		return VM_FAULT_SIGBUS;

	/* The memory was allocated at mmap() and stays while the VMA does. */
	dma_resv_lock(gem->resv, NULL);
	err = vcm_phys_pfn(obj->physmem, pgoff, &pfn, &nr);
	if (err) {
		dma_resv_unlock(gem->resv);
		return VM_FAULT_SIGBUS;
	}

	ret = vmf_insert_pfn(vma, addr, pfn);
	if (!(ret & VM_FAULT_ERROR)) {
		nr = min3(nr, (unsigned long)DRM_GEM_VCM_FAULT_PAGES,
			  (vma->vm_end - addr) >> PAGE_SHIFT);
		/* The faulting page's result is the fault's; the rest may fail. */
		for (i = 1; i < nr; i++)
			if (vmf_insert_pfn(vma, addr + i * PAGE_SIZE, pfn + i) &
			    VM_FAULT_ERROR)
				break;
	}
	dma_resv_unlock(gem->resv);
	return ret;
}

/*
 * A VMA copied by fork(), or made by splitting one (a partial munmap() or
 * mprotect()) or moving one (mremap()): one more that maps the object.
 */
static void drm_gem_vcm_vm_open(struct vm_area_struct *vma)
{
	struct drm_gem_object *gem = vma->vm_private_data;

	atomic_inc(&to_drm_gem_vcm_obj(gem)->user_vmas);
	drm_gem_vm_open(vma);
}

/* Its page tables are gone by now: it maps nothing any more. */
static void drm_gem_vcm_vm_close(struct vm_area_struct *vma)
{
	struct drm_gem_object *gem = vma->vm_private_data;

	drm_WARN_ON(gem->dev,
		    atomic_dec_return(&to_drm_gem_vcm_obj(gem)->user_vmas) < 0);
	drm_gem_vm_close(vma);
}

/**
 * DOC: drm_gem_vcm_vm_ops
 *
 * drm_gem_vcm_vm_ops are the VMA operations of an object's CPU
 * mappings, for &drm_gem_object_funcs.vm_ops: ->fault inserts the
 * pages, ->open and ->close count the VMAs and hold the object.
 */
const struct vm_operations_struct drm_gem_vcm_vm_ops = {
	.fault = drm_gem_vcm_fault,
	.open = drm_gem_vcm_vm_open,
	.close = drm_gem_vcm_vm_close,
};
EXPORT_SYMBOL_GPL(drm_gem_vcm_vm_ops);

/*
 * PRIME: the exporter
 */

/*
 * The importer's copy of a mapped table: its entries, pages and DMA
 * addresses alike.  The dma-buf core may scramble the copy it hands out
 * (CONFIG_DMABUF_DEBUG mangles its page links until the unmap), so the
 * exporter keeps the original to sync and unmap with.
 */
static struct sg_table *drm_gem_vcm_sgt_dup(struct sg_table *src)
{
	struct scatterlist *s, *d;
	struct sg_table *dst;
	unsigned int i;

	dst = kzalloc(sizeof(*dst), GFP_KERNEL);
	if (!dst)
		return NULL;
	if (sg_alloc_table(dst, src->orig_nents, GFP_KERNEL)) {
		kfree(dst);
		return NULL;
	}
	d = dst->sgl;
	for_each_sgtable_sg(src, s, i) {
		sg_set_page(d, sg_page(s), s->length, s->offset);
		sg_dma_address(d) = sg_dma_address(s);
		sg_dma_len(d) = sg_dma_len(s);
#ifdef CONFIG_NEED_SG_DMA_FLAGS
		d->dma_flags = s->dma_flags;
#endif
		d = sg_next(d);
	}
	dst->nents = src->nents;
	return dst;
}

static void drm_gem_vcm_sgt_free(struct sg_table *sgt)
{
	sg_free_table(sgt);
	kfree(sgt);
}

/*
 * An importer's device gets the object's chunks mapped with its DMA API,
 * in memory placed for it at this, its first, mapping (see
 * drm_gem_vcm_place_map()).  One page may be mapped for several devices:
 * the CPU sync is the exporter's, now and around CPU access, not the
 * mapping's (which DMA-API debug would report as overlapping).
 */
static struct sg_table *
drm_gem_vcm_map_dma_buf(struct dma_buf_attachment *attach,
			enum dma_data_direction dir)
{
	struct drm_gem_vcm_object *obj = to_drm_gem_vcm_obj(attach->dmabuf->priv);
	struct drm_gem_vcm_dma_map *map;
	struct sg_table *sgt, *out;
	int ret;

	dma_resv_assert_held(obj->base.resv);
	/*
	 * The DMA API's streaming mappings assume the CPU maps the memory
	 * cacheable: a device that snoops the CPU's caches could read lines
	 * of the cacheable linear alias of write-combined memory, which the
	 * exporter cannot tell of an importer.  Such an object is for the
	 * CPU and for the devices its driver maps itself, unless the driver
	 * lets importers have it (&drm_gem_vcm_context.dma_map_wc): its
	 * linear alias is cleaned first, as for a process's first mapping.
	 */
	if (obj->map_wc && !obj->ctx->dma_map_wc)
		return ERR_PTR(-EINVAL);

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	map = kzalloc(sizeof(*map), GFP_KERNEL);
	if (!sgt || !map) {
		ret = -ENOMEM;
		goto err;
	}
	ret = drm_gem_vcm_place_map(obj, attach->dev);
	if (!ret)
		ret = drm_gem_vcm_populate(obj);
	if (!ret)
		ret = drm_gem_vcm_prepare_wc(obj);
	if (!ret)
		ret = vcm_phys_to_sgt_for_dev(obj->physmem, attach->dev, sgt);
	if (ret)
		goto err;
	ret = dma_map_sgtable(attach->dev, sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
	if (ret)
		goto err_table;
	out = drm_gem_vcm_sgt_dup(sgt);
	if (!out) {
		ret = -ENOMEM;
		goto err_unmap;
	}
	dma_sync_sgtable_for_device(attach->dev, sgt, dir);

	map->dev = attach->dev;
	map->sgt = sgt;
	map->dir = dir;
	list_add_tail(&map->node, &obj->dma_maps);
	obj->map_count++;
	atomic_inc(&obj->ctx->maps);
	attach->priv = map;
	return out;

err_unmap:
	dma_unmap_sgtable(attach->dev, sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
err_table:
	sg_free_table(sgt);
err:
	kfree(map);
	kfree(sgt);
	return ERR_PTR(ret);
}

static void drm_gem_vcm_unmap_dma_buf(struct dma_buf_attachment *attach,
				      struct sg_table *sgt,
				      enum dma_data_direction dir)
{
	struct drm_gem_vcm_object *obj = to_drm_gem_vcm_obj(attach->dmabuf->priv);
	struct drm_gem_vcm_dma_map *map = attach->priv;

	attach->priv = NULL;
	dma_resv_assert_held(obj->base.resv);
	/* What the importer's device wrote, for the CPU (and out of bounce). */
	dma_unmap_sgtable(attach->dev, map->sgt, dir, 0);
	drm_gem_vcm_sgt_free(map->sgt);
	list_del(&map->node);
	obj->map_count--;
	atomic_dec(&obj->ctx->maps);
	kfree(map);
	drm_gem_vcm_sgt_free(sgt);
}

/*
 * Every device attached counts among the object's users, known by its
 * struct device only, from its attach to its last detach; what it needs
 * of the memory counts from its first mapping.
 */
static int drm_gem_vcm_dmabuf_attach(struct dma_buf *dmabuf,
				     struct dma_buf_attachment *attach)
{
	struct drm_gem_vcm_object *obj = to_drm_gem_vcm_obj(dmabuf->priv);
	int ret;

	dma_resv_lock(obj->base.resv, NULL);
	ret = drm_gem_vcm_place_user(obj, attach->dev, NULL);
	dma_resv_unlock(obj->base.resv);
	return ret;
}

static void drm_gem_vcm_dmabuf_detach(struct dma_buf *dmabuf,
				      struct dma_buf_attachment *attach)
{
	struct drm_gem_vcm_object *obj = to_drm_gem_vcm_obj(dmabuf->priv);

	dma_resv_lock(obj->base.resv, NULL);
	drm_gem_vcm_place_unuse(obj, attach->dev);
	dma_resv_unlock(obj->base.resv);
}

/*
 * Sync an importer's DMA API mapping from the exporter's own copy of its
 * table, in the direction it was mapped with, whatever the access.
 */
static void drm_gem_vcm_dma_map_sync(const struct drm_gem_vcm_dma_map *map,
				     bool for_cpu)
{
	if (for_cpu)
		dma_sync_sgtable_for_cpu(map->dev, map->sgt, map->dir);
	else
		dma_sync_sgtable_for_device(map->dev, map->sgt, map->dir);
}

/*
 * Around CPU access, every importer's mapping, under the object's lock.
 * No signal ends the wait for it: a display that composes from the
 * dma-buf begins its CPU access in a commit's tail, which cannot fail.
 */
static void drm_gem_vcm_sync_dma_maps(struct drm_gem_vcm_object *obj,
				      bool for_cpu)
{
	struct drm_gem_vcm_dma_map *map;

	dma_resv_lock(obj->base.resv, NULL);
	list_for_each_entry(map, &obj->dma_maps, node)
		drm_gem_vcm_dma_map_sync(map, for_cpu);
	dma_resv_unlock(obj->base.resv);
}

static int drm_gem_vcm_begin_cpu_access(struct dma_buf *dmabuf,
					enum dma_data_direction dir)
{
	drm_gem_vcm_sync_dma_maps(to_drm_gem_vcm_obj(dmabuf->priv), true);
	return 0;
}

static int drm_gem_vcm_end_cpu_access(struct dma_buf *dmabuf,
				      enum dma_data_direction dir)
{
	drm_gem_vcm_sync_dma_maps(to_drm_gem_vcm_obj(dmabuf->priv), false);
	return 0;
}

/*
 * drm_gem_prime_mmap() adds the object's fake offset to the VMA's page
 * offset, and the mmap and fault handlers take it off again.  The offset
 * is made on first use: make it before, so that all of them read the
 * same one even when a client asks for it at the same time.
 */
static int drm_gem_vcm_dmabuf_mmap(struct dma_buf *dmabuf,
				   struct vm_area_struct *vma)
{
	int ret = drm_gem_create_mmap_offset(dmabuf->priv);

	return ret ?: drm_gem_dmabuf_mmap(dmabuf, vma);
}

static const struct dma_buf_ops drm_gem_vcm_dmabuf_ops = {
	.cache_sgt_mapping = true,
	.attach = drm_gem_vcm_dmabuf_attach,
	.detach = drm_gem_vcm_dmabuf_detach,
	.map_dma_buf = drm_gem_vcm_map_dma_buf,
	.unmap_dma_buf = drm_gem_vcm_unmap_dma_buf,
	.release = drm_gem_dmabuf_release,
	.begin_cpu_access = drm_gem_vcm_begin_cpu_access,
	.end_cpu_access = drm_gem_vcm_end_cpu_access,
	.mmap = drm_gem_vcm_dmabuf_mmap,
	.vmap = drm_gem_dmabuf_vmap,
	.vunmap = drm_gem_dmabuf_vunmap,
};

/**
 * drm_gem_vcm_prime_export() - export an object as a dma-buf
 * @gem: the object, of the helper's own
 * @flags: the dma-buf file flags
 *
 * &drm_gem_object_funcs.export of the helper's objects.  The dma-buf
 * places the memory for each device that maps an attachment, maps it
 * with that device's DMA API and syncs those mappings around the
 * dma-buf's CPU access calls.
 *
 * Unlike what include/linux/dma-buf.h suggests for &dma_buf_ops.attach,
 * an attach is never refused for what the device needs: its needs count
 * from its first mapping, as a device that only vmaps or mmaps the
 * dma-buf needs nothing of the memory.  That mapping fails with -EBUSY
 * when the memory does not meet them and something maps it already, and
 * with -EINVAL for a write-combined object unless the driver allows it
 * (&drm_gem_vcm_context.dma_map_wc).  The dma-buf, like the
 * driver's own files, holds the driver's module.
 *
 * Return: the dma-buf or an ERR_PTR(): -EINVAL for an import, whose
 * dma-buf is the exporter's.
 */
struct dma_buf *drm_gem_vcm_prime_export(struct drm_gem_object *gem,
					 int flags)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);

	if (to_drm_gem_vcm_obj(gem)->imported)
		return ERR_PTR(-EINVAL);
	/* As drm_gem_prime_export(): the driver's code frees the object. */
	exp_info.owner = gem->dev->driver->fops->owner;
	exp_info.exp_name = gem->dev->driver->name;
	exp_info.ops = &drm_gem_vcm_dmabuf_ops;
	exp_info.size = gem->size;
	exp_info.flags = flags;
	exp_info.priv = gem;
	exp_info.resv = gem->resv;
	return drm_gem_dmabuf_export(gem->dev, &exp_info);
}
EXPORT_SYMBOL_GPL(drm_gem_vcm_prime_export);

/**
 * drm_gem_vcm_dmabuf_object() - the object of a dma-buf a driver exported
 *	with the helper
 * @dmabuf: a dma-buf, or NULL
 * @driver: the driver asking
 *
 * As drm_gem_prime_import_dev() tells the DRM core's own dma-bufs, by
 * their operations, and then by the driver of the object: a driver
 * learns only of its own objects, for its debugfs say.
 *
 * Return: the object, which the dma-buf holds, or NULL for NULL,
 * another exporter's dma-buf or another driver's object.
 */
struct drm_gem_vcm_object *
drm_gem_vcm_dmabuf_object(const struct dma_buf *dmabuf,
			  const struct drm_driver *driver)
{
	struct drm_gem_object *gem;

	if (!dmabuf || dmabuf->ops != &drm_gem_vcm_dmabuf_ops)
		return NULL;
	gem = dmabuf->priv;
	return gem->dev->driver == driver ? to_drm_gem_vcm_obj(gem) : NULL;
}
EXPORT_SYMBOL_GPL(drm_gem_vcm_dmabuf_object);

/**
 * drm_gem_vcm_prime_sync() - sync an attachment's DMA mapping of the
 *	helper's memory around a device's DMA
 * @attach: an importer's attachment, mapped, to any dma-buf
 * @for_cpu: after the DMA (true) or before it
 *
 * The helper maps an attachment with the CPU sync the DMA API asks for,
 * and syncs it around the dma-buf's CPU access calls.  The exporting
 * driver's own CPU access (its kernel mapping, a process's mapping of the
 * object) is not bracketed by those calls, so an importing driver whose
 * device DMAs repeatedly through one mapping syncs it around each use
 * with this.  Does nothing for another exporter's dma-buf or an
 * attachment not mapped.  The helper reads its own data of the
 * attachment, which the importer never touches.
 *
 * Context: the caller's own attachment, which it keeps mapped meanwhile:
 * it serialises this against its unmap and detach, as it does its DMA.
 */
void drm_gem_vcm_prime_sync(struct dma_buf_attachment *attach, bool for_cpu)
{
	struct drm_gem_vcm_dma_map *map;

	if (attach->dmabuf->ops != &drm_gem_vcm_dmabuf_ops)
		return;
	map = attach->priv;
	if (map)
		drm_gem_vcm_dma_map_sync(map, for_cpu);
}
EXPORT_SYMBOL_GPL(drm_gem_vcm_prime_sync);

/*
 * PRIME: the importer
 */

/**
 * drm_gem_vcm_prime_import_sg_table() - make the object of an import
 * @ctx: the context of the importing DRM device
 * @attach: the device's attachment
 * @sgt: its mapped table
 *
 * Called from &drm_driver.gem_prime_import_sg_table, which
 * drm_gem_prime_import_dev() calls.  The importer keeps to what
 * the dma-buf rules give it: the DMA addresses of its own attachment.  A
 * device on a DMA VCM has them wrapped as a physmem of its VCM
 * (vcm_phys_from_dma()), in &drm_gem_vcm_object.physmem, for the driver
 * to map; one without an IOMMU takes only a dma-buf that is one DMA
 * range, as drm_gem_dma_prime_import_sg_table() does.  The DRM core sets
 * the object's &drm_gem_object.import_attach, and drm_gem_vcm_free()
 * gives the attachment back.
 *
 * Return: the object or an ERR_PTR(): -EINVAL for a dma-buf that is not
 * one range for a one-to-one device, or whose addresses do not cover
 * it, -ENOMEM, the errors of VCM's.
 */
struct drm_gem_object *
drm_gem_vcm_prime_import_sg_table(struct drm_gem_vcm_context *ctx,
				  struct dma_buf_attachment *attach,
				  struct sg_table *sgt)
{
	size_t size = attach->dmabuf->size;
	struct drm_gem_vcm_object *obj;
	struct vcm_physmem *pm = NULL;

	if (ctx->kind == DRM_GEM_VCM_ONE_TO_ONE &&
	    drm_prime_get_contiguous_size(sgt) < size)
		return ERR_PTR(-EINVAL);
	if (ctx->kind == DRM_GEM_VCM_DMA) {
		pm = vcm_phys_from_dma(ctx->avcm, sgt);
		if (IS_ERR(pm))
			return ERR_CAST(pm);
		if (vcm_get_physmem_len(pm) != size) {
			vcm_phys_free(pm);
			return ERR_PTR(-EINVAL);
		}
	}
	obj = drm_gem_vcm_create_import(ctx, size);
	if (IS_ERR(obj)) {
		if (pm)
			vcm_phys_free(pm);
		return ERR_CAST(obj);
	}
	obj->physmem = pm;
	obj->sgt = sgt;
	obj->attach = attach;
	return &obj->base;
}
EXPORT_SYMBOL_GPL(drm_gem_vcm_prime_import_sg_table);

/*
 * A device the CPU stands in for does not map its attachment: it has no
 * DMA addresses to ask for, and an exporter that places memory for the
 * DMA of its importers, as the helper does, asks nothing of the memory
 * for one that never maps.  It reads and writes through the exporter's
 * vmap, mmap and CPU access calls.
 */
static struct drm_gem_object *
drm_gem_vcm_prime_import_no_map(struct drm_gem_vcm_context *ctx,
				struct dma_buf *dmabuf)
{
	struct dma_buf_attachment *attach;
	struct drm_gem_vcm_object *obj;

	attach = dma_buf_attach(dmabuf, ctx->drm->dev);
	if (IS_ERR(attach))
		return ERR_CAST(attach);
	obj = drm_gem_vcm_create_import(ctx, dmabuf->size);
	if (IS_ERR(obj)) {
		dma_buf_detach(dmabuf, attach);
		return ERR_CAST(obj);
	}
	get_dma_buf(dmabuf);
	obj->attach = attach;
	obj->base.import_attach = attach;
	obj->base.resv = dmabuf->resv;
	return &obj->base;
}

/**
 * drm_gem_vcm_prime_import() - import a dma-buf
 * @ctx: the context of the importing DRM device
 * @dmabuf: the dma-buf
 *
 * Called from &drm_driver.gem_prime_import.  A dma-buf the device
 * exported comes back as its own object; any other is imported for the
 * device's own attachment, whoever exported it: mapped for a device that
 * does DMA (through &drm_driver.gem_prime_import_sg_table), only
 * attached for a %DRM_GEM_VCM_CPU device, which reads and writes through
 * the exporter.
 *
 * Return: the object or an ERR_PTR().
 */
struct drm_gem_object *drm_gem_vcm_prime_import(struct drm_gem_vcm_context *ctx,
						struct dma_buf *dmabuf)
{
	struct drm_device *dev = ctx->drm;
	struct drm_gem_vcm_object *obj;
	struct drm_gem_object *gem;
	bool revoked;

	obj = drm_gem_vcm_dmabuf_object(dmabuf, dev->driver);
	if (obj && obj->base.dev == dev) {
		drm_gem_object_get(&obj->base);
		return &obj->base;
	}
	if (ctx->kind == DRM_GEM_VCM_CPU)
		gem = drm_gem_vcm_prime_import_no_map(ctx, dmabuf);
	else
		gem = drm_gem_prime_import_dev(dev, dmabuf, dev->dev);
	if (IS_ERR(gem))
		return gem;

	/* A new import, complete: listed for drm_gem_vcm_unplug(). */
	obj = to_drm_gem_vcm_obj(gem);
	mutex_lock(&ctx->imports_lock);
	revoked = ctx->imports_revoked;
	if (!revoked)
		list_add(&obj->import_node, &ctx->imports);
	mutex_unlock(&ctx->imports_lock);
	if (revoked) {
		/* Its release gives the attachment back. */
		drm_gem_object_put(gem);
		return ERR_PTR(-ENODEV);
	}
	return gem;
}
EXPORT_SYMBOL_GPL(drm_gem_vcm_prime_import);

/**
 * drm_gem_vcm_import_dmabuf() - the dma-buf an import stands for
 * @obj: an import, its reservation lock held (or its device's unplug
 *	known not to run meanwhile)
 *
 * Return: its attachment's dma-buf or, once its device gave the
 * attachment back (drm_gem_vcm_unplug()), the one it holds until it is
 * freed; NULL for an object that is not an import.
 */
struct dma_buf *drm_gem_vcm_import_dmabuf(const struct drm_gem_vcm_object *obj)
{
	return obj->attach ? obj->attach->dmabuf : obj->revoked;
}
EXPORT_SYMBOL_GPL(drm_gem_vcm_import_dmabuf);

/*
 * Give back the attachments of a device's imports: see
 * drm_gem_vcm_unplug().  An import's reservation lock is its dma-buf's:
 * the attachment is unmapped under it and detached after it, as
 * dma_buf_detach() takes it itself.
 */
static void drm_gem_vcm_revoke_imports(struct drm_gem_vcm_context *ctx)
{
	struct drm_gem_vcm_object *obj, *next;
	LIST_HEAD(revoke);

	/* The live ones; the exporter is called without the list lock. */
	mutex_lock(&ctx->imports_lock);
	ctx->imports_revoked = true;
	list_for_each_entry_safe(obj, next, &ctx->imports, import_node) {
		if (kref_get_unless_zero(&obj->base.refcount))
			list_move(&obj->import_node, &revoke);
	}
	mutex_unlock(&ctx->imports_lock);

	list_for_each_entry_safe(obj, next, &revoke, import_node) {
		struct dma_buf_attachment *attach;

		dma_resv_lock(obj->base.resv, NULL);
		attach = obj->attach;
		if (attach && !obj->revoked) {
			obj->revoked = attach->dmabuf;
			if (obj->sgt)
				dma_buf_unmap_attachment(attach, obj->sgt,
							 DMA_BIDIRECTIONAL);
			WRITE_ONCE(obj->base.import_attach, NULL);
			obj->attach = NULL;
			WRITE_ONCE(obj->sgt, NULL);
		} else {
			attach = NULL;
		}
		dma_resv_unlock(obj->base.resv);
		if (attach)
			dma_buf_detach(obj->revoked, attach);
		mutex_lock(&ctx->imports_lock);
		list_del_init(&obj->import_node);
		mutex_unlock(&ctx->imports_lock);
		drm_gem_object_put(&obj->base);
	}
}

/*
 * Dumb buffers
 */

/**
 * drm_gem_vcm_dumb_create() - create a dumb buffer
 * @ctx: the context of the DRM device
 * @file: the client
 * @args: the request; its pitch, size and handle are filled in
 *
 * For &drm_driver.dumb_create.  The buffer is an object of the device
 * with no memory yet; the pitch is the width's whole bytes.  Flags are
 * ignored, as by the other GEM helpers' dumb_create: the uapi says they
 * must be zero, but userspace sets some, and DRM core leaves refusing
 * them to a driver that starts out strict.
 *
 * Return: 0, the errors of drm_gem_vcm_create() and of
 * drm_gem_handle_create().
 */
int drm_gem_vcm_dumb_create(struct drm_gem_vcm_context *ctx,
			    struct drm_file *file,
			    struct drm_mode_create_dumb *args)
{
	struct drm_gem_vcm_object *obj;
	int ret;

	/*
	 * drm_mode_create_dumb() bounds width * bytes per pixel by U32_MAX,
	 * which bounds the pitch; width * bits per pixel may not fit 32
	 * bits.
	 */
	args->pitch = DIV_ROUND_UP((u64)args->width * args->bpp, 8);
	obj = drm_gem_vcm_create(ctx, (u64)args->pitch * args->height);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	args->size = obj->base.size;
	ret = drm_gem_handle_create(file, &obj->base, &args->handle);
	/* The handle holds the object now, or nothing does. */
	drm_gem_object_put(&obj->base);
	return ret;
}
EXPORT_SYMBOL_GPL(drm_gem_vcm_dumb_create);

MODULE_DESCRIPTION("DRM GEM objects on VCM physical memory");
MODULE_LICENSE("GPL");
