#!/bin/sh
# The charts `ema report --svg DIR` wrote, as PNG beside them, drawn by headless Chromium at twice
# their size (for a slide or a document that takes no SVG). Exits 77 without Chromium.
# usage: svg-to-png.sh DIR
set -eu
dir=$(realpath "$1")
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "chromium is not installed: convert the SVG files with another tool (rsvg-convert, Inkscape)"; exit 77; }
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
count=0
for svg in "$dir"/*.svg; do
  [ -e "$svg" ] || continue
  # The chart's size from its width and height attributes (ema writes them from the viewBox).
  width=$(sed -n '2s/.* width="\([0-9.]*\)".*/\1/p' "$svg" | cut -d. -f1)
  height=$(sed -n '2s/.* height="\([0-9.]*\)".*/\1/p' "$svg" | cut -d. -f1)
  [ -n "$width" ] && [ -n "$height" ] || { echo "$svg: no width and height on its svg element: not written by ema report --svg?"; exit 1; }
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking --disable-component-update \
    --disable-sync --user-data-dir="$profile" --hide-scrollbars --force-device-scale-factor=2 --window-size="$((width + 1)),$((height + 1))" \
    --screenshot="${svg%.svg}.png" "file://$svg" > /dev/null 2>&1
  count=$((count + 1))
done
echo "$count charts drawn as PNG in $dir"
