#!/usr/bin/env python3
"""TAP test of tests/vm/phases.py (the VM harness's phase table) on serial
log excerpts captured from a real run (fixtures/phases/: the kernel's path,
kb-1 and kb-2, and dormouse's, rt-1 and rt-2), and on broken logs: a missing
or garbled line gives None, never an exception. Run by `make check`."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.dont_write_bytecode = True  # the source tree may be read-only (make distcheck)
import phases  # noqa: E402

FIX = HERE / "fixtures" / "phases"
results = []


def check(name, cond, detail=""):
    results.append((bool(cond), name, detail))


def close(a, b, eps=1e-6):
    return a is not None and b is not None and abs(a - b) < eps


def logs():
    return {n: phases.parse_log((FIX / f"serial-{n}.txt").read_text())
            for n in ("kb-1", "kb-2", "rt-1", "rt-2")}


def test_kernel_path(L):
    k = phases.kernel_snapshot_phases(L["kb-1"])
    check("the kernel's freezer time is the sum of its two elapsed figures",
          close(k["freeze_s"], 0.002), k["freeze_s"])
    check("the preallocation comes from 'Allocated N kbytes in X seconds'",
          close(k["prealloc_s"], 1.53), k["prealloc_s"])
    check("the copy runs from 'Creating image:' to 'Image created' on the kernel's clock",
          close(k["copy_s"], 9.756438 - 9.467097) and k["copy_pages"] == 67912, k)
    check("the create-image span uses the host clock (the kernel's jumps back after the copy)",
          close(k["create_s"], 10.790 - 8.882), k["create_s"])
    check("the write comes from 'Wrote N kbytes in X seconds (Y MB/s)'",
          close(k["write_s"], 2.73) and k["write_kib"] == 272180 and close(k["write_mbs"], 99.69),
          k)
    r = phases.kernel_resume_phases(L["kb-2"])
    check("the read comes from 'Read N kbytes in X seconds (Y MB/s)'",
          close(r["read_s"], 3.46) and r["read_kib"] == 272180, r)
    check("the kernel's resume start runs from the resume command to its first page",
          close(r["start_s"], 4.919 - 4.703), r["start_s"])
    check("without ticks in the log, the kernel's restore runs to the restored init's first line",
          close(r["restore_s"], 9.555 - 8.381), r["restore_s"])


def test_dormouse_path(L):
    d = phases.dormouse_hibernate_phases(L["rt-1"])
    check("dormouse's phases line is read",
          close(d["engine_freeze_s"], 0.364) and close(d["snapshot_s"], 2.63) and
          close(d["data_s"], 7.11) and d["pages"] == 67707 and d["stored_bytes"] == 150061056, d)
    check("the kernel's PM lines during dormouse's ioctls are read too",
          close(d["prealloc_s"], 2.53) and close(d["freeze_s"], 0.003) and d["write_s"] is None,
          d)
    check("dormouse's data-phase profile is read",
          close(d["kernel_io_s"], 2.118) and close(d["writes_s"], 3.827), d)
    r = phases.dormouse_resume_phases(L["rt-2"])
    check("dormouse's resume phases are read",
          close(r["check_s"], 1.326) and close(r["read_s"], 6.057) and
          r["read_bytes"] == 150061056 and close(r["decode_s"], 2.309) and
          close(r["kernel_io_s"], 3.748), r)
    check("dormouse's resume start ends where its load began",
          close(r["start_s"], 13.924 - 6.057 - 6.187), r["start_s"])
    check("without ticks in the log, dormouse's restore runs to the restored dormouse's exit line",
          close(r["restore_s"], 16.186 - 13.924), r["restore_s"])


def test_speeds(L):
    s = phases.speeds(L["rt-1"])
    check("the SPEED lines give bytes per second",
          close(s.get("disk-write"), 134217728 / 0.42, 1) and
          close(s.get("memcpy"), 134217728 / 0.34, 1) and "disk-read" in s, s)


def test_table(L):
    totals = {"kernel-baseline": {"hibernate_s": 4.74, "resume_s": 9.46},
              "dormouse-roundtrip": {"hibernate_s": 10.82, "resume_s": 15.8}}
    t = phases.table(L["kb-1"], L["kb-2"], L["rt-1"], L["rt-2"], totals)
    rows = {r["phase"]: r for r in t["rows"]}
    w = rows["hibernate: write"]
    check("the write's limit is dormouse's stored bytes at the measured write speed",
          close(w["limit_s"], 150061056 / (134217728 / 0.42)), w)
    check("the totals come from run.py's figures",
          rows["hibernate: total (command → power off)"]["dormouse_s"] == 10.82)
    text = phases.format_table(t)
    check("the text has a header, one line per row and two of speeds",
          len(text) == len(t["rows"]) + 3 and "limit" in text[0], text[0])


def test_missing(L):
    t = phases.table(None, [], [(None, "garbage")], None)
    check("no logs at all: every cell is None",
          all(r["kernel_s"] is None and r["dormouse_s"] is None and r["limit_s"] is None
              for r in t["rows"]))
    text = "\n".join(phases.format_table(t))
    check("...and prints as dashes", phases.DASH in text and "None" not in text)
    cut = [l for l in L["kb-1"] if "Image created" not in l[1] and "Wrote" not in l[1]]
    k = phases.kernel_snapshot_phases(cut)
    check("a log without 'Image created' and 'Wrote' keeps what it has",
          k["copy_s"] is None and k["write_s"] is None and close(k["prealloc_s"], 1.53), k)
    bad = phases.parse_log("[ 1.0] PM: hibernation: Wrote 12 kbytes in x.y seconds (z MB/s)\n"
                           "no timestamp at all\n"
                           "[ 2.0] VMTEST: SPEED disk-write 100 bytes 0.00 s\n"
                           "[ 3.0] dormouse: timing: phases: freeze 1 s")
    check("garbled lines are ignored",
          phases.kernel_snapshot_phases(bad)["write_s"] is None and phases.speeds(bad) == {} and
          phases.dormouse_hibernate_phases(bad)["data_s"] is None and bad[1][0] is None)


def test_restore_ends_at_the_first_tick(L):
    """Both paths' restore rows end where the totals do: the workload's first
    tick in the restored system, also when a kernel message continues its
    line; not at a tick before the image was read."""
    kern = phases.parse_log("[ 1.0] TICK 1\n"
                            "[ 5.0] [    4.9] PM: hibernation: Read 100 kbytes in 2.00 seconds "
                            "(0.05 MB/s)\n"
                            "[ 5.6] TICK 4[    8.6] Restarting tasks ... done.\n"
                            "[ 5.9] VMTEST: RESUMED rc=0 token=1")
    r = phases.kernel_resume_phases(kern)
    check("the kernel's restore ends at the first tick after the read",
          close(r["restore_s"], 0.6), r["restore_s"])
    ours = phases.parse_log("[ 1.0] TICK 1\n"
                            "[ 6.0] dormouse: timing: phases: check 0.3 s, load 2.0 s "
                            "(10 pages, 40960 bytes read)\n"
                            "[ 6.9] TICK 5\n"
                            "[ 7.2] VMTEST: DORMOUSE hibernate rc=0 token=1")
    d = phases.dormouse_resume_phases(ours)
    check("dormouse's restore ends at the first tick after the load",
          close(d["restore_s"], 0.9), d["restore_s"])


def main():
    L = logs()
    for t in (test_kernel_path, test_dormouse_path, test_speeds, test_table, test_missing,
              test_restore_ends_at_the_first_tick):
        try:
            t(L)
        except Exception as e:  # a crash is a failure of that group, not of the run
            results.append((False, f"{t.__name__} raised {type(e).__name__}: {e}", ""))
    print(f"1..{len(results)}")
    for i, (ok, name, detail) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {i} - {name}")
        if not ok and detail != "":
            print(f"# {detail}")
    return 0 if all(ok for ok, _, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
