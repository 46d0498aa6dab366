#!/usr/bin/env bash
# The documentation's screenshots, as a user sees them: the site's home page and a
# report of two submissions, in headless Chromium from the system's packages
# (installed here when missing; Debian's chromium). Run from a checkout with the docs
# and report extras installed:
#   python -m pip install -e ".[docs,report]" && tools/screenshots.sh
# Writes docs/figures/site_home.png and docs/figures/report.png, then checks that a report
# with long submission names does not scroll sideways at 800 px, nor the wide tables of
# Measures and Competitions at 1280 and 390 px (exit 1 if one does); then
# docs/figures/leaderboard.png and leaderboard_phone.png, and the same check at 390 px.
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

# A report of two submissions with 70-character names must not scroll sideways at 800 px
# (each table may scroll in its own box; the page may not).
long_a=$data/lightgbm_ranker_with_recent_purchases_and_popularity_features_v12_final.csv
long_b=$data/lightgbm_ranker_with_recent_purchases_and_popularity_features_v13_rotated.csv
cp "$data/submission.csv" "$long_a" && cp "$data/submission_b.csv" "$long_b"
python -m scorer report "$data/solution.csv" "$long_a" "$long_b" --out "$work/long.html" >/dev/null
sed 's#</body>#<script>document.title = "overflow=" + (document.documentElement.scrollWidth - document.documentElement.clientWidth);</script></body>#' \
    "$work/long.html" >"$work/probe.html"
overflow=$(chromium --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/profile" --window-size=800,900 --dump-dom "file://$work/probe.html" \
    2>/dev/null | grep -o "<title>overflow=-*[0-9]*" | cut -d= -f2)
if [ "$overflow" != "0" ]; then
    echo "the report scrolls sideways at 800 px with long names (by ${overflow:-?} px)" >&2
    exit 1
fi
echo "the report fits 800 px with long submission names"

# The measures' and competitions' tables fit a desktop and a phone: neither they nor the
# page scroll sideways (on a phone each row is a card: docs/stylesheets/tables.css).
for page in measures recipes; do
    sed 's#</body>#<script>document.title = "overflow=" + Math.max(0, ...Array.from(document.querySelectorAll(".wide-table .md-typeset__scrollwrap, .wide-table .md-typeset__table")).map(e => e.scrollWidth - e.clientWidth), document.documentElement.scrollWidth - document.documentElement.clientWidth);</script></body>#' \
        "$work/site/$page/index.html" >"$work/site/$page/probe.html"
    for width in 1280 390; do
        overflow=$(chromium --headless --no-sandbox --disable-gpu --no-first-run \
            --disable-background-networking --disable-component-update --disable-sync \
            --user-data-dir="$work/profile" --window-size="$width,900" --dump-dom \
            "file://$work/site/$page/probe.html" 2>/dev/null | grep -o "<title>overflow=-*[0-9]*" | cut -d= -f2)
        if [ "$overflow" != "0" ]; then
            echo "the $page table scrolls sideways at $width px (by ${overflow:-?} px)" >&2
            exit 1
        fi
    done
done
echo "the measures' and competitions' tables fit 1280 and 390 px"

# The final leaderboard's page, on a desktop and on a phone (390 px wide), and no
# sideways scroll at 390 px (each table may scroll in its own box; the page may not).
python benchmarks/leaderboard.py --submissions 6 --data-only --data "$data" >/dev/null
python -m scorer leaderboard "$data/solution.csv" "$data/leaderboard" --out "$work/board.html" >/dev/null
shot "$work/board.html" docs/figures/leaderboard.png 1280,1400
shot "$work/board.html" docs/figures/leaderboard_phone.png 390,1400
sed 's#</body>#<script>document.title = "overflow=" + (document.documentElement.scrollWidth - document.documentElement.clientWidth);</script></body>#' \
    "$work/board.html" >"$work/board_probe.html"
overflow=$(chromium --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/profile" --window-size=390,900 --dump-dom "file://$work/board_probe.html" \
    2>/dev/null | grep -o "<title>overflow=-*[0-9]*" | cut -d= -f2)
if [ "$overflow" != "0" ]; then
    echo "the leaderboard scrolls sideways at 390 px (by ${overflow:-?} px)" >&2
    exit 1
fi
echo "wrote docs/figures/leaderboard.png and leaderboard_phone.png; the page fits 390 px"
