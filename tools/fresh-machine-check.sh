#!/usr/bin/env bash
# Does a clean clone work on a fresh Debian machine, following only the README? Builds a minimal root with
# debootstrap (same release and mirror as this machine; the base is cached, so later runs skip it), copies a clean
# clone of REPO's HEAD into it and, inside a chroot:
#   1. bare       README prerequisites only (python3 python3-venv make): `make run` must print the one-line
#                 install hint and exit 2, no traceback (the preflight's proof)
#   2. ci         `bash .ci/run`: installs the system packages, then `make test`
#   3. run        `make run ARGS="--screenshot …"` offscreen; the PNG is copied out
#   4. xcb        the same under Xvfb with Qt's xcb platform plugin (what a desktop uses)
#   5. no-pulse   libpulse.so.0 hidden: the window still starts (a screenshot of its media grid), `selftest`
#                 names libpulse0
# and prints PASS/FAIL with timings. Needs root (debootstrap, chroot, mounts) and network to Debian and PyPI.
#
#   sudo tools/fresh-machine-check.sh [REPO]      # REPO: a git checkout (default: this one)
# Environment: KNIT_FRESH_WORK (the root is built there; default /var/tmp/knit-fresh-machine, removed afterwards
# unless KNIT_FRESH_KEEP=1), KNIT_FRESH_CACHE (default /var/cache/knit-fresh-root), KNIT_FRESH_SHOT (where the
# screenshot goes; default ./fresh-machine-shot.png).
set -euo pipefail

REPO=$(cd "${1:-$(dirname "$0")/..}" && git rev-parse --show-toplevel)
WORK=${KNIT_FRESH_WORK:-/var/tmp/knit-fresh-machine}
CACHE=${KNIT_FRESH_CACHE:-/var/cache/knit-fresh-root}
SHOT=$(realpath -m "${KNIT_FRESH_SHOT:-$PWD/fresh-machine-shot.png}")
ROOT=$WORK/root
LOGS=$WORK/logs
STARTED=$(date +%s)
RESULTS=()
FAILED=0

[ "$(id -u)" = 0 ] || { echo "fresh-machine-check: run as root (debootstrap, chroot and mounts need it)" >&2; exit 2; }

# --- this machine's release and mirror --------------------------------------------------------------------------
RELEASE=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
RELEASE=${RELEASE:-bookworm}
mirror_for() {  # the first URI this machine's apt uses for suite $1 (deb822 or one-line format), else $2
  local uri
  uri=$(awk -v suite="$1" '
    /^URIs:/ {u=$2} /^Suites:/ {for (i = 2; i <= NF; i++) if ($i == suite) {print u; exit}}
    /^deb / {for (i = 3; i <= NF; i++) if ($i == suite) {print $2; exit}}
    /^deb \[/ {for (i = 4; i <= NF; i++) if ($i == suite) {print $3; exit}}' \
    /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | head -n1)
  echo "${uri:-$2}"
}
MIRROR=$(mirror_for "$RELEASE" http://deb.debian.org/debian)
SECURITY=$(mirror_for "$RELEASE-security" http://deb.debian.org/debian-security)

# --- bookkeeping ------------------------------------------------------------------------------------------------
say() { printf '\n=== %s\n' "$*"; }
record() {  # name, status (PASS/FAIL), seconds, detail
  RESULTS+=("$(printf '%-4s %-9s %5ss  %s' "$2" "$1" "$3" "$4")")
  [ "$2" = PASS ] || FAILED=1
}
mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[$i]}" 2>/dev/null || umount -l "${mounted[$i]}" || true; done
  mounted=()
  if [ "${KNIT_FRESH_KEEP:-0}" != 1 ] && [ -d "$ROOT" ]; then rm -rf --one-file-system "$ROOT"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mount_into() {  # type-or-bind source target
  mkdir -p "$3"
  if [ "$1" = bind ]; then mount --bind "$2" "$3"; else mount -t "$1" "$2" "$3"; fi
  mounted+=("$3")
}

# The chroot gets a clean environment, like a new login: no venv, no Qt or pip settings from this machine. If this
# machine trusts extra CAs (an intercepting proxy), the root trusts them too, or nothing could be downloaded.
# KNIT_FRESH_ROOT tells .ci/run inside not to start another fresh root; CI=true makes it run as CI does.
CHROOT_ENV=(HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb KNIT_FRESH_ROOT=1
            CI=true)
for var in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
  [ -n "${!var:-}" ] && CHROOT_ENV+=("$var=${!var}")
done
EXTRA_CAS=$(find /usr/local/share/ca-certificates -name '*.crt' 2>/dev/null | head -n1 || true)
if [ -n "$EXTRA_CAS" ]; then
  bundle=/etc/ssl/certs/ca-certificates.crt
  CHROOT_ENV+=(PIP_CERT=$bundle SSL_CERT_FILE=$bundle REQUESTS_CA_BUNDLE=$bundle NODE_EXTRA_CA_CERTS=$bundle)
fi
in_root() {  # run a bash snippet inside the root, in the clone
  chroot "$ROOT" /usr/bin/env -i "${CHROOT_ENV[@]}" /bin/bash -c "cd /root/knit && $1"
}
step() {  # LOG SNIPPET: run a step's snippet inside the root, output to LOG; sets $status, never stops the script
  set +e
  in_root "$2" >"$1" 2>&1
  status=$?
  set -e
}

# --- 0. the root ------------------------------------------------------------------------------------------------
mkdir -p "$WORK" "$LOGS" "$CACHE"
[ ! -e "$ROOT" ] || { echo "fresh-machine-check: $ROOT exists (a previous run?); remove it first" >&2; exit 2; }
say "base root: Debian $RELEASE minbase from $MIRROR (cache: $CACHE)"
t=$(date +%s)
BASE=$CACHE/$RELEASE-minbase.tar.gz
if [ ! -s "$BASE" ]; then
  command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null; }
  rm -rf "$CACHE/build"
  debootstrap --variant=minbase "$RELEASE" "$CACHE/build" "$MIRROR" >"$LOGS/debootstrap.log" 2>&1 \
    || { tail -n 20 "$LOGS/debootstrap.log"; exit 1; }
  tar -C "$CACHE/build" -czf "$BASE.tmp" . && mv "$BASE.tmp" "$BASE" && rm -rf "$CACHE/build"
  how="debootstrap"
else
  how="from the cache"
fi
mkdir -p "$ROOT" && tar -C "$ROOT" -xzf "$BASE"
rm -f "$ROOT/etc/apt/sources.list"
cat >"$ROOT/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $MIRROR
Suites: $RELEASE $RELEASE-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $SECURITY
Suites: $RELEASE-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf"
mount_into proc proc "$ROOT/proc"
mount_into sysfs sysfs "$ROOT/sys"
mount_into bind /dev "$ROOT/dev"
mount_into bind /dev/pts "$ROOT/dev/pts"
mount_into tmpfs tmpfs "$ROOT/dev/shm"
if [ -n "$EXTRA_CAS" ]; then
  mkdir -p "$ROOT/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$ROOT/usr/local/share/ca-certificates/"
  in_root_apt() { chroot "$ROOT" /usr/bin/env -i "${CHROOT_ENV[@]}" DEBIAN_FRONTEND=noninteractive /bin/bash -c "$1"; }
  in_root_apt "apt-get update -qq && apt-get install -y -qq --no-install-recommends ca-certificates >/dev/null \
    && update-ca-certificates >/dev/null" >"$LOGS/ca.log" 2>&1 || { tail -n 20 "$LOGS/ca.log"; exit 1; }
fi
git clone -q --no-hardlinks "$REPO" "$ROOT/root/knit"
commit=$(git -C "$ROOT/root/knit" log -1 --format='%h %s' | cut -c1-70)
record root PASS $(($(date +%s) - t)) "Debian $RELEASE minbase ($how), clean clone of $commit"

# --- 1. bare: only what the README names before .ci/run; `make run` must explain, not crash --------------------
say "1. bare root (python3 python3-venv make): make run must print the hint and exit 2"
t=$(date +%s)
set +e
in_root "export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && \
  apt-get install -y -qq --no-install-recommends python3 python3-venv make >/dev/null 2>&1 && make run" \
  >"$LOGS/bare.out" 2>"$LOGS/bare.err"
status=$?
set -e
hint=$(grep -m1 '^Knit Desktop needs system libraries that are missing' "$LOGS/bare.err" || true)
grep -v '^\s*$' "$LOGS/bare.err" | tail -n 5
if [ -n "$hint" ] && ! grep -q Traceback "$LOGS/bare.err" && [ "$status" -ne 0 ] && grep -q 'Error 2' "$LOGS/bare.err"; then
  record bare PASS $(($(date +%s) - t)) "knit-desktop exit 2 with one line: ${hint:0:90}…"
else
  record bare FAIL $(($(date +%s) - t)) "make run exit $status; see $LOGS/bare.err"
fi

# --- 2. .ci/run: installs the system packages (the README's set-up), then make test -----------------------------
say "2. bash .ci/run (apt-get install …, then make test)"
t=$(date +%s)
step "$LOGS/ci.log" "timeout 3600 bash .ci/run"
summary=$(grep -E '^(=+ )?[0-9]+ (passed|failed)|^=+ .*(passed|failed|error)' "$LOGS/ci.log" | tail -n1 | tr -d '=' | xargs)
grep -E '^(FAILED|ERROR) ' "$LOGS/ci.log" | head -n 30 || true
if [ "$status" = 0 ]; then
  record ci PASS $(($(date +%s) - t)) "${summary:-make test passed}"
else
  tail -n 30 "$LOGS/ci.log"
  record ci FAIL $(($(date +%s) - t)) "exit $status: ${summary:-see $LOGS/ci.log}"
fi

# --- 3. make run with a screenshot, offscreen -------------------------------------------------------------------
say "3. make run ARGS=\"--screenshot /tmp/shot.png\" (offscreen)"
t=$(date +%s)
step "$LOGS/run.log" "QT_QPA_PLATFORM=offscreen timeout 300 make run ARGS='--screenshot /tmp/shot.png'"
if [ "$status" = 0 ] && [ -s "$ROOT/tmp/shot.png" ]; then
  mkdir -p "$(dirname "$SHOT")" && cp "$ROOT/tmp/shot.png" "$SHOT"
  record run PASS $(($(date +%s) - t)) "screenshot: $SHOT"
else
  tail -n 20 "$LOGS/run.log"
  record run FAIL $(($(date +%s) - t)) "exit $status; see $LOGS/run.log"
fi

# --- 4. the xcb platform plugin under Xvfb: what a desktop session loads ----------------------------------------
say "4. make run under Xvfb (xcb platform plugin)"
t=$(date +%s)
xshot="${SHOT%.png}-xcb.png"
step "$LOGS/xcb.log" "export DEBIAN_FRONTEND=noninteractive; \
  apt-get install -y -qq --no-install-recommends xvfb xauth >/dev/null 2>&1 \
  && QT_QPA_PLATFORM=xcb timeout 300 xvfb-run -a -s '-screen 0 1280x900x24' make run ARGS='--screenshot /tmp/shot-xcb.png'"
if [ "$status" = 0 ] && [ -s "$ROOT/tmp/shot-xcb.png" ]; then
  cp "$ROOT/tmp/shot-xcb.png" "$xshot"
  record xcb PASS $(($(date +%s) - t)) "screenshot: $xshot"
else
  tail -n 20 "$LOGS/xcb.log"
  record xcb FAIL $(($(date +%s) - t)) "exit $status; see $LOGS/xcb.log"
fi

# --- 5. without libpulse: QtMultimedia cannot load, the window still starts and selftest says why -------------
say "5. libpulse.so.0 hidden: the window starts, selftest names libpulse0"
t=$(date +%s)
# out of the library directory (ldconfig would link the soname to a renamed copy), then back
step "$LOGS/no-pulse.log" "link=/usr/lib/x86_64-linux-gnu/libpulse.so.0; pulse=\$(readlink -f \$link) \
  && mv \"\$pulse\" /root/libpulse.hidden && rm -f \$link && ldconfig \
  && export QT_QPA_PLATFORM=offscreen KNIT_DESKTOP_HOME=/tmp/no-pulse && mkdir -p /tmp/no-pulse \
  && printf '[list]\\nkind=media\\n' >/tmp/no-pulse/settings.ini \
  && { timeout 300 .venv/bin/knit-desktop --demo --screenshot /tmp/shot-no-pulse.png; echo \"gui exit \$?\"; \
       timeout 300 .venv/bin/knit-desktop selftest; echo \"selftest exit \$?\"; } ; \
  mv /root/libpulse.hidden \"\$pulse\" && ldconfig"
if grep -q '^gui exit 0' "$LOGS/no-pulse.log" && grep -q '^selftest exit 1' "$LOGS/no-pulse.log" \
   && grep -q '"problem": "videos need Qt Multimedia.*libpulse0' "$LOGS/no-pulse.log"; then
  cp "$ROOT/tmp/shot-no-pulse.png" "${SHOT%.png}-no-pulse.png"
  record no-pulse PASS $(($(date +%s) - t)) "window exit 0; selftest: $(grep -o 'videos need[^"]*' "$LOGS/no-pulse.log" | head -n1 | cut -c1-90)…"
else
  tail -n 20 "$LOGS/no-pulse.log"
  record no-pulse FAIL $(($(date +%s) - t)) "see $LOGS/no-pulse.log"
fi

# --- summary ----------------------------------------------------------------------------------------------------
say "fresh-machine check: Debian $RELEASE, $commit"
printf '%s\n' "${RESULTS[@]}"
total=$(($(date +%s) - STARTED))
printf '%s  total %dm%02ds  (logs: %s)\n' "$([ "$FAILED" = 0 ] && echo PASS || echo FAIL)" $((total / 60)) $((total % 60)) "$LOGS"
exit "$FAILED"
