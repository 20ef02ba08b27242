#!/bin/sh
# Loads an ema report in headless Chromium: writes its DOM after the page's script ran, the
# browser's console log and a screenshot. The browser test (tests/report/html_in_chromium.sh) checks
# what it writes; docs/images/report.png, the README's picture of a report, is made with it too.
# usage: report-screenshot.sh REPORT.html OUT.png [WIDTH,HEIGHT]
#   writes OUT.png, and OUT.png's folder gets dom.html and console.log. Exits 77 without Chromium.
set -eu
report=$(realpath "$1")
shot=$2
size=${3:-1280,2400}
dir=$(dirname "$shot")
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "chromium is not installed: not run"; exit 77; }
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
flags="--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir=$profile --enable-logging=stderr --v=0 --hide-scrollbars"
# shellcheck disable=SC2086
timeout 120 "$browser" $flags --window-size="$size" --dump-dom "file://$report" > "$dir/dom.html" 2> "$dir/console.log"
# shellcheck disable=SC2086
timeout 120 "$browser" $flags --window-size="$size" --screenshot="$shot" "file://$report" > /dev/null 2>> "$dir/console.log"
