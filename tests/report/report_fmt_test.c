/* SPDX-License-Identifier: MIT */
/* report_fmt_test.c - durations and ratios print alike across units, with carries right. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

int main(void)
{
	static const struct {
		uint64_t ns;
		const char *want;
	} durs[] = {
	    {0, "0 ns"},
	    {999, "999 ns"},
	    {1000, "1.00 µs"},
	    {14200, "14.2 µs"},
	    {142000, "142 µs"},
	    {999400, "999 µs"},
	    {999600, "1.00 ms"},
	    {8100000, "8.10 ms"},
	    {99960000, "100 ms"},
	    {1500000000, "1.50 s"},
	    {3600000000000ull, "3600 s"},
	};
	static const struct {
		double r;
		const char *want;
	} ratios[] = {
	    {1.0234, "1.02×"},	 {580.4, "580×"}, {12.34, "12.3×"},
	    {0.0017, "0.0017×"}, {0.25, "0.25×"}, {0, "-"},
	};
	char buf[32];
	int fail = 0;

	for (size_t i = 0; i < sizeof(durs) / sizeof(durs[0]); i++) {
		report_fmt__dur(durs[i].ns, buf, sizeof(buf));
		if (strcmp(buf, durs[i].want)) {
			printf("FAIL: %llu ns -> '%s', want '%s'\n", (unsigned long long)durs[i].ns,
			       buf, durs[i].want);
			fail = 1;
		}
	}
	for (size_t i = 0; i < sizeof(ratios) / sizeof(ratios[0]); i++) {
		report_fmt__ratio(ratios[i].r, buf, sizeof(buf));
		if (strcmp(buf, ratios[i].want)) {
			printf("FAIL: ratio %g -> '%s', want '%s'\n", ratios[i].r, buf,
			       ratios[i].want);
			fail = 1;
		}
	}
	/* JSON strings: escapes, UTF-8 as it is, and bytes that are not UTF-8 as \udcXX
	 * (surrogateescape), so the document stays valid and a reader gets the bytes back. */
	static const struct {
		const char *in, *want;
	} js[] = {
	    {"a\"b\\c\n", "\"a\\\"b\\\\c\\n\""},
	    {"caf\xc3\xa9", "\"caf\xc3\xa9\""},
	    {"x\xffy", "\"x\\udcffy\""},
	    {"\xe0\x80\x80", "\"\\udce0\\udc80\\udc80\""}, /* overlong */
	    {"\xed\xa0\x80", "\"\\udced\\udca0\\udc80\""}, /* surrogate */
	    {"\xc3", "\"\\udcc3\""},			   /* cut short */
	};
	for (size_t i = 0; i < sizeof(js) / sizeof(js[0]); i++) {
		char *got = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&got, &len);
		report_fmt__json_str(f, js[i].in);
		fclose(f);
		if (strcmp(got, js[i].want)) {
			printf("FAIL: json string %zu -> %s, want %s\n", i, got, js[i].want);
			fail = 1;
		}
		free(got);
	}
	return fail;
}
