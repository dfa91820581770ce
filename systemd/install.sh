#!/usr/bin/env bash
# Install Hearth as a systemd service on Raspberry Pi OS (Debian bookworm or later) or another systemd Linux.
#   sudo ./install.sh                    in an unpacked release (hearth-<version>/, from `npm run release`): needs
#                                        Node.js 20.19 or later and nothing else: no npm, no compiler, no network
#   sudo ./install.sh hearth-<version>-linux-<arch>.tar.gz
#                                        check a release tarball (signature, architecture), unpack it and install
#                                        it; an installed Hearth upgrades with sudo /opt/hearth/install.sh <tarball>
#   sudo ./systemd/install.sh            from a checkout: npm ci --omit=dev beside the checkout's own build
#                                        (npm run build first), or, without one, npm ci, build, prune
#   DRY_RUN=1 ...                        print what would be done, change nothing (the checks still run)
# Signatures: when a trusted key is configured (/etc/hearth/release-keys.json, a keys file as `hearth verify
# --keys` reads it; HEARTH_RELEASE_KEYS names another), a tarball is installed only with a valid
# <tarball>.sig, checked by a Hearth already on this machine (the installed one, or HEARTH_VERIFY_WITH=<its
# bin/hearth.mjs>), never by the one inside the tarball being checked. See docs/maker.md ("Install the release").
# It creates the system user `hearth` (groups gpio, i2c, dialout), copies the program to /opt/hearth, writes
# /etc/hearth/hearth.yaml once, installs /etc/systemd/system/hearth.service and enables it, and installs
# hearth-recipe-api.service beside it (enabled when /var/lib/hearth/catalog exists).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PREFIX="${HEARTH_PREFIX:-/opt/hearth}"
ETC="${HEARTH_ETC:-/etc/hearth}"
STATE=/var/lib/hearth
UNIT_DIR="${HEARTH_UNIT_DIR:-/etc/systemd/system}"
DRY_RUN="${DRY_RUN:-0}"
KEYS="${HEARTH_RELEASE_KEYS:-$ETC/release-keys.json}"

say() { printf 'hearth-install: %s\n' "$*"; }
run() {
  if [ "$DRY_RUN" = 1 ]; then printf '+ %s\n' "$*"; else "$@"; fi
}
die() { printf 'hearth-install: %s\n' "$*" >&2; exit 1; }

SCRATCH=""
trap '[ -z "$SCRATCH" ] || rm -rf "$SCRATCH"' EXIT

if [ "$DRY_RUN" != 1 ] && [ "$(id -u)" -ne 0 ]; then die "run me as root: sudo $0 $*"; fi

# Node's name for this machine, as release tarballs are named.
machine_arch() { case "$(uname -m)" in x86_64 | amd64) echo x64 ;; aarch64 | arm64) echo arm64 ;; *) uname -m ;; esac; }
node_major() { command -v node >/dev/null && node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
json_field() { node -p "const v = JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8'))$2; Array.isArray(v) ? v.join(' ') : v" "$1"; }

# A tarball: check its signature when a trusted key is configured, then unpack it aside; SRC is the unpacked tree.
verify_tarball() {
  local tgz="$1" sig="$1.sig" verifier out want got
  command -v node >/dev/null || die "Node.js 20.19 or later is required (Raspberry Pi OS Trixie: sudo apt install nodejs): not installing"
  if [ ! -f "$KEYS" ]; then
    say "no trusted release key configured ($KEYS): not checking a signature"
  else
    [ -f "$sig" ] || die "$(basename "$tgz") has no signature ($(basename "$sig")) and a trusted key is configured: not installing"
    verifier="${HEARTH_VERIFY_WITH:-$PREFIX/bin/hearth.mjs}"
    [ -f "$verifier" ] || die "a trusted key is configured but no Hearth on this machine can check the signature ($verifier): verify the tarball elsewhere (docs/maker.md) or set HEARTH_VERIFY_WITH: not installing"
    out="$(node "$verifier" verify "$sig" --keys "$KEYS" --kind hearth-release 2>&1)" || die "$(basename "$tgz"): bad signature (${out##*$'\n'}): not installing"
    want="$(json_field "$sig" .sha256)"
    got="$(sha256sum "$tgz" | cut -d' ' -f1)"
    [ "$want" = "$got" ] || die "$(basename "$tgz"): bad signature (the signed SHA-256 is $want, the file's is $got): not installing"
    say "signature good: ${out##*$'\n'}"
  fi
  SCRATCH="$(mktemp -d)"
  tar -xzf "$tgz" -C "$SCRATCH" 2>/dev/null || die "$(basename "$tgz") is not a readable tar.gz: not installing"
  set -- "$SCRATCH"/hearth-*/release.json
  [ -f "$1" ] || die "$(basename "$tgz") is not a Hearth release (no hearth-<version>/release.json): not installing"
  SRC="$(dirname "$1")"
}

if [ $# -gt 1 ]; then die "usage: install.sh [hearth-<version>-linux-<arch>.tar.gz]"; fi
if [ $# -eq 1 ]; then
  [ -f "$1" ] || die "$1: no such file"
  verify_tarball "$1"
elif [ -f "$HERE/release.json" ]; then
  SRC="$HERE"
else
  SRC="$(cd "$HERE/.." && pwd)"
  [ -f "$SRC/package.json" ] && [ -f "$SRC/systemd/hearth.service" ] || die "run me from a Hearth release or checkout (no package.json beside systemd/)"
fi
MODE=checkout
[ -f "$SRC/release.json" ] && MODE=release

# 1. Node.js. A release: the machine's Node must match the architecture and an ABI the release was built for.
if [ "$MODE" = release ]; then
  arch="$(json_field "$SRC/release.json" .arch)"
  [ "$arch" = "$(machine_arch)" ] || die "this release is for linux-$arch, this machine is $(uname -m): install hearth-<version>-linux-$(machine_arch).tar.gz: not installing"
  command -v node >/dev/null || die "Node.js 20.19 or later is required (Raspberry Pi OS Trixie: sudo apt install nodejs): not installing"
  abis="$(json_field "$SRC/release.json" '.node.map((n) => n.abi)')"
  majors="$(json_field "$SRC/release.json" '.node.map((n) => n.major)')"
  case " $abis " in *" $(node -p process.versions.modules) "*) ;; *) die "this release's native modules are for Node.js ${majors// / or }, this machine has $(node --version): not installing" ;; esac
  node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' || die "Node.js 20.19 or later is required, this machine has $(node --version): not installing"
else
  command -v systemctl >/dev/null || die "systemd is required"
  # From a checkout: Node.js 20 or later (NodeSource's apt repository when Debian's is too old), and the build
  # tools that better-sqlite3, i2c-bus and epoll need (npm compiles them here; a release carries them built).
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
fi
command -v systemctl >/dev/null || die "systemd is required"

# 2. Groups and the service user.
for g in gpio i2c dialout; do
  getent group "$g" >/dev/null || run groupadd --system "$g"
done
if ! id hearth >/dev/null 2>&1; then
  getent group hearth >/dev/null || run groupadd --system hearth
  run useradd --system --gid hearth --home-dir "$STATE" --no-create-home --shell /usr/sbin/nologin --comment "Hearth kitchen runtime" hearth
fi
run usermod -a -G gpio,i2c,dialout hearth

# 3. The program, owned by root, read-only to hearth. A release is copied whole beside the old one and swapped
#    in; a checkout is copied without node_modules and given its production dependencies.
say "installing the program in $PREFIX"
if [ "$MODE" = release ]; then
  run rm -rf "$PREFIX.new"
  run cp -a "$SRC/." "$PREFIX.new"
  run chown -R root:root "$PREFIX.new"
  if [ -d "$PREFIX" ]; then run rm -rf "$PREFIX.old"; run mv "$PREFIX" "$PREFIX.old"; fi
  run mv "$PREFIX.new" "$PREFIX"
  run rm -rf "$PREFIX.old"
else
  run install -d -m 0755 "$PREFIX"
  built=no
  # The checkout's own build, when it is newer than every source: then only the production dependencies are
  # installed here (npm compiles the native ones), no TypeScript compiler, no dev dependencies.
  # (The same test as bin/hearth.mjs: no source file of these folders newer than dist/.built.)
  if [ -f "$SRC/dist/.built" ]; then
    built=yes
    for d in core safety schemas drivers platform runtime services conformance; do
      [ -d "$SRC/$d" ] || continue
      if [ -n "$(find "$SRC/$d" -name '*.ts' ! -name '*.test.ts' -newer "$SRC/dist/.built" -print -quit)" ]; then built=no; fi
    done
  fi
  if [ "$built" = yes ]; then
    run tar -C "$SRC" --exclude=./node_modules --exclude=./.git --exclude=./var --exclude=./release -cf "$PREFIX.tar" .
  else
    run tar -C "$SRC" --exclude=./node_modules --exclude=./.git --exclude=./var --exclude=./release --exclude=./dist -cf "$PREFIX.tar" .
  fi
  run tar -C "$PREFIX" -xf "$PREFIX.tar"
  run rm -f "$PREFIX.tar"
  if [ "$built" = yes ]; then
    say "using the checkout's build (dist/); installing production dependencies only"
    run sh -c "cd '$PREFIX' && npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm rebuild --no-audit --no-fund"
  else
    say "no fresh build in the checkout (npm run build): building here"
    run sh -c "cd '$PREFIX' && npm ci --no-audit --no-fund && npm run build && npm prune --omit=dev --no-audit --no-fund"
  fi
  run chown -R root:root "$PREFIX"
fi

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
# A unit of the program, pointed at this machine's node and the program's place.
install_unit() {
  if [ "$DRY_RUN" = 1 ]; then
    printf '+ install %s -> %s (ExecStart node %s, program %s)\n' "$SRC/systemd/$1" "$UNIT_DIR/$1" "$NODE" "$PREFIX"
  else
    sed -e "s#/usr/bin/node#$NODE#" -e "s#/opt/hearth#$PREFIX#g" "$SRC/systemd/$1" > "$UNIT_DIR/$1"
    chmod 0644 "$UNIT_DIR/$1"
  fi
}
install_unit hearth.service
# The read-only recipe API (docs/recipe-api.md) is installed beside it, and started only once there is a catalog
# to serve (it would fail to start without one): enabled when $STATE/catalog exists, else left for the user to enable.
install_unit hearth-recipe-api.service

# 5. I2C on (Raspberry Pi OS only), then enable and (re)start.
if command -v raspi-config >/dev/null; then run raspi-config nonint do_i2c 0; fi
run systemctl daemon-reload
run systemctl enable hearth.service
run systemctl restart hearth.service
if [ -d "$STATE/catalog" ]; then
  run systemctl enable hearth-recipe-api.service
  run systemctl restart hearth-recipe-api.service
else
  say "the recipe API (hearth-recipe-api.service) is installed, not enabled: put a catalog in $STATE/catalog, then systemctl enable --now hearth-recipe-api"
fi
say "done. Status: systemctl status hearth; log: journalctl -u hearth -f"
say "create a token: sudo -u hearth $NODE $PREFIX/bin/hearth.mjs token create --scopes read,cook,admin --data-dir $STATE"
