#!/usr/bin/env bash
# Install (or upgrade in place) the AgentMail gateway as a systemd service.
#
#   sudo deploy/install.sh                  install, or upgrade what is installed
#   sudo deploy/install.sh --wheel FILE     install a wheel built elsewhere (no build here)
#   sudo deploy/install.sh --lock FILE      the dependencies' lock (default: this checkout's
#                                           requirements/runtime.txt)
#   sudo deploy/install.sh --uninstall      remove the service and the program; keep data
#   sudo deploy/install.sh --uninstall --purge   ... and the data, settings and user too
#   deploy/install.sh --root DIR            everything under DIR (tests, trial runs): no
#                                           user is created and systemctl is not called
#
# The dependencies are installed at the versions of the lock, their hashes checked
# (docs/deploy.md, "Dependencies"); then the wheel, which brings no dependency of its own.
#
# What goes where (docs/deploy.md):
#   /opt/agentmail/venv                  the program (its own virtualenv)
#   /etc/agentmail/gateway.env           settings, mode 0640 root:agentmail; on the first
#                                        install it gets a random admin password, which is
#                                        written only there (never printed, never logged)
#   /etc/agentmail/bridge-NAME.env       one per bridge (agentmail-bridge@NAME.service)
#   /var/lib/agentmail                   data: SQLite database and attachments
#   /var/backups/agentmail               for `agentmail backup` (0700, the service user's;
#                                        kept by --purge: remove it by hand)
#   /etc/systemd/system/agentmail.service, agentmail-bridge@.service
#
# Environment: PYTHON (default python3), AGENTMAIL_PIP_ARGS (extra pip arguments, e.g.
# "--no-index --find-links /srv/wheels" on a machine without access to a package index).
set -euo pipefail

ROOT=""
WHEEL=""
LOCK=""
MODE=install
PURGE=0
PYTHON="${PYTHON:-python3}"
SERVICE_USER=agentmail
SOURCE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
read -r -a PIP_ARGS <<<"${AGENTMAIL_PIP_ARGS:-}"

say() { printf 'install.sh: %s\n' "$*"; }
die() { printf 'install.sh: error: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case "$1" in
    --root) ROOT="$(mkdir -p "$2" && cd "$2" && pwd)"; shift 2 ;;
    --wheel) WHEEL="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift 2 ;;
    --lock) LOCK="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift 2 ;;
    --python) PYTHON="$2"; shift 2 ;;
    --user) SERVICE_USER="$2"; shift 2 ;;
    --uninstall) MODE=uninstall; shift ;;
    --purge) PURGE=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
done

PREFIX="$ROOT/opt/agentmail"
VENV="$PREFIX/venv"
ETC="$ROOT/etc/agentmail"
DATA="$ROOT/var/lib/agentmail"
BACKUPS="$ROOT/var/backups/agentmail"
UNITS="$ROOT/etc/systemd/system"
ENV_FILE="$ETC/gateway.env"

# The real system: a user of its own and systemctl. Under --root neither is touched.
on_system() { [ -z "$ROOT" ]; }
has_systemd() { on_system && command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; }

check_python() {
  command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON not found: install Python 3.11.2 or newer"
  # The floor of pyproject's requires-python: Debian 12's own python3 (3.11.2).
  "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11, 2))' \
    || die "Python 3.11.2 or newer is needed (found $("$PYTHON" --version 2>&1)); give another with --python"
  "$PYTHON" -c 'import venv, ensurepip' 2>/dev/null \
    || die "$PYTHON cannot make virtualenvs: install python3-venv"
}

make_venv() {
  if [ -x "$VENV/bin/python" ]; then
    say "upgrading the program in $VENV"
  else
    say "creating $VENV"
    mkdir -p "$PREFIX"
    "$PYTHON" -m venv "$VENV"
  fi
}

# The web UI ships inside the wheel (hatch_build.py); build it when the checkout lacks it.
build_ui() {
  if [ -f "$SOURCE/web/dist/index.html" ]; then return; fi
  if command -v npm >/dev/null 2>&1; then
    say "building the web UI (npm)"
    (cd "$SOURCE/web" && npm ci --no-audit --no-fund && npm run build)
  else
    say "warning: npm not found: the gateway is installed without the web UI (the API works)"
  fi
}

find_wheel() {
  if [ -n "$WHEEL" ]; then
    [ -f "$WHEEL" ] || die "no such wheel: $WHEEL"
    return
  fi
  [ -f "$SOURCE/pyproject.toml" ] || die "no source tree at $SOURCE: give --wheel FILE"
  build_ui
  local out
  out="$(mktemp -d)"
  say "building the wheel"
  "$VENV/bin/python" -m pip wheel -q --no-deps "${PIP_ARGS[@]}" -w "$out" "$SOURCE"
  WHEEL="$(ls "$out"/agentmail_gateway-*.whl)"
}

find_lock() {
  LOCK="${LOCK:-$SOURCE/requirements/runtime.txt}"
  [ -f "$LOCK" ] || die "no lock file at $LOCK: give --lock FILE (requirements/runtime.txt)"
}

install_program() {
  # The locked dependencies first (a package already at its locked version is kept), then
  # the wheel's own files, again on a re-run of the same version so the code is replaced;
  # pip check fails when the wheel asks for something the lock does not give.
  "$VENV/bin/python" -m pip install -q --require-hashes "${PIP_ARGS[@]}" -r "$LOCK"
  "$VENV/bin/python" -m pip install -q --no-deps --force-reinstall "${PIP_ARGS[@]}" "$WHEEL"
  local broken
  broken="$("$VENV/bin/python" -m pip check 2>&1)" \
    || die "the wheel does not fit the lock $LOCK: $broken"
  say "installed agentmail $("$VENV/bin/python" -c 'from core.version import VERSION; print(VERSION)')"
}

make_user() {
  if ! on_system; then return; fi
  if ! id -u "$SERVICE_USER" >/dev/null 2>&1; then
    say "creating the system user $SERVICE_USER"
    useradd --system --home-dir "$DATA" --no-create-home --shell /usr/sbin/nologin "$SERVICE_USER"
  fi
}

make_directories() {
  install -d -m 0755 "$ETC" "$UNITS"
  install -d -m 0750 "$DATA"
  # Archives hold password and key hashes and all mail: the service user's alone.
  install -d -m 0700 "$BACKUPS"
  chmod 0750 "$ETC"
  if on_system; then
    chown root:"$SERVICE_USER" "$ETC"
    chown "$SERVICE_USER":"$SERVICE_USER" "$DATA" "$BACKUPS"
  fi
}

# Settings are written once; a re-run keeps them (and the admin password) as they are.
write_settings() {
  if [ -f "$ENV_FILE" ]; then
    say "keeping the settings in $ENV_FILE"
    return
  fi
  local password
  password="$("$VENV/bin/python" -c 'import secrets; print(secrets.token_urlsafe(24))')"
  (
    umask 077
    cat >"$ENV_FILE" <<EOF
# AgentMail gateway settings (README.md, "Configuration", lists them all).
AGENTMAIL_HOST=127.0.0.1
AGENTMAIL_HTTP_PORT=8180
AGENTMAIL_SMTP_PORT=2525
AGENTMAIL_IMAP_PORT=1143
AGENTMAIL_DOMAIN=agentmail.localhost
AGENTMAIL_DATA_DIR=$DATA
# DATABASE_URL=postgresql://agentmail@localhost/agentmail
# AGENTMAIL_TLS_CERT=/etc/agentmail/tls/fullchain.pem
# AGENTMAIL_TLS_KEY=/etc/agentmail/tls/privkey.pem
# AGENTMAIL_LOG_FORMAT=json
ADMIN_USER=admin
ADMIN_PASSWORD=$password
EOF
  )
  chmod 0640 "$ENV_FILE"
  if on_system; then chown root:"$SERVICE_USER" "$ENV_FILE"; fi
  say "settings written to $ENV_FILE; the admin password is in it (mode 0640)"
  if [ ! -f "$ETC/bridge.env.example" ]; then
    cat >"$ETC/bridge.env.example" <<'EOF'
# Copy to bridge-PLATFORM.env (mode 0640), PLATFORM being opencode, claude or pi, and run:
# systemctl enable --now agentmail-bridge@PLATFORM. Its variables are in docs/bridges.md.
AGENTMAIL_BRIDGE_ARGS=--name NAME --workspace root=/srv/project
AGENTMAIL_URL=http://127.0.0.1:8180
AGENTMAIL_AGENT_KEY=
EOF
  fi
}

# Ports below 1024 need CAP_NET_BIND_SERVICE; otherwise the service keeps no capability.
capabilities() {
  local low
  low="$(sed -n 's/^AGENTMAIL_[A-Z]*_PORT=\([0-9][0-9]*\).*/\1/p' "$ENV_FILE" \
    | awk '$1 > 0 && $1 < 1024 { print "yes"; exit }')"
  if [ -n "$low" ]; then
    printf 'CapabilityBoundingSet=CAP_NET_BIND_SERVICE\nAmbientCapabilities=CAP_NET_BIND_SERVICE\n'
  fi
}

render() {
  local template="$1" target="$2" caps
  caps="$(capabilities)"
  CAPS="$caps" awk -v venv="$VENV" -v etc="$ETC" -v data="$DATA" -v user="$SERVICE_USER" '
    /^@CAPABILITIES@$/ { if (ENVIRON["CAPS"] != "") print ENVIRON["CAPS"]; next }
    { gsub(/@VENV@/, venv); gsub(/@ETC@/, etc); gsub(/@DATA@/, data); gsub(/@USER@/, user); print }
  ' "$template" >"$target.tmp"
  chmod 0644 "$target.tmp"
  mv "$target.tmp" "$target"
}

write_units() {
  render "$SOURCE/deploy/agentmail.service.in" "$UNITS/agentmail.service"
  render "$SOURCE/deploy/agentmail-bridge@.service.in" "$UNITS/agentmail-bridge@.service"
  say "units written to $UNITS"
}

# Migrations run now, as the service would run them, so a failed upgrade shows here.
migrate() {
  local run=("$VENV/bin/agentmail" migrate)
  if on_system; then run=(runuser -u "$SERVICE_USER" -- "${run[@]}"); fi
  (
    set -a
    # shellcheck disable=SC1090
    . "$ENV_FILE"
    set +a
    cd "$DATA"
    "${run[@]}"
  )
}

start_service() {
  if ! has_systemd; then
    if on_system; then say "systemd is not running: start it with $VENV/bin/agentmail serve"; fi
    return
  fi
  systemctl daemon-reload
  systemctl enable agentmail.service
  systemctl restart agentmail.service
  say "agentmail.service (re)started; status: systemctl status agentmail"
}

uninstall() {
  if has_systemd; then
    systemctl disable --now agentmail.service 2>/dev/null || true
    systemctl stop 'agentmail-bridge@*.service' 2>/dev/null || true
  fi
  rm -f "$UNITS/agentmail.service" "$UNITS/agentmail-bridge@.service"
  rm -rf "$PREFIX"
  if has_systemd; then systemctl daemon-reload; fi
  if [ "$PURGE" = 1 ]; then
    rm -rf "$ETC" "$DATA"
    if on_system && id -u "$SERVICE_USER" >/dev/null 2>&1; then
      userdel "$SERVICE_USER"
      if [ -d "$BACKUPS" ]; then chown -R root:root "$BACKUPS"; fi  # no orphaned owner
    fi
    say "removed the program, its settings and its data; kept the backups in $BACKUPS"
  else
    say "removed the service and the program; kept $ETC and $DATA (--purge removes them)"
  fi
}

if on_system && [ "$(id -u)" != 0 ]; then die "run as root (or use --root DIR)"; fi
if [ "$MODE" = uninstall ]; then
  uninstall
  exit 0
fi
check_python
find_lock
make_venv
find_wheel
install_program
make_user
make_directories
write_settings
write_units
migrate
start_service
say "done"
