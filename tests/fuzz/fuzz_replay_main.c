// SPDX-License-Identifier: MIT
/*
 * Runs a fuzz target once over each file named on the command line (the seeds and the
 * inputs that once crashed it), in builds without libFuzzer: a regression test.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			return 1;
		}
		fseek(f, 0, SEEK_END);
		long n = ftell(f);
		fseek(f, 0, SEEK_SET);
		uint8_t *buf = malloc(n ? n : 1);
		if (!buf || fread(buf, 1, n, f) != (size_t)n) {
			fprintf(stderr, "%s: read failed\n", argv[i]);
			return 1;
		}
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
		free(buf);
	}
	printf("%d inputs\n", argc - 1);
	return 0;
}
