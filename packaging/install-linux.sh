#!/bin/sh
# Put Decipher Workbench in the desktop menu and make .decipher files open in it, for this user.
# Run it from the unpacked bundle:  ./install-linux.sh   (./install-linux.sh --uninstall undoes it)
# It installs the desktop entry (Exec pointing at this folder), the icons, the shared-mime-info
# type for .decipher and the AppStream metadata under ${XDG_DATA_HOME:-~/.local/share}.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SHARE="$HERE/_internal/share"
DATA="${XDG_DATA_HOME:-$HOME/.local/share}"
ID=io.github.decipher_workbench.DecipherWorkbench

refresh() {
    if command -v update-mime-database >/dev/null 2>&1; then update-mime-database "$DATA/mime"; fi
    if command -v update-desktop-database >/dev/null 2>&1; then update-desktop-database -q "$DATA/applications"; fi
    if command -v gtk-update-icon-cache >/dev/null 2>&1; then gtk-update-icon-cache -q -t "$DATA/icons/hicolor" || true; fi
}

if [ "${1:-}" = "--uninstall" ]; then
    rm -f "$DATA/applications/$ID.desktop" "$DATA/mime/packages/$ID.xml" "$DATA/metainfo/$ID.metainfo.xml"
    rm -f "$DATA"/icons/hicolor/*/apps/"$ID".png "$DATA/icons/hicolor/scalable/apps/$ID.svg"
    refresh
    echo "removed Decipher Workbench from $DATA"
    exit 0
fi

[ -x "$HERE/decipher-gui" ] || { echo "error: $HERE/decipher-gui not found; run this script from the bundle folder" >&2; exit 2; }
mkdir -p "$DATA/applications" "$DATA/mime/packages" "$DATA/metainfo"
# Exec is quoted (the folder may contain spaces); TryExec takes the bare path.
sed -e "s|^Exec=decipher-gui |Exec=\"$HERE/decipher-gui\" |" -e "s|^TryExec=decipher-gui\$|TryExec=$HERE/decipher-gui|" \
    "$SHARE/applications/$ID.desktop" > "$DATA/applications/$ID.desktop"
cp "$SHARE/mime/packages/$ID.xml" "$DATA/mime/packages/$ID.xml"
cp "$SHARE/metainfo/$ID.metainfo.xml" "$DATA/metainfo/$ID.metainfo.xml"
for png in "$SHARE"/icons/hicolor/*/apps/"$ID".png; do
    size=$(basename "$(dirname "$(dirname "$png")")")
    mkdir -p "$DATA/icons/hicolor/$size/apps"
    cp "$png" "$DATA/icons/hicolor/$size/apps/$ID.png"
done
mkdir -p "$DATA/icons/hicolor/scalable/apps"
cp "$SHARE/icons/hicolor/scalable/apps/$ID.svg" "$DATA/icons/hicolor/scalable/apps/$ID.svg"
refresh
echo "installed Decipher Workbench into $DATA (menu entry, icons, .decipher file type)"
