#!/usr/bin/env bash
# Runs the test command (default: npm test) as CI judges it: every capability scripts/setup.sh
# provides is required (a test skipped for a missing one counts as failed in the closing
# `tests:` line), and the run fails when that line counts a failure even if vitest exited 0.
set -uo pipefail
export ENGINE_TEST_REQUIRE_CAPABILITIES=1
[ "$#" -gt 0 ] || set -- npm test
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
summary=$(grep -E '^tests: [0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
if [ "$status" -eq 0 ] && ! [[ "$summary" =~ \ 0\ failed ]]; then
  echo "ci: the test command exited 0 but its closing line counts failures (${summary:-no closing line}); see the lines above it"
  exit 1
fi
exit "$status"
