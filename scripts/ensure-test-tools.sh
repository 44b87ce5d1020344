#!/usr/bin/env bash
# Installs the real programs some tests drive (tmux, sshd, etcd, patch) when missing and we are root.
# Tests that need one skip with a reason if it still is not there; CI runs as root, so it is.
set -u
need=()
command -v tmux >/dev/null 2>&1 || need+=(tmux)
command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || need+=(openssh-server)
# tests/etcd_server.py starts its own etcd per test module (launch groups coordinate through it)
command -v etcd >/dev/null 2>&1 || [ -x /usr/bin/etcd ] || need+=(etcd-server)
# source-patch changes are checked and applied to a run's overlay with the system patch tool
command -v patch >/dev/null 2>&1 || need+=(patch)
if [ ${#need[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing test tools: ${need[*]}"
  apt-get update -qq >/dev/null 2>&1 || true
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null 2>&1 \
    || echo "warning: could not install ${need[*]}"
fi
exit 0
