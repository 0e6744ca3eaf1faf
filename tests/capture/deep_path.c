/* SPDX-License-Identifier: MIT */
/*
 * deep_path.c - files whose absolute paths are longer than PATH_MAX, reached the only ways the
 * kernel allows, relative to a directory fd or to the cwd. Usage: deep_path DIR: makes 24
 * nested directories of 250-byte names under DIR, each by mkdirat and openat on the fd of the
 * one above; in the deepest, creates "leaf" by openat on its fd and writes, reads and closes
 * it; then fchdir to it and creates "leaf2" by open, writes and closes it; last, DIR/ok by its
 * absolute path. Exit 0 when every call succeeded, 1 otherwise.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LEVELS 24

int main(int argc, char **argv)
{
	char name[251], buf[8], path[4096];
	int d, f;

	if (argc != 2)
		return 1;
	memset(name, 'd', 250);
	name[250] = '\0';
	d = open(argv[1], O_RDONLY | O_DIRECTORY);
	for (int i = 0; i < LEVELS && d >= 0; i++) {
		int nd;

		if (mkdirat(d, name, 0755))
			return 1;
		nd = openat(d, name, O_RDONLY | O_DIRECTORY);
		close(d);
		d = nd;
	}
	f = d < 0 ? -1 : openat(d, "leaf", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (f < 0 || write(f, "hello", 5) != 5 || pread(f, buf, 5, 0) != 5 || close(f))
		return 1;
	if (fchdir(d) || (f = open("leaf2", O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0 ||
	    write(f, "x", 1) != 1 || close(f) || close(d))
		return 1;
	snprintf(path, sizeof(path), "%s/ok", argv[1]);
	f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	return f < 0 || write(f, "x", 1) != 1 || close(f);
}
