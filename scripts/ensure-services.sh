#!/usr/bin/env bash
# Make sure the services the tests need are up: PostgreSQL at 127.0.0.1:5432.
# On this project's machines Debian's PostgreSQL is installed; start it if it is down,
# install it if it is missing (root only).
set -euo pipefail

pg_up() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }

if ! command -v pg_isready >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing PostgreSQL (Debian package)…"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  else
    echo "PostgreSQL is not installed: install it, or point AGENTMAIL_TEST_POSTGRES at a server" >&2
    exit 1
  fi
fi

if ! pg_up; then
  echo "starting PostgreSQL…"
  for version in $(ls /etc/postgresql 2>/dev/null); do
    pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  done
  for _ in $(seq 1 30); do pg_up && break; sleep 1; done
fi
if ! pg_up; then
  echo "PostgreSQL is not reachable at 127.0.0.1:5432" >&2
  exit 1
fi
# The tests connect as the superuser over TCP (trust auth on this machine).
psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname='test'" \
  | grep -q 1 || psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE test"

# Real mail programs the tests drive (Debian packages): swaks submits over SMTP,
# Dovecot is the IMAP server import is tested against and the IMAP benchmark's
# baseline, mbsync (isync), mutt and offlineimap (offlineimap3) are real IMAP clients;
# ss (iproute2) shows the listen backlog of the gateway's sockets.
missing=()
for tool in swaks:swaks dovecot:dovecot-imapd mbsync:isync mutt:mutt offlineimap:offlineimap3 tmux:tmux ss:iproute2; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || [ -x "/usr/sbin/${tool%%:*}" ] || missing+=("${tool#*:}")
done
# Debian's own Python with its venv module (python3-venv): the interpreter install.sh
# makes the service's virtualenv from, and the oldest the gateway claims; the installed
# wheel is tried on it (tests/integration/test_debian_python.py).
if ! /usr/bin/python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  missing+=(python3 python3-venv)
fi
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing ${missing[*]} (Debian packages)…"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null \
      || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null; }
  else
    echo "missing ${missing[*]}: install them (Debian packages) for the mail-client tests" >&2
    exit 1
  fi
fi

# Debian packages whose services the tests start themselves, installed without starting
# them: invoke-rc.d asks policy-rc.d, and 101 = "do not start services now".
install_without_starting() {
  local own_policy=
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d
    own_policy=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null \
    || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null; }
  [ -z "$own_policy" ] || rm -f /usr/sbin/policy-rc.d
}

# The outside world of tests/support/outside (docs/testing.md, "The outside world"):
# Debian's Postfix as the outside MTA and Dovecot's LMTP server behind it, each started
# by the tests inside a network namespace with a configuration of their own. Postfix is
# installed unconfigured ("No configuration": no /etc/postfix/main.cf) and never runs as
# the machine's service, so nothing listens on port 25 here. Debian's nginx with its stream
# module is the TCP proxy (PROXY protocol) in front of the SMTP and IMAP listeners in
# tests/integration/test_proxy_nginx.py, started by the test with a configuration of its
# own; installed the same way, not started as the machine's web server.
outside=()
[ -x /usr/sbin/postfix ] || outside+=(postfix)
[ -x /usr/lib/dovecot/lmtp ] || outside+=(dovecot-lmtpd)
[ -x /usr/sbin/nginx ] || outside+=(nginx)
[ -e /usr/lib/nginx/modules/ngx_stream_module.so ] || outside+=(libnginx-mod-stream)
if [ "${#outside[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing ${outside[*]} (Debian packages, not started as services)…"
    echo "postfix postfix/main_mailer_type select No configuration" | debconf-set-selections
    install_without_starting "${outside[@]}"
  else
    echo "missing ${outside[*]}: install them (Debian packages) for the outside-world tests" >&2
    exit 1
  fi
fi
# The cluster world of tests/support/cluster_world.py (docs/testing.md, "The cluster
# world"): Debian's nginx with its stream module (SMTP and IMAP balanced over TCP) in
# front of the replicas, started by the tests with a configuration of their own; the
# package's own service is kept from starting and disabled, so nothing listens on 80.
cluster=()
[ -x /usr/sbin/nginx ] || cluster+=(nginx)
[ -e /usr/lib/nginx/modules/ngx_stream_module.so ] || cluster+=(libnginx-mod-stream)
if [ "${#cluster[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing ${cluster[*]} (Debian packages, not started as services)…"
    install_without_starting "${cluster[@]}"
  else
    echo "missing ${cluster[*]}: install them (Debian packages) for the cluster-world tests" >&2
    exit 1
  fi
fi
if [ "$(id -u)" = 0 ] && command -v update-rc.d >/dev/null 2>&1 && [ -e /etc/init.d/nginx ]; then
  update-rc.d nginx disable >/dev/null 2>&1 || true
fi

# Should the package have started the machine's Postfix after all, stop it for good.
if [ "$(id -u)" = 0 ] && [ -e /etc/postfix/main.cf ] && /usr/sbin/postfix status >/dev/null 2>&1; then
  /usr/sbin/postfix stop >/dev/null 2>&1 || true
fi
if [ "$(id -u)" = 0 ] && command -v update-rc.d >/dev/null 2>&1 && [ -e /etc/init.d/postfix ]; then
  update-rc.d postfix disable >/dev/null 2>&1 || true
fi
if [ "$(id -u)" = 0 ] && command -v update-rc.d >/dev/null 2>&1 && [ -e /etc/init.d/nginx ]; then
  update-rc.d nginx disable >/dev/null 2>&1 || true
fi
