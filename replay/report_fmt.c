/* SPDX-License-Identifier: MIT */
/* report_fmt.c - how the report writes durations, ratios and strings, in one place. */
#include <math.h>
#include <stdio.h>
#include <string.h>

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

/* Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlongs, no surrogates,
 * nothing above U+10FFFF), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (*p >= 0xc2 && *p <= 0xdf)
		n = 2;
	else if (*p >= 0xe0 && *p <= 0xef)
		n = 3;
	else if (*p >= 0xf0 && *p <= 0xf4)
		n = 4;
	else
		return 0;
	if (*p == 0xe0)
		lo = 0xa0;
	else if (*p == 0xed)
		hi = 0x9f;
	else if (*p == 0xf0)
		lo = 0x90;
	else if (*p == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* Paths are bytes: invalid UTF-8 is written as \u00XX (Latin-1), so the JSON stays valid. */
void report_fmt__json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p);
		} else if (*p == '\n') {
			fputs("\\n", f);
		} else if (*p == '\t') {
			fputs("\\t", f);
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\u%04x", *p);
		} else if (*p < 0x80) {
			fputc(*p, f);
		} else {
			size_t n = utf8_len(p);
			if (!n) {
				fprintf(f, "\\u%04x", *p);
				continue;
			}
			fwrite(p, 1, n, f);
			p += n - 1;
		}
	}
	fputc('"', f);
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
