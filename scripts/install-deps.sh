#!/usr/bin/env bash
# Installs the Debian 12 packages ema builds with, if any is missing; with --test also Chromium,
# which the report's browser test uses, clang-format, which the format test uses, pandas,
# which the test of docs/cli/show.md's recipe uses, and xz, which unpacks the real-data test's
# databases. Nothing else is downloaded: every library comes from
# Debian's archive (CUDA, when present, from the toolkit already installed).
set -euo pipefail
packages=(build-essential cmake git libcli11-dev nlohmann-json3-dev libfmt-dev libsqlite3-dev libeigen3-dev libgtest-dev
          libgmock-dev)
[ "${1:-}" = "--test" ] && packages+=(chromium clang-format python3-pandas xz-utils)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
