#!/usr/bin/env bash
# Redraws the golden reference frames (test/fixtures/golden/references) under the deterministic
# profile. Only after a change of drawing that is meant: the test compares every later run with them.
set -euo pipefail
cd "$(dirname "$0")/.."
ENGINE_GOLDEN_UPDATE=1 npx vitest run test/golden/golden-frames.test.ts
git status --short test/fixtures/golden/references
