#!/bin/bash
# The report as a reader sees it, in headless Chromium at phone (400 px) and desktop (1400 px)
# widths: nothing cut off at the right edge, no page-wide sideways scroll (wide tables scroll in
# their own box), no blank rows under scaled drawings, no text under 10 px (layout_probe.js
# says what it checks).
# The fleet page (fleet --html over recorded reports, FLEET_DIR) and the job page (job --html over
# a small two-rank job recorded here) share the report's shell and are held to the same checks.
# usage: page_layout.sh THREADMAP_BIN MATRIX [FLEET_DIR]
# Exit 77 (skipped) when no Chromium is installed.
set -u
bin=$1
matrix=$2
fleet=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then echo "skipped: no chromium"; exit 77; fi
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
# Two pages: one over a recorded 512-CPU matrix (the widest tables), one measured here (the
# benchmark sections and the measured heatmap).
if ! "$bin" report --quick --runs 1 --latency "$matrix" --out "$dir/recorded" >"$dir/report.log" 2>&1 ||
   ! "$bin" report --quick --runs 1 --out "$dir/measured" >>"$dir/report.log" 2>&1; then
  echo "threadmap report failed:"; cat "$dir/report.log"; exit 1
fi
pages="recorded measured"
if [ -n "$fleet" ]; then
  mkdir -p "$dir/fleet"
  "$bin" fleet "$fleet" --html "$dir/fleet/report.html" >>"$dir/report.log" 2>&1 ||
    { echo "threadmap fleet failed:"; cat "$dir/report.log"; exit 1; }
  pages="$pages fleet"
fi
# The job page: two ranks of a small job, as Open MPI's mpirun would start them (its environment
# variables), recorded by `run --ranks auto --record` and merged by `job --html`.
mkdir -p "$dir/records" "$dir/job"
for rank in 0 1; do
  OMPI_COMM_WORLD_RANK=$rank OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=$rank \
    OMPI_COMM_WORLD_LOCAL_SIZE=2 "$bin" run --ranks auto --record "$dir/records" -- \
    sh -c 'sleep 0.3 & i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; wait' \
    >>"$dir/report.log" 2>&1 &
done
wait
"$bin" job "$dir/records" --html "$dir/job/report.html" >>"$dir/report.log" 2>&1 ||
  { echo "threadmap job failed:"; cat "$dir/report.log"; exit 1; }
pages="$pages job"
for page in $pages; do
  { sed 's#</body>##; s#</html>##' "$dir/$page/report.html"; echo '<script>'
    cat "$here/layout_probe.js"; echo '</script></body></html>'; } >"$dir/$page/probe.html"
done
status=0
for page in $pages; do
  for width in 400 1400; do
    cat >"$dir/frame.html" <<FRAME
<!DOCTYPE html><html><body style="margin:0">
<iframe src="$page/probe.html" style="width:${width}px;height:1000px;border:0"></iframe>
<script>window.addEventListener('message', function (e) {
  var p = document.createElement('pre'); p.id = 'layout-result'; p.textContent = e.data;
  document.body.appendChild(p); });</script></body></html>
FRAME
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
      --user-data-dir="$dir/profile" --window-size=1600,1000 --virtual-time-budget=10000 \
      --dump-dom "file://$dir/frame.html" >"$dir/dom.html" 2>"$dir/chromium.log"
    result=$(grep -o 'id="layout-result">LAYOUT [^<]*' "$dir/dom.html" | head -1)
    result=${result#id=\"layout-result\">}
    if [ -z "$result" ]; then
      echo "$page report, $width px: no result from the probe"; tail -5 "$dir/chromium.log"
      status=1
    elif [ "${result#LAYOUT OK}" = "$result" ]; then
      echo "$page report, $width px: ${result#LAYOUT }" | sed 's/ | /\n    /g'; status=1
    else
      echo "$page report, $width px: ${result#LAYOUT }"
    fi
  done
done
exit $status
