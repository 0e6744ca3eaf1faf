#!/bin/bash
# SPDX-License-Identifier: MIT
# report_html_test.sh IOREEL MKTRACE - the HTML page is self-contained (no script, no
# external resource), carries one CDF plot per op type and the verdict, and really renders:
# headless chromium takes a screenshot, which must show the plot colours of every run.
set -u
IOREEL=$1 MKTRACE=$2
HERE=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d /dev/shm/ioreel-report-html.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail=0

"$MKTRACE" "$dir" 500 || exit 1
"$IOREEL" report "$dir/orig.reel" "$dir/fast.reel" "$dir/equal.reel" "$dir/late.reel" \
	--html "$dir/report.html" >/dev/null || { echo "FAIL: report --html exited $?"; exit 1; }
page=$dir/report.html

# Self-contained: the only URL is the SVG namespace name, which is never fetched.
if grep -Eo '(src|href)=|<script|<link|@import|url\(|https?://[^"]*' "$page" |
	grep -v '^http://www.w3.org/2000/svg$' | grep -q .; then
	echo "FAIL: the page refers to something outside itself"
	fail=1
fi
# A CDF and a tail plot each for fsync, uring_read, pwrite64, pread64, openat and lateness.
nsvg=$(grep -o 'role="img"' "$page" | wc -l)
if [ "$nsvg" != 12 ]; then
	echo "FAIL: $nsvg plots, expected 12"
	fail=1
fi
grep -q 'fsync p[0-9]* falls from' "$page" || { echo "FAIL: verdict missing"; fail=1; }
# The x axes say what they plot: the op types' latency, the lateness plots' lateness (both of
# them were labelled latency).
nlat=$(grep -c '>latency x (log scale)<' "$page")
nlate=$(grep -c '>lateness x (log scale)<' "$page")
if [ "$nlat" != 10 ] || [ "$nlate" != 2 ]; then
	echo "FAIL: x axes: $nlat labelled latency (want 10), $nlate lateness (want 2)"
	fail=1
fi
grep -q '>share of ops later than x (log)<' "$page" ||
	{ echo "FAIL: the lateness tail's y axis does not say later"; fail=1; }
[ $fail = 0 ] || exit 1

CHROMIUM=$(command -v chromium || command -v chromium-browser) ||
	{ echo "chromium not installed (tests/setup-deps.sh installs it)"; exit 77; }

flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
	--disable-background-networking --disable-component-update --disable-sync
	--user-data-dir="$dir/profile")
timeout 90 "$CHROMIUM" "${flags[@]}" --screenshot="$dir/out.png" --window-size=1200,2000 \
	"file://$page" >"$dir/chromium.log" 2>&1
if [ ! -s "$dir/out.png" ]; then
	echo "FAIL: no screenshot"; tail -5 "$dir/chromium.log"; exit 1
fi
# The runs' colours (report_html.c): original, then the first three replays.
python3 "$HERE/report_png_check.py" "$dir/out.png" '#222222' '#0072B2' '#D55E00' '#009E73' ||
	fail=1

# The DOM chromium built holds the drawn curves: 4 runs x 12 plots, less the original's
# empty lateness.
timeout 90 "$CHROMIUM" "${flags[@]}" --dump-dom "file://$page" >"$dir/dom.html" 2>>"$dir/chromium.log"
npath=$(grep -o '<path fill="none"' "$dir/dom.html" | wc -l)
if [ "$npath" != 46 ]; then
	echo "FAIL: $npath curves in the rendered DOM"
	fail=1
fi
[ -n "${IOREEL_KEEP_SCREENSHOT:-}" ] && cp "$dir/out.png" "$IOREEL_KEEP_SCREENSHOT"
exit $fail
