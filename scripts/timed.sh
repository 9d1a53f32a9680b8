#!/bin/sh
# Run a command and print how long it took: `scripts/timed.sh <label> <command…>`.
label=$1
shift
start=$(date +%s%N)
"$@"
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
printf '⏱  %s: %d.%03ds\n' "$label" $((ms / 1000)) $((ms % 1000))
exit $rc
