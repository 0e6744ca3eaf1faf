/* opath_attrs DIR: on DIR/f opened O_PATH, the attribute calls that take such an fd with
 * AT_EMPTY_PATH: fchmodat2, fchownat, utimensat. Exits 1 if one fails. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

int main(int argc, char **argv)
{
	char path[4096];
	int fd, bad = 0;

	if (argc != 2)
		return 2;
	snprintf(path, sizeof(path), "%s/f", argv[1]);
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	if (syscall(SYS_fchmodat2, fd, "", 0640, AT_EMPTY_PATH) < 0)
		perror("fchmodat2"), bad = 1;
	if (fchownat(fd, "", getuid(), getgid(), AT_EMPTY_PATH) < 0)
		perror("fchownat"), bad = 1;
	if (syscall(SYS_utimensat, fd, "", NULL, AT_EMPTY_PATH) < 0)
		perror("utimensat"), bad = 1;
	close(fd);
	return bad;
}
