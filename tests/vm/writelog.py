"""The write log of QEMU's blklogwrites block driver, and the disk states a
power cut could leave behind (issue 27's power cuts).

QEMU logs every write the guest makes to the disk, and every flush, in the
format of Linux's dm-log-writes: a super block in sector 0 (magic, version,
number of entries, sector size), then the entries in the order the guest's
requests completed, each a header sector (sector, sector count, flags) and
the written data after it. Replaying a prefix of the log onto the disk as
it was before gives the disk at that point.

A power cut does not stop a disk at a point of its write stream: what the
disk's volatile cache had not written out is lost, in any subset. What a
flush returned for is on the medium. So the state a cut at entry `cut`
leaves is every write before the last flush at or before it, and any
subset of the writes after that flush up to the cut; the last write may be
torn at a sector boundary. crash_writes() draws such a state.
"""
import struct

MAGIC = 0x6A736677736872
FLUSH, FUA, DISCARD, MARK = 1, 2, 4, 8
_SUPER = struct.Struct("<QQQI")
_ENTRY = struct.Struct("<QQQQ")


class Entry:
    """One logged request: a write (data at `offset` of the log file) or a
    flush."""
    __slots__ = ("index", "sector", "sectors", "flags", "offset")

    def __init__(self, index, sector, sectors, flags, offset):
        self.index, self.sector, self.sectors = index, sector, sectors
        self.flags, self.offset = flags, offset

    @property
    def is_flush(self):
        return bool(self.flags & FLUSH) and self.sectors == 0

    def __repr__(self):
        kind = "flush" if self.is_flush else f"write {self.sectors}@{self.sector}"
        return f"<{self.index} {kind} flags {self.flags}>"


class WriteLog:
    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            head = f.read(_SUPER.size)
            if len(head) < _SUPER.size:
                raise ValueError(f"{path}: no super block")
            magic, version, count, self.sector_size = _SUPER.unpack(head)
            if magic != MAGIC or version != 1 or self.sector_size not in (512, 4096):
                raise ValueError(f"{path}: not a write log (magic {magic:#x}, version {version}, "
                                 f"sector size {self.sector_size})")
            self.entries = []
            pos = self.sector_size
            # The super block's count is written every so many entries:
            # the entries themselves end at the first empty header.
            while True:
                f.seek(pos)
                raw = f.read(_ENTRY.size)
                if len(raw) < _ENTRY.size:
                    break
                sector, sectors, flags, _ = _ENTRY.unpack(raw)
                if sector == 0 and sectors == 0 and flags == 0:
                    break
                self.entries.append(Entry(len(self.entries), sector, sectors, flags,
                                          pos + self.sector_size))
                pos += self.sector_size * (1 + sectors)
            self.super_count = count

    def data(self, entry, f):
        f.seek(entry.offset)
        return f.read(entry.sectors * self.sector_size)

    def last_flush_before(self, cut):
        """The index of the last flush among entries[:cut], or -1."""
        for e in reversed(self.entries[:cut]):
            if e.is_flush:
                return e.index
        return -1

    def crash_writes(self, cut, rng):
        """The writes a power cut after entries[:cut] leaves on the disk:
        [(entry, sectors kept)], in log order, and a description. Every
        write before the last flush is kept whole; each later one is kept
        with probability 1/2, and the last kept one may be torn (a prefix
        of its sectors)."""
        durable = self.last_flush_before(cut)
        kept, lost = [], 0
        for e in self.entries[:cut]:
            if e.is_flush or e.sectors == 0:
                continue
            if e.index < durable or rng.random() < 0.5:
                kept.append([e, e.sectors])
            else:
                lost += 1
        torn = ""
        if kept and kept[-1][0].index > durable and kept[-1][1] > 1 and rng.random() < 0.5:
            kept[-1][1] = rng.randrange(1, kept[-1][1])
            torn = f", entry {kept[-1][0].index} torn after {kept[-1][1]} sectors"
        volatile = sum(1 for e in self.entries[durable + 1:cut] if not e.is_flush)
        return kept, (f"cut after entry {cut - 1} of {len(self.entries)}, last flush at "
                      f"{durable}, {volatile - lost} of {volatile} unflushed writes kept{torn}")

    def apply(self, writes, disk):
        """Writes [(entry, sectors)] onto the disk image at path disk."""
        with open(self.path, "rb") as log, open(disk, "r+b") as d:
            for e, sectors in writes:
                log.seek(e.offset)
                d.seek(e.sector * self.sector_size)
                d.write(log.read(sectors * self.sector_size))


def pick_cuts(first, last, count, rng, always=()):
    """count cut points spread over [first, last] (one drawn in each of
    count equal strata, so that no part of the stream goes untried), plus
    `always`, sorted and without repeats."""
    cuts = set(always)
    span = max(1, last - first + 1)
    for i in range(count):
        lo = first + span * i // count
        hi = max(lo, first + span * (i + 1) // count - 1)
        cuts.add(rng.randint(lo, hi))
    return sorted(c for c in cuts if first <= c <= last)
