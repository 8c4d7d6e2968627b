#!/usr/bin/env python3
"""TAP test of tests/vm/writelog.py (the power cuts' write log) on logs made
here in the format QEMU's blklogwrites writes: the entries read back, a
replay gives the disk, a cut keeps every write the last flush covered and
never one after the cut, and a file that is no log is refused. Run by
`make check`."""

import random
import struct
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.dont_write_bytecode = True  # the source tree may be read-only (make distcheck)
import writelog  # noqa: E402

SECTOR = 512
results = []


def check(name, cond, detail=""):
    results.append((bool(cond), name, detail))


def make_log(path, requests):
    """requests: ("w", sector, bytes) or ("f",). The super block's count is
    left at 0, as QEMU leaves it between updates."""
    with open(path, "wb") as f:
        f.write(struct.pack("<QQQI", writelog.MAGIC, 1, 0, SECTOR).ljust(SECTOR, b"\0"))
        for r in requests:
            if r[0] == "f":
                f.write(struct.pack("<QQQQ", 0, 0, writelog.FLUSH, 0).ljust(SECTOR, b"\0"))
            else:
                _, sector, data = r
                f.write(struct.pack("<QQQQ", sector, len(data) // SECTOR, 0, 0).ljust(SECTOR, b"\0"))
                f.write(data)


def block(ch, sectors=1):
    return bytes([ch]) * (SECTOR * sectors)


def test_read_and_replay(tmp):
    reqs = [("w", 0, block(1)), ("f",), ("w", 8, block(2, 4)), ("w", 2, block(3)), ("f",),
            ("w", 0, block(4))]
    log = tmp / "a.log"
    make_log(log, reqs)
    wl = writelog.WriteLog(log)
    check("six entries read back", len(wl.entries) == 6, wl.entries)
    check("flushes are flushes", [e.is_flush for e in wl.entries] ==
          [False, True, False, False, True, False])
    check("the third entry writes 4 sectors at sector 8",
          (wl.entries[2].sector, wl.entries[2].sectors) == (8, 4))
    disk = tmp / "a.img"
    disk.write_bytes(b"\0" * (SECTOR * 16))
    wl.apply([(e, e.sectors) for e in wl.entries if not e.is_flush], disk)
    d = disk.read_bytes()
    check("replay: the last write to sector 0 wins", d[:SECTOR] == block(4))
    check("replay: sectors 8..11 hold the 4-sector write", d[8 * SECTOR:12 * SECTOR] == block(2, 4))
    check("replay: sector 2", d[2 * SECTOR:3 * SECTOR] == block(3))
    check("last flush before the end is entry 4", wl.last_flush_before(6) == 4)
    check("no flush before entry 1", wl.last_flush_before(1) == -1)


def test_cuts_keep_what_a_flush_covered(tmp):
    reqs = [("w", i, block(i + 1)) for i in range(10)] + [("f",)] + \
           [("w", 20 + i, block(50 + i, 3)) for i in range(10)]
    log = tmp / "b.log"
    make_log(log, reqs)
    wl = writelog.WriteLog(log)
    ok_before, ok_after, torn_seen, lost_seen = True, True, False, False
    for seed in range(200):
        rng = random.Random(seed)
        cut = rng.randint(0, len(wl.entries))
        kept, _ = wl.crash_writes(cut, rng)
        idx = {e.index for e, _ in kept}
        flush = wl.last_flush_before(cut)
        if any(i not in idx for i in range(flush)):
            ok_before = False
        if any(i >= cut for i in idx):
            ok_after = False
        if any(n < e.sectors for e, n in kept):
            torn_seen = True
            if any(n < e.sectors and e.index < flush for e, n in kept):
                ok_before = False
        if cut > 11 and len(idx) < cut - 1:
            lost_seen = True
    check("every write before the last flush is kept whole", ok_before)
    check("no write after the cut is kept", ok_after)
    check("some cuts tear their last write", torn_seen)
    check("some cuts lose unflushed writes", lost_seen)


def test_pick_cuts():
    rng = random.Random(1)
    cuts = writelog.pick_cuts(10, 110, 10, rng, always=(110, 5))
    check("ten strata and the end, nothing outside the range", len(cuts) == 11 and
          min(cuts) >= 10 and max(cuts) == 110, cuts)
    check("one cut in each tenth", all(any(10 + 10 * i <= c < 20 + 10 * i for c in cuts)
                                       for i in range(10)), cuts)


def test_not_a_log(tmp):
    bad = tmp / "c.log"
    bad.write_bytes(b"SWAPSPACE2" * 100)
    try:
        writelog.WriteLog(bad)
        check("a file that is no log is refused", False)
    except ValueError as e:
        check("a file that is no log is refused", "not a write log" in str(e), e)
    short = tmp / "d.log"
    short.write_bytes(b"\0" * 8)
    try:
        writelog.WriteLog(short)
        check("a truncated super block is refused", False)
    except ValueError as e:
        check("a truncated super block is refused", "no super block" in str(e), e)


def main():
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for t in (lambda: test_read_and_replay(tmp), lambda: test_cuts_keep_what_a_flush_covered(tmp),
                  test_pick_cuts, lambda: test_not_a_log(tmp)):
            try:
                t()
            except Exception as e:  # a crash is a failure of that group, not of the run
                results.append((False, f"raised {type(e).__name__}: {e}", ""))
    print(f"1..{len(results)}")
    for i, (ok, name, detail) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {i} - {name}")
        if not ok and detail != "":
            print(f"# {detail}")
    return 0 if all(ok for ok, _, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
