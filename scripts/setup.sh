#!/usr/bin/env bash
# Makes this checkout ready to render: Node 22 (pinned through npm), the npm dependencies, a
# headless shell with begin-frame support, and ffmpeg/ffprobe. Safe to run again: it only
# installs what is missing. Installs system packages with apt-get when running as root;
# otherwise prints the exact command to run.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'setup: %s\n' "$*"; }
missing=()

as_root() { [ "$(id -u)" = 0 ]; }
apt_updated=0
apt_install() {
  if ! as_root || ! command -v apt-get >/dev/null 2>&1; then
    missing+=("$*")
    return 0
  fi
  if [ "$apt_updated" = 0 ]; then
    say "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    apt_updated=1
  fi
  say "apt-get install -y $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# npm is the only thing we need from the system for Node: it installs node@22 into node_modules.
if ! command -v npm >/dev/null 2>&1; then
  apt_install nodejs npm
fi
command -v npm >/dev/null 2>&1 || { say "npm is missing: install Node.js (https://nodejs.org) and run this again"; exit 1; }

if [ -f package-lock.json ]; then
  say "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
else
  say "npm install"
  npm install --no-audit --no-fund --loglevel=error
fi
node_bin="$PWD/node_modules/.bin/node"
"$node_bin" -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a===22&&b>=12)?0:1)' \
  || { say "node_modules/.bin/node is not Node >= 22.12; run: npm install --save-dev node@22"; exit 1; }
say "node $("$node_bin" -v) (from node_modules)"

# npm skips optional packages whose engines the running Node does not meet: under an older system
# Node, the Lambda bundle's browser (@sparticuz/chromium needs Node >= 22.17) is left out. Complete
# the tree under the pinned Node.
if [ ! -d node_modules/@sparticuz/chromium ]; then
  say "npm install (optional packages under Node 22)"
  PATH="$PWD/node_modules/.bin:$PATH" npm install --no-audit --no-fund --loglevel=error
fi

# A browser that supports HeadlessExperimental.beginFrame: the old-headless shell.
if [ -n "${ENGINE_BROWSER_PATH:-}" ] && [ -x "${ENGINE_BROWSER_PATH}" ]; then
  say "browser: ${ENGINE_BROWSER_PATH} (ENGINE_BROWSER_PATH)"
elif [ -x /usr/bin/chromium-headless-shell ]; then
  say "browser: /usr/bin/chromium-headless-shell"
else
  apt_install chromium-headless-shell fonts-dejavu-core fonts-liberation
fi

# The font set of the deterministic render profile (--profile deterministic, and the tests).
if [ ! -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || [ ! -f /usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf ]; then
  apt_install fonts-dejavu-core fonts-liberation
fi

# ffmpeg: the system's where apt can install it; else the pinned static build that the serverless
# function carries (engine ffmpeg install, after the build), which needs the internet or
# ENGINE_FFMPEG_MIRROR; offline that is only reported.
pinned_ffmpeg=0
if ! command -v ffmpeg >/dev/null 2>&1 || ! command -v ffprobe >/dev/null 2>&1; then
  if as_root && command -v apt-get >/dev/null 2>&1; then
    apt_install ffmpeg
  else
    pinned_ffmpeg=1
  fi
fi

if [ "${#missing[@]}" -gt 0 ]; then
  say "missing system packages; run as root:"
  for m in "${missing[@]}"; do say "  sudo apt-get install -y $m"; done
  exit 1
fi

say "building"
npm run build --silent
if [ "$pinned_ffmpeg" = 1 ]; then
  say "no ffmpeg and no apt: downloading the pinned static build (engine ffmpeg install)"
  "$node_bin" bin/run.js ffmpeg install \
    || say "could not download it (offline?): run \`node bin/run.js ffmpeg install\` later, set ENGINE_FFMPEG_MIRROR, or install ffmpeg (sudo apt-get install -y ffmpeg)"
fi
say "ready"
