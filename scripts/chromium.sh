#!/usr/bin/env bash
# Installs Debian's Chromium (the package `chromium`) when it is missing, and prints its path.
# The browser checks of the HTML reports (scripts/check-reports-browser.sh) drive it headless
# through playwright-core (pinned in tests/peers); nothing else uses it.
set -euo pipefail
if ! command -v chromium > /dev/null; then
  echo "chromium.sh: installing chromium from Debian's packages" >&2
  if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
  $sudo apt-get update -qq > /dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core > /dev/null
fi
command -v chromium
chromium --version >&2
