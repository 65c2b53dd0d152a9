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
	char name[32];

	for (int i = 0; i < 16; i++) {
		struct v4l2_capability cap = {};
		int fd;

		snprintf(name, sizeof(name), "/dev/video%d", i);
		fd = open(name, O_RDWR);
		if (fd < 0)
			continue;
		if (!ioctl(fd, VIDIOC_QUERYCAP, &cap) &&
		    !strcmp((char *)cap.driver, "vivid") &&
		    (cap.device_caps & V4L2_CAP_VIDEO_CAPTURE)) {
			if (path)
				snprintf(path, len, "%s", name);
			return fd;
		}
		close(fd);
	}
	return -1;
}
