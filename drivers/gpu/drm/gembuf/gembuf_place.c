// SPDX-License-Identifier: GPL-2.0-only
/*
 * gembuf placement: an object's memory is chosen for the devices that use
 * it.
 *
 * Each device that imports or attaches to an object adds what it needs of
 * the memory (a VCM constraint, derived from its DMA setup) to what the
 * object needs.  The memory is allocated when a device first needs it,
 * the cheapest that meets them all: chunks sized for the IOMMUs when every
 * device translates, one physical range when one does not, and from low
 * memory only below a device's DMA limit.  This is the exporter's choice
 * the dma-buf rules leave open up to the first mapping (see the attach
 * and map_dma_buf callbacks of &struct dma_buf_ops): a device that comes
 * later and cannot use the memory gets it moved while nothing maps it,
 * and -EBUSY from attach after.  Constraints only accumulate: a device
 * that detaches does not make the memory move back.
 *
 * The memory is charged to the memory cgroup of the object's creator,
 * whichever task's attach, import, job or mmap makes it be allocated or
 * moved: the creator chose its size and keeps it alive, and an importer
 * must not pay for, nor be OOM-killed over, a buffer it was handed.
 */

#include <drm/drm_drv.h>
#include <drm/drm_print.h>
#include <linux/log2.h>
#include <linux/memcontrol.h>
#include <linux/sched/mm.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "gembuf_drv.h"

static void gembuf_place_refuse(struct gembuf_object *obj, int err, u32 unmet,
				const char *who)
{
	obj->refused = err;
	obj->refused_unmet = unmet;
	strscpy(obj->refused_dev, who, sizeof(obj->refused_dev));
	drm_dbg_driver(obj->base.dev,
		       "object of %zu bytes refused for %s: %s memory needed (%d)\n",
		       obj->base.size, who, vcm_constraint_name(unmet), err);
}

static struct gembuf_user *gembuf_place_find(struct gembuf_object *obj,
					     struct device *dev)
{
	struct gembuf_user *user;

	list_for_each_entry(user, &obj->users, node)
		if (user->dev == dev)
			return user;
	return NULL;
}

/**
 * gembuf_place_user() - count a device among an object's users
 * @obj: an object of gembuf's own, locked
 * @dev: the device it is made on (@c its needs), or one attaching to its
 *	dma-buf (@c NULL: its needs count from its first mapping, see
 *	gembuf_place_map())
 * @c: what @dev needs of the memory, or NULL
 *
 * A device counts once however many times it attaches, as long as one
 * of its attachments lasts; the device the object is made on, for the
 * object's life.
 *
 * Return: 0, -ENOMEM, or the error of gembuf_place_add().
 */
int gembuf_place_user(struct gembuf_object *obj, struct device *dev,
		      const struct vcm_constraint *c)
{
	struct vcm_constraint none;
	struct gembuf_user *user;
	int ret;

	lockdep_assert_held(&obj->lock);
	user = gembuf_place_find(obj, dev);
	if (user) {
		user->attachments++;
		return 0;
	}
	user = kzalloc(sizeof(*user), GFP_KERNEL);
	if (!user)
		return -ENOMEM;
	if (!c) {
		vcm_constraint_init(&none);
		none.devices = 1;
	}
	ret = gembuf_place_add(obj, c ?: &none, dev_name(dev));
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

/**
 * gembuf_place_unuse() - an attachment of a device goes
 * @obj: an object of gembuf's own, locked
 * @dev: the device of the attachment
 *
 * With its last attachment the device leaves the users, and its
 * reference goes; what it needed of the memory stays in the object's
 * needs (they only accumulate).
 */
void gembuf_place_unuse(struct gembuf_object *obj, struct device *dev)
{
	struct gembuf_user *user = gembuf_place_find(obj, dev);

	lockdep_assert_held(&obj->lock);
	if (WARN_ON(!user) || --user->attachments)
		return;
	list_del(&user->node);
	put_device(user->dev);
	kfree(user);
}

/**
 * gembuf_place_map() - add an attached device's needs, at its first mapping
 * @obj: an object of gembuf's own, locked
 * @dev: the device of the attachment being mapped
 *
 * The dma-buf rules leave the memory to the exporter up to its first
 * mapping: a device that attaches only to vmap or mmap the dma-buf (a
 * display that composes with the CPU) needs nothing of it, so a device's
 * needs count from its first mapping, when it has asked for DMA
 * addresses.
 *
 * Return: 0, or the error of gembuf_place_add(): -EBUSY when the memory
 * does not meet them and something maps it.
 */
int gembuf_place_map(struct gembuf_object *obj, struct device *dev)
{
	struct gembuf_user *user = gembuf_place_find(obj, dev);
	struct vcm_constraint c;
	int ret;

	lockdep_assert_held(&obj->lock);
	if (WARN_ON(!user) || user->placed)
		return 0;
	/* No DMA setup: nothing the memory must meet. */
	if (vcm_constraint_of_dev(dev, &c)) {
		user->placed = true;
		return 0;
	}
	c.devices = 0;
	ret = gembuf_place_add(obj, &c, dev_name(dev));
	if (!ret)
		user->placed = true;
	return ret;
}

/**
 * gembuf_place_fini() - let go of an object's users
 * @obj: an object being freed
 */
void gembuf_place_fini(struct gembuf_object *obj)
{
	struct gembuf_user *user, *next;

	list_for_each_entry_safe(user, next, &obj->users, node) {
		put_device(user->dev);
		kfree(user);
	}
	put_device(obj->need.dev);
}

/* Memory that meets @need, charged to the object's creator. */
static struct vcm_physmem *gembuf_place_alloc(struct gembuf_object *obj,
					      const struct vcm_constraint *need)
{
	struct mem_cgroup *old = set_active_memcg(obj->memcg);
	struct vcm_physmem *pm;

	pm = vcm_phys_alloc_for(obj->base.size, 0, need);
	set_active_memcg(old);
	return pm;
}

/**
 * gembuf_place_backing() - the object's memory, allocated if not yet
 * @obj: an object of gembuf's own, locked
 *
 * Return: 0, -EINVAL for a foreign import without pages of its own, or
 * the error of vcm_phys_alloc_for().
 */
int gembuf_place_backing(struct gembuf_object *obj)
{
	struct vcm_physmem *pm;

	lockdep_assert_held(&obj->lock);
	if (obj->physmem)
		return 0;
	if (obj->foreign)
		return -EINVAL;
	pm = gembuf_place_alloc(obj, &obj->need);
	if (IS_ERR(pm))
		return PTR_ERR(pm);
	/* Read without the lock by fdinfo (gembuf_gem_status()). */
	WRITE_ONCE(obj->physmem, pm);
	return 0;
}

/* Memory that meets @need, with the old one's contents. */
static int gembuf_place_move(struct gembuf_object *obj,
			     const struct vcm_constraint *need)
{
	struct vcm_physmem *pm, *old;
	int ret;

	pm = gembuf_place_alloc(obj, need);
	if (IS_ERR(pm))
		return PTR_ERR(pm);
	ret = vcm_phys_copy(pm, obj->physmem);
	if (ret) {
		vcm_phys_free(pm);
		return ret;
	}
	/* Published before the old memory goes: see gembuf_gem_status(). */
	old = obj->physmem;
	WRITE_ONCE(obj->physmem, pm);
	WARN_ON(vcm_phys_free(old));
	/* The copy went through the new memory's cacheable alias. */
	obj->wc_clean = false;
	obj->moves++;
	return 0;
}

/**
 * gembuf_place_add() - add a device's needs to an object's
 * @obj: an object of gembuf's own, locked
 * @c: the device's constraint
 * @who: the device's name, for messages and debugfs
 *
 * Before the memory is allocated this only narrows what it will be.
 * Memory that does not meet the result is moved while nothing maps it.
 *
 * Return: 0; -ERANGE or -E2BIG when no memory can meet every device's
 * needs, -EINVAL when the object's size is not a multiple of an IOMMU's
 * granule; -EBUSY when the memory does not meet them and is mapped; the
 * error of the move otherwise.  On error the object's needs and memory
 * are as they were, and the refusal is recorded for debugfs.
 */
int gembuf_place_add(struct gembuf_object *obj, const struct vcm_constraint *c,
		     const char *who)
{
	struct vcm_constraint need = obj->need;
	u32 unmet = 0;
	int ret;

	lockdep_assert_held(&obj->lock);
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
		ret = gembuf_object_mapped(obj) ? -EBUSY :
						  gembuf_place_move(obj, &need);
		if (ret)
			goto refuse;
	}
	/* The device memory is allocated through outlives the attachment. */
	if (need.dev != obj->need.dev) {
		get_device(need.dev);
		put_device(obj->need.dev);
	}
	obj->need = need;
	return 0;

refuse:
	gembuf_place_refuse(obj, ret, unmet, who);
	return ret;
}

/* The names of a constraint's bits, into a report. */
static void gembuf_place_describe_flags(struct seq_buf *s, u32 flags)
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
 * gembuf_place_describe() - an object's placement, for debugfs
 * @obj: an object of gembuf's own, locked
 * @s: the report
 *
 * What its devices need (the VCM_CONSTRAINT_* bits, and their names),
 * how many they are, the DMA limit, how many address bits the memory's
 * highest byte needs, how often the memory moved, and the last refusal:
 * errno, what the memory lacked, the device's name.  All zero for a
 * foreign import, whose memory is its exporter's.
 */
void gembuf_place_describe(struct gembuf_object *obj, struct seq_buf *s)
{
	phys_addr_t phys, top = 0, limit = 0;
	unsigned int cursor, addr_bits = 0;
	size_t len;

	lockdep_assert_held(&obj->lock);
	if (obj->foreign) {
		seq_buf_printf(s, "need 0x0 -\ndevices 0\ndma_limit %pa\n", &limit);
		seq_buf_puts(s, "addr_bits 0\nmoves 0\nrefused 0 0x0 -\n");
		return;
	}
	if (obj->physmem) {
		vcm_for_each_phys_chunk(obj->physmem, cursor, phys, len)
			top = max(top, phys + len - 1);
		addr_bits = order_base_2(top + 1);
	}
	seq_buf_printf(s, "need 0x%x ", obj->need.flags);
	gembuf_place_describe_flags(s, obj->need.flags);
	seq_buf_printf(s, "\ndevices %u\ndma_limit %pa\naddr_bits %u\nmoves %u\n",
		       obj->need.devices, &obj->need.dma_limit, addr_bits,
		       obj->moves);
	seq_buf_printf(s, "refused %d 0x%x %s\n", obj->refused,
		       obj->refused_unmet, obj->refused ? obj->refused_dev : "-");
}

/* The names of a constraint's bits, for a seq_file. */
static void gembuf_place_show_flags(struct seq_file *m, u32 flags)
{
	char names[64];
	struct seq_buf s;

	seq_buf_init(&s, names, sizeof(names));
	gembuf_place_describe_flags(&s, flags);
	seq_puts(m, seq_buf_str(&s));
}

/**
 * gembuf_place_show() - debugfs "gembuf_objects": each object's placement
 * @m: the seq_file
 * @data: unused
 *
 * One line per object with memory of gembuf's own: its size, whether the
 * memory is there, what its devices need, their number, the DMA limit,
 * the moves, and the last refusal (errno, device, what the memory
 * lacked).
 *
 * Return: 0.
 */
int gembuf_place_show(struct seq_file *m, void *data)
{
	struct gembuf_object *obj;

	seq_puts(m, "size allocated need devices limit moves refused\n");
	mutex_lock(&gembuf.objects_lock);
	list_for_each_entry(obj, &gembuf.object_list, list_node) {
		/* Not behind a move or an allocation: that would stall creates. */
		if (!mutex_trylock(&obj->lock)) {
			seq_printf(m, "%zu busy\n", obj->base.size);
			continue;
		}
		seq_printf(m, "%zu %d ", obj->base.size, !!obj->physmem);
		gembuf_place_show_flags(m, obj->need.flags);
		seq_printf(m, " %u %pa %u %d", obj->need.devices,
			   &obj->need.dma_limit, obj->moves, obj->refused);
		if (obj->refused) {
			seq_printf(m, " %s ", obj->refused_dev);
			gembuf_place_show_flags(m, obj->refused_unmet);
		}
		seq_putc(m, '\n');
		mutex_unlock(&obj->lock);
	}
	mutex_unlock(&gembuf.objects_lock);
	return 0;
}
