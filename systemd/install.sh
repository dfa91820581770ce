#!/usr/bin/env bash
# Install Hearth as a systemd service on Raspberry Pi OS (Debian bookworm or later), from this checkout:
#   sudo ./systemd/install.sh            install or upgrade, enable and start
#   DRY_RUN=1 ./systemd/install.sh       print what would be done, change nothing
# It creates the system user `hearth` (groups gpio, i2c, dialout), installs Node.js 20+ when missing,
# copies the program to /opt/hearth, builds it, writes /etc/hearth/hearth.yaml once, installs
# /etc/systemd/system/hearth.service and enables it. See docs/maker.md ("Run it on a Pi").
set -euo pipefail

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="${HEARTH_PREFIX:-/opt/hearth}"
ETC="${HEARTH_ETC:-/etc/hearth}"
STATE=/var/lib/hearth
UNIT_DIR="${HEARTH_UNIT_DIR:-/etc/systemd/system}"
DRY_RUN="${DRY_RUN:-0}"

say() { printf 'hearth-install: %s\n' "$*"; }
run() {
  if [ "$DRY_RUN" = 1 ]; then printf '+ %s\n' "$*"; else "$@"; fi
}
die() { printf 'hearth-install: %s\n' "$*" >&2; exit 1; }

if [ "$DRY_RUN" != 1 ] && [ "$(id -u)" -ne 0 ]; then die "run me as root: sudo $0"; fi
[ -f "$SRC/package.json" ] && [ -f "$SRC/systemd/hearth.service" ] || die "run me from a Hearth checkout (no package.json beside systemd/)"
command -v systemctl >/dev/null || die "systemd is required"

node_major() { command -v node >/dev/null && node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

# 1. Node.js 20 or later (NodeSource's apt repository when Debian's is too old), and the build tools that
#    better-sqlite3 needs when no prebuilt binary matches the board.
if [ "$(node_major)" -lt 20 ]; then
  say "installing Node.js 20 from NodeSource"
  run apt-get update -q
  run apt-get install -y -q ca-certificates curl gnupg
  run install -d -m 0755 /etc/apt/keyrings
  if [ "$DRY_RUN" = 1 ]; then
    printf '+ %s\n' "curl -fsSL https://deb.nodesource.com/gpgkey/nodesource-repo.gpg.key | gpg --dearmor -o /etc/apt/keyrings/nodesource.gpg"
  else
    curl -fsSL https://deb.nodesource.com/gpgkey/nodesource-repo.gpg.key | gpg --dearmor --yes -o /etc/apt/keyrings/nodesource.gpg
  fi
  run sh -c 'echo "deb [signed-by=/etc/apt/keyrings/nodesource.gpg] https://deb.nodesource.com/node_20.x nodistro main" > /etc/apt/sources.list.d/nodesource.list'
  run apt-get update -q
  run apt-get install -y -q nodejs
fi
run apt-get install -y -q --no-install-recommends build-essential python3 systemd

# 2. Groups and the service user.
for g in gpio i2c dialout; do
  getent group "$g" >/dev/null || run groupadd --system "$g"
done
if ! id hearth >/dev/null 2>&1; then
  getent group hearth >/dev/null || run groupadd --system hearth
  run useradd --system --gid hearth --home-dir "$STATE" --no-create-home --shell /usr/sbin/nologin --comment "Hearth kitchen runtime" hearth
fi
run usermod -a -G gpio,i2c,dialout hearth

# 3. The program: copy, install dependencies, build, drop dev dependencies. Owned by root, read-only to hearth.
say "installing the program in $PREFIX"
run install -d -m 0755 "$PREFIX"
run tar -C "$SRC" --exclude=./node_modules --exclude=./.git --exclude=./var --exclude=./dist -cf "$PREFIX.tar" .
run tar -C "$PREFIX" -xf "$PREFIX.tar"
run rm -f "$PREFIX.tar"
run sh -c "cd '$PREFIX' && npm ci --no-audit --no-fund && npm run build && npm prune --omit=dev --no-audit --no-fund"
run chown -R root:root "$PREFIX"

# 4. Configuration (written once; edit it afterwards) and the unit, pointed at this machine's node.
run install -d -m 0750 -o hearth -g hearth "$ETC" "$STATE"
if [ ! -f "$ETC/hearth.yaml" ]; then
  say "writing $ETC/hearth.yaml (listens on the local network, port 8080)"
  if [ "$DRY_RUN" = 1 ]; then printf '+ write %s\n' "$ETC/hearth.yaml"; else
    cat > "$ETC/hearth.yaml" <<YAML
# Hearth configuration: see docs/maker.md. Command-line options override these.
host: 0.0.0.0
httpPort: 8080
dataDir: $STATE
# rig: /etc/hearth/rig.yaml   # your wiring; the simulated rig until you set it
YAML
    chown hearth:hearth "$ETC/hearth.yaml"; chmod 0640 "$ETC/hearth.yaml"
  fi
fi
NODE="$(command -v node || echo /usr/bin/node)"
if [ "$DRY_RUN" = 1 ]; then
  printf '+ install %s -> %s (ExecStart node %s, program %s)\n' "$SRC/systemd/hearth.service" "$UNIT_DIR/hearth.service" "$NODE" "$PREFIX"
else
  sed -e "s#/usr/bin/node#$NODE#" -e "s#/opt/hearth#$PREFIX#g" "$SRC/systemd/hearth.service" > "$UNIT_DIR/hearth.service"
  chmod 0644 "$UNIT_DIR/hearth.service"
fi

# 5. I2C on (Raspberry Pi OS only), then enable and (re)start.
if command -v raspi-config >/dev/null; then run raspi-config nonint do_i2c 0; fi
run systemctl daemon-reload
run systemctl enable hearth.service
run systemctl restart hearth.service
say "done. Status: systemctl status hearth; log: journalctl -u hearth -f"
say "create a token: sudo -u hearth $NODE $PREFIX/bin/hearth.mjs token create --scopes read,cook,admin --data-dir $STATE"
