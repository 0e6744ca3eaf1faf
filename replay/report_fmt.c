/* SPDX-License-Identifier: MIT */
/* report_fmt.c - how the report writes durations, ratios and strings, in one place. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reel_cvt_util.h"
#include "report_int.h"

/*
 * Durations: ns below 1 us, then us / ms / s with three significant digits ("14.2 µs",
 * "142 µs", "8.10 ms"), so that columns read alike whatever the magnitude.
 */
char *report_fmt__dur(uint64_t ns, char *buf, size_t len)
{
	static const char *const units[] = {"ns", "µs", "ms", "s"};
	unsigned u = 0;
	double v = (double)ns;

	while (u < 3 && v >= 999.5) { /* 999.6 us prints as "1.00 ms", not "1000 µs" */
		v /= 1000;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	else if (v >= 99.95)
		snprintf(buf, len, "%.0f %s", v, units[u]);
	else if (v >= 9.995)
		snprintf(buf, len, "%.1f %s", v, units[u]);
	else
		snprintf(buf, len, "%.2f %s", v, units[u]);
	return buf;
}

/* Ratios: "1.02×", "580×", "0.0017×": three significant digits, no exponent. */
char *report_fmt__ratio(double r, char *buf, size_t len)
{
	if (!isfinite(r) || r <= 0)
		snprintf(buf, len, "-");
	else if (r >= 100)
		snprintf(buf, len, "%.0f×", r);
	else if (r >= 10)
		snprintf(buf, len, "%.1f×", r);
	else if (r >= 0.01)
		snprintf(buf, len, "%.2f×", r);
	else
		snprintf(buf, len, "%.2g×", r);
	return buf;
}

/* The converters' JSON strings (UTF-8 as is, other bytes surrogate-escaped); NULL is "". */
void report_fmt__json_str(FILE *f, const char *s)
{
	cvt_json_str(f, s ? s : "");
}

void report_fmt__html_str(FILE *f, const char *s)
{
	for (const char *p = s ? s : ""; *p; p++) {
		switch (*p) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*p, f);
		}
	}
}

const char *report_fmt__base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s && s[1] ? s + 1 : path;
}
