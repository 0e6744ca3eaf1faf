/* SPDX-License-Identifier: MIT */
/*
 * open_size DIR: opens DIR/f, which exists (the test made it 1 MiB), and pwrites 4096 bytes at
 * offset 4096, in place: the capture must record the size the file had when opened.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[PATH_MAX], buf[4096];
	int fd;

	if (argc != 2)
		return 2;
	snprintf(path, sizeof(path), "%s/f", argv[1]);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return 1;
	memset(buf, 'w', sizeof(buf));
	if (pwrite(fd, buf, sizeof(buf), 4096) != sizeof(buf) || fdatasync(fd))
		return 1;
	return close(fd) ? 1 : 0;
}
