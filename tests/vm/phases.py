"""The per-phase table of tests/vm/run.py: where a hibernation and a resume
spend their time on the kernel's own path and on dormouse's, read from the
serial logs of kernel-baseline (kb-1, kb-2) and dormouse-roundtrip (rt-1,
rt-2), with a limit for each phase made of what init.sh's measure_speed
found in the same guest.

Sources, all on the serial console:
* the kernel's PM lines (both paths: SNAPSHOT_FREEZE and
  SNAPSHOT_CREATE_IMAGE print them for dormouse too): the freezer's
  "(elapsed X seconds)", "Allocated N kbytes in X seconds", "Creating
  image:" .. "Image created" (kernel timestamps), "Wrote/Read N kbytes in X
  seconds (Y MB/s)";
* dormouse's DORMOUSE_DEBUG_TIMING line "dormouse: timing: phases: ...";
* "VMTEST: SPEED disk-write|disk-read|memcpy BYTES bytes SECONDS s";
* host timestamps ("[   8.852] " in the log files) where a span crosses the
  snapshot, across which the kernel's own clock jumps back.

Every value is optional: a missing or garbled line gives None ("–" in the
text), never an exception. Stdlib only; tests/vm/phases-test.py checks it
on captured excerpts (tests/vm/fixtures/).
"""

import re

DASH = "–"

_HOST_TS = re.compile(r"^\[\s*(\d+(?:\.\d+)?)\]\s?(.*)$")
_KERNEL_TS = re.compile(r"^\[\s*(\d+\.\d+)\]\s")


def parse_log(text):
    """A serial log file as run.py writes it ("[ host s] line") → [(t, line)].

    Lines without the host prefix get t = None."""
    out = []
    for raw in text.splitlines():
        m = _HOST_TS.match(raw)
        if m:
            out.append((float(m.group(1)), m.group(2)))
        else:
            out.append((None, raw))
    return out


# The workload's counter in the restored system (a line of its own, or the
# start of one a kernel message continues).
_TICK = r"^TICK \d+"


def _restored(lines, start, fallback):
    """Where a restore ends: the workload's first tick at or after start, or
    the fallback pattern's line in a log without ticks."""
    return _first(lines, _TICK, start) or _first(lines, fallback, start)


def _first(lines, pattern, start=0):
    """(index, host t, match) of the first line at or after start matching, or None."""
    rx = re.compile(pattern)
    for i in range(max(start, 0), len(lines)):
        t, s = lines[i]
        m = rx.search(s)
        if m:
            return i, t, m
    return None


def _kernel_ts(line):
    m = _KERNEL_TS.match(line)
    return float(m.group(1)) if m else None


def _span(a, b):
    """b - a when both are numbers and b >= a, else None."""
    if a is None or b is None or b < a:
        return None
    return b - a


def _float(m, group):
    try:
        return float(m.group(group))
    except (TypeError, ValueError, IndexError, AttributeError):
        return None


def speeds(lines):
    """{"disk-write"|"disk-read"|"memcpy": bytes per second} from init.sh's SPEED lines."""
    out = {}
    for _, s in lines:
        m = re.search(r"VMTEST: SPEED (\S+) (\d+) bytes ([\d.]+) s", s)
        if not m:
            continue
        secs = _float(m, 3)
        if secs and secs > 0:
            out[m.group(1)] = int(m.group(2)) / secs
    return out


def kernel_snapshot_phases(lines, start=0):
    """The kernel's hibernation steps from its PM lines at or after index start:
    {"freeze_s", "prealloc_s", "copy_s", "copy_pages", "create_s", "write_s",
    "write_kib", "write_mbs"}, each None when its lines are missing. The
    same lines appear when dormouse drives the kernel through /dev/snapshot
    (except the write, which the kernel then does not do)."""
    r = dict.fromkeys(["freeze_s", "prealloc_s", "copy_s", "copy_pages", "create_s",
                       "write_s", "write_kib", "write_mbs"])
    pre = _first(lines, r"PM: hibernation: Preallocating image memory", start)
    created = _first(lines, r"PM: hibernation: Image created \((\d+) pages copied", start)
    end = created[0] if created else len(lines)
    # The freezer: user space, then (after the preallocation) the rest.
    elapsed = [_float(m, 1) for i, _, m in
               [(i, t, re.search(r"Freezing .*\(elapsed ([\d.]+) seconds\)", s))
                for i, (t, s) in enumerate(lines) if start <= i < end] if m]
    if elapsed and None not in elapsed:
        r["freeze_s"] = sum(elapsed)
    alloc = _first(lines, r"PM: hibernation: Allocated \d+ kbytes in ([\d.]+) seconds", start)
    if alloc:
        r["prealloc_s"] = _float(alloc[2], 1)
    creating = _first(lines, r"PM: hibernation: Creating image:", start)
    if creating and created:
        # Both sides of the copy run on one kernel clock.
        r["copy_s"] = _span(_kernel_ts(lines[creating[0]][1]), _kernel_ts(lines[created[0]][1]))
        r["copy_pages"] = int(created[2].group(1))
    # Preallocation, devices, copy and devices back: until the first line of
    # the write (kernel path) or the kernel's next PM line; host clock, since
    # the kernel's clock jumps back after the copy.
    if pre and created:
        after = _first(lines, r"PM: (Using \d+ thread|Compressing and saving|S\||"
                              r"hibernation: Wrote)", created[0] + 1)
        if after:
            r["create_s"] = _span(pre[1], after[1])
    wrote = _first(lines, r"PM: hibernation: Wrote (\d+) kbytes in ([\d.]+) seconds "
                          r"\(([\d.]+) MB/s\)", start)
    if wrote:
        r["write_kib"] = int(wrote[2].group(1))
        r["write_s"] = _float(wrote[2], 2)
        r["write_mbs"] = _float(wrote[2], 3)
    return r


def kernel_resume_phases(lines):
    """Boot 2 of the kernel's path: {"start_s" (the resume command to the first
    page read), "read_s", "read_kib", "read_mbs", "restore_s" (image read →
    the workload's first tick, as the totals end; the restored init's first
    line in a log without ticks)}."""
    r = dict.fromkeys(["start_s", "read_s", "read_kib", "read_mbs", "restore_s"])
    tried = _first(lines, r"VMTEST: RESUME try")
    loading = _first(lines, r"PM: Loading and decompressing image data")
    if tried and loading:
        r["start_s"] = _span(tried[1], loading[1])
    read = _first(lines, r"PM: hibernation: Read (\d+) kbytes in ([\d.]+) seconds "
                         r"\(([\d.]+) MB/s\)")
    if read:
        r["read_kib"] = int(read[2].group(1))
        r["read_s"] = _float(read[2], 2)
        r["read_mbs"] = _float(read[2], 3)
        back = _restored(lines, read[0] + 1, r"VMTEST: RESUMED")
        if back:
            r["restore_s"] = _span(read[1], back[1])
    return r


_DM_HIB = (r"dormouse: timing: phases: freeze ([\d.]+) s, snapshot ([\d.]+) s, data ([\d.]+) s "
           r"\((\d+) pages, (\d+) bytes stored\)")
_DM_HIB_PROFILE = (r"dormouse: timing: data phase [\d.]+ s: reading the kernel ([\d.]+) s .*"
                   r"\d+ writes ([\d.]+) s")
_DM_RES_PROFILE = (r"dormouse: timing: load phase: reading and decoding the image ([\d.]+) s, "
                   r"handing pages to the kernel ([\d.]+) s")
_DM_RES = (r"dormouse: timing: phases: check ([\d.]+) s, load ([\d.]+) s "
           r"\((\d+) pages, (\d+) bytes read\)")


def dormouse_hibernate_phases(lines):
    """Boot 1 of dormouse's path: its own figures ("engine_freeze_s",
    "snapshot_s", "data_s", "pages", "stored_bytes") and the kernel's PM
    lines during its SNAPSHOT_FREEZE and SNAPSHOT_CREATE_IMAGE."""
    started = _first(lines, r"VMTEST: DORMOUSE hibernate start")
    r = kernel_snapshot_phases(lines, started[0] if started else 0)
    r.update(dict.fromkeys(["engine_freeze_s", "snapshot_s", "data_s", "pages", "stored_bytes",
                            "kernel_io_s", "writes_s"]))
    prof = _first(lines, _DM_HIB_PROFILE)
    if prof:
        r["kernel_io_s"], r["writes_s"] = _float(prof[2], 1), _float(prof[2], 2)
    m = _first(lines, _DM_HIB)
    if m:
        m = m[2]
        r["engine_freeze_s"], r["snapshot_s"], r["data_s"] = (_float(m, 1), _float(m, 2),
                                                              _float(m, 3))
        r["pages"], r["stored_bytes"] = int(m.group(4)), int(m.group(5))
    return r


def dormouse_resume_phases(lines):
    """Boot 2 of dormouse's path: {"start_s" (the resume command to the first
    page read: the process, its splash and the image check), "check_s",
    "read_s", "read_bytes", "pages", "restore_s" (image loaded → the
    workload's first tick, as the totals end; the restored dormouse's exit
    line in a log without ticks)}."""
    r = dict.fromkeys(["start_s", "check_s", "read_s", "read_bytes", "pages", "restore_s",
                       "decode_s", "kernel_io_s"])
    prof = _first(lines, _DM_RES_PROFILE)
    if prof:
        r["decode_s"], r["kernel_io_s"] = _float(prof[2], 1), _float(prof[2], 2)
    started = _first(lines, r"VMTEST: DORMOUSE resume start")
    m = _first(lines, _DM_RES)
    if not m:
        return r
    idx, t, mm = m
    r["check_s"], r["read_s"] = _float(mm, 1), _float(mm, 2)
    r["pages"], r["read_bytes"] = int(mm.group(3)), int(mm.group(4))
    if started and t is not None and r["read_s"] is not None:
        r["start_s"] = _span(started[1], t - r["read_s"])
    back = _restored(lines, idx + 1, r"VMTEST: DORMOUSE hibernate rc=")
    if back:
        r["restore_s"] = _span(t, back[1])
    return r


def _div(num, den):
    return num / den if num is not None and den else None


def table(kb1, kb2, rt1, rt2, totals=None, page_size=4096):
    """The phase table from the four boots' lines (any may be None or empty).

    totals: run.py's figures ({"kernel-baseline": {"hibernate_s", "resume_s"},
    "dormouse-roundtrip": {...}}). Returns {"speeds": {...}, "rows": [{"phase",
    "kernel_s", "dormouse_s", "limit_s", "note"}]}; seconds or None."""
    totals = totals or {}
    sp = {}
    for lines in (rt1, kb1):  # dormouse's boot wins: the limits are for its bytes
        for k, v in speeds(lines or []).items():
            sp.setdefault(k, v)
    kh = kernel_snapshot_phases(kb1 or [])
    kr = kernel_resume_phases(kb2 or [])
    dh = dormouse_hibernate_phases(rt1 or [])
    dr = dormouse_resume_phases(rt2 or [])
    pages = dh.get("pages") or dh.get("copy_pages")
    raw = pages * page_size if pages else None
    stored = dh.get("stored_bytes") or dr.get("read_bytes")

    def mbs(nbytes, secs):
        v = _div(nbytes, secs)
        return f"{v / 1e6:.0f} MB/s" if v else None

    kt, dt = totals.get("kernel-baseline", {}), totals.get("dormouse-roundtrip", {})
    rows = [
        ("hibernate: freeze (the freezer's elapsed)", kh["freeze_s"], dh["freeze_s"], None,
         "kernel PM lines"),
        ("hibernate: freeze step (dormouse: splash pause, freezer, writer start)", None,
         dh["engine_freeze_s"], None, "DORMOUSE_DEBUG_TIMING"),
        ("hibernate: preallocation", kh["prealloc_s"], dh["prealloc_s"], None,
         "kernel: Allocated N kbytes"),
        ("hibernate: copy (Creating image .. Image created)", kh["copy_s"], dh["copy_s"], None,
         "kernel timestamps"),
        ("hibernate: create image (preallocation, devices, copy)", kh["create_s"],
         dh["snapshot_s"], None, "kernel: host clock; dormouse: SNAPSHOT_CREATE_IMAGE"),
        ("hibernate: write", kh["write_s"], dh["data_s"], _div(stored, sp.get("disk-write")),
         "limit: dormouse's stored bytes at dd's write speed"),
        ("  dormouse: reading the kernel (/dev/snapshot read)", None, dh["kernel_io_s"],
         _div(raw, sp.get("memcpy")), "limit: the image at copy-to-user speed"),
        ("  dormouse: its write() calls", None, dh["writes_s"],
         _div(stored, sp.get("disk-write")), "limit: as the write"),
        ("hibernate: total (command → power off)", kt.get("hibernate_s"), dt.get("hibernate_s"),
         None, "host clock"),
        ("resume: start (command → first page read)", kr["start_s"], dr["start_s"], None,
         "host clock"),
        ("resume: read", kr["read_s"], dr["read_s"], _div(stored, sp.get("disk-read")),
         "limit: dormouse's stored bytes at dd's read speed"),
        ("  dormouse: reading and decoding", None, dr["decode_s"],
         _div(stored, sp.get("disk-read")), "limit: as the read"),
        ("  dormouse: handing pages to the kernel (/dev/snapshot write)", None,
         dr["kernel_io_s"], _div(raw, sp.get("memcpy")), "limit: the image at copy speed"),
        ("resume: restore (loaded → the workload ticks)", kr["restore_s"], dr["restore_s"], None,
         "host clock"),
        ("resume: total (power on → workload ticking)", kt.get("resume_s"), dt.get("resume_s"),
         None, "host clock"),
    ]
    out = {"speeds": {k: round(v) for k, v in sp.items()},
           "image_bytes": raw, "stored_bytes": stored,
           "rates": {"kernel_write": mbs((kh["write_kib"] or 0) * 1024, kh["write_s"]),
                     "dormouse_write": mbs(raw, dh["data_s"]),
                     "kernel_read": mbs((kr["read_kib"] or 0) * 1024, kr["read_s"]),
                     "dormouse_read": mbs(raw, dr["read_s"])},
           "rows": [{"phase": p, "kernel_s": k, "dormouse_s": d, "limit_s": lim, "note": n}
                    for p, k, d, lim, n in rows]}
    return out


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _cell(v, width):
    return (f"{v:.3f} s" if _num(v) else DASH).rjust(width)


def format_table(t):
    """The table as text lines (for run.py's log)."""
    w = max(len(r["phase"]) for r in t["rows"])
    lines = [f"{'phase':<{w}} {'kernel':>9} {'dormouse':>9} {'ratio':>6} {'limit':>9}  note"]
    for r in t["rows"]:
        k, d = r["kernel_s"], r["dormouse_s"]
        # A ratio of two clock steps says nothing.
        ratio = f"{d / k:.2f}x" if _num(k) and _num(d) and k >= 0.05 and d >= 0.05 else DASH
        lines.append(f"{r['phase']:<{w}} {_cell(k, 9)} {_cell(d, 9)} {ratio:>6} "
                     f"{_cell(r['limit_s'], 9)}  {r['note']}")
    sp = t.get("speeds", {})
    meas = ", ".join(f"{k} {v / 1e6:.0f} MB/s" for k, v in sorted(sp.items())) or DASH
    rates = t.get("rates", {})
    lines.append(f"guest speeds (dd, 10 ms clock; memcpy: tmpfs read, a copy to user space): {meas}; image {t.get('image_bytes') or DASH} "
                 f"bytes, dormouse stored {t.get('stored_bytes') or DASH} bytes")
    lines.append("rates (image bytes per second): " + ", ".join(
        f"{k.replace('_', ' ')} {v or DASH}" for k, v in rates.items()))
    return lines
