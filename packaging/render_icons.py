"""Render resources/icons/decipher-workbench.svg to the PNG sizes, the Windows .ico and the macOS .icns.

    python packaging/render_icons.py        # rewrites resources/icons/{hicolor/,*.ico,*.icns}

The outputs are committed (a build machine needs no renderer); rerun after editing the SVG.
The .ico and .icns containers hold PNG images and are written here byte by byte (both formats
are a small header plus a table of entries), so no Qt image plugin for them is needed.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

APP_ID = "io.github.decipher_workbench.DecipherWorkbench"
ROOT = Path(__file__).resolve().parent.parent
ICONS = ROOT / "resources" / "icons"
SVG = ICONS / "decipher-workbench.svg"
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# icns element types holding PNG data, by pixel size (the @2x types reuse the larger pictures)
ICNS_TYPES = (("icp4", 16), ("icp5", 32), ("icp6", 64), ("ic07", 128), ("ic08", 256), ("ic09", 512),
              ("ic11", 32), ("ic12", 64), ("ic13", 256), ("ic14", 512))


def render_png(svg: Path, size: int) -> bytes:
    """The SVG drawn on a transparent size x size square, as PNG bytes (Qt's QSvgRenderer)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """A Windows .ico whose entries are PNG images (supported since Windows Vista)."""
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = 6 + 16 * len(sizes)
    table, blobs = b"", b""
    for s in sizes:
        blob = pngs[s]
        dim = 0 if s >= 256 else s  # 0 means 256
        table += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(blob), offset)
        blobs += blob
        offset += len(blob)
    return header + table + blobs


def icns_bytes(pngs: dict[int, bytes]) -> bytes:
    """A macOS .icns whose elements are PNG images."""
    body = b"".join(kind.encode("ascii") + struct.pack(">I", 8 + len(pngs[size])) + pngs[size]
                    for kind, size in ICNS_TYPES)
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def png_path(size: int) -> Path:
    return ICONS / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"


def main() -> int:
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 (fonts, images)
    pngs = {s: render_png(SVG, s) for s in sorted(set(PNG_SIZES) | set(ICO_SIZES))}
    for s in PNG_SIZES:
        path = png_path(s)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pngs[s])
        print(f"wrote {path.relative_to(ROOT)} ({len(pngs[s])} bytes)")
    (ICONS / "decipher-workbench.ico").write_bytes(ico_bytes({s: pngs[s] for s in ICO_SIZES}))
    (ICONS / "decipher-workbench.icns").write_bytes(icns_bytes(pngs))
    print(f"wrote {(ICONS / 'decipher-workbench.ico').relative_to(ROOT)} and "
          f"{(ICONS / 'decipher-workbench.icns').relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
