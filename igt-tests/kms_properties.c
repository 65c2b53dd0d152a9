// SPDX-License-Identifier: MIT
/*
 * kms_properties: the property contract of upstream igt's test of this
 * name, with its subtest names.  Every mutable property of every plane,
 * CRTC and connector can be set to its current value (legacy
 * SETPROPERTY, or an atomic TEST_ONLY commit followed by a real one);
 * a property of another object is refused (EINVAL legacy, ENOENT
 * atomic); and what GETPROPERTY reports is self-consistent: flags, one
 * type, ranges holding the value, enums and bitmasks naming it, blobs
 * readable, object properties naming live objects, encoders with none.
 *
 * Writeback connectors are included (the test sets the writeback client
 * cap, as lib/gembuf_kms does).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <drm_fourcc.h>

#include "igt.h"
#include "gembuf.h"
#include "gembuf_kms.h"
#include "igt_kms.h"

IGT_TEST_DESCRIPTION("Test to validate the properties of all planes, crtc and connectors");

static int fd = -1;
static struct gk pipes[8];
static int num_pipes;
static struct gk_fb fbs[8];

struct object {
	uint32_t id, type;
};

static struct object objects[64];
static unsigned int num_objects;

static bool ignored(uint32_t obj_type, const drmModePropertyRes *prop, bool atomic)
{
	if (prop->flags & DRM_MODE_PROP_IMMUTABLE)
		return true;
	/* Atomic clients drive DPMS through ACTIVE; upstream skips it. */
	return atomic && obj_type == DRM_MODE_OBJECT_CONNECTOR &&
	       !strcmp(prop->name, "DPMS");
}

/* Set every mutable property of @id to its current value. */
static void set_current_values(uint32_t type, uint32_t id, bool atomic)
{
	drmModeObjectPropertiesPtr props = drmModeObjectGetProperties(fd, id, type);
	drmModeAtomicReqPtr req = atomic ? drmModeAtomicAlloc() : NULL;

	igt_assert(props);
	for (uint32_t i = 0; i < props->count_props; i++) {
		drmModePropertyPtr prop = drmModeGetProperty(fd, props->props[i]);

		igt_assert(prop);
		if (ignored(type, prop, atomic)) {
			drmModeFreeProperty(prop);
			continue;
		}
		igt_debug("%u: property \"%s\" = %llu\n", id, prop->name,
			  (unsigned long long)props->prop_values[i]);
		if (!atomic) {
			igt_assert_eq(drmModeObjectSetProperty(fd, id, type, prop->prop_id,
							       props->prop_values[i]), 0);
		} else {
			igt_assert(drmModeAtomicAddProperty(req, id, prop->prop_id,
							    props->prop_values[i]) >= 0);
			igt_assert_eq(drmModeAtomicCommit(fd, req, DRM_MODE_ATOMIC_TEST_ONLY,
							  NULL), 0);
		}
		drmModeFreeProperty(prop);
	}
	drmModeFreeObjectProperties(props);
	if (atomic) {
		igt_assert_eq(drmModeAtomicCommit(fd, req, 0, NULL), 0);
		drmModeAtomicFree(req);
	}
}

/* Light every pipe with a full-screen primary, as upstream's prepare_pipe(). */
static void light_pipes(void)
{
	for (int p = 0; p < num_pipes; p++) {
		struct gk_layer l = gk_layer_of(&fbs[p]);

		gk_fb_fill(&fbs[p], 0x00336699 + p);
		igt_assert_eq(gk_commit(&pipes[p], &l, 1, NULL, 0), 0);
	}
}

static void dark_pipes(void)
{
	for (int p = 0; p < num_pipes; p++)
		gk_disable(&pipes[p]);
}

static void object_properties(uint32_t type, bool atomic)
{
	unsigned int tested = 0;

	light_pipes();
	for (unsigned int i = 0; i < num_objects; i++) {
		if (objects[i].type != type)
			continue;
		set_current_values(type, objects[i].id, atomic);
		tested++;
	}
	/* Lit pipes stay lit, with the primary each had. */
	for (int p = 0; p < num_pipes; p++) {
		uint64_t active = 0, fb = 0;

		gk_prop(fd, pipes[p].crtc_id, DRM_MODE_OBJECT_CRTC, "ACTIVE", &active);
		gk_prop(fd, pipes[p].planes[0].id, DRM_MODE_OBJECT_PLANE, "FB_ID", &fb);
		igt_assert_eq_u64(active, 1);
		igt_assert_eq_u64(fb, fbs[p].fb_id);
	}
	dark_pipes();
	igt_assert(tested > 0);
}

static bool has_prop(drmModeObjectPropertiesPtr props, uint32_t prop_id)
{
	for (uint32_t i = 0; i < props->count_props; i++)
		if (props->props[i] == prop_id)
			return true;
	return false;
}

/* Properties of @other that @obj lacks are refused on @obj. */
static void foreign_properties(const struct object *obj, const struct object *other,
			       bool atomic)
{
	drmModeObjectPropertiesPtr mine = drmModeObjectGetProperties(fd, obj->id, obj->type);
	drmModeObjectPropertiesPtr theirs =
		drmModeObjectGetProperties(fd, other->id, other->type);

	igt_assert(mine && theirs);
	for (uint32_t i = 0; i < theirs->count_props; i++) {
		uint32_t prop = theirs->props[i];
		uint64_t value = theirs->prop_values[i];

		if (has_prop(mine, prop))
			continue;
		if (!atomic) {
			igt_assert_eq(drmModeObjectSetProperty(fd, obj->id, obj->type,
							       prop, value), -EINVAL);
		} else {
			drmModeAtomicReqPtr req = drmModeAtomicAlloc();

			igt_assert(drmModeAtomicAddProperty(req, obj->id, prop, value) >= 0);
			igt_assert_eq(drmModeAtomicCommit(fd, req,
							  DRM_MODE_ATOMIC_ALLOW_MODESET,
							  NULL), -ENOENT);
			drmModeAtomicFree(req);
		}
	}
	drmModeFreeObjectProperties(mine);
	drmModeFreeObjectProperties(theirs);
}

static void invalid_properties(bool atomic)
{
	for (unsigned int i = 0; i < num_objects; i++)
		for (unsigned int j = 0; j < num_objects; j++)
			if (i != j)
				foreign_properties(&objects[i], &objects[j], atomic);
}

static void check_range(const struct drm_mode_get_property *p, const uint64_t *values,
			uint64_t value)
{
	bool immutable = p->flags & DRM_MODE_PROP_IMMUTABLE;

	igt_assert_eq(p->count_values, 2);
	igt_assert_eq(p->count_enum_blobs, 0);
	igt_assert(values[0] != values[1] || immutable);
	if (p->flags & DRM_MODE_PROP_RANGE) {
		igt_assert_lte_u64(values[0], values[1]);
		igt_assert_lte_u64(values[0], value);
		igt_assert_lte_u64(value, values[1]);
	} else {
		igt_assert_cmps64((int64_t)values[0], <=, >, (int64_t)values[1]);
		igt_assert_cmps64((int64_t)values[0], <=, >, (int64_t)value);
		igt_assert_cmps64((int64_t)value, <=, >, (int64_t)values[1]);
	}
}

static void check_enums(const struct drm_mode_get_property *p, const uint64_t *values,
			const struct drm_mode_property_enum *enums)
{
	bool immutable = p->flags & DRM_MODE_PROP_IMMUTABLE;

	igt_assert_lte(1, p->count_values);
	igt_assert_eq(p->count_enum_blobs, p->count_values);
	igt_assert(p->count_values != 1 || immutable);
	for (uint32_t i = 0; i < p->count_enum_blobs; i++) {
		size_t len = strnlen(enums[i].name, sizeof(enums[i].name));

		igt_assert_lte(1, (int)len);
		igt_assert_lte((int)len, (int)sizeof(enums[i].name) - 1);
		igt_assert_eq_u64(values[i], enums[i].value);
	}
}

static void check_enum(const struct drm_mode_get_property *p, const uint64_t *values,
		       const struct drm_mode_property_enum *enums, uint64_t value)
{
	bool found = false;

	check_enums(p, values, enums);
	for (uint32_t i = 0; i < p->count_values; i++)
		found |= values[i] == value;
	igt_assert_f(found, "%s: value %llu is none of its enums\n", p->name,
		     (unsigned long long)value);
}

static void check_bitmask(const struct drm_mode_get_property *p, const uint64_t *values,
			  const struct drm_mode_property_enum *enums, uint64_t value)
{
	uint64_t mask = 0;

	check_enums(p, values, enums);
	for (uint32_t i = 0; i < p->count_values; i++) {
		igt_assert_lte_u64(values[i], 63);
		mask |= 1ull << values[i];
	}
	igt_assert_eq_u64(value & ~mask, 0);
	igt_assert_neq_u64(value & mask, 0);
}

static void check_blob(const struct drm_mode_get_property *p, uint64_t value)
{
	struct drm_mode_get_blob blob = { .blob_id = value };

	/* Blob properties carry no values or enums, whatever libdrm suggests. */
	igt_assert_eq(p->count_values, 0);
	igt_assert_eq(p->count_enum_blobs, 0);
	igt_assert_lte_u64(value, 0xffffffff);
	if (value)
		do_ioctl(fd, DRM_IOCTL_MODE_GETPROPBLOB, &blob);
}

static void check_object(const struct drm_mode_get_property *p, const uint64_t *values,
			 uint64_t value)
{
	bool immutable = p->flags & DRM_MODE_PROP_IMMUTABLE;

	igt_assert_eq(p->count_values, 1);
	igt_assert_eq(p->count_enum_blobs, 0);
	igt_assert_lte_u64(value, 0xffffffff);
	igt_assert(!immutable || value);
	if (!value)
		return;
	switch (values[0]) {
	case DRM_MODE_OBJECT_CRTC: {
		struct drm_mode_crtc crtc = { .crtc_id = value };

		do_ioctl(fd, DRM_IOCTL_MODE_GETCRTC, &crtc);
		break;
	}
	case DRM_MODE_OBJECT_FB: {
		struct drm_mode_fb_cmd fb = { .fb_id = value };

		do_ioctl(fd, DRM_IOCTL_MODE_GETFB, &fb);
		break;
	}
	default:
		igt_assert_f(0, "%s: object type %llx\n", p->name,
			     (unsigned long long)values[0]);
	}
}

/* GETPROPERTY of @prop_id, checked against its value @value on some object. */
static void check_property(uint32_t prop_id, uint64_t value, bool atomic)
{
	struct drm_mode_get_property p = { .prop_id = prop_id };
	struct drm_mode_property_enum *enums = NULL;
	uint64_t *values = NULL;
	uint32_t legacy, ext;

	do_ioctl(fd, DRM_IOCTL_MODE_GETPROPERTY, &p);
	if (p.count_values) {
		values = malloc(p.count_values * sizeof(*values));
		igt_assert(values);
		memset(values, 0x5c, p.count_values * sizeof(*values));
		p.values_ptr = (uintptr_t)values;
	}
	if (p.count_enum_blobs) {
		enums = malloc(p.count_enum_blobs * sizeof(*enums));
		igt_assert(enums);
		memset(enums, 0x5c, p.count_enum_blobs * sizeof(*enums));
		p.enum_blob_ptr = (uintptr_t)enums;
	}
	do_ioctl(fd, DRM_IOCTL_MODE_GETPROPERTY, &p);
	/* Everything was written. */
	for (uint32_t i = 0; i < p.count_values; i++)
		igt_assert_neq_u64(values[i], 0x5c5c5c5c5c5c5c5cull);
	for (uint32_t i = 0; i < p.count_enum_blobs; i++)
		igt_assert_neq_u64(enums[i].value, 0x5c5c5c5c5c5c5c5cull);

	igt_assert_eq_u32(p.flags & ~(DRM_MODE_PROP_LEGACY_TYPE | DRM_MODE_PROP_EXTENDED_TYPE |
				      DRM_MODE_PROP_IMMUTABLE | DRM_MODE_PROP_ATOMIC), 0);
	/* Atomic properties are hidden from other clients. */
	igt_assert(atomic || !(p.flags & DRM_MODE_PROP_ATOMIC));
	legacy = p.flags & DRM_MODE_PROP_LEGACY_TYPE;
	ext = p.flags & DRM_MODE_PROP_EXTENDED_TYPE;
	igt_assert_f(!legacy != !ext, "%s: flags %x\n", p.name, p.flags);
	igt_assert(!(legacy & (legacy - 1)));
	switch (legacy) {
	case DRM_MODE_PROP_RANGE:
		check_range(&p, values, value);
		break;
	case DRM_MODE_PROP_ENUM:
		check_enum(&p, values, enums, value);
		break;
	case DRM_MODE_PROP_BITMASK:
		check_bitmask(&p, values, enums, value);
		break;
	case DRM_MODE_PROP_BLOB:
		check_blob(&p, value);
		break;
	default:
		igt_assert_eq_u32(legacy, 0);
	}
	switch (ext) {
	case DRM_MODE_PROP_OBJECT:
		check_object(&p, values, value);
		break;
	case DRM_MODE_PROP_SIGNED_RANGE:
		check_range(&p, values, value);
		break;
	default:
		igt_assert_eq_u32(ext, 0);
	}
	free(values);
	free(enums);
}

/* OBJ_GETPROPERTIES of @obj, each property checked. */
static void check_object_properties(const struct object *obj, bool atomic)
{
	struct drm_mode_obj_get_properties arg = { .obj_id = obj->id,
						   .obj_type = obj->type };
	uint32_t *props = NULL, count;
	uint64_t *values = NULL;

	do_ioctl(fd, DRM_IOCTL_MODE_OBJ_GETPROPERTIES, &arg);
	count = arg.count_props;
	if (count) {
		props = malloc(count * sizeof(*props));
		values = malloc(count * sizeof(*values));
		igt_assert(props && values);
		memset(props, 0x5c, count * sizeof(*props));
		memset(values, 0x5c, count * sizeof(*values));
		arg.props_ptr = (uintptr_t)props;
		arg.prop_values_ptr = (uintptr_t)values;
	}
	do_ioctl(fd, DRM_IOCTL_MODE_OBJ_GETPROPERTIES, &arg);
	igt_assert_eq_u32(arg.count_props, count);
	for (uint32_t i = 0; i < count; i++)
		check_property(props[i], values[i], atomic);
	free(props);
	free(values);
}

/*
 * Every plane, CRTC and connector the client sees now (without the
 * atomic cap, that also drops universal planes: primaries and cursors
 * are not listed) has consistent properties; encoders have none.
 */
static void get_properties_sanity(bool atomic)
{
	drmModePlaneResPtr pres = drmModeGetPlaneResources(fd);
	drmModeResPtr res = drmModeGetResources(fd);
	struct object o;

	igt_assert(res && pres);
	for (uint32_t i = 0; i < pres->count_planes; i++) {
		o = (struct object){ pres->planes[i], DRM_MODE_OBJECT_PLANE };
		check_object_properties(&o, atomic);
	}
	for (int i = 0; i < res->count_crtcs; i++) {
		o = (struct object){ res->crtcs[i], DRM_MODE_OBJECT_CRTC };
		check_object_properties(&o, atomic);
	}
	for (int i = 0; i < res->count_connectors; i++) {
		o = (struct object){ res->connectors[i], DRM_MODE_OBJECT_CONNECTOR };
		check_object_properties(&o, atomic);
	}
	for (int i = 0; i < res->count_encoders; i++) {
		struct drm_mode_obj_get_properties arg = {
			.obj_id = res->encoders[i],
			.obj_type = DRM_MODE_OBJECT_ENCODER,
		};

		igt_assert_neq(drmIoctl(fd, DRM_IOCTL_MODE_OBJ_GETPROPERTIES, &arg), 0);
	}
	drmModeFreePlaneResources(pres);
	drmModeFreeResources(res);
}

static void add_object(uint32_t id, uint32_t type)
{
	igt_assert(num_objects < ARRAY_SIZE(objects));
	objects[num_objects++] = (struct object){ id, type };
}

igt_main
{
	igt_fixture {
		drmModePlaneResPtr pres;
		drmModeResPtr res;

		fd = gembuf_open_display();
		igt_require(drmSetMaster(fd) == 0);
		res = drmModeGetResources(fd);
		igt_assert(res);
		num_pipes = res->count_crtcs;
		igt_assert(num_pipes <= (int)ARRAY_SIZE(pipes));
		for (int p = 0; p < num_pipes; p++) {
			gk_init_pipe(&pipes[p], fd, p);
			igt_assert(gk_set_mode(&pipes[p], 640, 480));
			gk_fb_create(&pipes[p], &fbs[p], 640, 480, DRM_FORMAT_XRGB8888);
			add_object(res->crtcs[p], DRM_MODE_OBJECT_CRTC);
		}
		/* gk_init_pipe() set the universal planes, atomic and writeback caps. */
		for (int i = 0; i < res->count_connectors; i++)
			add_object(res->connectors[i], DRM_MODE_OBJECT_CONNECTOR);
		pres = drmModeGetPlaneResources(fd);
		igt_assert(pres);
		for (uint32_t i = 0; i < pres->count_planes; i++)
			add_object(pres->planes[i], DRM_MODE_OBJECT_PLANE);
		drmModeFreePlaneResources(pres);
		drmModeFreeResources(res);
	}

	igt_describe("Every mutable plane property set to its value, by SETPROPERTY.");
	igt_subtest("plane-properties-legacy")
		object_properties(DRM_MODE_OBJECT_PLANE, false);

	igt_describe("Every mutable plane property set to its value, by atomic commits.");
	igt_subtest("plane-properties-atomic")
		object_properties(DRM_MODE_OBJECT_PLANE, true);

	igt_describe("Every mutable CRTC property set to its value, by SETPROPERTY.");
	igt_subtest("crtc-properties-legacy")
		object_properties(DRM_MODE_OBJECT_CRTC, false);

	igt_describe("Every mutable CRTC property set to its value, by atomic commits.");
	igt_subtest("crtc-properties-atomic")
		object_properties(DRM_MODE_OBJECT_CRTC, true);

	igt_describe("Every mutable connector property set to its value, by SETPROPERTY.");
	igt_subtest("connector-properties-legacy")
		object_properties(DRM_MODE_OBJECT_CONNECTOR, false);

	igt_describe("Every mutable connector property set to its value, by atomic commits.");
	igt_subtest("connector-properties-atomic")
		object_properties(DRM_MODE_OBJECT_CONNECTOR, true);

	igt_describe("A property of another object is refused with EINVAL by SETPROPERTY.");
	igt_subtest("invalid-properties-legacy")
		invalid_properties(false);

	igt_describe("A property of another object is refused with ENOENT by atomic commits.");
	igt_subtest("invalid-properties-atomic")
		invalid_properties(true);

	igt_describe("What GETPROPERTY reports of each object's properties is consistent, for atomic clients.");
	igt_subtest("get_properties-sanity-atomic") {
		light_pipes();
		get_properties_sanity(true);
		dark_pipes();
	}

	igt_describe("The same for clients without the atomic cap, which see no atomic properties.");
	igt_subtest("get_properties-sanity-non-atomic") {
		light_pipes();
		igt_assert_eq(drmSetClientCap(fd, DRM_CLIENT_CAP_ATOMIC, 0), 0);
		get_properties_sanity(false);
		/* Atomic again, and universal planes, which dropping it cleared. */
		igt_assert_eq(drmSetClientCap(fd, DRM_CLIENT_CAP_ATOMIC, 1), 0);
		dark_pipes();
	}

	igt_fixture {
		for (int p = 0; p < num_pipes; p++) {
			gk_fb_destroy(&pipes[p], &fbs[p]);
			drmModeDestroyPropertyBlob(fd, pipes[p].mode_blob);
		}
		drm_close_driver(fd);
	}
}
