/* SPDX-License-Identifier: MIT */
/*
 * conv_unpaired.c - an io_getevents completion whose io_submit the capture never saw (it was
 * submitted before the capture began) is counted as unpaired; the count must reach the
 * trace's footer meta (capture.unpaired), as capture.lost_items does, and `ioreel info` must
 * print it. No BPF: capture_conv is fed the kernel event by hand.
 *   conv_unpaired IOREEL        exit 0 pass, 1 fail
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "capture.h"
#include "capture_int.h"

#define PID 2147483000u /* above any pid_max: /proc knows nothing of it */

/* io_getevents(ctx, 1, 1, events) = 1 reaping one request, iocb at obj, of 4096 bytes */
static void completion(struct capture_conv *c, uint64_t obj)
{
	struct ioreel_sys_event *ev = calloc(1, sizeof(*ev));
	size_t size = offsetof(struct ioreel_sys_event, data) + 32;
	int64_t res = 4096;

	ev->hdr.type = IOREEL_EV_SYS;
	ev->hdr.pid = PID;
	ev->hdr.tid = PID;
	ev->hdr.nr = __NR_io_getevents;
	ev->hdr.size = size;
	ev->args[0] = 0x7000; /* the aio context */
	ev->args[1] = ev->args[2] = 1;
	ev->args[3] = 0x8000; /* events: a user pointer, never read here */
	ev->ret = 1;
	ev->start_ns = 2000;
	ev->end_ns = 2100;
	ev->items = 1;
	ev->len0 = 32;
	memcpy(ev->data + 8, &obj, 8); /* struct io_event: data, obj, res, res2 */
	memcpy(ev->data + 16, &res, 8);
	capture_conv__event(c, ev, size);
	free(ev);
}

static int info_says_unpaired(const char *ioreel, const char *trace)
{
	char cmd[512], line[512];
	int found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s info %s", ioreel, trace);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p))
		if (!strncmp(line, "unpaired ", 9) && strstr(line, " 2 async completions"))
			found = 1;
	return pclose(p) == 0 && found;
}

int main(int argc, char **argv)
{
	char dir[] = "/dev/shm/ioreel-conv.XXXXXX", trace[64];
	struct capture_stats st = {0};
	struct reel_reader *r = NULL;
	struct reel_writer *w;
	struct capture_conv c;
	const char *v;
	int rc = 1;

	if (argc != 2 || !mkdtemp(dir))
		return 1;
	snprintf(trace, sizeof(trace), "%s/t.reel", dir);
	if (reel_writer__open(trace, NULL, &w) || capture_conv__init(&c, w, 1000, NULL))
		goto out;
	completion(&c, 0xa000);
	completion(&c, 0xb000);
	st.unpaired = c.unpaired;
	capture_conv__free(&c);
	if (st.unpaired != 2) {
		fprintf(stderr, "conv counted %llu unpaired completions, want 2\n",
			(unsigned long long)st.unpaired);
		reel_writer__close(w);
		goto out;
	}
	if (capture__footer_meta(w, &st) || reel_writer__close(w))
		goto out;
	if (reel_reader__open(trace, &r))
		goto out;
	v = reel_reader__meta(r, REEL_META_CAPTURE_UNPAIRED);
	if (!v || strcmp(v, "2")) {
		fprintf(stderr, "meta capture.unpaired is %s, want 2\n", v ? v : "missing");
		goto out;
	}
	if (!info_says_unpaired(argv[1], trace)) {
		fprintf(stderr, "ioreel info does not print the 2 unpaired completions\n");
		goto out;
	}
	rc = 0;
out:
	reel_reader__close(r);
	unlink(trace);
	rmdir(dir);
	if (rc == 0)
		printf("conv_unpaired: ok\n");
	return rc;
}
