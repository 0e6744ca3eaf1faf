/* SPDX-License-Identifier: MIT */
/*
 * proc_tree.c - the processes of capture.process, one after another, each writing a file of
 * its own in DIR: a fork that exits with code 3; a fork killed by SIGKILL; a clone(CLONE_FILES)
 * child that leaves by exit(2) (not exit_group) with code 4; a posix_spawn (vfork + execve) of
 * this program again, which exits with 6; a fork whose main thread ends by pthread_exit and
 * whose other thread then exits the process with code 5. Prints "ROLE PID TID" for itself
 * ("main"), each child and that last thread ("thread"), and checks each wait status.
 *
 * Usage: proc_tree DIR    (proc_tree spawned DIR: the posix_spawn'ed program)
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *dir;

static void write_file(const char *name)
{
	char p[4096];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, name, strlen(name)) != (ssize_t)strlen(name))
		_exit(100);
	close(fd);
}

static void say(const char *role, long pid, long tid)
{
	dprintf(1, "%s %ld %ld\n", role, pid, tid);
}

static void expect(const char *role, pid_t pid, int want)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || status != want) {
		fprintf(stderr, "proc_tree: %s: wait status %#x, want %#x\n", role, status, want);
		exit(1);
	}
}

static int clone_child(void *arg)
{
	(void)arg;
	write_file("clone_files");
	return 4; /* glibc's clone() ends the child with exit(2), not exit_group */
}

/* The child's main thread has ended (a zombie leader): this thread is the process's last. */
static void *last_thread(void *arg)
{
	char p[64], buf[512];
	int tries;

	(void)arg;
	snprintf(p, sizeof(p), "/proc/self/task/%d/stat", getpid());
	for (tries = 0; tries < 500; tries++) {
		int fd = open(p, O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
		char *s;

		if (fd >= 0)
			close(fd);
		if (n <= 0)
			break; /* gone from /proc: ended */
		buf[n] = 0;
		s = strrchr(buf, ')');
		if (s && s[1] == ' ' && s[2] == 'Z')
			break;
		usleep(1000);
	}
	write_file("thread");
	say("thread", getpid(), syscall(SYS_gettid));
	exit(5);
}

int main(int argc, char **argv)
{
	int pfd[2];
	pid_t pid;
	char c, *stack;

	if (argc == 3 && !strcmp(argv[1], "spawned")) {
		dir = argv[2];
		write_file("spawned");
		return 6;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: proc_tree DIR\n");
		return 2;
	}
	dir = argv[1];
	say("main", getpid(), syscall(SYS_gettid));
	write_file("main");

	pid = fork();
	if (pid == 0) {
		write_file("exit3");
		_exit(3);
	}
	say("exit3", pid, pid);
	expect("exit3", pid, 3 << 8);

	if (pipe(pfd))
		return 1;
	pid = fork();
	if (pid == 0) {
		write_file("killed");
		if (write(pfd[1], "x", 1) != 1)
			_exit(100);
		for (;;)
			pause();
	}
	say("killed", pid, pid);
	if (read(pfd[0], &c, 1) != 1)
		return 1;
	kill(pid, SIGKILL);
	expect("killed", pid, SIGKILL);

	stack = malloc(1 << 16);
	if (!stack)
		return 1;
	pid = clone(clone_child, stack + (1 << 16), CLONE_FILES | SIGCHLD, NULL);
	if (pid < 0)
		return 1;
	say("clone_files", pid, pid);
	expect("clone_files", pid, 4 << 8);

	{
		char *args[] = { argv[0], "spawned", (char *)dir, NULL };

		if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, environ))
			return 1;
	}
	say("spawned", pid, pid);
	expect("spawned", pid, 6 << 8);

	pid = fork();
	if (pid == 0) {
		pthread_t t;

		if (pthread_create(&t, NULL, last_thread, NULL))
			_exit(100);
		pthread_exit(NULL);
	}
	say("threads", pid, pid);
	expect("threads", pid, 5 << 8);
	return 0;
}
