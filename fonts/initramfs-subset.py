#!/usr/bin/env python3
"""The fonts of the initramfs: copies of dormouse's fonts cut down with
fontTools to the characters "dormouse resume" can draw (issue 35: the full
DejaVu Sans and Noto Sans Arabic made the initramfs some 0.8 MB larger).

    initramfs-subset.py --out DIR --chars FILE [--po FILE ...] FONT ...

Each FONT is written to DIR under its own name. The characters kept:
  - U+0020-U+007E and U+00A0-U+00FF (ASCII and Latin-1: device paths,
    numbers, units, what a message from outside the catalogs says);
  - every character of every msgid and msgstr of the --po files (the
    catalogs: a new language's glyphs come with a rebuild);
  - every character of FILE (fonts/initramfs-chars.txt: what the splash
    draws outside the catalogs), "#" lines there being comments;
and of these, only the ones the font has: a character the full font lacks
is lacking in the copy too, so that the splash picks the same font (its
theme's, or the Arabic fallback) for every run of text as with the full
fonts. The shaping tables stay (GSUB, GPOS, kern, all their features) and
so do the hints: the text is drawn as with the full font, glyph for glyph.

The output depends on nothing but the input (no time stamp is renewed):
the same fonts and catalogs give the same bytes.
"""

import argparse
import os
import re
import sys

from fontTools import subset, ttLib

BASE = set(range(0x20, 0x7F)) | set(range(0xA0, 0x100))

# A line of a .po file that carries (part of) a string: msgid, msgid_plural,
# msgstr, msgstr[N], or a continuation. Obsolete entries ("#~") are not in
# the compiled catalog and are skipped with the other comments.
PO_STRING = re.compile(r'^(?:msgid|msgid_plural|msgstr(?:\[\d+\])?)?\s*"(.*)"\s*$')


def po_chars(path):
    chars = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = PO_STRING.match(line)
            if m:
                chars.update(ord(c) for c in m.group(1))
    return chars


def list_chars(path):
    chars = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            chars.update(ord(c) for c in line.rstrip("\n"))
    return chars


def options():
    o = subset.Options()
    o.layout_features = ["*"]  # every GSUB/GPOS feature: shaping as before
    o.legacy_kern = True  # the 'kern' table too, where there is GPOS
    o.hinting = True
    o.notdef_outline = True  # the missing-glyph box, as the full font draws it
    o.name_IDs = ["*"]
    o.name_languages = ["*"]
    o.name_legacy = True
    o.glyph_names = True
    o.recalc_timestamp = False  # head.modified stays the source font's
    o.recalc_bounds = True
    o.canonical_order = True
    o.drop_tables += ["FFTM"]  # FontForge's time stamps: of no use to FreeType
    return o


def subset_font(src, dst, chars):
    o = options()
    font = ttLib.TTFont(src, recalcTimestamp=False)
    have = set(font.getBestCmap())
    keep = sorted(chars & have)
    s = subset.Subsetter(options=o)
    s.populate(unicodes=keep)
    s.subset(font)
    tmp = dst + ".tmp"
    font.save(tmp, reorderTables=True)
    font.close()
    os.replace(tmp, dst)
    return len(keep)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="the directory the copies are written to")
    ap.add_argument("--chars", required=True, help="the characters drawn outside the catalogs")
    ap.add_argument("--po", action="append", default=[], help="a catalog (repeatable)")
    ap.add_argument("fonts", nargs="+")
    a = ap.parse_args()
    chars = set(BASE) | list_chars(a.chars)
    for po in a.po:
        chars |= po_chars(po)
    chars -= {0x0A, 0x09}
    os.makedirs(a.out, exist_ok=True)
    for src in a.fonts:
        dst = os.path.join(a.out, os.path.basename(src))
        n = subset_font(src, dst, chars)
        print(f"  {os.path.basename(src)}: {n} characters, "
              f"{os.path.getsize(src)} -> {os.path.getsize(dst)} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
