// SPDX-License-Identifier: GPL-2.0-only
/*
 * Registry of live VCM handles.
 *
 * The VCM API hands out opaque pointers.  To turn a stale, freed or
 * foreign pointer into -EINVAL rather than a use after free, every object
 * is entered here while it lives, and exported functions look a handle up
 * before touching it.  The lookup compares addresses only: a candidate
 * pointer is never dereferenced until it has been found.
 */

#include <linux/hashtable.h>
#include <linux/spinlock.h>

#include "vcm_priv.h"

#define VCM_OBJ_HASH_BITS	10

static DEFINE_HASHTABLE(vcm_objs, VCM_OBJ_HASH_BITS);
static DEFINE_SPINLOCK(vcm_obj_lock);

/**
 * vcm_obj_add() - register a new object
 * @obj: the registry entry heading the object
 * @type: what the object is
 */
void vcm_obj_add(struct vcm_obj *obj, enum vcm_obj_type type)
{
	obj->type = type;
	spin_lock(&vcm_obj_lock);
	hash_add(vcm_objs, &obj->node, (unsigned long)obj);
	spin_unlock(&vcm_obj_lock);
}

/**
 * vcm_obj_del() - unregister an object about to be freed
 * @obj: the registry entry heading the object
 */
void vcm_obj_del(struct vcm_obj *obj)
{
	spin_lock(&vcm_obj_lock);
	hash_del(&obj->node);
	spin_unlock(&vcm_obj_lock);
}

/**
 * vcm_obj_valid() - check a handle given to the API
 * @ptr: the handle
 * @type: the type it must have
 *
 * Return: true if @ptr is a live object of type @type.
 */
bool vcm_obj_valid(const void *ptr, enum vcm_obj_type type)
{
	struct vcm_obj *obj;
	bool found = false;

	if (IS_ERR_OR_NULL(ptr))
		return false;

	spin_lock(&vcm_obj_lock);
	hash_for_each_possible(vcm_objs, obj, node, (unsigned long)ptr) {
		if ((const void *)obj == ptr) {
			found = obj->type == type;
			break;
		}
	}
	spin_unlock(&vcm_obj_lock);

	return found;
}
