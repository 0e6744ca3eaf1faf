/* SPDX-License-Identifier: MIT */
/*
 * flink.c - open(2)'s way to make an O_TMPFILE file visible: opens an unnamed file in DIR,
 * writes 8 KiB, links it as DIR/name by linkat(AT_FDCWD, "/proc/self/fd/N", AT_FDCWD,
 * "DIR/name", AT_SYMLINK_FOLLOW), closes it, then opens DIR/name and reads it back. Exit 0
 * when all of it worked, 1 otherwise.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[8192], proc[64], name[4096];
	int fd;

	if (argc != 2)
		return 1;
	memset(buf, 'x', sizeof(buf));
	snprintf(name, sizeof(name), "%s/name", argv[1]);
	fd = open(argv[1], O_TMPFILE | O_RDWR, 0600);
	if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf)) {
		perror("O_TMPFILE");
		return 1;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW)) {
		perror("linkat");
		return 1;
	}
	close(fd);
	fd = open(name, O_RDONLY);
	if (fd < 0 || read(fd, buf, sizeof(buf)) != sizeof(buf)) {
		perror(name);
		return 1;
	}
	close(fd);
	return 0;
}
