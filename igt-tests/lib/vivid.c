// SPDX-License-Identifier: MIT
/* vivid lookup; see vivid.h. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/videodev2.h>

#include "vivid.h"

/**
 * vivid_open_capture() - open the first vivid video capture node
 * @path: if not NULL, receives the node's path
 * @len: room in @path
 *
 * Return: an open fd, or -1 when vivid has no capture node.
 */
int vivid_open_capture(char *path, size_t len)
{
	return vivid_open_instance(0, V4L2_CAP_VIDEO_CAPTURE, path, len);
}

/**
 * vivid_open_instance() - open a video node of one vivid instance
 * @inst: the instance (vivid's n_devs makes several: the tests load it
 *	with instance 0 on vmalloc memory and instance 1 on dma-contig)
 * @caps: the V4L2_CAP_* device capability the node must have
 * @path: if not NULL, receives the node's path
 * @len: room in @path
 *
 * Return: an open fd, or -1 when the instance has no such node.
 */
int vivid_open_instance(int inst, unsigned int caps, char *path, size_t len)
{
	char name[32], bus[32];

	snprintf(bus, sizeof(bus), "platform:vivid-%03d", inst);
	for (int i = 0; i < 64; i++) {
		struct v4l2_capability cap = {};
		int fd;

		snprintf(name, sizeof(name), "/dev/video%d", i);
		fd = open(name, O_RDWR);
		if (fd < 0)
			continue;
		if (!ioctl(fd, VIDIOC_QUERYCAP, &cap) &&
		    !strcmp((char *)cap.driver, "vivid") &&
		    !strcmp((char *)cap.bus_info, bus) &&
		    (cap.device_caps & caps)) {
			if (path)
				snprintf(path, len, "%s", name);
			return fd;
		}
		close(fd);
	}
	return -1;
}
