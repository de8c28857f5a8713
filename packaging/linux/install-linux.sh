#!/bin/sh
# Install the unpacked Knit Desktop bundle for the current user, or remove exactly what an install added.
#   ./install-linux.sh              copy this bundle to ~/.local/opt/knit-desktop, add a menu entry and icons
#   ./install-linux.sh --uninstall  remove every file the install recorded, and nothing else
set -eu

DATA="${XDG_DATA_HOME:-$HOME/.local/share}"
PREFIX="$HOME/.local/opt/knit-desktop"
BIN_DIR="$HOME/.local/bin"
MANIFEST="$PREFIX.installed-files"
HERE="$(cd "$(dirname "$0")" && pwd)"

uninstall() {
    if [ ! -f "$MANIFEST" ]; then
        echo "Knit Desktop is not installed for this user (no $MANIFEST)." >&2
        exit 1
    fi
    # The recorded files, the bundle, then the directories the install created (deepest first, only if empty).
    dirs="$(grep '^d ' "$MANIFEST" | cut -c3- | sort -r)"
    grep '^f ' "$MANIFEST" | cut -c3- | while IFS= read -r path; do rm -f -- "$path"; done
    rm -rf -- "$PREFIX"
    rm -f -- "$MANIFEST"
    printf '%s\n' "$dirs" | while IFS= read -r path; do [ -n "$path" ] && rmdir -- "$path" 2>/dev/null || true; done
    if [ -d "$DATA/applications" ] && command -v update-desktop-database >/dev/null 2>&1; then
        update-desktop-database -q "$DATA/applications" || true
    fi
    echo "Knit Desktop removed."
}

missing_dirs() {  # the levels of a directory that do not exist yet, outermost first
    d="$1"
    missing=""
    while [ ! -d "$d" ]; do
        missing="$d
$missing"
        d="$(dirname "$d")"
    done
    printf '%s' "$missing"
}

record_dir() {  # create a directory, remembering each level this install made
    missing="$(missing_dirs "$1")"
    mkdir -p "$1"
    printf '%s\n' "$missing" | while IFS= read -r m; do
        if [ -n "$m" ]; then echo "d $m" >> "$MANIFEST.tmp"; fi
    done
}

put() {  # copy one file into place and remember it
    record_dir "$(dirname "$2")"
    cp -- "$1" "$2"
    echo "f $2" >> "$MANIFEST.tmp"
}

install() {
    if [ ! -x "$HERE/knit-desktop-bin" ]; then
        echo "Run this script from the unpacked bundle (knit-desktop-bin is missing next to it)." >&2
        exit 1
    fi
    if [ -f "$MANIFEST" ]; then
        "$0" --uninstall >/dev/null
    fi
    opt_missing="$(missing_dirs "$(dirname "$PREFIX")")"
    mkdir -p "$(dirname "$PREFIX")"
    : > "$MANIFEST.tmp"
    printf '%s\n' "$opt_missing" | while IFS= read -r m; do
        if [ -n "$m" ]; then echo "d $m" >> "$MANIFEST.tmp"; fi
    done
    if [ "$HERE" != "$PREFIX" ]; then
        rm -rf -- "$PREFIX"
        cp -R -- "$HERE" "$PREFIX"
    fi
    record_dir "$BIN_DIR"
    ln -sf -- "$PREFIX/knit-desktop-bin" "$BIN_DIR/knit-desktop"
    echo "f $BIN_DIR/knit-desktop" >> "$MANIFEST.tmp"
    sed "s|^Exec=knit-desktop|Exec=$PREFIX/knit-desktop-bin|" "$HERE/share/applications/knit-desktop.desktop" > "$HERE/.desktop.tmp"
    put "$HERE/.desktop.tmp" "$DATA/applications/knit-desktop.desktop"
    rm -f "$HERE/.desktop.tmp"
    for icon in "$HERE"/share/icons/hicolor/*/apps/knit-desktop.*; do
        size="$(basename "$(dirname "$(dirname "$icon")")")"
        put "$icon" "$DATA/icons/hicolor/$size/apps/$(basename "$icon")"
    done
    put "$HERE/share/metainfo/io.github.knit_desktop.KnitDesktop.metainfo.xml" \
        "$DATA/metainfo/io.github.knit_desktop.KnitDesktop.metainfo.xml"
    # Caches the desktop's tools write because of this install are recorded too, when they did not exist before.
    for cache in "$DATA/applications/mimeinfo.cache" "$DATA/icons/hicolor/icon-theme.cache"; do
        if [ ! -e "$cache" ]; then echo "f $cache" >> "$MANIFEST.tmp"; fi
    done
    mv "$MANIFEST.tmp" "$MANIFEST"
    command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$DATA/applications" || true
    command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t "$DATA/icons/hicolor" || true
    echo "Knit Desktop installed in $PREFIX; run it from the menu or as 'knit-desktop' (with $BIN_DIR on PATH)."
}

case "${1:-}" in
    --uninstall) uninstall ;;
    "") install ;;
    *) echo "usage: $0 [--uninstall]" >&2; exit 2 ;;
esac
