#!/usr/bin/env bash
# Verify the systemd unit as it will be installed: `systemd-analyze verify` on the checkout's
# file fails only because /opt/gpu-node-supervisor does not exist here, so verify a copy whose
# ExecStart points at this venv's supervisor-daemon instead.
# Usage: scripts/verify-unit.sh [UNIT]   (VENV=.venv by default)
# Exit 0: verified or skipped (no systemd-analyze); 1: the unit has problems.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
unit=${1:-$repo/systemd/gpu-node-supervisor.service}
venv=${VENV:-.venv}
[[ $venv == /* ]] || venv="$repo/$venv"
daemon="$venv/bin/supervisor-daemon"

if ! command -v systemd-analyze >/dev/null; then
    echo "verify-unit: SKIPPED: systemd-analyze not found (install systemd to verify $unit)"
    exit 0
fi
if [[ ! -x $daemon ]]; then
    echo "verify-unit: $daemon is missing: run 'make test' or 'make demo' once to create the venv" >&2
    exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
copy="$tmp/$(basename "$unit")"
sed "s#^ExecStart=/opt/gpu-node-supervisor/bin/supervisor-daemon#ExecStart=$daemon#" \
    "$unit" > "$copy"

# verify exits 0 on unknown keys and bad values (it only warns), so any line that names the
# unit counts as a problem too.
set +e
out=$(systemd-analyze verify "$copy" 2>&1)
rc=$?
set -e
problems=$(grep -F "$(basename "$unit")" <<<"$out" || true)
if [[ $rc -ne 0 || -n $problems ]]; then
    echo "verify-unit: $unit has problems (ExecStart checked as $daemon):" >&2
    echo "$out" >&2
    exit 1
fi
echo "verify-unit: $unit OK (systemd-analyze verify, ExecStart checked as $daemon)"
