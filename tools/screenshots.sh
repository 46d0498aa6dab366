#!/usr/bin/env bash
# The documentation's screenshots, as a user sees them: the site's home page and a
# report of two submissions, in headless Chromium from the system's packages
# (installed here when missing; Debian's chromium). Run from a checkout with the docs
# and report extras installed:
#   python -m pip install -e ".[docs,report]" && tools/screenshots.sh
# Writes docs/figures/site_home.png and docs/figures/report.png.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1; then
    apt-get update && apt-get install -y --no-install-recommends chromium
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
NO_MKDOCS_2_WARNING=1 python -m mkdocs build --strict --site-dir "$work/site"
data=$work/data
python benchmarks/generate.py 13720 --second --out "$data" >/dev/null
python -m scorer report "$data/solution.csv" "$data/submission.csv" "$data/submission_b.csv" \
    --out "$work/report.html"
shot() { # page, png, window size
    chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$work/profile" --hide-scrollbars --window-size="$3" \
        --screenshot="$2" "file://$1" 2>/dev/null
}
shot "$work/site/index.html" docs/figures/site_home.png 1280,900
shot "$work/report.html" docs/figures/report.png 1280,1800
echo "wrote docs/figures/site_home.png and docs/figures/report.png"
