#!/bin/sh
# The HTML report in a real browser: headless Chromium loads a report of a small sweep with no
# console message (an error would print one), its script runs (it marks <body data-ready> with the
# number of charts: total time, peak memory, the speedup), the overview's table ends on the first
# screen, and a screenshot of the page is taken (a page of charts is far larger than a
# blank one; scripts/report-screenshot.sh drives the browser). Exits 77, "not run", where Chromium
# is not installed.
# usage: html_in_chromium.sh EMA WORKDIR
set -eu
ema=$1
dir=$2
command -v chromium > /dev/null || command -v chromium-browser > /dev/null || { echo "chromium is not installed: not run"; exit 77; }
rm -rf "$dir"
mkdir -p "$dir"
"$ema" run search --variants seq,omp --sizes 2^10..2^18*2 --instances 2 --no-energy --min-time 0.01 --max-time 0.05 \
  --db "$dir/r.db" --quiet
"$ema" report --db "$dir/r.db" --html "$dir/report.html" --bootstrap 50
sh "$(dirname "$0")/../../scripts/report-screenshot.sh" "$dir/report.html" "$dir/shot.png"
status=0
if grep -q ":CONSOLE" "$dir/console.log"; then
  echo "the page wrote to the console:"; grep ":CONSOLE" "$dir/console.log"; status=1
fi
charts=$(sed -n 's/.*<body[^>]* data-ready="\([0-9]*\)".*/\1/p' "$dir/dom.html" | head -n 1)
if [ -z "$charts" ] || [ "$charts" -lt 3 ]; then
  echo "the page's script did not run or found too few charts (data-ready='$charts')"; status=1
fi
[ "$(grep -o '<svg class="chart"' "$dir/dom.html" | wc -l)" -ge 3 ] || { echo "fewer than 3 charts in the DOM"; status=1; }
# The answer on the first screen (issue 31, item 2): the overview's table, laid out by the browser,
# ends within the top 800 pixels of a 1280-pixel-wide window.
overview=$(sed -n 's/.*<body[^>]* data-overview="\([0-9]*\),\([0-9]*\)".*/\1 \2/p' "$dir/dom.html" | head -n 1)
if [ -z "$overview" ]; then
  echo "the page has no overview table"; status=1
else
  set -- $overview
  [ "$2" -le 800 ] || { echo "the overview ends at $2 px, below the first screen (800 px)"; status=1; }
fi
size=$(wc -c < "$dir/shot.png" 2>/dev/null || echo 0)
[ "$size" -gt 60000 ] || { echo "the screenshot is missing or nearly blank ($size bytes)"; status=1; }
[ $status -eq 0 ] && echo "report loads in Chromium: $charts charts, no console message, overview at $overview px, screenshot $size bytes"
exit $status
