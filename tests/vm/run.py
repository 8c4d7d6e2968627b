#!/usr/bin/env python3
"""VM acceptance test of dormouse on a real kernel (QEMU, TCG).

The harness fetches the current Debian kernel (never installed, cached in
tests/vm/cache/), builds a busybox initramfs with the workload, dormouse and
its data, boots QEMU (bochs-drm display, virtio swap disk, serial console,
HMP monitor on a unix socket) and plays the scenarios below. Each prints
"ok"/"not ok" with its name; the last line is "N passed, N failed".

Stdlib only. Usage:
    python3 tests/vm/run.py [--dormouse PATH] [--scenario NAME ...] [--keep] [--demo]
"""

import argparse
import atexit
import filecmp
import glob
import json
import os
import random
import re
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import zlib
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parent))
import phases  # noqa: E402  (the phase table; tests/vm/phases-test.py checks it)
import writelog  # noqa: E402  (power cuts; tests/vm/writelog-test.py checks it)

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CACHE = HERE / "cache"
OUT = HERE / "out"

# Display (bochs for -vga std), PCI virtio transport and disk, and evdev so
# that dormouse can read the Esc key from /dev/input as well as from a VT.
MODULES = [
    "virtio_ring", "virtio", "virtio_pci_modern_dev", "virtio_pci_legacy_dev",
    "virtio_pci", "virtio_blk",
    "drm", "drm_kms_helper", "ttm", "drm_ttm_helper", "drm_vram_helper", "bochs",
    "evdev",
    # hibernate.compressor=lz4 (6.9 and later; a module in Debian 13's
    # kernel): loaded in every boot, so the resume finds it (kernel-lz4)
    "lz4",
    # systemd's HibernateLocation lives in efivarfs, a module in Debian's
    # kernels (no-resume-arg)
    "efivarfs",
    # the nbd scenarios: QEMU's user-mode network on virtio-net, and the
    # kernel's NBD client (its devices, /dev/nbd*, exist once it loads)
    "virtio_net", "nbd",
    # issue 38's GPU scenarios: virtio-gpu (-device virtio-vga)
    "virtio-gpu",
]

BOOT_TIMEOUT = 120.0
DISK_SIZE = 1 << 30
# The same for both boots of a pair: the kernel refuses an image made on a
# machine of another shape ("Image mismatch: architecture specific data").
MEMORY = "768M"
CPUS = os.environ.get("DMO_VM_CPUS", "1")
DISK = os.environ.get("DMO_VM_DISK", "plain")


# The display card's id where a scenario asks for its heads (screendump)
GPU_ID = "gpu0"


def head_path(path, k):
    """Where screendump puts head k's screen beside head 0's path."""
    path = Path(path)
    return path.with_name(f"{path.stem}-head{k}{path.suffix}")


def disk_args(path, bps=None, write_log=None, blkdebug=None, view=None):
    """The swap disk: virtio-blk on QEMU's main loop ("plain"), or with its
    own I/O thread ("iothread", requests handled outside the big lock).
    bps: QEMU throttles the disk to that many bytes a second, reads and
    writes together (a slow disk). write_log: every write and flush the
    guest makes is also logged to that file by QEMU's blklogwrites driver
    (tests/vm/writelog.py reads it); the disk has a write cache, so the
    guest's flushes are in the log. blkdebug: QEMU's blkdebug driver
    between the disk and the guest, with the rules of that config file
    (injected I/O errors, reported to the guest: virtio-blk's default).
    view: the guest sees only the file's first view bytes (QEMU's raw
    driver with size=: a disk shorter than it was, the rest of the file
    kept behind it).
    path None: no disk (the nbd scenarios' guest has no local swap)."""
    if path is None:
        return []
    if view:
        return ["-blockdev", f"driver=file,filename={path},node-name=swapimg0,cache.no-flush=on",
                "-blockdev", f"driver=raw,node-name=swap0,file=swapimg0,size={view}",
                "-device", "virtio-blk-pci,drive=swap0"]
    if blkdebug:
        return ["-blockdev", f"driver=file,filename={path},node-name=swapimg0,cache.no-flush=on",
                "-blockdev", f"driver=blkdebug,node-name=swapdbg0,image=swapimg0,config={blkdebug}",
                "-blockdev", "driver=raw,node-name=swap0,file=swapdbg0",
                "-device", "virtio-blk-pci,drive=swap0"]
    if write_log:
        return ["-blockdev", f"driver=file,filename={path},node-name=swapbase0,cache.no-flush=on",
                "-blockdev", f"driver=file,filename={write_log},node-name=swaplog0,"
                "cache.no-flush=on",
                "-blockdev", "driver=blklogwrites,node-name=swap0,file=swapbase0,log=swaplog0,"
                "log-sector-size=512,log-super-update-interval=1",
                "-device", "virtio-blk-pci,drive=swap0,write-cache=on"]
    limit = f",throttling.bps-total={bps}" if bps else ""
    if DISK == "iothread":
        return ["-object", "iothread,id=io0",
                "-drive", f"file={path},format=raw,if=none,id=swap0,cache=unsafe{limit}",
                "-device", "virtio-blk-pci,drive=swap0,iothread=io0"]
    return ["-drive", f"file={path},format=raw,if=virtio,cache=unsafe{limit}"]
BASE_APPEND = "console=ttyS0 no_console_suspend panic=-1"
# Boot 1 of kernel-baseline and dormouse-roundtrip measures the disk and the
# copy speed first (init.sh's measure_speed), for the phase table's limits.
SPEED_APPEND = "vmspeed=128"

# Exit codes of the dormouse CLI contract.
RC_RESTORED, RC_NO_IMAGE, RC_USAGE, RC_REFUSED, RC_ABORTED = 0, 1, 2, 3, 5


def log(msg):
    print(f"# {msg}", flush=True)


class Failure(Exception):
    """A scenario check failed; the message says what and where to look."""


def run(cmd, **kw):
    kw.setdefault("check", True)
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    kw.setdefault("text", True)
    return subprocess.run(cmd, **kw)


# --------------------------------------------------------------------------
# Kernel: the current Debian package, unpacked once, trimmed to what we boot.


class Kernel:
    def __init__(self, root):
        self.root = Path(root)
        meta = json.loads((self.root / "kernel.json").read_text())
        self.package = meta["package"]
        self.version = meta["version"]
        self.kver = meta["kver"]
        self.vmlinuz = self.root / meta["vmlinuz"]
        self.modules = meta["modules"]  # paths relative to root, in load order
        self.suite = meta.get("suite", "bookworm")  # caches from before suites were bookworm's

    def config(self, option):
        """CONFIG_option's value in the kernel's config ("y", "m", ...), or None."""
        path = self.root / "boot" / f"config-{self.kver}"
        m = re.search(rf"^CONFIG_{option}=(.*)$", path.read_text(), re.M)
        return m.group(1).strip('"') if m else None

    def vmlinux(self):
        """The ELF kernel inside the bzImage, for a PVH boot: under TCG the
        decompressor costs seconds of every boot (~6 s for 6.1's xz). 6.1's
        payload is xz (Python's lzma), 6.12's zstd (the zstd tool, which
        stops at the padding after the frame: the ELF's section table,
        its last part, must be whole)."""
        out = self.root / "boot" / f"vmlinux-{self.kver}"
        if out.exists():
            return out
        data = self.vmlinuz.read_bytes()
        elf = None
        at = data.find(b"\xfd7zXZ\x00")
        if at >= 0:
            import lzma
            try:
                elf = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(data[at:])
            except lzma.LZMAError:
                return None
        else:
            at = data.find(b"\x28\xb5\x2f\xfd")
            if at < 0 or not shutil.which("zstd"):
                return None
            elf = subprocess.run(["zstd", "-dc"], input=data[at:], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL).stdout
            if len(elf) >= 64:
                shoff, = struct.unpack_from("<Q", elf, 0x28)
                shentsize, shnum = struct.unpack_from("<HH", elf, 0x3a)
                if shoff + shentsize * shnum > len(elf):
                    return None
        if not elf or not elf.startswith(b"\x7fELF"):
            return None
        tmp = out.with_suffix(".part")
        tmp.write_bytes(elf)
        tmp.rename(out)
        return out


# The Debian release whose kernel the VM boots: trixie (Debian 13) unless
# --suite or DMO_VM_SUITE says otherwise (bookworm: Debian 12's 6.1).
SUITES = ("trixie", "bookworm")
DEFAULT_SUITE = os.environ.get("DMO_VM_SUITE") or "trixie"


def host_codename():
    for line in Path("/etc/os-release").read_text().splitlines():
        if line.startswith("VERSION_CODENAME="):
            return line.split("=", 1)[1].strip().strip('"')
    return None


def suite_sources(suite):
    """This machine's apt sources (deb822 stanzas of /etc/apt/sources.list.d,
    read now: never a mirror address in the repository) with its release's
    suites renamed to suite's (bookworm-security -> trixie-security)."""
    host = host_codename()
    out = []
    d = Path("/etc/apt/sources.list.d")
    for f in sorted(d.glob("*.sources")) if d.is_dir() else []:
        for stanza in re.split(r"\n\s*\n", f.read_text()):
            lines = [l for l in stanza.splitlines() if l.strip() and not l.lstrip().startswith("#")]
            if not lines:
                continue
            fixed = []
            for l in lines:
                k, _, v = l.partition(":")
                if k.strip() == "Suites" and host:
                    v = " " + " ".join(re.sub(rf"^{re.escape(host)}(?=$|-)", suite, w)
                                       for w in v.split())
                fixed.append(f"{k}:{v}")
            out.append("\n".join(fixed))
    if not out:
        raise RuntimeError("this machine's apt configuration names no deb822 package sources")
    return "\n\n".join(out) + "\n"


def apt_env(suite):
    """The environment for apt-get and apt-cache to see suite's packages:
    the host's own apt when the host runs suite, else a private APT_CONFIG
    (sources, lists, status and cache under CACHE/apt-SUITE, so the host's
    apt state is untouched), its lists updated now."""
    if suite == host_codename():
        return None
    root = CACHE / f"apt-{suite}"
    for sub in ("sources.list.d", "lists/partial", "cache/archives/partial", "prefs.d"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    (root / "sources.list.d" / f"{suite}.sources").write_text(suite_sources(suite))
    (root / "status").touch()
    conf = root / "apt.conf"
    conf.write_text(
        f'Dir::Etc::SourceList "{root}/sources.list";\n'
        f'Dir::Etc::SourceParts "{root}/sources.list.d";\n'
        f'Dir::Etc::Preferences "{root}/preferences";\n'
        f'Dir::Etc::PreferencesParts "{root}/prefs.d";\n'
        f'Dir::State::Lists "{root}/lists";\n'
        f'Dir::State::Status "{root}/status";\n'
        f'Dir::State::extended_states "{root}/extended_states";\n'
        f'Dir::Cache "{root}/cache";\n')
    env = dict(os.environ, APT_CONFIG=str(conf))
    run(["apt-get", "-q", "update"], env=env)
    return env


def resolve_kernel_package(suite, env):
    out = run(["apt-cache", "depends", "linux-image-amd64"], env=env).stdout
    m = re.search(r"Depends:\s*(linux-image-\d\S*)", out)
    if not m:
        raise RuntimeError(f"{suite}: apt-cache depends linux-image-amd64 names no linux-image-X package")
    pkg = m.group(1)
    pol = run(["apt-cache", "policy", pkg], env=env).stdout
    v = re.search(r"Candidate:\s*(\S+)", pol)
    if not v or v.group(1) == "(none)":
        raise RuntimeError(f"{suite}: apt-cache policy {pkg}: no candidate version")
    return pkg, v.group(1)


def module_load_order(tree, kver, names):
    order = []
    for name in names:
        r = run(["modprobe", "-d", str(tree), "-S", kver, "--show-depends", name], check=False)
        if r.returncode != 0:
            raise RuntimeError(f"modprobe --show-depends {name}: {r.stderr.strip()}")
        for line in r.stdout.splitlines():
            parts = line.split()
            if len(parts) >= 2 and parts[0] == "insmod":
                path = os.path.relpath(parts[1], str(tree))
                if path not in order:
                    order.append(path)
            # "builtin X" needs nothing from us
    return order


def unpacked_module(rel):
    """A module's path in the cache: .ko.xz and .ko.zst (trixie's modules are
    xz-compressed) are stored decompressed, so busybox's insmod loads them."""
    for ext in (".xz", ".zst"):
        if rel.endswith(".ko" + ext):
            return rel[:-len(ext)]
    return rel


def copy_module(src, dest):
    if src.name.endswith(".ko.xz"):
        import lzma
        dest.write_bytes(lzma.decompress(src.read_bytes()))
    elif src.name.endswith(".ko.zst"):
        dest.write_bytes(run(["zstd", "-dc", str(src)], text=False).stdout)
    else:
        shutil.copy2(src, dest)


def cached_kernels(suite):
    found = []
    for meta in CACHE.glob("linux-image-*/kernel.json"):
        try:
            if json.loads(meta.read_text()).get("suite", "bookworm") == suite:
                found.append(meta.parent)
        except (OSError, ValueError):
            pass
    return sorted(found, key=lambda p: p.stat().st_mtime)


def prepare_kernel(suite):
    CACHE.mkdir(parents=True, exist_ok=True)
    try:
        env = apt_env(suite)
        pkg, version = resolve_kernel_package(suite, env)
    except (RuntimeError, OSError, subprocess.CalledProcessError) as e:
        cached = cached_kernels(suite)
        if not cached:
            raise
        log(f"cannot resolve {suite}'s kernel package ({e}); using the cached {cached[-1].name}")
        return Kernel(cached[-1])
    dest = CACHE / f"{pkg}_{version}"
    if (dest / "kernel.json").exists():
        # Kept only while it holds the modules asked for now.
        if json.loads((dest / "kernel.json").read_text()).get("wanted") == MODULES:
            k = Kernel(dest)
            log(f"kernel {k.package} {k.version} of {suite} (cached in {dest})")
            return k
        log(f"kernel cache {dest} holds another set of modules: trimmed again")

    t0 = time.monotonic()
    scratch = Path(tempfile.mkdtemp(prefix="kernel-", dir=CACHE))
    try:
        run(["apt-get", "download", f"{pkg}={version}"], cwd=scratch, env=env)
        debs = list(scratch.glob("*.deb"))
        if len(debs) != 1:
            raise RuntimeError(f"apt-get download {pkg}: expected one .deb, got {debs}")
        tree = scratch / "tree"
        run(["dpkg-deb", "-x", str(debs[0]), str(tree)])
        # trixie's packages ship /usr/lib/modules (merged /usr); depmod and
        # modprobe -d look under lib/modules
        if not (tree / "lib").exists() and (tree / "usr/lib/modules").is_dir():
            (tree / "lib").symlink_to("usr/lib")
        kvers = [p.name for p in (tree / "lib/modules").iterdir()]
        if len(kvers) != 1:
            raise RuntimeError(f"{debs[0].name}: expected one lib/modules/KVER, got {kvers}")
        kver = kvers[0]
        # The .deb has no modules.dep: its postinst makes it.
        run(["depmod", "-b", str(tree), kver])
        mods = module_load_order(tree, kver, MODULES)
        staging = scratch / "keep"
        (staging / "boot").mkdir(parents=True)
        shutil.copy2(tree / "boot" / f"vmlinuz-{kver}", staging / "boot")
        shutil.copy2(tree / "boot" / f"config-{kver}", staging / "boot")
        kept = []
        for rel in mods:
            out = unpacked_module(rel)
            (staging / out).parent.mkdir(parents=True, exist_ok=True)
            copy_module(tree / rel, staging / out)
            kept.append(out)
        meta = {"package": pkg, "version": version, "kver": kver, "suite": suite,
                "vmlinuz": f"boot/vmlinuz-{kver}", "modules": kept, "wanted": MODULES}
        (staging / "kernel.json").write_text(json.dumps(meta, indent=1) + "\n")
        if dest.exists():
            shutil.rmtree(dest)
        staging.rename(dest)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    # older trimmed kernels of this suite are useless once the mirror moved on
    for old in cached_kernels(suite):
        if old != dest:
            shutil.rmtree(old, ignore_errors=True)
    k = Kernel(dest)
    log(f"kernel {k.package} {k.version} of {suite} downloaded and trimmed in "
        f"{time.monotonic() - t0:.1f} s ({len(k.modules)} modules)")
    return k


# --------------------------------------------------------------------------
# initramfs: an uncompressed newc cpio written here, so that device nodes
# and owners need no root and no external tool.


class Cpio:
    def __init__(self):
        self.entries = {}  # path -> (mode, data, rdev)
        self.order = []

    def _add(self, path, mode, data=b"", rdev=(0, 0)):
        path = path.strip("/")
        parent = os.path.dirname(path)
        if parent and parent not in self.entries:
            self.dir(parent)
        if path not in self.entries:
            self.order.append(path)
        self.entries[path] = (mode, data, rdev)

    def dir(self, path):
        self._add(path, stat.S_IFDIR | 0o755)

    def file(self, path, data, mode=0o644):
        self._add(path, stat.S_IFREG | mode, data)

    def copy(self, path, src, mode=None):
        src = Path(src)
        self.file(path, src.read_bytes(), mode if mode is not None else stat.S_IMODE(src.stat().st_mode))

    def symlink(self, path, target):
        self._add(path, stat.S_IFLNK | 0o777, target.encode())

    def chardev(self, path, major, minor):
        self._add(path, stat.S_IFCHR | 0o600, b"", (major, minor))

    def tree(self, dest, src):
        src = Path(src)
        for p in sorted(src.rglob("*")):
            rel = f"{dest.strip('/')}/{p.relative_to(src)}"
            if p.is_symlink():
                self.symlink(rel, os.readlink(p))
            elif p.is_dir():
                self.dir(rel)
            elif p.is_file():
                self.copy(rel, p)

    def write(self, out):
        def hdr(ino, mode, size, rdev, name):
            fields = [ino, mode, 0, 0, 1, 0, size, 0, 0, rdev[0], rdev[1], len(name) + 1, 0]
            return b"070701" + b"".join(b"%08X" % f for f in fields) + name + b"\0"

        def pad(n):
            return b"\0" * ((4 - n % 4) % 4)

        with open(out, "wb") as f:
            for ino, path in enumerate(self.order + ["TRAILER!!!"], start=1):
                mode, data, rdev = self.entries.get(path, (0, b"", (0, 0)))
                h = hdr(0 if path == "TRAILER!!!" else ino, mode, len(data), rdev, path.encode())
                f.write(h + pad(len(h)) + data + pad(len(data)))


def shared_libraries(binary):
    """Every library the dynamic loader maps for binary, loader included."""
    r = run(["ldd", str(binary)], check=False)
    if r.returncode != 0:
        return []  # static
    libs = []
    for line in r.stdout.splitlines():
        m = re.search(r"=>\s*(/\S+)", line) or re.match(r"\s*(/\S+)\s+\(", line)
        if m:
            libs.append(m.group(1))
    return libs


def add_binary(c, dest, src):
    """src at dest, with every shared library at the path the loader expects."""
    c.copy(dest, src, 0o755)
    for lib in shared_libraries(src):
        c.copy(lib, os.path.realpath(lib), 0o755)


def build_workload(work):
    out = work / "workload"
    run(["gcc", "-static", "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(out),
         str(HERE / "workload.c")])
    return out


def build_iobench(work):
    """The io-levers scenario's program (static, libc only)."""
    out = work / "iobench"
    run(["gcc", "-static", "-O2", "-pthread", "-Wall", "-Wextra", "-Werror", "-o", str(out),
         str(HERE / "iobench.c")])
    return out


def build_kmsfirst(work):
    """The first-frame baseline: the least a program does to show one KMS frame."""
    out = work / "kmsfirst"
    run(["gcc", "-static", "-O2", "-Wall", "-Wextra", "-I/usr/include/libdrm", "-o", str(out),
         str(HERE / "kmsfirst.c"), "-ldrm"])
    return out


def needed_libraries(binary):
    """Full paths of the libraries binary names in DT_NEEDED (not their own)."""
    r = run(["readelf", "-d", str(binary)], check=False)
    names = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", r.stdout)
    paths = {os.path.basename(p): p for p in shared_libraries(binary)}
    return [paths[n] for n in names if n in paths]


def add_first_frame_tools(c, work, dormouse):
    """kmsfirst-dyn (kmsfirst through the dynamic loader) and the loadprobes:
    static, libc+libdrm, and dormouse's own DT_NEEDED list (when there is a
    dormouse), for the first-frame scenario's loader figures."""
    src = HERE / "kmsfirst.c"
    out = work / "kmsfirst-dyn"
    run(["gcc", "-O2", "-Wall", "-Wextra", "-I/usr/include/libdrm", "-o", str(out), str(src),
         "-ldrm"])
    add_binary(c, "bin/kmsfirst-dyn", out)
    probe = HERE / "loadprobe.c"
    variants = {"static": ["-static"], "drm": ["-Wl,--no-as-needed", "-ldrm"]}
    libs = needed_libraries(dormouse) if dormouse else []
    if libs:
        variants["dormouse"] = ["-Wl,--no-as-needed", *libs]
    for name, flags in variants.items():
        out = work / f"loadprobe-{name}"
        # the flags last: the libraries after the object that (does not) need them
        run(["gcc", "-O2", "-Wall", "-Wextra", "-o", str(out), str(probe), *flags])
        add_binary(c, f"bin/loadprobe-{name}", out)


PLYMOUTH_THEME = "spinfinity"  # two-step, with a gradient that is not black
PLYMOUTH_LIB = Path("/usr/lib/x86_64-linux-gnu/plymouth")


def have_plymouth():
    return (Path("/usr/sbin/plymouthd").exists()
            and (PLYMOUTH_LIB / "two-step.so").exists()
            and Path(f"/usr/share/plymouth/themes/{PLYMOUTH_THEME}").is_dir())


def add_plymouth(c):
    """Debian's plymouthd and client, the two-step plugin, its renderers and
    one two-step theme, set as the system's default (plymouth-handover)."""
    if not have_plymouth():
        return
    add_binary(c, "usr/sbin/plymouthd", "/usr/sbin/plymouthd")
    add_binary(c, "usr/bin/plymouth", "/usr/bin/plymouth")
    for so in ["two-step.so", "details.so", "text.so", "renderers/drm.so",
               "renderers/frame-buffer.so"]:
        src = PLYMOUTH_LIB / so
        if src.exists():
            add_binary(c, str(src).lstrip("/"), src)
    theme = Path("/usr/share/plymouth/themes") / PLYMOUTH_THEME
    c.tree(str(theme).lstrip("/"), theme)
    logo = Path("/usr/share/plymouth/debian-logo.png")  # spinfinity's header-image.png
    if logo.exists():
        c.copy(str(logo).lstrip("/"), logo)
    for base in ("details", "text"):
        d = Path("/usr/share/plymouth/themes") / base
        if d.is_dir():
            c.tree(str(d).lstrip("/"), d)
    conf = f"[Daemon]\nTheme={PLYMOUTH_THEME}\nShowDelay=0\n".encode()
    c.dir("etc/plymouth")
    c.file("etc/plymouth/plymouthd.conf", conf)
    c.file("usr/share/plymouth/plymouthd.defaults", conf)


# What encrypt = tpm needs in the guest beyond dormouse's own libraries:
# tpm2-tss, which dormouse loads on use (ldd does not name it), with the
# device TCTI that tctildr loads in turn.
TSS2_LIBRARIES = ["libtss2-esys.so.0", "libtss2-mu.so.0", "libtss2-tctildr.so.0",
                  "libtss2-tcti-device.so.0"]
LIBDIR = Path("/usr/lib/x86_64-linux-gnu")
# The recovery key of the TPM scenarios (dormouse keygen), its passphrase
# typed on the resume splash when the TPM refuses.
TPM_RECOVERY = "recover9"


def add_tpm_tools(c, work, dormouse):
    """tpm2-tss, tpm2_pcrextend (tpm-pcr-changed changes PCR 7 before the
    resume, as a new boot loader would) and a key pair of dormouse keygen in
    /etc/dormouse, for the tpm scenarios. Missing pieces are left out: the
    scenarios say what is missing."""
    for name in TSS2_LIBRARIES:
        if (LIBDIR / name).exists():
            add_binary(c, str(LIBDIR / name).lstrip("/"), LIBDIR / name)
    tool = shutil.which("tpm2_pcrextend")
    if tool:
        # tpm2-tools is one program that looks at its name
        add_binary(c, "usr/bin/tpm2_pcrextend", os.path.realpath(tool))
    keys = work / "tpm-keys"
    keys.mkdir(exist_ok=True)
    passfile = keys / "pass"
    passfile.write_text(TPM_RECOVERY + "\n")
    passfile.chmod(0o600)
    for f in ("pubkey", "secret.key"):
        (keys / f).unlink(missing_ok=True)
    r = run([str(dormouse), "keygen", "--public-key", str(keys / "pubkey"), "--secret-key",
             str(keys / "secret.key"), "--key-file", str(passfile)], check=False)
    if r.returncode == 0:
        c.dir("etc/dormouse")
        # a build with the default prefix looks in /usr/local/etc
        c.symlink("usr/local/etc/dormouse", "/etc/dormouse")
        c.copy("etc/dormouse/pubkey", keys / "pubkey", 0o644)
        c.copy("etc/dormouse/secret.key", keys / "secret.key", 0o600)
    else:
        log(f"dormouse keygen failed ({r.returncode}): {r.stderr.strip()}")


def build_initramfs(work, kernel, dormouse, workload):
    c = Cpio()
    for d in ["bin", "sbin", "usr/bin", "usr/sbin", "proc", "sys", "dev", "tmp", "run",
              "etc", "root", "lib/modules"]:
        c.dir(d)
    # PID 1 needs a console before it can mount devtmpfs.
    c.chardev("dev/console", 5, 1)
    busybox = shutil.which("busybox") or "/bin/busybox"
    c.copy("bin/busybox", busybox)
    applets = run([busybox, "--list-full"]).stdout.split()
    for a in applets:
        if a.strip("/") != "bin/busybox":
            c.symlink(a, "/bin/busybox")
    c.copy("init", HERE / "init.sh", 0o755)
    c.copy("bin/workload", workload, 0o755)
    c.copy("bin/kmsfirst", build_kmsfirst(work), 0o755)
    c.copy("bin/iobench", build_iobench(work), 0o755)
    add_first_frame_tools(c, work, dormouse)
    order = []
    for rel in kernel.modules:
        name = os.path.basename(rel)
        c.copy(f"lib/modules/{name}", kernel.root / rel)
        order.append(name)
    c.file("modules.order", ("\n".join(order) + "\n").encode())

    # Debian's busybox-static has no blkid applet: util-linux's, which also
    # names hibernation signatures instead of calling them all "swap".
    blkid = shutil.which("blkid") or "/usr/sbin/blkid"
    if os.path.exists(blkid):
        add_binary(c, "sbin/blkid", blkid)
    # The nbd scenarios: the host's nbd-client (package nbd-client), which
    # dormouse runs to connect the export in netlink mode.
    nbd_client = nbd_client_path()
    if nbd_client:
        add_binary(c, "sbin/nbd-client", nbd_client)
    if dormouse:
        add_binary(c, "usr/bin/dormouse", dormouse)
        add_tpm_tools(c, work, dormouse)
        for sub in ("themes", "fonts"):
            if (REPO / sub).is_dir():
                c.tree(f"usr/share/dormouse/{sub}", REPO / sub)
        # A build with the default prefix looks under /usr/local.
        c.symlink("usr/local/share/dormouse", "/usr/share/dormouse")
        c.symlink("usr/local/share/locale", "/usr/share/locale")
        # A build whose DMO_DATADIR kept a literal "${datarootdir}" looks for
        # it relative to the working directory, which is / in the VM.
        c.symlink("${datarootdir}", "/usr/share")
        gmos = set()
        for podir in (REPO / "po", Path(dormouse).resolve().parent / "po"):
            for gmo in podir.glob("*.gmo"):
                if gmo.name not in gmos:
                    gmos.add(gmo.name)
                    c.copy(f"usr/share/locale/{gmo.stem}/LC_MESSAGES/dormouse.mo", gmo)
    add_plymouth(c)
    # the 4k scenario's panel, read by drm.edid_firmware=
    c.file(f"lib/firmware/{EDID_4K_FIRMWARE}", edid_4k_panel())
    path = work / "initrd.cpio"
    c.write(path)
    log(f"initramfs {path} {path.stat().st_size / 1e6:.1f} MB, {len(c.order)} entries"
        + (f", dormouse {dormouse}" if dormouse else ", without dormouse"))
    return path


# The 4k scenario's screen: a 15.6-inch 3840x2160 laptop panel (344 x 194
# mm, 283 dpi). QEMU's virtio-gpu describes any size at 100 dpi (a 44-inch
# screen, which rightly gets scale 1), so its EDID is replaced with this one
# through the kernel's drm.edid_firmware= (CONFIG_DRM_LOAD_EDID_FIRMWARE).
EDID_4K_FIRMWARE = "edid/dmo-4k-15in.bin"
EDID_4K_APPEND = f"drm.edid_firmware=Virtual-1:{EDID_4K_FIRMWARE}"


def edid_4k_panel():
    """An EDID 1.3 base block: one detailed timing, 3840x2160 at 60 Hz
    (CVT reduced blanking, 533.25 MHz), the panel's size, its name."""
    e = bytearray(128)
    e[0:8] = b"\x00\xff\xff\xff\xff\xff\xff\x00"
    e[8:10] = ((4 << 10) | (13 << 5) | 15).to_bytes(2, "big")  # "DMO"
    e[10:12] = (0x4B01).to_bytes(2, "little")  # product code
    e[16], e[17] = 1, 2026 - 1990  # week, year
    e[18], e[19] = 1, 3  # EDID 1.3
    e[20] = 0x80  # digital input
    e[21], e[22] = 34, 19  # cm
    e[23] = 120  # gamma 2.2
    e[24] = 0x0A  # RGB, the first detailed timing is the preferred one
    e[25:35] = bytes.fromhex("ee91a3544c99260f5054")  # sRGB chromaticity
    e[38:54] = b"\x01" * 16  # no standard timings
    hact, hblank, hfp, hsync = 3840, 160, 48, 32
    vact, vblank, vfp, vsync = 2160, 62, 3, 5
    wmm, hmm = 344, 194
    e[54:72] = bytes([
        53325 & 0xff, 53325 >> 8,
        hact & 0xff, hblank & 0xff, ((hact >> 8) << 4) | (hblank >> 8),
        vact & 0xff, vblank & 0xff, ((vact >> 8) << 4) | (vblank >> 8),
        hfp & 0xff, hsync & 0xff, ((vfp & 0xf) << 4) | (vsync & 0xf),
        ((hfp >> 8) << 6) | ((hsync >> 8) << 4) | ((vfp >> 4) << 2) | (vsync >> 4),
        wmm & 0xff, hmm & 0xff, ((wmm >> 8) << 4) | (hmm >> 8),
        0, 0, 0x1A])  # digital separate sync, hsync +, vsync -
    e[72:90] = b"\x00\x00\x00\xfc\x00" + b"dmo 4K 15.6\n".ljust(13, b" ")
    e[90:108] = b"\x00\x00\x00\x10" + bytes(14)  # dummy descriptors
    e[108:126] = b"\x00\x00\x00\x10" + bytes(14)
    e[127] = (-sum(e[:127])) & 0xff
    return bytes(e)


# --------------------------------------------------------------------------
# Screen frames: PPM from QEMU's screendump, PNG written here for people.


class Frame:
    def __init__(self, path, t=0.0):
        self.path = Path(path)
        self.t = t
        data = self.path.read_bytes()
        m = re.match(rb"P6\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
        if not m:
            raise ValueError(f"{path}: not a binary PPM")
        self.w, self.h = int(m.group(1)), int(m.group(2))
        self.px = data[m.end():m.end() + 3 * self.w * self.h]

    def pixel(self, x, y):
        i = 3 * (y * self.w + x)
        return tuple(self.px[i:i + 3])

    def row(self, y):
        return self.px[3 * y * self.w:3 * (y + 1) * self.w]

    def histogram(self, step=4):
        hist = {}
        for y in range(0, self.h, step):
            row = self.row(y)
            for x in range(0, self.w, step):
                p = bytes(row[3 * x:3 * x + 3])
                hist[p] = hist.get(p, 0) + 1
        return hist

    def write_png(self, out):
        raw = b"".join(b"\0" + self.row(y) for y in range(self.h))

        def chunk(kind, body):
            return (struct.pack(">I", len(body)) + kind + body
                    + struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff))

        with open(out, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n")
            f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", self.w, self.h, 8, 2, 0, 0, 0)))
            f.write(chunk(b"IDAT", zlib.compress(raw, 6)))
            f.write(chunk(b"IEND", b""))


CONSOLE_COLOURS = {b"\x00\x00\x00", b"\xaa\xaa\xaa", b"\xff\xff\xff", b"\x55\x55\x55"}


def parse_colour(text):
    m = re.fullmatch(r"#([0-9a-fA-F]{6})(?:[0-9a-fA-F]{2})?", (text or "").strip())
    return tuple(bytes.fromhex(m.group(1))) if m else None


class Theme:
    """The few facts of a theme the frame checks need, from its theme.conf."""

    def __init__(self, name="default"):
        import configparser
        self.name = name
        cp = configparser.ConfigParser(interpolation=None, strict=False)
        path = REPO / "themes" / name / "theme.conf"
        cp.read(path)
        get = lambda sec, key: cp.get(sec, key, fallback=None)
        self.bar = parse_colour(get("progress-bar", "color"))
        self.bar_valign = float(get("progress-bar", "valign") or 0.5)
        self.bar_width = int(get("progress-bar", "width") or 480)
        self.bar_height = int(get("progress-bar", "height") or 10)
        self.detail = parse_colour(get("detail", "color"))
        self.detail_valign = float(get("detail", "valign") or 0.8)
        self.dialog_valign = float(get("dialog", "valign") or 0.5)
        self.dialog_width = int(get("dialog", "width") or 440)
        self.dialog_accent = parse_colour(get("dialog", "accent"))
        bg = [parse_colour(get("background", k)) for k in ("color", "color2")]
        self.background = [c for c in bg if c]

    def background_ok(self, fr):
        """Corner samples lie between the background colours (a gradient)."""
        if not self.background:
            return True
        lo = [min(c[i] for c in self.background) - 12 for i in range(3)]
        hi = [max(c[i] for c in self.background) + 12 for i in range(3)]
        pts = [(4, 4), (fr.w - 5, 4), (4, fr.h - 5), (fr.w - 5, fr.h - 5)]
        return all(lo[i] <= fr.pixel(x, y)[i] <= hi[i] for x, y in pts for i in range(3))


def detail_pixels(fr, theme):
    """Pixels of the theme's detail colour (the error reason) around its line."""
    if theme.detail is None:
        return 0
    c, centre = theme.detail, int(theme.detail_valign * fr.h)
    n = 0
    for y in range(max(0, centre - 30), min(fr.h, centre + 30)):
        row = fr.row(y)
        for x in range(fr.w):
            if (abs(row[3 * x] - c[0]) <= 16 and abs(row[3 * x + 1] - c[1]) <= 16
                    and abs(row[3 * x + 2] - c[2]) <= 16):
                n += 1
    return n


def frame_kind(fr, theme=None):
    """'console' (fbcon text, or black), 'themed' (the theme's background),
    or 'other' (drawn, but not with this theme's background)."""
    hist = fr.histogram()
    total = sum(hist.values())
    console = sum(n for p, n in hist.items() if p in CONSOLE_COLOURS)
    if console > 0.9 * total:
        return "console"
    if theme is not None and not theme.background_ok(fr):
        return "other"
    return "themed"


def longest_run(row, w, near):
    longest = cur = 0
    for x in range(w):
        cur = cur + 1 if near(row[3 * x:3 * x + 3]) else 0
        longest = max(longest, cur)
    return longest


def bar_measure(frames, theme=None):
    """Find the progress bar in a series of themed frames and measure its fill.

    With the theme's bar colour: the fill is the longest horizontal run of
    (nearly) that colour on any row around the bar's position. Without it:
    the bar is the band that changes most between the first and the last
    frame and its colour the most common new colour there.
    Returns (row, fill_colour, [fill widths]).
    """
    first, last = frames[0], frames[-1]
    if theme is not None and theme.bar:
        fill = theme.bar
        centre = int(theme.bar_valign * first.h)
        rows = range(max(0, centre - 60), min(first.h, centre + 60))
    else:
        # the row where most pixels turned into one and the same colour:
        # the fill replacing the empty track (text changes in many colours)
        best_row, fill, best_n = None, None, 0
        for y in range(first.h):
            a, b = first.row(y), last.row(y)
            if a == b:
                continue
            colours = {}
            for x in range(first.w):
                pb = bytes(b[3 * x:3 * x + 3])
                if bytes(a[3 * x:3 * x + 3]) != pb:
                    colours[pb] = colours.get(pb, 0) + 1
            c = max(colours, key=colours.get)
            if colours[c] > best_n:
                best_row, fill, best_n = y, tuple(c), colours[c]
        if best_row is None:
            return None, None, [0] * len(frames)
        y = best_row
        rows = range(max(0, y - 8), min(first.h, y + 9))

    def near(p):
        return abs(p[0] - fill[0]) <= 40 and abs(p[1] - fill[1]) <= 40 and abs(p[2] - fill[2]) <= 40

    # the bar row: where the last (fullest) frame has the longest run
    best = max(rows, key=lambda r: longest_run(last.row(r), last.w, near))
    widths = [longest_run(fr.row(best), fr.w, near) for fr in frames]
    return best, fill, widths


def bar_thickness(fr, theme):
    """The bar's fill height in px: the rows around the bar's position with
    at least half as many pixels of (nearly) the fill colour as the fullest
    row (the rounded ends count for less), or 0 without a fill."""
    fill = theme.bar
    centre = int(theme.bar_valign * fr.h)
    counts = []
    for y in range(max(0, centre - 100), min(fr.h, centre + 100)):
        row = fr.row(y)
        counts.append(sum(1 for x in range(0, fr.w, 2)
                          if all(abs(row[3 * x + i] - fill[i]) <= 40 for i in range(3))))
    top = max(counts, default=0)
    return sum(1 for n in counts if top and n * 2 >= top)


# --------------------------------------------------------------------------
# QEMU


ALL_VMS = set()


# Every VM started by the scenario now running (play() empties it).
STARTED_VMS = []


def emulator_fault(vm):
    """True when the guest kernel died of QEMU rather than of the test:
    multi-threaded TCG ran a stale breakpoint left by the kernel's own text
    patching (text_poke_bp: "Oops: int3" at boot, before any user space ran;
    seen with -smp 2 under host load). Not dormouse's and not the kernel's."""
    with vm.cond:
        for _, text in vm.lines:
            if text.startswith("VMTEST:"):
                return False
            if "Oops: int3" in text:
                return True
    return False


def kill_all_vms():
    for vm in list(ALL_VMS):
        vm.kill()


class VM:
    """One boot. Serial lines are timestamped on the host clock as they arrive."""

    def __init__(self, h, name, vmtest, disk, extra_append="", firmware=None, cpus=None,
                 bzimage=False, efi_vars=None, disk_bps=None, devices=(), write_log=None,
                 blkdebug=None, nic=None, display=None, disk_view=None, initrd=None):
        self.h = h
        self.initrd = initrd  # None: the harness's initramfs
        self.disk_view = disk_view  # the guest sees only so many bytes (disk_args)
        # the display card's QEMU arguments; None: -vga std (bochs-drm)
        self.display = list(display) if display else ["-vga", "std"]
        # heads screendump takes: a card with id GPU_ID and max_outputs=N
        m = re.search(rf"id={GPU_ID},.*max_outputs=(\d+)", " ".join(self.display))
        self.heads = int(m.group(1)) if m else 1
        self.nic = nic  # -nic's value (nbd_nic); None: no network
        self.write_log, self.blkdebug = write_log, blkdebug  # disk_args
        self.devices = list(devices)  # more QEMU arguments (SwTpm.qemu_args)
        self.disk_bps = disk_bps  # the swap disk throttled (disk_args)
        # OVMF with its variables in this file (pflash): they persist from
        # one boot to the next, as a machine's NVRAM does.
        self.efi_vars = efi_vars
        # The bzImage, also under PVH: a guest that suspends to RAM needs it,
        # as the S3 wake of a PVH-booted kernel resets the machine.
        self.bzimage = bzimage
        self.cpus = cpus or CPUS
        self.firmware = firmware  # a -bios image (UEFI), None: SeaBIOS
        self.name = name
        self.sock = h.work / f"mon-{name}.sock"
        self.logpath = h.work / f"serial-{name}.log"
        self.append = f"{BASE_APPEND} vmtest={vmtest} {extra_append} {h.args.append}".strip()
        self.disk = disk
        self.lines = []  # (t, text)
        # (arrival time, text) of every piece of the console's output that
        # ends in "\r" or "\n": dormouse's text progress redraws one line
        # with "\r" ("Restoring memory [###   ] 65%  106 MB/s  1 s left"),
        # which reaches self.lines only with the next newline.
        self.pieces = []
        self.cond = threading.Condition()
        self.proc = None
        self.mon = None
        self.exit_t = None
        self.start_t = None

    def start(self):
        if self.sock.exists():
            self.sock.unlink()
        cmd = [self.h.qemu, *self.h.accel_args, "-smp", str(self.cpus), "-m", MEMORY, "-no-reboot",
               *(["-bios", str(self.firmware)] if self.firmware else []),
               *(["-drive", f"if=pflash,format=raw,unit=0,readonly=on,file={OVMF_CODE}",
                  "-drive", f"if=pflash,format=raw,unit=1,file={self.efi_vars}"]
                 if self.efi_vars else []),
               "-kernel", str(self.h.kernel.vmlinuz if self.firmware or self.bzimage or
                              self.efi_vars else self.h.boot_kernel),
               "-initrd", str(self.initrd or self.h.initrd),
               "-append", self.append,
               *disk_args(self.disk, self.disk_bps, self.write_log, self.blkdebug,
                          self.disk_view),
               *self.devices,
               *self.display, "-display", "none", "-nic", self.nic or "none",
               "-serial", "stdio", "-monitor", f"unix:{self.sock},server,nowait"]
        self.errlog = open(self.h.work / f"qemu-{self.name}.stderr", "wb")
        self.start_t = time.monotonic()
        self.deadline = self.start_t + BOOT_TIMEOUT
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=self.errlog, start_new_session=True)
        ALL_VMS.add(self)
        STARTED_VMS.append(self)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        return self

    def _read(self):
        # The log holds finished lines; the raw bytes beside it keep what
        # \r redraws (systemd's status spinner) and a prompt still open.
        with open(self.logpath, "w") as logf, open(self.logpath.with_suffix(".raw"), "wb") as rawf:
            buf = pend = b""
            while True:
                chunk = self.proc.stdout.read1(65536)
                if not chunk:
                    break
                rawf.write(chunk)
                rawf.flush()
                t = time.monotonic()
                parts = re.split(rb"[\r\n]", pend + chunk)
                pend = parts.pop()
                self._saw(t, parts, pend)
                with self.cond:
                    self.pieces += [(t, x.decode("utf-8", "replace")) for x in parts if x]
                buf += chunk
                while b"\n" in buf:
                    raw, buf = buf.split(b"\n", 1)
                    text = raw.decode("utf-8", "replace").rstrip("\r")
                    logf.write(f"[{t - self.start_t:8.3f}] {text}\n")
                    logf.flush()
                    with self.cond:
                        self.lines.append((t, text))
                        self.cond.notify_all()
            self.proc.wait()
            with self.cond:
                self.exit_t = time.monotonic()
                if buf:
                    self.lines.append((self.exit_t, buf.decode("utf-8", "replace")))
                self.cond.notify_all()

    def _saw(self, t, parts, pend):
        """Per chunk of the console, before it is stored: the finished
        pieces and the line still open (bytes). For subclasses that answer
        prompts; nothing here."""

    def wait_for(self, pattern, timeout=60.0, since=0):
        """First serial line from index since matching pattern: (index, t, match).

        None when QEMU exited or the time ran out first."""
        rx = re.compile(pattern)
        end = min(time.monotonic() + timeout, self.deadline)
        i = since
        with self.cond:
            while True:
                while i < len(self.lines):
                    m = rx.search(self.lines[i][1])
                    if m:
                        return i, self.lines[i][0], m
                    i += 1
                left = end - time.monotonic()
                if self.exit_t is not None or left <= 0:
                    return None
                self.cond.wait(min(left, 0.5))

    def find_all(self, pattern):
        rx = re.compile(pattern)
        with self.cond:
            return [(i, t, m) for i, (t, s) in enumerate(self.lines) for m in [rx.search(s)] if m]

    def wait_exit(self, timeout=None):
        end = self.deadline if timeout is None else min(self.deadline, time.monotonic() + timeout)
        with self.cond:
            while self.exit_t is None and time.monotonic() < end:
                self.cond.wait(min(0.5, max(0.0, end - time.monotonic())))
            return self.exit_t

    def hmp(self, command, timeout=15.0):
        """One human monitor command; returns its output."""
        if self.mon is None:
            end = time.monotonic() + 10
            while True:
                try:
                    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    s.connect(str(self.sock))
                    break
                except OSError:
                    s.close()
                    if time.monotonic() > end or self.exit_t is not None:
                        raise
                    time.sleep(0.1)
            s.settimeout(timeout)
            self.mon = s
            self._hmp_read()  # banner
        self.mon.sendall(command.encode() + b"\n")
        return self._hmp_read()

    def hang_report(self, quiet_s=2.0, timeout=20.0):
        """What a guest that stopped answering was doing, for the failure's
        message: each vCPU's instruction pointer and state from QEMU, then the
        kernel's own backtraces of the CPUs and of the blocked tasks (SysRq l
        and w, typed on the emulated keyboard: the boot line carries
        sysrq_always_enabled), read from the console until it has been quiet
        for quiet_s. Empty when QEMU is gone."""
        if self.exit_t is not None:
            return ""
        out = []
        try:
            regs = self.hmp("info registers -a", timeout=10)
            for cpu, rip, hlt in re.findall(r"CPU#(\d+).*?RIP=([0-9a-f]+).*?HLT=(\d)", regs, re.S):
                out.append(f"vCPU {cpu}: RIP {rip}{' (halted)' if hlt == '1' else ''}")
            since = len(self.lines)
            for key in ("alt-sysrq-l", "alt-sysrq-w"):
                self.hmp(f"sendkey {key}", timeout=10)
        except OSError as e:
            return f"(no answer from QEMU's monitor: {e})"
        end = time.monotonic() + timeout
        with self.cond:
            while self.exit_t is None and time.monotonic() < end:
                last = self.lines[-1][0] if len(self.lines) > since else None
                if last is not None and time.monotonic() - last >= quiet_s:
                    break
                self.cond.wait(0.2)
            kernel = [s for _, s in self.lines[since:]]
        out.append(f"SysRq l+w: {len(kernel)} console lines")
        out += kernel
        return "\n".join(f"    ! {s}" for s in out)

    def _hmp_read(self):
        buf = b""
        while not buf.endswith(b"(qemu) "):
            chunk = self.mon.recv(65536)
            if not chunk:
                raise OSError("monitor closed")
            buf += chunk
        return buf.decode("utf-8", "replace")

    def screendump(self, path):
        """Binary PPM of the current screen; None once the VM is gone. With
        more heads (display_heads), each further head's screen goes beside
        it, as head_path(path, k)."""
        if self.exit_t is not None:
            return None
        try:
            out = self.hmp(f"screendump {path}" + (f" {GPU_ID} 0" if self.heads > 1 else ""))
            for k in range(1, self.heads):
                self.hmp(f"screendump {head_path(path, k)} {GPU_ID} {k}")
        except OSError:
            return None
        if "rror" in out or not Path(path).exists():
            return None
        return Path(path)

    def sendkey(self, key):
        return self.hmp(f"sendkey {key}")

    def kill(self):
        if self.mon is not None:
            try:
                self.mon.close()
            except OSError:
                pass
            self.mon = None
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
        ALL_VMS.discard(self)
        if hasattr(self, "errlog"):
            self.errlog.close()

    # The first line of a kernel crash report: a panic's tail alone ends in
    # registers and says nothing of what went wrong.
    OOPS_START = re.compile(r"\b(BUG:|Oops|general protection fault|kernel BUG at|invalid opcode|"
                            r"Unable to handle|Kernel panic)")

    def tail(self, n=15):
        """The console's last n lines; where the guest crashed near the end
        (a report starting in the last 60 lines), the report from its first
        line instead."""
        with self.cond:
            lines = [s for _, s in self.lines]
        start = max(0, len(lines) - n)
        for i in range(max(0, len(lines) - 60), start):
            if self.OOPS_START.search(lines[i]):
                start = i
                break
        return "\n".join(f"    | {s}" for s in lines[start:])

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.kill()


def kvm_works(h):
    """KVM only when it demonstrably boots our kernel; nested PVM does not."""
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return False, "no usable /dev/kvm"
    flags = Path("/proc/cpuinfo").read_text()
    if not re.search(r"^flags\s*:.*\b(vmx|svm)\b", flags, re.M):
        return False, "/dev/kvm without vmx/svm (nested PVM, known to hang)"
    saved = h.accel_args
    h.accel_args = ["-accel", "kvm", "-cpu", "max"]
    try:
        disk = h.new_disk("kvm-probe")
        with VM(h, "kvm-probe", "probe", disk) as vm:
            vm.deadline = vm.start_t + 30
            ok = vm.wait_for(r"VMTEST: PROBE ok", 30) is not None
        return ok, "probe boot " + ("passed" if ok else "failed")
    finally:
        h.accel_args = saved


# --------------------------------------------------------------------------
# Scenarios


class Harness:
    def __init__(self, args):
        self.args = args
        self.work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="dmo-vm-"))
        self.work.mkdir(parents=True, exist_ok=True)
        self.qemu = shutil.which("qemu-system-x86_64")
        self.accel_args = ["-accel", "tcg,thread=multi", "-cpu", "max"]
        self.kernel = None
        self.boot_kernel = None
        self.initrd = None
        self.dormouse = None
        self.dormouse_problem = None
        self.figures = {}
        self.theme = Theme("default")

    def new_disk(self, name, size=DISK_SIZE):
        disk = self.work / f"disk-{name}.img"
        with open(disk, "wb") as f:
            f.truncate(size)
        return disk

    def out_dir(self, name):
        d = OUT / name
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
        return d

    def need_dormouse(self):
        if self.dormouse_problem:
            raise Failure(self.dormouse_problem)

    def dormouse_info(self, disk):
        """`dormouse info --json` on the host, or None if it cannot say."""
        if not self.dormouse:
            return None
        r = run([str(self.dormouse), "info", "--json", str(disk)], check=False)
        if r.returncode != 0:
            return None
        try:
            return json.loads(r.stdout)
        except ValueError:
            return None


def expect(vm, pattern, what, timeout=60.0, since=0):
    hit = vm.wait_for(pattern, timeout, since)
    if hit is None:
        state = "QEMU exited" if vm.exit_t is not None else "timed out"
        raise Failure(f"{vm.name}: {what} not seen ({state}); serial log {vm.logpath}:\n{vm.tail()}")
    return hit


def expect_exit(vm, what, timeout=None):
    t = vm.wait_exit(timeout)
    if t is None:
        raise Failure(f"{vm.name}: QEMU did not exit ({what}); serial log {vm.logpath}:\n{vm.tail()}")
    return t


def last_tick(vm):
    ticks = vm.find_all(r"^TICK (\d+)")
    return int(ticks[-1][2].group(1)) if ticks else 0


def check_restored_workload(vm, boot1_checksum, boot1_token, boot1_counter, since=0):
    _, _, m = expect(vm, r"VMTEST: WORKLOAD (ok|BAD) checksum=(\w+) expected=(\w+) counter=(\d+) "
                         r"token=(\w+)", "the workload's verdict after resume", 60, since)
    if m.group(1) != "ok":
        raise Failure(f"{vm.name}: workload memory or token changed: {m.group(0)}")
    if m.group(2) != boot1_checksum:
        raise Failure(f"{vm.name}: checksum {m.group(2)} differs from boot 1's {boot1_checksum}")
    if m.group(5) != boot1_token:
        raise Failure(f"{vm.name}: token {m.group(5)} differs from boot 1's {boot1_token}")
    if int(m.group(4)) <= boot1_counter:
        raise Failure(f"{vm.name}: counter {m.group(4)} did not continue past {boot1_counter}")
    return m


def expect_restored(vm, res, idx, what, command="hibernate", timeout=90):
    """The resume that started at line idx (what: what started it, for the
    failure) restored boot 1's system (res): the workload ticks, boot 1's
    command returns 0, the workload's memory checks out, and the guest
    powers off. Returns when it ticked."""
    hit = vm.wait_for(r"^TICK \d+|VMTEST: DORMOUSE resume rc=(\d+)", timeout, idx)
    if hit is None or hit[2].group(1) is not None:
        rc = hit[2].group(1) if hit else "none"
        raise Failure(f"{vm.name}: {what} did not restore the image (rc={rc}); "
                      f"serial log {vm.logpath}:\n{vm.tail(25)}")
    expect(vm, rf"VMTEST: DORMOUSE {command} rc=0", f"the {command} exiting 0", 60, idx)
    check_restored_workload(vm, res["checksum"], res["token"], res["counter"], idx)
    expect_exit(vm, "power-off after the check")
    return hit[1]


def boot1_workload(vm):
    _, _, m = expect(vm, r"VMTEST: WORKLOAD start pid=\d+ mib=\d+ checksum=(\w+) token=(\w+)",
                     "the workload's start", 90)
    expect(vm, r"VMTEST: TOKEN " + m.group(2), "the token in tmpfs", 30)
    return m.group(1), m.group(2)


def first_tick(vm):
    hit = vm.wait_for(r"^TICK \d+", 5)
    return hit[1] if hit else None


def scenario_kernel_baseline(h):
    f = kernel_round_trip(h, "kb")
    h.figures["kernel-baseline"] = f
    return kernel_summary(f)


def kernel_summary(f):
    stored = f" stored as {f['stored_kib']} KiB" if f["stored_kib"] else ""
    algo = f" ({f['compressor']})" if f["compressor"] else ""
    return (f"hibernate {f['hibernate_s']:.2f} s, resume {f['resume_s']:.2f} s "
            f"({f['resume_cmd_s']:.2f} s from the resume command), image {f['image_kib']} KiB"
            f"{stored}{algo}")


def kernel_has_compressor(kernel, algo):
    """hibernate.compressor= exists (6.9 and later: the config then has
    HIBERNATION_COMP_LZO or _LZ4) and the algorithm's crypto is built."""
    if kernel.config("HIBERNATION_COMP_LZO") is None and kernel.config("HIBERNATION_COMP_LZ4") is None:
        return False
    return kernel.config(f"CRYPTO_{algo.upper()}") in ("y", "m")


def scenario_kernel_lz4(h):
    """The kernel's own path with hibernate.compressor=lz4 on boot 1's command
    line only: the algorithm is in the image's header, and the resume boot
    needs the lz4 module (loaded by init.sh with the others) to read it."""
    if not kernel_has_compressor(h.kernel, "lz4"):
        raise Failure(f"{h.kernel.kver} has no hibernate.compressor=lz4 (6.9 and later with "
                      f"CONFIG_CRYPTO_LZ4)")
    f = kernel_round_trip(h, "kz", append="hibernate.compressor=lz4")
    if f["compressor"] != "lz4" or f["decompressor"] != "lz4":
        raise Failure(f"kz: the kernel compressed with {f['compressor']} and decompressed with "
                      f"{f['decompressor']}, not lz4 (serial logs {h.work}/serial-kz-*.log)")
    h.figures["kernel-lz4"] = f
    return kernel_summary(f)


def kernel_round_trip(h, name, cpus=None, append=""):
    """The kernel's own hibernation and resume (boots NAME-1, NAME-2) with
    the workload; its figures: hibernate_s (command → QEMU exit), resume_s
    (QEMU start of boot 2 → the workload's first tick), resume_cmd_s (the
    resume command → that tick), image_kib, stored_kib (6.12's "Image size
    after compression"; None where the kernel logs no size), compressor and
    decompressor (from its "Using N thread(s) for ALGO compression" lines;
    None where they name no algorithm). append: boot 1's extra command line."""
    disk = h.new_disk(name)
    with VM(h, f"{name}-1", "kb-hibernate", disk, f"{SPEED_APPEND} {append}".strip(),
            cpus=cpus) as vm:
        checksum, token = boot1_workload(vm)
        # The text console must not pass for a splash: this keeps the frame
        # checks of the dormouse scenarios honest.
        shot = vm.screendump(h.work / "kb-console.ppm")
        if shot is None:
            raise Failure(f"{vm.name}: screendump through the monitor failed")
        console = Frame(shot)
        console.write_png(h.out_dir("kernel-baseline") / "console.png")
        if frame_kind(console, h.theme) != "console":
            raise Failure(f"{vm.name}: the text console was classified as "
                          f"{frame_kind(console, h.theme)!r}; see {OUT / 'kernel-baseline'}")
        _, t_start, _ = expect(vm, r"VMTEST: HIBERNATE start", "the hibernate command", 30)
        t_exit = expect_exit(vm, "kernel hibernation should power off")
        counter = last_tick(vm)
        if vm.find_all(r"VMTEST: RESUMED"):
            raise Failure(f"{vm.name}: echo disk > /sys/power/state returned instead of "
                          f"powering off:\n{vm.tail()}")
        wrote = vm.find_all(r"Wrote (\d+) kbytes in ([\d.]+) seconds")
        kib = int(wrote[-1][2].group(1)) if wrote else None
        after = vm.find_all(r"Image size after compression: (\d+) kbytes")
        stored = int(after[-1][2].group(1)) if after else None
        comp = vm.find_all(r"Using \d+ thread\(s\) for (\w+) compression")
        algo = comp[-1][2].group(1) if comp else None
        used, before = memused(vm), memstat(vm, "before")
    with VM(h, f"{name}-2", "kb-resume", disk, cpus=cpus) as vm:
        expect(vm, r"VMTEST: SIG S1SUSPEND", "the kernel's S1SUSPEND signature", 60)
        t_cmd = expect(vm, r"VMTEST: RESUME try", "the resume command", 60)[1]
        t_alive = expect(vm, r"^TICK \d+", "the workload's counter after resume", 60)[1]
        check_restored_workload(vm, checksum, token, counter)
        expect_exit(vm, "power-off after the check")
        decomp = vm.find_all(r"Using \d+ thread\(s\) for (\w+) decompression")
        after = memstat(vm, "after")
    return {"hibernate_s": t_exit - t_start, "resume_s": t_alive - vm.start_t,
            "resume_cmd_s": t_alive - t_cmd, "image_kib": kib, "stored_kib": stored,
            "compressor": algo, "decompressor": decomp[-1][2].group(1) if decomp else None,
            "memused": used, "swapped_out": swapped_out(before, after)}


def memused(vm):
    """init.sh's MEMUSED line (vmcache= given): (percent of RAM in use, kB
    of RAM, kB cached), or None."""
    hits = vm.find_all(r"VMTEST: MEMUSED (\d+) % of (\d+) kB, (\d+) kB cached")
    return tuple(int(x) for x in hits[-1][2].groups()) if hits else None


def swapped_out(before, after):
    """Pages the hibernation pushed to swap (pswpout between the MEMSTAT
    lines before it and in the restored system), or None without them."""
    if not before or not after or "pswpout" not in before or "pswpout" not in after:
        return None
    return int(after["pswpout"]) - int(before["pswpout"])


def eta_error(vm, phase, end_pattern):
    """Issue 35's ETA: the first piece of dormouse's text progress for
    `phase` that shows a time left ("Restoring memory [###  ] 65%  106 MB/s
    1 s left", or a line "[ 20%] Restoring memory: ..., 7 s left") against
    the real time from it to the phase's end (the first piece matching
    end_pattern after it). Both are the host's arrival times of serial
    output, so the serial path's delay cancels out. Returns (error %, shown
    s, real s) or None without such output."""
    with vm.cond:
        pieces = list(vm.pieces)
    rx, end_rx = re.compile(rf"{phase}\b.*?(\d+) (s|min) left"), re.compile(end_pattern)
    for i, (t0, text) in enumerate(pieces):
        m = rx.search(text)
        if m:
            shown = int(m.group(1)) * (60 if m.group(2) == "min" else 1)
            end = next((t for t, x in pieces[i:] if end_rx.search(x)), None)
            if end is None:
                return None
            real = end - t0
            return ((shown - real) / real * 100 if real > 0 else float("inf")), shown, real
    return None


def eta_ok(err):
    """Within +-50 % of the real time left (issue 35) once the display's own
    error is allowed for: the text shows whole seconds, rounded, which adds
    up to half a second to the estimate's error, and the serial lines'
    arrival times 0.25 s more. (An estimate of 2.5 s for 1.88 s, +33 %, is
    shown as "3 s", +60 %: that was judged off, and failed a run on a
    loaded host.)"""
    pct, shown, real = err
    return abs(shown - real) <= 0.5 * real + 0.5 + 0.25


def dormouse_boot1(h, name, disk, extra_append="", screenshots=None, abort_after=None,
                   cpus=None, disk_bps=None, devices=(), efi_vars=None, write_log=None,
                   blkdebug=None, nic=None, display=None):
    """Boot 1 with dormouse hibernating. Returns a dict of what happened.

    abort_after: press Esc once the bar's fill reaches this fraction."""
    res = {"shots": []}
    with VM(h, name, "dm-hibernate", disk, extra_append, cpus=cpus, disk_bps=disk_bps,
            devices=devices, efi_vars=efi_vars, write_log=write_log, blkdebug=blkdebug,
            nic=nic, display=display) as vm:
        res["vm"] = vm
        res["checksum"], res["token"] = boot1_workload(vm)
        # 90 s: vmswapfirst= fills memory into swap first.
        idx, t_start, _ = expect(vm, r"VMTEST: DORMOUSE hibernate start", "dormouse hibernate", 90)
        res["t_start"] = t_start
        if screenshots or abort_after is not None:
            shots_dir = h.work / f"shots-{name}"
            shots_dir.mkdir(exist_ok=True)
            n = 0
            aborted = False
            while vm.exit_t is None and time.monotonic() < vm.deadline:
                if vm.wait_for(r"VMTEST: DORMOUSE hibernate rc=", 0, idx):
                    break
                n += 1
                p = vm.screendump(shots_dir / f"hib-{n:03d}.ppm")
                if p:
                    res["shots"].append((time.monotonic() - t_start, p))
                if abort_after is not None and not aborted and p:
                    fr = Frame(p)
                    # the write phase: the bar is past the snapshot's share
                    if frame_kind(fr, h.theme) == "themed":
                        fill = bar_measure([fr], h.theme)[2][0]
                        if fill >= abort_after * h.theme.bar_width:
                            vm.sendkey("esc")
                            res["t_esc"] = time.monotonic()
                            res["esc_fill"] = fill / h.theme.bar_width
                            aborted = True
                time.sleep(screenshots or 0.3)
        hit = vm.wait_for(r"VMTEST: DORMOUSE hibernate rc=(\d+)", BOOT_TIMEOUT, idx)
        res["t_exit"] = vm.wait_exit()
        res["counter"] = last_tick(vm)
        res["rc"] = int(hit[2].group(1)) if hit else None
        if res["t_exit"] is None:
            shot = vm.screendump(h.work / f"{name}-timeout.ppm")
            where = ""
            if shot:
                png = OUT / f"{name}-timeout.png"
                OUT.mkdir(exist_ok=True)
                Frame(shot).write_png(png)
                where = f" (screen: {png})"
            raise Failure(f"{name}: QEMU still running at the boot timeout{where}:\n{vm.tail()}")
    return res


def require_powered_off(res):
    vm = res["vm"]
    if res["rc"] is not None:
        raise Failure(f"{vm.name}: dormouse hibernate returned rc={res['rc']} without powering off; "
                      f"serial log {vm.logpath}:\n{vm.tail()}")


def dormouse_resume_boot(h, name, disk, res, extra_append="", screenshots=None, cpus=None,
                         command="hibernate", bzimage=False, efi_vars=None, disk_bps=None,
                         nic=None, display=None):
    """Boot 2 that must restore res's system. Returns (vm, t_alive, shots);
    vm.resume_cmd_t is when the resume command started. command: the boot 1
    command whose "rc=0" the restored system prints."""
    shots = []
    with VM(h, name, "dm-resume-auto" if efi_vars else "dm-resume", disk, extra_append, cpus=cpus,
            bzimage=bzimage, efi_vars=efi_vars, disk_bps=disk_bps, nic=nic,
            display=display) as vm:
        idx, t0, _ = expect(vm, r"VMTEST: DORMOUSE resume start", "dormouse resume", 60)
        vm.resume_cmd_t = t0
        if screenshots:
            shots_dir = h.work / f"shots-{name}"
            shots_dir.mkdir(exist_ok=True)
            n = 0
            while vm.exit_t is None and not vm.wait_for(r"^TICK \d+|VMTEST: DORMOUSE", 0, idx + 1):
                n += 1
                p = vm.screendump(shots_dir / f"res-{n:03d}.ppm")
                if p:
                    shots.append((time.monotonic() - t0, p))
                time.sleep(screenshots)
        t_alive = expect_restored(vm, res, idx, "dormouse resume", command)
    return vm, t_alive, shots


def image_kib(h, disk):
    """(memory image KiB, stored KiB) from `dormouse info --json`, or (None, None)."""
    info = h.dormouse_info(disk)
    hdr = (info or {}).get("header") or {}
    raw, stored = hdr.get("raw_bytes"), hdr.get("stored_bytes")
    if info is not None:
        log(f"dormouse info: status {info.get('status')}, {hdr.get('image_pages')} pages, "
            f"raw {raw} bytes, stored {stored} bytes ({hdr.get('compression')})")
    return (raw // 1024 if isinstance(raw, int) else None,
            stored // 1024 if isinstance(stored, int) else None)


# The text progress's phases, and what ends each: the next phase's text,
# the end of the data phase (DORMOUSE_DEBUG_TIMING's memory line, which
# init.sh turns on; the text progress prints a line at each tenth, so the
# last of the write phase may be all it says) or the hibernation's end (its
# power-off, the kernel's last words).
ETA_PHASES = {"hibernate": ("Saving memory to disk", r"Finishing the image|Powering off|"
                            r"memory at the end of the data phase|"
                            r"reboot: Power down|VMTEST: DORMOUSE hibernate rc"),
              "resume": ("Restoring memory", r"Starting the saved system")}


def dormouse_round_trip(h, name, cpus=None, disk_bps=None):
    """dormouse's hibernation and resume (boots NAME-1, NAME-2) with the
    workload, checked as scenario_dormouse_roundtrip says; its figures as
    kernel_round_trip's, the image's stored size, and the error of the first
    time left shown at hibernate and resume (eta_error, None without one).
    disk_bps: the swap disk throttled. Returns (figures, the resume boot's
    VM)."""
    disk = h.new_disk(name)
    res = dormouse_boot1(h, f"{name}-1", disk, SPEED_APPEND, cpus=cpus, disk_bps=disk_bps)
    require_powered_off(res)
    kib, stored = image_kib(h, disk)
    vm, t_alive, _ = dormouse_resume_boot(h, f"{name}-2", disk, res, cpus=cpus,
                                          disk_bps=disk_bps)
    require_direct_io(res["vm"], "data phase")
    require_direct_io(vm, "load phase")
    require_no_reclaim_and_pref_back(res["vm"], vm)
    return ({"hibernate_s": res["t_exit"] - res["t_start"], "resume_s": t_alive - vm.start_t,
             "resume_cmd_s": t_alive - vm.resume_cmd_t, "image_kib": kib,
             "stored_kib": stored,
             "eta_hibernate": eta_error(res["vm"], *ETA_PHASES["hibernate"]),
             "eta_resume": eta_error(vm, *ETA_PHASES["resume"])}, vm)


def eta_verdict(fig, vm, what, must_show=False):
    """The TAP detail of a round trip (what, the time left, the kernel's
    warnings), or Failure when a first time left is off (eta_detail) or,
    must_show, missing."""
    eta, problems = eta_detail(fig)
    if must_show:
        problems += [f"no time left was shown at {side}" for side in ("hibernate", "resume")
                     if fig[f"eta_{side}"] is None]
    detail = f"{what}, {eta}{kernel_warnings(vm)}"
    if problems:
        raise Failure("; ".join(problems) + "\n" + detail)
    return detail


def eta_detail(fig):
    """(the ETA's TAP words, problems): the first time left of each side
    against the real time left, within eta_ok's bounds."""
    words, problems = [], []
    for side in ("hibernate", "resume"):
        err = fig.get(f"eta_{side}")
        if err is None:
            words.append(f"eta error ({side}): no time left shown")
            continue
        line = f"eta error ({side}): {err[0]:+.0f} % ({err[1]} s shown, {err[2]:.2f} s real)"
        words.append(line)
        if not eta_ok(err):
            problems.append(f"the first time left is off by more than 50 %: {line}")
    return ", ".join(words), problems


def scenario_dormouse_roundtrip(h):
    h.need_dormouse()
    fig, vm = dormouse_round_trip(h, "rt")
    h.figures["dormouse-roundtrip"] = fig
    return eta_verdict(fig, vm, f"hibernate {fig['hibernate_s']:.2f} s, resume "
                                f"{fig['resume_s']:.2f} s ({fig['resume_cmd_s']:.2f} s from the "
                                f"resume command), image {fig['image_kib']} KiB stored as "
                                f"{fig['stored_kib']} KiB")


# A slow disk for the time left: a quarter of what this machine's TCG guest
# writes unthrottled, so the data phases last seconds, not one.
SLOW_DISK_BPS = 24 * 1000 * 1000


def scenario_eta_slow_disk(h):
    """Issue 35: on a swap disk QEMU throttles to 24 MB/s, the first time
    left dormouse shows at hibernate and at resume is within 50 % of the
    real time left (dormouse-roundtrip checks the same on the plain disk)."""
    h.need_dormouse()
    fig, vm = dormouse_round_trip(h, "eta", disk_bps=SLOW_DISK_BPS)
    h.figures["eta-slow-disk"] = fig
    # Seconds of data on this disk: a figure must have been shown.
    return eta_verdict(fig, vm, f"disk {SLOW_DISK_BPS / 1e6:.0f} MB/s: hibernate "
                                f"{fig['hibernate_s']:.2f} s, resume {fig['resume_cmd_s']:.2f} s "
                                f"from the resume command, stored {fig['stored_kib']} KiB",
                       must_show=True)


def paired_rounds(h, key, prefix, cpus, target):
    """Both paths with cpus vCPUs, alternating kernel and dormouse for
    h.args.rounds rounds so that a slow spell of the host hits both; the
    ratios are of the medians (with two rounds, the means) and of each
    path's fastest run. Figures into h.figures[key], never a failure on
    time; the round trips are checked as in kernel-baseline and
    dormouse-roundtrip. Returns the TAP detail."""
    h.need_dormouse()
    kern, ours = [], []
    rounds = h.args.rounds
    for r in range(1, rounds + 1):
        kern.append(kernel_round_trip(h, f"kb{prefix}{r}", cpus=cpus))
        ours.append(dormouse_round_trip(h, f"rt{prefix}{r}", cpus=cpus)[0])
    keys = ("hibernate_s", "resume_s", "resume_cmd_s")
    med = {side: {k: median([f[k] for f in runs]) for k in keys}
           for side, runs in (("kernel", kern), ("dormouse", ours))}
    ratio = {k: med["dormouse"][k] / med["kernel"][k] for k in keys}
    # The host only ever adds time: the fastest run of each path is the
    # other estimate, one a single slow spell cannot move.
    best = {k: min(f[k] for f in ours) / min(f[k] for f in kern) for k in keys}
    h.figures[key] = {"cpus": cpus, "rounds": rounds, "prefix": prefix, "medians": med,
                      "ratios": ratio, "ratios_of_fastest": best, "kernel_runs": kern,
                      "dormouse_runs": ours}
    runs = lambda side, k: "/".join(f"{f[k]:.2f}" for f in (kern if side == "kernel" else ours))
    return (f"medians of {rounds} rounds, kernel / dormouse: hibernate "
            f"{med['kernel']['hibernate_s']:.2f} / {med['dormouse']['hibernate_s']:.2f} s "
            f"({ratio['hibernate_s']:.2f}x), resume from the command "
            f"{med['kernel']['resume_cmd_s']:.2f} / {med['dormouse']['resume_cmd_s']:.2f} s "
            f"({ratio['resume_cmd_s']:.2f}x), from power-on {med['kernel']['resume_s']:.2f} / "
            f"{med['dormouse']['resume_s']:.2f} s ({ratio['resume_s']:.2f}x) (target {target}); "
            f"fastest runs: hibernate {best['hibernate_s']:.2f}x, resume from the command "
            f"{best['resume_cmd_s']:.2f}x, from power-on {best['resume_s']:.2f}x; runs hibernate "
            f"{runs('kernel', 'hibernate_s')} / {runs('dormouse', 'hibernate_s')}, "
            f"resume from the command {runs('kernel', 'resume_cmd_s')} / "
            f"{runs('dormouse', 'resume_cmd_s')}")


def scenario_one_cpu(h):
    """The issue's 1-vCPU comparison (target: dormouse at most 1.0x the
    kernel, both ways) as paired rounds: kernel-baseline and
    dormouse-roundtrip are one run each."""
    return paired_rounds(h, "one-cpu", "1c", 1, "1.0x")


def scenario_two_cpus(h):
    """The same with two vCPUs (dormouse compresses on each; the kernel
    compresses with one LZO thread per CPU beyond the first, so one here:
    its log says "Using 1 thread(s) for compression"). Target: dormouse at
    most 0.8x the kernel."""
    return paired_rounds(h, "two-cpus", "2c", 2, "0.8x")


def require_direct_io(vm, phase):
    """The image's transfers bypassed the page cache (DORMOUSE_DEBUG_TIMING's
    profile line says how they went): after the snapshot the kernel is short
    of memory, and a misaligned header read once turned O_DIRECT off for the
    whole run without anyone noticing."""
    hits = vm.find_all(rf"dormouse: timing: {phase}\b.*; (direct I/O|through the page cache)$")
    if not hits:
        raise Failure(f"{vm.name}: no '{phase}' profile line; serial log {vm.logpath}")
    how = hits[-1][2].group(1)
    if how != "direct I/O":
        raise Failure(f"{vm.name}: the image's {phase} went {how}, not direct I/O; "
                      f"serial log {vm.logpath}")


def memstat(vm, when):
    """init.sh's MEMSTAT line (before the hibernation, or in the restored
    system after it) as a dict of its counters, or None."""
    hits = vm.find_all(rf"VMTEST: MEMSTAT {when} (.*)$")
    if not hits:
        return None
    # "MemFree: 61028 kB": the unit would shift every pair after it
    words = [w for w in hits[-1][2].group(1).replace(":", "").split() if w != "kB"]
    return {k: v for k, v in zip(words[::2], words[1::2])}


def require_no_reclaim_and_pref_back(vm1, vm2):
    """dormouse asks for the kernel's preferred image size plus its own
    memory, so the kernel pushes nothing to swap that its own path would
    not (this workload fits the kernel's preference), and the preference
    is set back in the restored system. The counters are in the image, so
    the restored system's are the hibernation's own."""
    before, after = memstat(vm1, "before"), memstat(vm2, "after")
    if before is None or after is None:
        raise Failure(f"{vm2.name}: no MEMSTAT line before or after; serial logs "
                      f"{vm1.logpath}, {vm2.logpath}")
    if after.get("image_size") != before.get("image_size"):
        raise Failure(f"{vm2.name}: /sys/power/image_size was {before.get('image_size')} before "
                      f"the hibernation and is {after.get('image_size')} after it; serial log "
                      f"{vm2.logpath}")
    swapped = int(after.get("pswpout", 0)) - int(before.get("pswpout", 0))
    if swapped:
        raise Failure(f"{vm2.name}: the kernel swapped {swapped} pages out before the snapshot "
                      f"(the kernel's own path swaps none of this workload); serial log "
                      f"{vm2.logpath}")


def kernel_warnings(vm):
    """A note naming kernel WARN splats in the serial log (reported, not failed)."""
    hits = vm.find_all(r"WARNING: CPU: \d+ PID: \d+ at (\S+)")
    if not hits:
        return ""
    where = sorted({m.group(1) for _, _, m in hits})
    return f"; NOTE {len(hits)} kernel WARNING(s) at {', '.join(where)} in {vm.logpath}"


def save_pngs(shots, dest, prefix):
    saved = []
    for i, (t, p) in enumerate(shots, start=1):
        fr = Frame(p, t)
        png = dest / f"{prefix}-{i:03d}-{t:05.1f}s.png"
        fr.write_png(png)
        saved.append((fr, png))
    return saved


def scenario_splash_on_screen(h):
    f = splash_round_trip(h, "splash", h.out_dir("splash-on-screen"))
    return f["summary"]


def splash_round_trip(h, name, out, display=None, append=""):
    """dormouse's round trip with screendumps every --shot-interval: the
    hibernation's themed frames with a bar that only grows, the resume's
    themed frames with a bar that does not go back. display: the card's
    QEMU arguments (VM). Returns {"summary", "res", "vm" (the resume boot),
    "hib" and "resume" (frames), "themed", "rthemed"}; Failure otherwise."""
    h.need_dormouse()
    disk = h.new_disk(name)
    extra = f"vmdelay={h.args.step_delay} {append}".strip()
    res = dormouse_boot1(h, f"{name}-1", disk, extra, screenshots=h.args.shot_interval,
                         display=display)
    require_powered_off(res)
    hib = save_pngs(res["shots"], out, "hibernate")
    themed = [fr for fr, _ in hib if frame_kind(fr, h.theme) == "themed"]
    log(f"{name}: {len(hib)} screendumps during hibernate, {len(themed)} themed, in {out}")
    if len(themed) < 3:
        raise Failure(f"only {len(themed)} themed frames among {len(hib)} screendumps during "
                      f"hibernate (see {out})")
    y, fill, widths = bar_measure(themed, h.theme)
    log(f"{name}: bar row {y}, fill colour {fill}, fill widths {widths}")
    if any(b < a for a, b in zip(widths, widths[1:])):
        raise Failure(f"bar fill went backwards: {widths} (row {y}, colour {fill}; see {out})")
    if widths[-1] <= widths[0]:
        raise Failure(f"bar fill did not grow: {widths} (see {out})")
    vm, t_alive, rshots = dormouse_resume_boot(h, f"{name}-2", disk, res, extra,
                                               screenshots=h.args.shot_interval, display=display)
    rs = save_pngs(rshots, out, "resume")
    kinds = [frame_kind(fr, h.theme) for fr, _ in rs]
    rthemed = [fr for (fr, _), k in zip(rs, kinds) if k == "themed"]
    log(f"{name}: {len(rs)} screendumps during resume, {len(rthemed)} themed")
    if not rthemed:
        raise Failure(f"no themed frame on screen during resume ({len(rs)} screendumps, see {out})")
    # The resume splash's own frames: the first unbroken themed run. After
    # it the kernel restores the saved system (console for a moment) and
    # the screen shows whatever the restored kernel scans out; those frames
    # are reported, not held to the bar's rule.
    first = kinds.index("themed")
    end = kinds.index("console", first) if "console" in kinds[first:] else len(kinds)
    own = [fr for fr, _ in rs[first:end]]
    ry, _, rwidths = bar_measure(rthemed, h.theme)
    log(f"{name}: resume bar row {ry}, fill widths {rwidths} "
        f"({len(own)} frames of the resume splash, then {len(rthemed) - len(own)} after the restore)")
    own_widths = rwidths[:len(own)]
    if any(b < a for a, b in zip(own_widths, own_widths[1:])):
        raise Failure(f"resume bar fill went backwards: {own_widths} (see {out})")
    summary = (f"{len(themed)} themed hibernate frames, bar {widths[0]}→{widths[-1]} px; "
               f"{len(rthemed)} themed resume frames, bar {rwidths[0]}→{rwidths[-1]} px; PNGs in {out}")
    return {"summary": summary, "res": res, "vm": vm, "hib": hib, "resume": rs, "themed": themed,
            "rthemed": rthemed}


# virtio-gpu as QEMU's -device virtio-vga: a dumb buffer written by the CPU
# reaches the screen only after DIRTYFB (or a page flip).
VIRTIO_VGA = ["-vga", "none", "-device", "virtio-vga"]
# Two heads on one card (two_heads), as a laptop with a second monitor has.
# QEMU enables a virtio-gpu head beyond the first only when a display UI
# asks for it (none here: -display none), so the kernel is told the second
# monitor is there, at a size of its own: video=CONNECTOR:MODEe forces the
# connector on with that mode, as for a monitor whose EDID cannot be read.
TWO_HEADS = ["-vga", "none", "-device", f"virtio-vga,id={GPU_ID},max_outputs=2"]
TWO_HEADS_APPEND = "vmdrm=1 video=Virtual-2:1024x768e"


def scenario_two_heads(h):
    """Issue 38: one card with two heads (virtio-vga, max_outputs=2): the
    splash on each head at its own size at hibernate and at resume, no head
    left showing the console while the other shows the splash."""
    out = h.out_dir("two-heads")
    f = splash_round_trip(h, "two-heads", out, TWO_HEADS, TWO_HEADS_APPEND)
    heads = require_driver(f, "virtio_gpu")
    connected = sorted(k for k, v in heads.items() if v[0] == "connected")
    if len(connected) < 2:
        raise Failure(f"only {connected} of the card's connectors is connected ({heads}), with "
                      f"{TWO_HEADS_APPEND!r} on the command line")
    detail = []
    for what, shots in (("hibernate", f["hib"]), ("resume", f["resume"])):
        pairs = []
        for fr0, _ in shots:
            p1 = head_path(fr0.path, 1)
            if fr0.path.exists() and p1.exists() and frame_kind(fr0, h.theme) == "themed":
                pairs.append((fr0, Frame(p1, fr0.t)))
        if not pairs:
            raise Failure(f"no {what} screendump of head 1 beside a themed head 0")
        kinds = [frame_kind(b, h.theme) for _, b in pairs]
        themed = [b for (_, b), k in zip(pairs, kinds) if k == "themed"]
        for i, (_, b) in enumerate(pairs[:40]):
            b.write_png(out / f"{what}-head1-{i:03d}.png")
        # the splash stops for the snapshot and the kernel's restore: a
        # frame of the console there is the machine's, on both heads
        if len(themed) < len(pairs) * 0.8:
            raise Failure(f"head 1 showed the theme in {len(themed)} of the {len(pairs)} {what} "
                          f"frames where head 0 did ({kinds})")
        if what == "hibernate":
            y, _, widths = bar_measure(themed, h.theme)
            if widths[-1] <= widths[0]:
                raise Failure(f"head 1's bar did not grow at hibernate: {widths}")
        b = themed[-1]
        detail.append(f"{what}: head 1 themed in {len(themed)} of {len(pairs)} frames "
                      f"({b.w}x{b.h})")
    return f"{', '.join(connected)} connected; {'; '.join(detail)}; head 0: {f['summary']}"


def drm_report(vm):
    """init.sh's DRM line (vmdrm=1): (driver, {connector: (status, preferred
    mode)}); Failure without it."""
    hits = vm.find_all(r"VMTEST: DRM driver=(\S*) connectors:(.*)$")
    if not hits:
        raise Failure(f"{vm.name}: no DRM line (no /dev/dri/card0?); serial log {vm.logpath}")
    m = hits[-1][2]
    heads = {}
    for word in m.group(2).split():
        name, _, rest = word.partition("=")
        status, _, mode = rest.partition(":")
        heads[name] = (status, mode)
    return m.group(1), heads


def require_driver(f, driver):
    """Both boots of splash_round_trip f ran on driver's card; its heads."""
    for vm in (f["res"]["vm"], f["vm"]):
        drv, heads = drm_report(vm)
        if drv != driver:
            raise Failure(f"{vm.name}: the display card's driver is {drv or 'none'}, not {driver}")
    return heads


def scenario_virtio_gpu(h):
    """Issue 38: the splash on virtio-gpu (QEMU's virtio-vga, the virtio_gpu
    driver), whose dumb buffers reach the screen only through DIRTYFB or a
    page flip: themed frames with a growing bar at hibernate, themed frames
    at resume, on that driver in both boots."""
    f = splash_round_trip(h, "virtio-gpu", h.out_dir("virtio-gpu"), VIRTIO_VGA, "vmdrm=1")
    heads = require_driver(f, "virtio_gpu")
    fr = f["themed"][0]
    return (f"virtio_gpu, {fr.w}x{fr.h} "
            f"({', '.join(f'{k} {v[0]}' for k, v in sorted(heads.items()))}); {f['summary']}; "
            + after_snapshot(f, h.theme))


def after_snapshot(f, theme):
    """What the hibernation's screen showed after its last themed frame (the
    snapshot's freeze and thaw of the devices, then the write phase): on
    6.12 virtio-gpu has no hibernation support, the device is reset at the
    freeze and its host-side buffers are lost, and QEMU shows the VGA text
    page from then on, whatever the splash draws. Reported, not checked."""
    kinds = [frame_kind(fr, theme) for fr, _ in f["hib"]]
    last = max(i for i, k in enumerate(kinds) if k == "themed")
    after = kinds[last + 1:]
    return (f"after the last themed hibernate frame {after.count('console')} of {len(after)} "
            f"frames show the text page")


def scenario_4k(h):
    """Issue 38: a 3840x2160 laptop panel (EDID_4K_FIRMWARE: 15.6 inches, 283
    dpi) on virtio-gpu: the splash at that mode, and at scale 2 (the bar
    twice as high as theme.conf's height at scale 1) at hibernate and at
    resume."""
    # virtio-gpu offers only modes that fit the size the host asks for:
    # QEMU's xres/yres, then the EDID's physical size on top
    display = ["-vga", "none", "-device", "virtio-vga,xres=3840,yres=2160"]
    f = splash_round_trip(h, "4k", h.out_dir("4k"), display, f"vmdrm=1 {EDID_4K_APPEND}")
    heads = require_driver(f, "virtio_gpu")
    modes = [v[1] for v in heads.values() if v[0] == "connected"]
    if modes != ["3840x2160"]:
        raise Failure(f"the connected head's preferred mode is {modes}, not 3840x2160 (the EDID "
                      f"from {EDID_4K_FIRMWARE} not read?)")
    detail = []
    for what, frames in (("hibernate", f["themed"]), ("resume", f["rthemed"])):
        fr = frames[-1]
        if (fr.w, fr.h) != (3840, 2160):
            raise Failure(f"the {what} frames are {fr.w}x{fr.h}, not 3840x2160")
        thick = bar_thickness(fr, h.theme)
        # scale 2: the fill twice theme.conf's height (give or take a row
        # of antialiasing at each edge)
        want = 2 * h.theme.bar_height
        if abs(thick - want) > 2:
            raise Failure(f"the {what} splash's bar is {thick} px high at 3840x2160, not {want} "
                          f"(scale 2 of theme.conf's {h.theme.bar_height})")
        detail.append(f"{what} bar {thick} px high")
    return f"3840x2160 at scale 2 ({', '.join(detail)}); {f['summary']}"


def scenario_abort(h):
    h.need_dormouse()
    disk = h.new_disk("abort")
    out = h.out_dir("abort")
    res = dormouse_boot1(h, "abort-1", disk, f"vmdelay={h.args.step_delay}",
                         screenshots=0.3, abort_after=0.15)
    save_pngs(res["shots"], out, "abort")
    vm = res["vm"]
    if "t_esc" not in res:
        raise Failure(f"{vm.name}: no frame showed the write phase (bar past 15%), so Esc was "
                      f"never sent (see {out})")
    if res["rc"] != RC_ABORTED:
        raise Failure(f"{vm.name}: dormouse hibernate rc={res['rc']} after Esc, expected "
                      f"{RC_ABORTED}; serial log {vm.logpath}:\n{vm.tail(25)}")
    check_restored_workload(vm, res["checksum"], res["token"], 0)
    sig = vm.find_all(r"VMTEST: SIG (\S+)")
    blkid = vm.find_all(r"VMTEST: BLKID (.*)")
    swapon = vm.find_all(r"VMTEST: SWAPON (\w+)")
    if not sig or sig[-1][2].group(1) != "SWAPSPACE2":
        raise Failure(f"{vm.name}: swap signature after abort is {sig and sig[-1][2].group(1)}")
    if not blkid or 'TYPE="swap"' not in blkid[-1][2].group(1):
        raise Failure(f"{vm.name}: blkid after abort: {blkid and blkid[-1][2].group(1)}")
    if not swapon or swapon[-1][2].group(1) != "ok":
        raise Failure(f"{vm.name}: swapon after abort failed")
    return (f"Esc at {res['esc_fill']:.0%} of the bar ({res['t_esc'] - res['t_start']:.1f} s after "
            f"start); thawed, workload intact, swap usable{kernel_warnings(vm)}")


def capture_until(vm, pattern, since, dest, prefix, interval):
    """Screendumps every interval s until pattern appears on the serial console."""
    dest.mkdir(parents=True, exist_ok=True)
    shots, n, t0 = [], 0, time.monotonic()
    while vm.exit_t is None and time.monotonic() < vm.deadline:
        if vm.wait_for(pattern, 0, since):
            break
        n += 1
        p = vm.screendump(dest / f"{prefix}-{n:03d}.ppm")
        if p:
            shots.append((time.monotonic() - t0, p))
        time.sleep(interval)
    return shots


def resume_refusal(h, name, disk, want_rc, extra_append="", shots=None):
    """Boot that must not restore anything; checks rc, signature and swapon.

    With shots (a list), screendumps taken while dormouse runs are added to it."""
    with VM(h, name, "dm-resume", disk, extra_append) as vm:
        if shots is not None:
            idx = expect(vm, r"VMTEST: DORMOUSE resume start", "dormouse resume", 60)[0]
            shots += capture_until(vm, r"VMTEST: DORMOUSE resume rc=", idx,
                                   h.work / f"shots-{name}", "res", 0.25)
        _, _, m = expect(vm, r"VMTEST: DORMOUSE resume rc=(\d+)", "dormouse resume's exit", 90)
        rc = int(m.group(1))
        expect_exit(vm, "power-off")
        if rc != want_rc:
            raise Failure(f"{name}: dormouse resume rc={rc}, expected {want_rc}; serial log "
                          f"{vm.logpath}:\n{vm.tail(25)}")
        sig = vm.find_all(r"VMTEST: SIG (\S+)")
        if sig[-1][2].group(1) != "SWAPSPACE2":
            raise Failure(f"{name}: swap signature afterwards is {sig[-1][2].group(1)}")
        blkid = vm.find_all(r"VMTEST: BLKID (.*)")
        if not blkid or 'TYPE="swap"' not in blkid[-1][2].group(1):
            raise Failure(f"{name}: blkid afterwards: {blkid and blkid[-1][2].group(1)}")
        if not vm.find_all(r"VMTEST: SWAPON ok"):
            raise Failure(f"{name}: swapon /dev/vda failed afterwards:\n{vm.tail()}")
        if vm.find_all(r"^TICK \d+"):
            raise Failure(f"{name}: a workload is running: something was restored")
        return vm


def dormouse_lines(vm, since_pattern=r"VMTEST: DORMOUSE resume start"):
    """dormouse's own messages (they all start with "dormouse") in the serial log,
    less the DORMOUSE_DEBUG_TIMING lines the guest's init asks for."""
    start = vm.find_all(since_pattern)
    i0 = start[0][0] + 1 if start else 0
    with vm.cond:
        return [s for _, s in vm.lines[i0:]
                if s.startswith("dormouse") and not s.startswith("dormouse: timing:")]


def scenario_no_image(h):
    h.need_dormouse()
    disk = h.new_disk("noimage")
    # a plain swap area, as after any normal shutdown
    run(["mkswap", str(disk)])
    vm = resume_refusal(h, "noimage", disk, RC_NO_IMAGE)
    noise = dormouse_lines(vm)
    if noise:
        raise Failure(f"noimage: a normal boot must stay quiet, dormouse printed: "
                      + " | ".join(noise[:3]))
    return "resume exits 1 quietly, swap untouched"


def hibernated_disk(h, name):
    disk = h.new_disk(name)
    res = dormouse_boot1(h, f"{name}-1", disk)
    require_powered_off(res)
    return disk, res


def scenario_noresume(h):
    h.need_dormouse()
    disk, _ = hibernated_disk(h, "noresume")
    vm = resume_refusal(h, "noresume-2", disk, RC_NO_IMAGE, "noresume")
    msgs = dormouse_lines(vm)
    if not msgs:
        raise Failure(f"noresume-2: the image was discarded without a message:\n{vm.tail()}")
    return f"image discarded ({msgs[0].strip()[:80]}), swap usable"


def corrupt_image(h, disk):
    """Flip 64 KiB in the middle of the stored image; returns the offset."""
    info = h.dormouse_info(disk)
    span = None
    if info:
        for key in ("chunks", "extents"):
            items = info.get(key)
            if isinstance(items, list) and items:
                mid = items[len(items) // 2]
                if isinstance(mid, dict):
                    off = mid.get("offset", mid.get("byte_offset"))
                    if isinstance(off, int):
                        span = (off, off + 4096)
                        break
    limit = ((info or {}).get("header") or {}).get("map_offset")
    if span is None:
        # the data extents of the sparse file below the map and header: the
        # chunk stream is nearly all of it
        extents, pos = [], 0
        with open(disk, "rb") as f:
            fd = f.fileno()
            while True:
                try:
                    start = os.lseek(fd, pos, os.SEEK_DATA)
                except OSError:
                    break
                end = os.lseek(fd, start, os.SEEK_HOLE)
                if isinstance(limit, int) and start >= limit:
                    break
                extents.append((start, min(end, limit) if isinstance(limit, int) else end))
                pos = end
        total = sum(e - s for s, e in extents)
        # skip the first 64 KiB (swap header, image header) and aim at the middle
        target, acc = total // 2, 0
        for s, e in extents:
            if acc + (e - s) > target:
                off = max(s + target - acc, 65536)
                span = (off, min(e, off + 65536))
                break
            acc += e - s
    if span is None:
        raise Failure(f"{disk}: no image data found to corrupt")
    off = span[0] & ~4095
    with open(disk, "r+b") as f:
        f.seek(off)
        data = bytearray(f.read(65536))
        for i in range(0, len(data)):
            data[i] ^= 0x5A
        f.seek(off)
        f.write(data)
    return off


def scenario_corrupted(h):
    h.need_dormouse()
    disk, _ = hibernated_disk(h, "corrupt")
    off = corrupt_image(h, disk)
    log(f"corrupted: flipped 64 KiB at byte {off} of {disk}")
    shots = []
    out = h.out_dir("corrupted")
    vm = resume_refusal(h, "corrupt-2", disk, RC_REFUSED, shots=shots)
    msgs = dormouse_lines(vm)
    if not msgs:
        raise Failure(f"corrupt-2: refused without saying why on the serial console:\n{vm.tail()}")
    frames = save_pngs(shots, out, "refused")
    shown = [png for fr, png in frames
             if frame_kind(fr, h.theme) == "themed" and detail_pixels(fr, h.theme) > 0]
    if not shown:
        raise Failure(f"corrupt-2: no frame showed the reason (text in the theme's detail colour) "
                      f"among {len(frames)} screendumps; see {out}")
    return (f"refused with exit 3 ({msgs[-1].strip()[:80]}), reason on screen "
            f"({shown[-1].name}), swap usable")


# --------------------------------------------------------------------------
# Encryption: the passphrase typed on the resume splash's dialog.

ENC_RIGHT = "sesame42"  # boot 1's key file; typed second
ENC_WRONG = "wrong7"    # typed first


def accent_like(p, acc):
    """The dialog's accent colour, also where a 1 px stroke blends it with the
    dark dialog behind (cairo's antialiasing: ~80 % of the colour)."""
    return all(0.6 * a - 8 <= c <= a + 24 for c, a in zip(p, acc))


def password_dialog(fr, theme):
    """The password dialog on a frame, found by its entry field: two
    horizontal strokes of the accent colour, nearly as wide as the dialog,
    a line of text apart. None without one; else a dict: field (x0, y0, x1,
    y1), bullets (dots on the field's middle row), prompt_ink (bright pixels
    of the prompt line above the field) and prompt (those rows' bytes)."""
    acc = theme.dialog_accent
    if acc is None:
        return None
    centre = int(theme.dialog_valign * fr.h)
    want = int(0.8 * (theme.dialog_width - 32))
    strokes = []
    for y in range(max(0, centre - 150), min(fr.h, centre + 150)):
        row = fr.row(y)
        # every 8th pixel first: most rows have no long accent run at all
        if sum(accent_like(row[3 * x:3 * x + 3], acc) for x in range(0, fr.w, 8)) < want // 10:
            continue
        best, end, cur = 0, 0, 0
        for x in range(fr.w):
            if accent_like(row[3 * x:3 * x + 3], acc):
                cur += 1
                if cur > best:
                    best, end = cur, x
            else:
                cur = 0
        if best >= want:
            strokes.append((y, end - best + 1, end))
    # clusters of adjacent rows: a stroke is 1-2 rows, the bar's fill ~10
    clusters = []
    for s in strokes:
        if clusters and s[0] == clusters[-1][-1][0] + 1:
            clusters[-1].append(s)
        else:
            clusters.append([s])
    for top, bottom in zip(clusters, clusters[1:]):
        if len(top) > 3 or len(bottom) > 3:
            continue
        y0, y1 = top[-1][0] + 1, bottom[0][0] - 1
        if not 15 <= y1 - y0 <= 120:
            continue
        x0, x1 = max(top[0][1], bottom[0][1]) + 3, min(top[0][2], bottom[0][2]) - 3
        row = fr.row((y0 + y1) // 2)
        bullets, inside = 0, False
        for x in range(x0, x1):
            bright = min(row[3 * x:3 * x + 3]) > 180
            bullets += bright and not inside
            inside = bright
        # the prompt line: one field height above the field (painter.c)
        ink, prompt = 0, b""
        for y in range(max(0, y0 - (y1 - y0)), y0 - 4):
            r = fr.row(y)[3 * x0:3 * x1]
            prompt += r
            ink += sum(1 for x in range(0, len(r), 3) if min(r[x:x + 3]) > 150)
        return {"field": (x0, y0, x1, y1), "bullets": bullets, "prompt_ink": ink,
                "prompt": prompt}
    return None


def wait_dialog(vm, h, shots_dir, name, want, timeout, since):
    """Screendumps every 0.3 s until want(dialog) holds for a frame's dialog
    (None: no dialog). Returns (frame, dialog); raises Failure when dormouse
    resume exits, QEMU exits or the time runs out first."""
    end = time.monotonic() + timeout
    n, last = 0, None
    while time.monotonic() < end and vm.exit_t is None:
        n += 1
        p = vm.screendump(shots_dir / f"{name}-{n:03d}.ppm")
        if p:
            last = Frame(p)
            d = password_dialog(last, h.theme)
            if want(d):
                return last, d
        if vm.wait_for(r"VMTEST: DORMOUSE resume rc=|^TICK \d+", 0, since):
            break
        time.sleep(0.3)
    where = ""
    if last is not None:
        png = OUT / "encrypted" / f"{name}-last.png"
        last.write_png(png)
        where = f" (last screen: {png})"
    raise Failure(f"{vm.name}: {name}: the dialog's expected state never came on screen "
                  f"within {timeout:.0f} s{where}; serial log {vm.logpath}:\n{vm.tail(20)}")


def type_text(vm, text):
    keys = {"-": "minus", ".": "dot", " ": "spc"}
    for ch in text:
        vm.sendkey(keys.get(ch, ch))


def scenario_encrypted(h):
    """Boot 1 hibernates with --encrypt passphrase --key-file (mode 0600 in
    the guest). Boot 2 runs dormouse resume without a key file: the resume
    splash asks on its password dialog, and the passphrase is typed on the
    VM's keyboard (sendkey): a wrong one first, then the right one."""
    h.need_dormouse()
    disk = h.new_disk("enc")
    out = h.out_dir("encrypted")
    res = dormouse_boot1(h, "enc-1", disk, f"vmkey={ENC_RIGHT}")
    require_powered_off(res)
    mode = res["vm"].find_all(r"VMTEST: KEYFILE (\d+)")
    if not mode or mode[-1][2].group(1) != "600":
        raise Failure(f"enc-1: the key file's mode is {mode and mode[-1][2].group(1)}, not 600")
    info = h.dormouse_info(disk)
    hdr = (info or {}).get("header") or {}
    enc = hdr.get("encryption") or {}
    if (info or {}).get("status") != "image" or hdr.get("encrypted") is not True \
            or enc.get("mode") != "passphrase":
        raise Failure(f"enc-1: dormouse info does not show an image encrypted with a "
                      f"passphrase: status {(info or {}).get('status')}, encrypted "
                      f"{hdr.get('encrypted')}, encryption {enc}")
    sig_hash = (info.get("signature") or {}).get("header_hash")
    log(f"encrypted: image {hdr.get('stored_bytes')} bytes stored, {enc.get('mode')}, "
        f"Argon2id {enc.get('kdf_ops')} passes over {enc.get('kdf_memory', 0) >> 20} MiB")

    shots_dir = h.work / "shots-enc-2"
    shots_dir.mkdir(exist_ok=True)
    saved = []

    def keep(fr, name):
        png = out / f"{name}.png"
        fr.write_png(png)
        saved.append(png.name)

    with VM(h, "enc-2", "dm-resume", disk) as vm:
        idx, t0, _ = expect(vm, r"VMTEST: DORMOUSE resume start", "dormouse resume", 60)
        fr, d0 = wait_dialog(vm, h, shots_dir, "ask", lambda d: d and d["bullets"] == 0, 90, idx)
        t_dialog = time.monotonic() - t0
        keep(fr, "1-dialog")
        type_text(vm, ENC_WRONG)
        fr, _ = wait_dialog(vm, h, shots_dir, "wrong-typed",
                            lambda d: d and d["bullets"] == len(ENC_WRONG), 20, idx)
        keep(fr, "2-wrong-typed")
        vm.sendkey("ret")
        t_ret = time.monotonic()
        # Argon2id runs with the dialog closed, then the dialog asks again: an
        # empty field under another prompt ("Not accepted (1 of 3). ...").
        fr, d1 = wait_dialog(vm, h, shots_dir, "retry",
                             lambda d: d and d["bullets"] == 0 and d["prompt"] != d0["prompt"],
                             90, idx)
        t_kdf = time.monotonic() - t_ret
        keep(fr, "3-retry")
        if d1["prompt_ink"] <= d0["prompt_ink"]:
            raise Failure(f"enc-2: the prompt after the wrong passphrase is not longer than the "
                          f"first ({d1['prompt_ink']} against {d0['prompt_ink']} bright pixels); "
                          f"it should say that it was not accepted (see {out})")
        if vm.wait_for(r"VMTEST: DORMOUSE resume rc=(\d+)", 0, idx):
            raise Failure(f"enc-2: dormouse resume exited after the wrong passphrase:\n{vm.tail()}")
        # The image as the host sees it, while the dialog waits: untouched.
        now = h.dormouse_info(disk) or {}
        now_hash = (now.get("signature") or {}).get("header_hash")
        if now.get("status") != "image" or now_hash != sig_hash:
            raise Failure(f"enc-2: after the wrong passphrase dormouse info says status "
                          f"{now.get('status')}, header hash {now_hash} (before: {sig_hash})")
        type_text(vm, ENC_RIGHT)
        fr, _ = wait_dialog(vm, h, shots_dir, "right-typed",
                            lambda d: d and d["bullets"] == len(ENC_RIGHT), 20, idx)
        keep(fr, "4-right-typed")
        vm.sendkey("ret")
        t_alive = expect_restored(vm, res, idx, "the right passphrase")
    h.figures["encrypted"] = {"hibernate_s": res["t_exit"] - res["t_start"],
                              "resume_s": t_alive - vm.start_t,
                              "image_kib": (hdr.get("raw_bytes") or 0) // 1024 or None,
                              "stored_kib": (hdr.get("stored_bytes") or 0) // 1024 or None}
    return (f"image encrypted ({enc.get('mode')}); dialog {t_dialog:.1f} s after resume start, "
            f"wrong passphrase refused ({t_kdf:.1f} s to the retry prompt, image intact), "
            f"right one restored the workload {t_alive - t_ret:.1f} s after the first Return; "
            f"PNGs {', '.join(saved)} in {out}{kernel_warnings(vm)}")


class SwTpm:
    """A TPM 2.0 for the guest (swtpm behind QEMU's tpm-tis). Its state, the
    NV counter and the storage seed, lives in a directory that outlives the
    process: each boot gets a new swtpm on it, as a machine's TPM keeps its
    NV memory and resets its PCRs at power-on. The machine's firmware is
    OVMF, with its variables in a file of their own (efi_vars): UEFI
    measures the Secure Boot state into PCR 7, the default PCR."""

    def __init__(self, h, name):
        if not shutil.which("swtpm"):
            raise Failure("swtpm is not installed (Debian package swtpm): no TPM for the guest")
        if not (OVMF_CODE.exists() and OVMF_VARS.exists()):
            raise Failure(f"{OVMF_CODE} or {OVMF_VARS} is missing (Debian package ovmf)")
        self.dir = h.work / f"tpm-{name}"
        self.dir.mkdir(exist_ok=True)
        self.efi_vars = self.dir / "vars.fd"
        shutil.copyfile(OVMF_VARS, self.efi_vars)
        self.proc = None

    def qemu_args(self):
        """Starts swtpm for the next boot (the one before is stopped) and
        returns QEMU's arguments for it."""
        self.stop()
        sock = self.dir / "ctrl.sock"
        sock.unlink(missing_ok=True)
        self.proc = subprocess.Popen(
            ["swtpm", "socket", "--tpm2", "--tpmstate", f"dir={self.dir}",
             "--ctrl", f"type=unixio,path={sock}", "--log", f"file={self.dir / 'log'},level=1"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        end = time.monotonic() + 10
        while not sock.exists():
            if self.proc.poll() is not None or time.monotonic() > end:
                raise Failure(f"swtpm did not open {sock} (exit status {self.proc.poll()}); "
                              f"log {self.dir / 'log'}")
            time.sleep(0.05)
        return ["-chardev", f"socket,id=chrtpm,path={sock}",
                "-tpmdev", "emulator,id=tpm0,chardev=chrtpm", "-device", "tpm-tis,tpmdev=tpm0"]

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def tpm_hibernate(h, name, disk, tpm):
    """Boot 1 of the tpm scenarios: dormouse enroll-tpm, then dormouse
    hibernate --encrypt tpm (the recovery key in /etc/dormouse/pubkey), on
    OVMF (the kernel finds the TPM through UEFI's ACPI tables).
    Returns (boot 1's result, the image's TPM section from dormouse info)."""
    for lib in TSS2_LIBRARIES:
        if not (LIBDIR / lib).exists():
            raise Failure(f"{LIBDIR / lib} is not on this machine (Debian package libtss2-dev): "
                          f"the guest has no tpm2-tss")
    res = dormouse_boot1(h, name, disk, "vmtpm=1", devices=tpm.qemu_args(),
                         efi_vars=tpm.efi_vars)
    vm = res["vm"]
    enroll = vm.find_all(r"VMTEST: ENROLL rc=(\d+)")
    if not enroll or enroll[-1][2].group(1) != "0":
        raise Failure(f"{name}: dormouse enroll-tpm did not succeed; serial log {vm.logpath}:\n"
                      f"{vm.tail()}")
    require_powered_off(res)
    info = h.dormouse_info(disk) or {}
    hdr = info.get("header") or {}
    enc, sealed = hdr.get("encryption") or {}, hdr.get("tpm") or {}
    if (info.get("status") != "image" or enc.get("mode") != "tpm" or enc.get("recovery") != "pubkey"
            or not sealed.get("counter")):
        raise Failure(f"{name}: dormouse info does not show an image sealed by the TPM with a "
                      f"counter: status {info.get('status')}, encryption {enc}, tpm {sealed}")
    return res, sealed


def tpm_resume_boot(h, name, disk, tpm, extra_append=""):
    """A boot that runs dormouse resume with the guest's TPM, for a with
    statement (which starts it); the caller waits for what it expects."""
    return VM(h, name, "dm-resume", disk, extra_append, devices=tpm.qemu_args(),
              efi_vars=tpm.efi_vars)


def scenario_tpm(h):
    """Issue 26: encrypt = tpm with nothing typed at either end. Boot 1
    enrolls the TPM and hibernates; boot 2, the same TPM and boot chain,
    restores the workload unattended."""
    h.need_dormouse()
    tpm = SwTpm(h, "tpm")
    try:
        disk = h.new_disk("tpm")
        res, sealed = tpm_hibernate(h, "tpm-1", disk, tpm)
        with tpm_resume_boot(h, "tpm-2", disk, tpm) as vm:
            idx, t0, _ = expect(vm, r"VMTEST: DORMOUSE resume start", "dormouse resume", 60)
            t_alive = expect_restored(vm, res, idx, "the resume with nothing typed", timeout=120)
            t_power = vm.start_t
    finally:
        tpm.stop()
    fig = h.figures["tpm"] = {"hibernate_s": res["t_exit"] - res["t_start"],
                              "resume_s": t_alive - t_power, "resume_cmd_s": t_alive - t0}
    # The cost against no encryption: dormouse-roundtrip, when it ran in the
    # same run (the same workload; the TPM boots also pass through OVMF,
    # which is before either figure starts).
    plain = h.figures.get("dormouse-roundtrip") or {}
    beside = (f" (no encryption, dormouse-roundtrip: {plain['hibernate_s']:.2f} s and "
              f"{plain['resume_cmd_s']:.2f} s)" if plain.get("resume_cmd_s") else "")
    return (f"sealed to PCRs {sealed.get('pcrs')}, counter {sealed.get('counter')}; restored "
            f"with nothing typed; hibernate {fig['hibernate_s']:.2f} s, workload back "
            f"{fig['resume_cmd_s']:.2f} s after the resume command{beside}")


def scenario_tpm_pcr_changed(h):
    """Issue 26: the boot chain changed (PCR 7 extended before the resume,
    as a new boot loader does): the TPM refuses, the resume says so in
    words, the image stays on disk while it asks, and the recovery key's
    passphrase typed on the splash restores the workload."""
    h.need_dormouse()
    if not shutil.which("tpm2_pcrextend"):
        raise Failure("tpm2_pcrextend is not installed (Debian package tpm2-tools): the guest "
                      "cannot change PCR 7")
    tpm = SwTpm(h, "tpm-pcr")
    out = h.out_dir("tpm-pcr-changed")
    try:
        disk = h.new_disk("tpm-pcr")
        res, sealed = tpm_hibernate(h, "tpm-pcr-1", disk, tpm)
        before = (h.dormouse_info(disk) or {}).get("signature") or {}
        shots_dir = h.work / "shots-tpm-pcr-2"
        shots_dir.mkdir(exist_ok=True)
        with tpm_resume_boot(h, "tpm-pcr-2", disk, tpm, "vmpcrextend=7") as vm:
            expect(vm, r"VMTEST: PCREXTEND 7 rc=0", "PCR 7 extended in the guest", 60)
            idx, t0, _ = expect(vm, r"VMTEST: DORMOUSE resume start", "dormouse resume", 60)
            fr, _ = wait_dialog(vm, h, shots_dir, "ask", lambda d: d and d["bullets"] == 0, 120,
                                idx)
            fr.write_png(out / "1-recovery-dialog.png")
            said = [m.group(0) for i, _, m in vm.find_all(r"the TPM refused to unseal.*")
                    if i >= idx]
            if not said or "the boot chain changed" not in said[0]:
                raise Failure(f"tpm-pcr-2: the resume did not say that the TPM refused because the "
                              f"boot chain changed; serial log {vm.logpath}:\n{vm.tail(25)}")
            now = (h.dormouse_info(disk) or {})
            if now.get("status") != "image" or \
                    (now.get("signature") or {}).get("header_hash") != before.get("header_hash"):
                raise Failure(f"tpm-pcr-2: while the recovery key was asked for, dormouse info "
                              f"says status {now.get('status')}: the image is not intact")
            type_text(vm, TPM_RECOVERY)
            vm.sendkey("ret")
            expect_restored(vm, res, idx, "the recovery passphrase", timeout=120)
    finally:
        tpm.stop()
    return (f"sealed to PCRs {sealed.get('pcrs')}; PCR 7 changed: refused in words "
            f"(\"{said[0][:70]}\"), image intact while asking, recovery passphrase restored "
            f"the workload; PNG in {out}")


def scenario_tpm_rollback(h):
    """Issue 26: an image restored once, written back from a copy taken
    before the resume, is refused (status 3), and the swap area is plain
    swap again."""
    h.need_dormouse()
    tpm = SwTpm(h, "tpm-rb")
    try:
        disk = h.new_disk("tpm-rb")
        res, sealed = tpm_hibernate(h, "tpm-rb-1", disk, tpm)
        copy = h.work / "disk-tpm-rb-copy.img"
        run(["cp", "--sparse=always", str(disk), str(copy)])
        with tpm_resume_boot(h, "tpm-rb-2", disk, tpm) as vm:
            idx, _, _ = expect(vm, r"VMTEST: DORMOUSE resume start", "dormouse resume", 60)
            expect_restored(vm, res, idx, "the first resume", timeout=120)
        # the attacker's copy, taken before the resume, written back
        run(["cp", "--sparse=always", str(copy), str(disk)])
        with tpm_resume_boot(h, "tpm-rb-3", disk, tpm) as vm:
            idx, _, _ = expect(vm, r"VMTEST: DORMOUSE resume start", "dormouse resume", 60)
            hit = expect(vm, r"^TICK \d+|VMTEST: DORMOUSE resume rc=(\d+)",
                         "the resume of the copy ending", 120, idx)
            if hit[2].group(1) != "3":
                raise Failure(f"tpm-rb-3: the copy written back was not refused with status 3 "
                              f"(rc={hit[2].group(1) or 'restored'}); serial log {vm.logpath}:\n"
                              f"{vm.tail(25)}")
            words = " ".join(s for _, s in vm.lines[idx:])
            if "restored once already" not in words:
                raise Failure(f"tpm-rb-3: the refusal does not say the image was restored once "
                              f"already:\n{vm.tail(25)}")
            sig = expect(vm, r"VMTEST: SIG (\S+)", "the signature after the refusal", 30, idx)
            swapon = expect(vm, r"VMTEST: SWAPON (\w+)", "swapon after the refusal", 30, idx)
            expect_exit(vm, "power-off after the refusal")
        if sig[2].group(1) != "SWAPSPACE2" or swapon[2].group(1) != "ok":
            raise Failure(f"tpm-rb-3: after the refusal the signature is {sig[2].group(1)} and "
                          f"swapon {swapon[2].group(1)}, not plain usable swap")
    finally:
        tpm.stop()
    return (f"counter {sealed.get('counter')}: restored once, the copy written back refused "
            f"(status 3, \"restored once already\"), swap area plain and usable")


def scenario_fbdev(h):
    """The framebuffer output on /dev/fb0 (bochs-drm's fbdev emulation), for
    machines without KMS: dormouse on the simulated kernel, screendumps while
    it writes, themed frames and a growing bar."""
    h.need_dormouse()
    disk = h.new_disk("fb")
    out = h.out_dir("fbdev")
    with VM(h, "fb", "fbdev-splash", disk) as vm:
        idx = expect(vm, r"VMTEST: FBDEV start", "dormouse with --splash fbdev", 60)[0]
        shots = capture_until(vm, r"VMTEST: FBDEV rc=", idx, h.work / "shots-fb", "fb",
                              h.args.shot_interval)
        _, _, m = expect(vm, r"VMTEST: FBDEV rc=(\d+)", "dormouse's exit", 90)
        expect_exit(vm, "power-off")
    if m.group(1) != "0":
        raise Failure(f"fbdev: dormouse exited {m.group(1)}; serial log {vm.logpath}")
    saved = save_pngs(shots, out, "fbdev")
    themed = [fr for fr, _ in saved if frame_kind(fr, h.theme) == "themed"]
    if len(themed) < 3:
        raise Failure(f"fbdev: only {len(themed)} themed frames among {len(saved)} (see {out})")
    y, _, widths = bar_measure(themed, h.theme)
    if any(b < a for a, b in zip(widths, widths[1:])) or widths[-1] <= widths[0]:
        raise Failure(f"fbdev: bar fill {widths} does not grow steadily (see {out})")
    return f"{len(themed)} themed frames on /dev/fb0, bar {widths[0]}→{widths[-1]} px; PNGs in {out}"


# DORMOUSE_DEBUG_TIMING's marks on the way to the first complete frame, in order.
FIRST_FRAME_MARKS = [("main", r"main"), ("theme read", r"theme read"),
                     ("console ready", r"console ready"), ("backdrop", r"first frame \w+"),
                     ("images decoded", r"theme images decoded"),
                     ("painter ready", r"painter ready \(fonts open\)"),
                     ("complete", r"first complete frame \w+")]


def first_frame_figures(vm):
    """Per-run lists of ms: kmsfirst, kmsfirst-dyn, each dormouse mark, each loadprobe."""
    def runs(pattern):
        return [int(m.group(1)) for _, _, m in vm.find_all(pattern)]
    fig = {"kmsfirst": runs(r"^kmsfirst: timing: first frame \w+ (\d+) ms"),
           "kmsfirst-dyn": runs(r"^kmsfirst-dyn: timing: first frame \w+ (\d+) ms")}
    for name, rx in FIRST_FRAME_MARKS:
        fig[name] = runs(rf"dormouse: timing: {rx} (\d+) ms")
    for p in ("static", "drm", "dormouse"):
        fig[f"loadprobe {p}"] = runs(rf"loadprobe: {p} main (\d+) ms")
    return fig


def scenario_first_frame(h):
    """Time from process start to the first frame on the bochs screen: dormouse's
    KMS splash (theme, fonts, cairo; the simulated kernel, so nothing hibernates)
    against kmsfirst, a bare one-frame program (static), five runs each. Also
    kmsfirst-dyn (the same, dynamically linked), dormouse's marks on the way
    and how long a process takes to reach main with no libraries, with libc and
    libdrm, and with dormouse's. Figures, never a failure on time."""
    h.need_dormouse()
    disk = h.new_disk("ff")
    with VM(h, "ff", "first-frame", disk) as vm:
        expect(vm, r"VMTEST: FIRSTFRAME done", "the first-frame runs", BOOT_TIMEOUT)
        expect_exit(vm, "power-off")
        runs = first_frame_figures(vm)
    base, ours, full = runs["kmsfirst"], runs["backdrop"], runs["complete"]
    if len(base) < 3 or len(ours) < 3 or len(full) < 3:
        raise Failure(f"first-frame: timings missing (kmsfirst {base}, dormouse {ours}, "
                      f"complete {full}); serial log {vm.logpath}")
    med = {k: (median(v) if v else None) for k, v in runs.items()}
    b, o, c = med["kmsfirst"], med["backdrop"], med["complete"]
    h.figures["first-frame"] = {"kmsfirst_ms": b, "dormouse_ms": o, "complete_ms": c,
                                "kmsfirst_dyn_ms": med["kmsfirst-dyn"],
                                "medians_ms": med, "runs_ms": runs}
    dash = lambda v: "–" if v is None else str(v)
    marks = ", ".join(f"{n} {dash(med[n])}" for n, _ in FIRST_FRAME_MARKS)
    loader = ", ".join(f"{p} {dash(med['loadprobe ' + p])}" for p in ("static", "drm", "dormouse"))
    return (f"first frame (the theme's background) after {o} ms (dormouse, runs {ours}), "
            f"complete frame after {c} ms (runs {full}) vs {b} ms (bare KMS program, "
            f"runs {base}): {o / max(b, 1):.1f}x and {c / max(b, 1):.1f}x (targets 2x, 3x); "
            f"kmsfirst-dyn {dash(med['kmsfirst-dyn'])} ms; dormouse's medians (ms): {marks}; "
            f"main reached by a static program / libc+libdrm / dormouse's libraries: {loader} ms")


def build_callgrind_cpio(work):
    """valgrind's launcher, callgrind and what they load, as a cpio that
    first-frame-instructions appends to the initramfs (Linux unpacks one
    archive after another), which the other boots need not load
    (callgrind's tool alone is 2.4 MB). None when the host has no
    valgrind."""
    libexec = Path("/usr/libexec/valgrind")
    tool = libexec / "callgrind-amd64-linux"
    if not (shutil.which("valgrind") and tool.exists()):
        return None
    c = Cpio()
    # Debian's /usr/bin/valgrind is a shell wrapper (debug library paths,
    # C++ allocator settings) around the launcher, valgrind.bin.
    launcher = Path(shutil.which("valgrind"))
    if launcher.with_name("valgrind.bin").exists():
        launcher = launcher.with_name("valgrind.bin")
    add_binary(c, "usr/bin/valgrind", launcher)
    for f in ("callgrind-amd64-linux", "vgpreload_core-amd64-linux.so", "default.supp"):
        if (libexec / f).exists():
            c.copy(f"usr/libexec/valgrind/{f}", libexec / f)
    out = work / "initrd-callgrind"
    c.write(out)
    return out


def scenario_first_frame_instructions(h):
    """Issue 39's first frame in instructions: from execve (the dynamic
    loader included) to the theme's backdrop on the bochs screen and to the
    first complete frame, dormouse's KMS splash (the simulated kernel)
    against kmsfirst-dyn, the bare one-frame libdrm program linked the same
    way, counted by callgrind in the guest. Figures, never a failure on
    them (make bench-first-frame)."""
    h.need_dormouse()
    extra = build_callgrind_cpio(h.work)
    if extra is None:
        raise Failure("first-frame-instructions needs valgrind on the host (package valgrind, "
                      "in tools/packages)")
    initrd = h.work / "initrd-ff-instr"
    initrd.write_bytes(Path(h.initrd).read_bytes() + extra.read_bytes())
    disk = h.new_disk("ffi")
    with VM(h, "ffi", "ff-instr", disk, initrd=initrd) as vm:
        expect(vm, r"VMTEST: FFINSTR done", "the callgrind runs", BOOT_TIMEOUT)
        expect_exit(vm, "power-off")
        # parts: "N:CALL" each, N instructions up to the return from drmModeCALL
        parts = {m.group(1): (m.group(2), [(int(n), call) for n, call in
                                           (x.split(":") for x in m.group(3).split())])
                 for _, _, m in vm.find_all(r"VMTEST: IR (\S+) rc=(\d+) parts:([\w: ]*)")}
    for p in ("kmsfirst", "kmsfirst-dyn", "dormouse"):
        rc, n = parts.get(p, ("missing", []))
        need = 2 if p == "dormouse" else 1
        if rc != "0" or len(n) < need:
            raise Failure(f"first-frame-instructions: {p} under callgrind: exit {rc}, "
                          f"{len(n)} frame parts (need {need}); serial log {vm.logpath}")
    static, dyn = parts["kmsfirst"][1][0][0], parts["kmsfirst-dyn"][1][0][0]
    ours = parts["dormouse"][1]
    # The kms output shows the backdrop first (a flip, or a set where the
    # card has no flips), then each painted frame; the first of those is
    # complete (output_kms.c's report_frame).
    backdrop, complete = ours[0][0], ours[0][0] + ours[1][0]
    # The splash has its own thread: what the others (the engine) ran in
    # the meantime is in the parts too, as it is in the time on one CPU.
    h.figures["first-frame-instructions"] = {
        "kmsfirst": static, "kmsfirst_dyn": dyn, "dormouse_backdrop": backdrop,
        "dormouse_complete": complete, "backdrop_ratio": backdrop / dyn,
        "complete_ratio": complete / dyn}
    mi = lambda n: f"{n / 1e6:.2f} M"
    log(f"instructions from execve: kmsfirst (static) {mi(static)}, kmsfirst-dyn {mi(dyn)}; "
        f"dormouse to the backdrop {mi(backdrop)} (drmMode{ours[0][1]}), to the complete frame "
        f"{mi(complete)} (drmMode{ours[1][1]})")
    log(f"first-frame instructions: backdrop {backdrop / dyn:.2f}x, complete {complete / dyn:.2f}x "
        f"(targets 1.5x, 3x; against kmsfirst-dyn)")
    return (f"backdrop {mi(backdrop)} ({backdrop / dyn:.2f}x kmsfirst-dyn's {mi(dyn)}), complete "
            f"frame {mi(complete)} ({complete / dyn:.2f}x); kmsfirst static {mi(static)}")


def scenario_io_levers(h):
    """What the image's writes cost the guest's CPU (tests/vm/iobench.c): O_DIRECT
    writes in 256 KiB, 1 MiB and 4 MiB requests, 1, 2 or 4 in flight, alone and
    beside one busy thread per CPU standing in for the codec. Figures only."""
    disk = h.new_disk("io")
    with VM(h, "io", "io-levers", disk) as vm:
        expect(vm, r"VMTEST: IOLEVERS done", "the io-levers runs", BOOT_TIMEOUT)
        expect_exit(vm, "power-off")
        lines = [m.group(1) for _, _, m in vm.find_all(r"VMTEST: (IOBENCH .*)")]
    if not lines:
        raise Failure(f"io-levers: no figures; serial log {vm.logpath}")
    for line in lines:
        print("# " + line)
    h.figures["io-levers"] = {"runs": lines}
    return f"{len(lines)} runs (figures above)"


OVMF = Path("/usr/share/ovmf/OVMF.fd")
OVMF_CODE = Path("/usr/share/OVMF/OVMF_CODE_4M.fd")
OVMF_VARS = Path("/usr/share/OVMF/OVMF_VARS_4M.fd")


def scenario_handover(h):
    """The firmware's framebuffer replaced by the GPU driver while the resume
    splash is up (issue 8): UEFI firmware (OVMF) gives efifb's /dev/fb0, the
    splash starts there, then bochs-drm is loaded and takes the hardware
    over. The splash must follow to the new device (themed frames after the
    handover, the bar still growing), never draw into the old one, and the
    resume must end well."""
    h.need_dormouse()
    if not OVMF.exists():
        raise Failure(f"{OVMF} is missing (Debian package ovmf, in tools/packages)")
    disk = h.new_disk("ho")
    out = h.out_dir("handover")
    with VM(h, "ho", "handover", disk, extra_append="vmskipmod=bochs", firmware=OVMF) as vm:
        idx, _, dm = expect(vm, r"VMTEST: HANDOVER devices (.*)", "the devices before the handover",
                            180)
        devices = dm.group(1)
        idx = expect(vm, r"VMTEST: HANDOVER start", "dormouse resume", 60, since=idx)[0]
        t_cap = time.monotonic()
        shots = capture_until(vm, r"VMTEST: HANDOVER rc=", idx, h.work / "shots-ho", "ho",
                              h.args.shot_interval)
        _, t_rc, m = expect(vm, r"VMTEST: HANDOVER rc=(\d+)", "dormouse's exit", 180)
        # What dormouse said comes over the serial line after its exit
        # status: only the power-off says all of it is in.
        expect_exit(vm, "power-off")
        said = [mm.group(1) for _, _, mm in vm.find_all(r"VMTEST: HANDOVER said: (.*)")]
        loaded = vm.find_all(r"VMTEST: HANDOVER loaded (.*)")
    if "/dev/fb0 " not in devices + " " or "/dev/dri/card0 " in devices + " ":
        raise Failure(f"handover: before bochs loaded the VM had {devices!r}: expected efifb's "
                      f"/dev/fb0 and no DRM card (is it booting with OVMF?)")
    if not loaded:
        raise Failure("handover: bochs-drm was never loaded while dormouse ran")
    t_load = loaded[0][1]
    if m.group(1) != "0":
        raise Failure(f"handover: dormouse resume exited {m.group(1)}: {said[-3:]}")
    if not any("display went away" in s for s in said):
        raise Failure(f"handover: dormouse did not notice the device going away: {said[-5:]}")
    saved = save_pngs(shots, out, "handover")
    themed = [fr for fr, _ in saved if frame_kind(fr, h.theme) == "themed"]
    before = [fr for fr in themed if t_cap + fr.t < t_load]
    after = [fr for fr in themed if t_cap + fr.t > t_load + 1]
    if not before:
        raise Failure(f"handover: no themed frame on efifb before bochs loaded (see {out})")
    if len(after) < 2:
        raise Failure(f"handover: {len(after)} themed frames after bochs took over: the splash "
                      f"did not follow to the new device (see {out})")
    _, _, widths = bar_measure(after, h.theme)
    if widths[-1] <= widths[0]:
        raise Failure(f"handover: the bar did not grow on the new device: {widths} (see {out})")
    return (f"{len(before)} themed frames on efifb, {len(after)} on bochs-drm after it took "
            f"over, bar {widths[0]}→{widths[-1]} px; PNGs in {out}")


def dark(fr):
    """Black or nearly: what a screen shows between two pictures."""
    hist = fr.histogram(step=8)
    total = sum(hist.values())
    return sum(n for p, n in hist.items() if max(p) < 24) > 0.97 * total


def plymouth_gradient(fr):
    """The top corners on spinfinity's BackgroundStartColor (0x0073b3)."""
    return all(abs(a - b) <= 12 for x in (4, fr.w - 5)
               for a, b in zip(fr.pixel(x, 4), (0x00, 0x73, 0xb3)))


def dormouse_text(fr):
    """White text under the animation, where dormouse writes its statistics
    line: Plymouth (no label plugin in the initramfs) writes none there."""
    n = 0
    y0 = int(0.55 * fr.h) + 40
    for y in range(y0, min(fr.h, y0 + 40), 2):
        row = fr.row(y)
        for x in range(fr.w // 4, 3 * fr.w // 4, 2):
            if min(row[3 * x:3 * x + 3]) > 200:
                n += 1
    return n > 20


def red_box(fr):
    """Bounding box (x0, y0, x1, y1) of the red pixels: Debian's swirl, the
    header image of spinfinity. None when there are none."""
    xs, ys = [], []
    for y in range(0, fr.h, 2):
        row = fr.row(y)
        for x in range(0, fr.w, 2):
            r, g, b = row[3 * x:3 * x + 3]
            if r > 150 and b < 120 and g < 120:
                xs.append(x)
                ys.append(y)
    return (min(xs), min(ys), max(xs), max(ys)) if len(xs) > 50 else None


def side_by_side(plymouth, ours):
    """Plymouth's own frame against dormouse's: the background at the four
    corners and the logo's place. Returns a sentence, or raises Failure."""
    pts = [(4, 4), (plymouth.w - 5, 4), (4, plymouth.h - 5), (plymouth.w - 5, plymouth.h - 5)]
    worst = max(abs(a - b) for x, y in pts for a, b in zip(plymouth.pixel(x, y), ours.pixel(x, y)))
    if worst > 6:
        raise Failure(f"side by side: the backgrounds differ by {worst} at the corners")
    a, b = red_box(plymouth), red_box(ours)
    if a is None or b is None:
        raise Failure(f"side by side: the logo is missing (Plymouth {a}, dormouse {b})")
    off = max(abs(p - q) for p, q in zip(a, b))
    if off > 4:
        raise Failure(f"side by side: the logo is at {b} in dormouse's frame, {a} in Plymouth's")
    return f"backgrounds within {worst}/255, logo within {off} px of Plymouth's ({a})"


def handover_frames(vm, since, stop, dest, prefix, interval=0.1):
    """Screendumps every interval s (host clock) until stop shows on the serial console."""
    dest.mkdir(parents=True, exist_ok=True)
    shots, n = [], 0
    while vm.exit_t is None and time.monotonic() < vm.deadline:
        if vm.wait_for(stop, 0, since):
            break
        n += 1
        t = time.monotonic()
        p = vm.screendump(dest / f"{prefix}-{n:03d}.ppm")
        if p:
            shots.append((t, p))
        time.sleep(max(0, interval - (time.monotonic() - t)))
    return shots


def check_no_dark_gap(name, saved, out, last=None):
    """From the first frame on Plymouth's background to the last one on it (or
    to the frame index last), no black frame. Returns the indices of the
    frames on that background."""
    on = [i for i, (fr, _) in enumerate(saved) if plymouth_gradient(fr)]
    if not on:
        raise Failure(f"{name}: no screendump showed Plymouth's {PLYMOUTH_THEME} background; "
                      f"see {out}")
    end = on[-1] if last is None else last
    gap = [png.name for fr, png in saved[on[0]:end + 1] if dark(fr)]
    if gap:
        raise Failure(f"{name}: black frames between Plymouth's picture and dormouse's: "
                      f"{gap[:5]}; see {out}")
    return on


def plymouth_refusal(h, out, append):
    """A boot without an image under Plymouth: dormouse exits 1 and Plymouth,
    reactivated, has the screen again."""
    disk2 = h.new_disk("ply-none")
    run(["mkswap", str(disk2)])  # a plain swap area, as after any normal shutdown
    with VM(h, "ply-none", "plymouth-resume", disk2, append) as vm:
        idx = expect(vm, r"VMTEST: PLYMOUTH started", "plymouthd showing its splash", 60)[0]
        shots = handover_frames(vm, idx, r"VMTEST: PLYMOUTH quit", h.work / "shots-ply-none",
                                "back")
        m = expect(vm, r"VMTEST: DORMOUSE resume rc=(\d+)", "dormouse resume's exit", 60)[2]
        t_back = vm.wait_for(r"VMTEST: PLYMOUTH reactivated", 10, idx)
        expect_exit(vm, "power-off")
    if m.group(1) != str(RC_NO_IMAGE) or t_back is None:
        raise Failure(f"ply-none: dormouse resume rc={m.group(1)} (expected {RC_NO_IMAGE}), "
                      f"reactivated: {t_back is not None}")
    back = save_pngs([(t - t_back[1], p) for t, p in shots], out, "refusal")
    check_no_dark_gap("ply-none", back, out)
    after = [fr for fr, _ in back if fr.t > 0.5 and plymouth_gradient(fr)]
    if not after:
        raise Failure(f"ply-none: Plymouth's picture did not come back after reactivate; see {out}")
    return f"without an image Plymouth has the screen again ({len(after)} frames)"


def scenario_plymouth_handover(h):
    """Debian's plymouthd shows spinfinity (two-step) in the initramfs; dormouse
    resume with theme = plymouth takes the screen after plymouth deactivate.
    Screendumps every 100 ms across the handover: no black frame between
    Plymouth's picture and dormouse's, and dormouse's frames are on the same
    background. Then a boot without an image: dormouse leaves, Plymouth gets
    the screen back (reactivate) before it quits."""
    h.need_dormouse()
    if not have_plymouth():
        raise Failure("plymouth-handover: Debian's plymouth and plymouth-themes are not "
                      "installed (tools/packages)")
    out = h.out_dir("plymouth-handover")
    # No udev in this initramfs; the serial console is for the test's messages.
    append = "splash plymouth.ignore-udev plymouth.ignore-serial-consoles"
    refusal = plymouth_refusal(h, out, append)
    disk, res = hibernated_disk(h, "ply")
    with VM(h, "ply-2", "plymouth-resume", disk, append) as vm:
        idx = expect(vm, r"VMTEST: PLYMOUTH started", "plymouthd showing its splash", 60)[0]
        shots = handover_frames(vm, idx, r"^TICK \d+|VMTEST: DORMOUSE resume rc=", h.work / "shots-ply-2",
                                "ho")
        hit = vm.wait_for(r"^TICK \d+|VMTEST: DORMOUSE resume rc=(\d+)", 90, idx)
        if hit is None or hit[2].group(1) is not None:
            raise Failure(f"ply-2: the image was not restored; serial log {vm.logpath}:\n"
                          f"{vm.tail(25)}")
        t_deact = vm.wait_for(r"VMTEST: DORMOUSE resume start", 0, idx)[1]
        # The restore begins with the freeze: from there on the screen is
        # the kernel's (devices quiesced, then the restored kernel's own
        # scan-out, which may re-show any picture left in video memory).
        frz = vm.wait_for(r"Freezing user space processes", 0, idx)
        timing = [m.group(1) for _, _, m in vm.find_all(r"dormouse: timing: (.*frame.*)")]
        expect(vm, r"VMTEST: DORMOUSE hibernate rc=0", "the hibernating dormouse exiting 0", 60)
        check_restored_workload(vm, res["checksum"], res["token"], res["counter"])
        expect_exit(vm, "power-off after the check")
    if frz is None:
        raise Failure(f"ply-2: no freeze before the restore in {vm.logpath}")
    saved = save_pngs([(t - t_deact, p) for t, p in shots], out, "handover")
    t_restore = frz[1] - t_deact
    handover = [x for x in saved if x[0].t < t_restore]
    ours = [i for i, (fr, _) in enumerate(handover) if fr.t >= 0 and plymouth_gradient(fr)
            and dormouse_text(fr)]
    if not ours:
        raise Failure(f"ply-2: no frame of dormouse's on Plymouth's background; see {out}")
    on = check_no_dark_gap("ply-2", handover, out, last=ours[-1])
    before = [i for i in on if handover[i][0].t < 0]
    if not before:
        raise Failure(f"ply-2: no frame of Plymouth's before the handover; see {out}")
    # Continuity: from Plymouth's last frame to dormouse's first complete one
    # the backdrop and the logo stay (no frame of backdrop alone).
    step = [png.name for fr, png in handover[before[-1]:ours[0] + 1]
            if not plymouth_gradient(fr) or red_box(fr) is None]
    if step:
        raise Failure(f"ply-2: the picture was not continuous at the handover (no logo or not "
                      f"on Plymouth's background): {step[:5]}; see {out}")
    restore = saved[len(handover):]
    restore_dark = sum(1 for fr, _ in restore if dark(fr))
    compared = side_by_side(handover[before[-1]][0], handover[ours[len(ours) // 2]][0])
    first = handover[ours[0]][0].t

    return (f"{len(handover)} screendumps at 100 ms up to the restore: Plymouth's "
            f"{PLYMOUTH_THEME} ({len(before)} frames) → dormouse on the same background "
            f"({len(ours)} frames with its text, the first {first:.1f} s after plymouth "
            f"deactivate), no black frame and the logo on every frame between; dormouse: "
            f"{'; '.join(timing)}; side by side: {compared}; restored (then {restore_dark} "
            f"black of {len(restore)} frames while the kernel restores, not checked); "
            f"{refusal}; PNGs in {out}")


# --- hybrid sleep and suspend-then-hibernate (issue 37) ---------------------
# No systemd in this guest: the commands themselves, on the real kernel,
# with a real suspend to RAM (QEMU's S3: "info status" says "suspended"),
# QEMU's system_wakeup standing in for the person and the RTC alarm (the
# CMOS RTC's wake event) for the timer.
SLEEP_TIMEOUT = 420.0


def wait_status(vm, word, timeout, absent=False):
    """Until QEMU's run state contains word (or, absent, no longer does);
    the time it did, or None."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and vm.exit_t is None:
        try:
            out = vm.hmp("info status")
        except OSError:
            return None
        if (word in out) != absent:
            return time.monotonic()
        time.sleep(0.2)
    return None


def sleep_boot1(h, name, disk, mode, extra_append=""):
    """Boot 1: the workload, then dormouse MODE until QEMU reports the guest
    suspended. Returns (vm, res) with the VM still running."""
    vm = VM(h, name, f"dm-{mode}", disk, extra_append, bzimage=True).start()
    vm.deadline = vm.start_t + SLEEP_TIMEOUT
    res = {"vm": vm}
    res["checksum"], res["token"] = boot1_workload(vm)
    idx, res["t_start"], _ = expect(vm, rf"VMTEST: DORMOUSE {mode} start", f"dormouse {mode}", 60)
    res["t_suspended"] = wait_status(vm, "suspended", SLEEP_TIMEOUT)
    res["counter"] = last_tick(vm)
    if res["t_suspended"] is None:
        vm.kill()
        raise Failure(f"{name}: the guest never suspended to RAM; serial log {vm.logpath}:\n"
                      f"{vm.tail(25)}")
    return vm, res


def image_status(h, disk):
    info = h.dormouse_info(disk) or {}
    return info.get("status"), (info.get("header") or {}).get("encryption")


def scenario_hybrid_wake(h):
    h.need_dormouse()
    disk = h.new_disk("hyw")
    vm, res = sleep_boot1(h, "hyw", disk, "hybrid-sleep")
    try:
        status, _ = image_status(h, disk)
        if status != "image":
            raise Failure(f"hyw: suspended, but no dormouse image on the swap area ({status})")
        t_wake = time.monotonic()
        vm.hmp("system_wakeup")
        _, t_rc, m = expect(vm, r"VMTEST: DORMOUSE hybrid-sleep rc=(\d+)", "the wake", 120)
        if m.group(1) != "0":
            raise Failure(f"hyw: dormouse hybrid-sleep returned {m.group(1)} after the wake:\n"
                          f"{vm.tail(20)}")
        _, _, w = expect(vm, r"VMTEST: WORKLOAD (ok|BAD)", "the workload's verdict", 60)
        if w.group(1) != "ok":
            raise Failure("hyw: the workload's memory changed across the suspend")
        _, _, sig = expect(vm, r"VMTEST: SIG (\S+)", "the swap signature", 30)
        expect_exit(vm, "power-off after the checks")
    finally:
        vm.kill()
    if "SWAPSPACE2" not in sig.group(1):
        raise Failure(f"hyw: after the wake the swap area's signature is {sig.group(1)}, "
                      "not a plain swap area's")
    status, _ = image_status(h, disk)
    if status == "image":
        raise Failure("hyw: after the wake the image is still on the swap area")
    write_s = res["t_suspended"] - res["t_start"]
    h.figures["hybrid-wake"] = {"image_then_suspend_s": write_s, "wake_s": t_rc - t_wake}
    return (f"image written and suspended in {write_s:.1f} s; woken: back in {t_rc - t_wake:.1f} s, "
            "image discarded, swap area plain, workload intact")


def scenario_hybrid_power_loss(h):
    h.need_dormouse()
    disk = h.new_disk("hyp")
    vm, res = sleep_boot1(h, "hyp-1", disk, "hybrid-sleep")
    vm.kill()  # the battery died while suspended
    status, _ = image_status(h, disk)
    if status != "image":
        raise Failure(f"hyp: power lost while suspended, but no dormouse image ({status})")
    vm2, t_alive, _ = dormouse_resume_boot(h, "hyp-2", disk, res, command="hybrid-sleep",
                                          bzimage=True)
    return (f"image written and suspended in {res['t_suspended'] - res['t_start']:.1f} s; power "
            f"cut; the next boot resumed it in {t_alive - vm2.start_t:.1f} s, workload intact")


def scenario_suspend_then_hibernate(h):
    h.need_dormouse()
    disk = h.new_disk("sth")
    delay = 40
    vm, res = sleep_boot1(h, "sth-1", disk, "suspend-then-hibernate", f"vmdelaysec={delay}s")
    try:
        status, _ = image_status(h, disk)
        if status == "image":
            raise Failure("sth: an image is on the swap area before the alarm")
        # Nobody wakes it: the RTC alarm must, and dormouse must hibernate.
        t_woke = wait_status(vm, "suspended", SLEEP_TIMEOUT, absent=True)
        if t_woke is None:
            raise Failure(f"sth: the RTC alarm never woke the guest; serial log {vm.logpath}:\n"
                          f"{vm.tail(20)}")
        expect(vm, r"hibernating: the wake alarm rang", "dormouse's reason to hibernate", 60)
        t_off = expect_exit(vm, "power-off into the image")
    finally:
        vm.kill()
    status, _ = image_status(h, disk)
    if status != "image":
        raise Failure(f"sth: powered off without a dormouse image ({status})")
    vm2, t_alive, _ = dormouse_resume_boot(h, "sth-2", disk, res, command="suspend-then-hibernate",
                                          bzimage=True)
    slept = t_woke - res["t_suspended"]
    h.figures["suspend-then-hibernate"] = {"suspended_s": slept, "hibernate_s": t_off - t_woke,
                                           "resume_s": t_alive - vm2.start_t}
    return (f"suspended {slept:.1f} s (HibernateDelaySec={delay}s), the RTC alarm woke it, "
            f"image written and off in {t_off - t_woke:.1f} s, resumed in "
            f"{t_alive - vm2.start_t:.1f} s, workload intact")


def scenario_sth_early_wake(h):
    h.need_dormouse()
    disk = h.new_disk("sthw")
    vm, res = sleep_boot1(h, "sthw", disk, "suspend-then-hibernate", "vmdelaysec=1h")
    try:
        vm.hmp("system_wakeup")
        _, _, m = expect(vm, r"VMTEST: DORMOUSE suspend-then-hibernate rc=(\d+)", "the wake", 120)
        said = vm.find_all(r"before the alarm: back to the session, no image written")
        _, _, sig = expect(vm, r"VMTEST: SIG (\S+)", "the swap signature", 60)
        expect_exit(vm, "power-off after the checks")
    finally:
        vm.kill()
    if m.group(1) != "0" or not said:
        raise Failure(f"sthw: after the person's wake: rc={m.group(1)}, "
                      f"{'said' if said else 'did not say'} it went back to the session")
    if "SWAPSPACE2" not in sig.group(1) or image_status(h, disk)[0] == "image":
        raise Failure(f"sthw: an image was written although the person woke it ({sig.group(1)})")
    return "woken by the person before the alarm: back to the session, no image written"


def hibernate_refused(h, name, append, want_rc, sentence):
    """Boot 1 whose dormouse hibernate must refuse before the freeze: exit
    want_rc, the sentence on the console, nothing frozen, the workload on,
    no image on the disk."""
    h.need_dormouse()
    disk = h.new_disk(name)
    res = dormouse_boot1(h, f"{name}-1", disk, append)
    vm = res["vm"]
    said = vm.find_all(sentence)
    if res["rc"] != want_rc or not said:
        raise Failure(f"{name}: dormouse hibernate rc={res['rc']} (expected {want_rc}), "
                      f"{'with' if said else 'without'} the sentence; serial log {vm.logpath}:\n"
                      f"{vm.tail(20)}")
    if vm.find_all(r"Freezing user space processes"):
        raise Failure(f"{name}: the kernel froze user space before the refusal")
    if not vm.find_all(r"VMTEST: WORKLOAD ok"):
        raise Failure(f"{name}: the workload's verdict after the refusal is not ok")
    if image_status(h, disk)[0] == "image":
        raise Failure(f"{name}: an image was written although hibernate refused")
    return said[0][2].group(0)


def scenario_lockdown(h):
    """lockdown=integrity stands in for Secure Boot: the kernel refuses
    /dev/snapshot; dormouse must say so before anything is frozen."""
    said = hibernate_refused(h, "lockdown", "lockdown=integrity", 6,
                             r"the kernel is locked down \(.*integrity.*\), which forbids "
                             r"hibernation")
    return f"refused before the freeze (exit 6), workload on: \"{said}\""


def scenario_stale_offset(h):
    """resume_offset= left on the command line for a swap area that starts
    at page 0: no active swap area starts where the image would go."""
    said = hibernate_refused(h, "stale", "resume_offset=30721", 2,
                             r"no active swap area starts at page 30721 of /dev/vda")
    return f"refused before the freeze (exit 2), workload on: \"{said}\""


def scenario_no_resume_arg(h):
    """Nothing names a resume device (no resume=, no --resume-device, no
    config): on OVMF with persistent variables, hibernate picks the active
    swap area and writes systemd's HibernateLocation; the next boot's
    dormouse resume finds the image through it, and the variable is gone
    afterwards (a third boot looks)."""
    h.need_dormouse()
    if not (OVMF_CODE.exists() and OVMF_VARS.exists()):
        raise Failure(f"{OVMF_CODE} or {OVMF_VARS} is missing (Debian package ovmf)")
    disk = h.new_disk("nra")
    efi_vars = h.work / "nra-vars.fd"
    shutil.copyfile(OVMF_VARS, efi_vars)
    res = {}
    with VM(h, "nra-1", "dm-hibernate-auto", disk, efi_vars=efi_vars) as vm:
        vm.deadline = vm.start_t + 300
        res["vm"] = vm
        res["checksum"], res["token"] = boot1_workload(vm)
        _, _, m = expect(vm, r"VMTEST: EFIVAR (\d+)", "efivarfs", 120)
        if vm.find_all(r"VMTEST: EFI no"):
            raise Failure("nra: OVMF did not boot the kernel through EFI (no efivarfs)")
        _, t_start, _ = expect(vm, r"VMTEST: DORMOUSE hibernate start", "dormouse hibernate", 60)
        res["t_start"] = t_start
        expect(vm, r"the EFI variable HibernateLocation tells the next boot \(\{\"uuid\"",
               "the sentence that HibernateLocation was written", 120)
        res["t_exit"] = expect_exit(vm, "power-off into the image")
        res["counter"] = last_tick(vm)
        res["rc"] = None
    if image_status(h, disk)[0] != "image":
        raise Failure("nra: powered off, but no dormouse image on the swap disk")
    vm2, t_alive, _ = dormouse_resume_boot(h, "nra-2", disk, res, efi_vars=efi_vars)
    if not vm2.find_all(r"VMTEST: EFIVAR 1"):
        raise Failure("nra: boot 2 did not see HibernateLocation in efivarfs")
    with VM(h, "nra-3", "efivar-check", disk, efi_vars=efi_vars) as vm3:
        vm3.deadline = vm3.start_t + 300
        _, _, m = expect(vm3, r"VMTEST: EFIVAR (\d+)", "efivarfs", 120)
        expect_exit(vm3, "power-off")
    if m.group(1) != "0":
        raise Failure("nra: HibernateLocation is still set after the resume it served")
    return (f"no resume device named: HibernateLocation written, hibernated in "
            f"{res['t_exit'] - res['t_start']:.1f} s, resumed through it in "
            f"{t_alive - vm2.start_t:.1f} s (workload intact), the variable gone afterwards")



# Issue 27's soak: one guest hibernated and resumed again and again, each
# restored session hibernating the next time with no cold boot between,
# the modes taken in turn (init.sh soak: COMPRESSION or
# COMPRESSION+passphrase; the passphrase from a key file at both ends).
SOAK_MODES = ("lz4", "zstd+passphrase", "none", "lz4+passphrase", "zstd")
SOAK_KEY = "soak-passphrase"
# What a leak would make grow, and by how much it may move without one:
# the kernel's open files (file-nr, read by a shell that has a few of its
# own open) and dormouse's peak resident memory, a fresh process each cycle.
SOAK_FILES_SLACK = 8
SOAK_PEAK_SLACK_KIB = 2048
# The image of the same mode in the last third of the cycles against the
# first (means): the workload is the same, so is the system around it.
SOAK_IMAGE_GROWTH = 0.05


def soak_trend(rows, key):
    """(first third's mean, last third's mean) of rows[key]: the same row
    twice for fewer than three."""
    k = max(1, len(rows) // 3)
    first, last = [r[key] for r in rows[:k]], [r[key] for r in rows[-k:]]
    return sum(first) / len(first), sum(last) / len(last)


def soak_hibernation(h, vm, i, disk):
    """Cycle i's hibernation in vm, up to its power-off: its figures."""
    mode = SOAK_MODES[(i - 1) % len(SOAK_MODES)]
    _, t_start, _ = expect(vm, rf"VMTEST: SOAK cycle {i} start mode={re.escape(mode)}:",
                           f"cycle {i}'s hibernation ({mode})", 120)
    t_off = expect_exit(vm, f"power-off of cycle {i}'s hibernation")
    rc = vm.find_all(rf"VMTEST: SOAK cycle {i} rc=(\d+)")
    if rc:
        raise Failure(f"{vm.name}: cycle {i} ({mode}): dormouse hibernate returned "
                      f"rc={rc[-1][2].group(1)} without powering off:\n{vm.tail()}")
    peak = vm.find_all(r"peak resident (\d+) KiB \(VmHWM\)")
    info = h.dormouse_info(disk) or {}
    hdr = info.get("header") or {}
    if info.get("status") != "image":
        raise Failure(f"cycle {i} ({mode}): no image on the swap disk after the power-off "
                      f"(dormouse info: {info.get('status')})")
    if bool(hdr.get("encrypted")) != ("+passphrase" in mode):
        raise Failure(f"cycle {i} ({mode}): the image's encrypted flag is {hdr.get('encrypted')}")
    return {"hibernate_s": t_off - t_start, "pages": hdr.get("image_pages") or 0,
            "stored_kib": (hdr.get("stored_bytes") or 0) // 1024,
            "peak_kib": int(peak[-1][2].group(1)) if peak else 0}


def soak_cycles(h, disk, append, cycles, rows):
    """The soak's boots, a row per cycle restored into rows."""
    counter = 0
    with VM(h, "soak-0", "dm-soak", disk, append) as vm:
        checksum, token = boot1_workload(vm)
        hib = soak_hibernation(h, vm, 1, disk)
    for i in range(1, cycles + 1):
        mode = SOAK_MODES[(i - 1) % len(SOAK_MODES)]
        with VM(h, f"soak-{i}", "dm-resume", disk, f"vmkey={SOAK_KEY}" if "+" in mode else "") as vm:
            idx, t_cmd, _ = expect(vm, r"VMTEST: DORMOUSE resume start", "dormouse resume", 60)
            hit = vm.wait_for(rf"VMTEST: SOAK cycle {i} rc=(\d+)|VMTEST: DORMOUSE resume rc=(\d+)",
                              120, idx)
            if hit is None or hit[2].group(1) != "0":
                raise Failure(f"{vm.name}: cycle {i} ({mode}) was not restored "
                              f"({hit[2].group(0) if hit else 'nothing'}); serial log "
                              f"{vm.logpath}:\n{vm.tail(25)}")
            t_back = hit[1]
            m = check_restored_workload(vm, checksum, token, counter, idx)
            counter = int(m.group(4))
            _, _, r = expect(vm, rf"VMTEST: SOAK cycle {i} restored sig=(\S+) swapon=(\w+) "
                                 r"files=(\d+)", f"cycle {i}'s checks after the resume", 60, idx)
            if r.group(1) != "SWAPSPACE2" or r.group(2) != "yes":
                raise Failure(f"{vm.name}: after cycle {i}'s resume the swap area is not plain, "
                              f"usable swap: signature {r.group(1)}, swapon {r.group(2)}")
            rows.append(dict(hib, cycle=i, mode=mode, resume_s=t_back - vm.start_t,
                             resume_cmd_s=t_back - t_cmd, files=int(r.group(3))))
            log("soak cycle {cycle:3} {mode:16} hibernate {hibernate_s:6.2f} s, resume "
                "{resume_s:6.2f} s ({resume_cmd_s:5.2f} s from the command), {pages} pages "
                "stored as {stored_kib} KiB, dormouse peak {peak_kib} KiB, "
                "{files} files open".format(**rows[-1]))
            if i < cycles:
                hib = soak_hibernation(h, vm, i + 1, disk)
            else:
                expect(vm, rf"VMTEST: SOAK done cycles={cycles}", "the soak's end", 60, idx)
                expect_exit(vm, "power-off after the last cycle")


def scenario_soak(h):
    """Issue 27: h.args.soak_cycles hibernations of one guest, each resume
    restoring the workload intact (checksum, token, a counter that goes on)
    and leaving plain swap (SWAPSPACE2, swapoff and swapon work), the modes
    taken in turn. Per cycle: hibernate and resume times, the image's pages
    and stored size, dormouse's peak resident memory, the kernel's open
    files. Fails on a cycle that does not come back, on swap left unusable,
    and on growth: more open files or more of dormouse's memory (per mode)
    than the first cycles had. Times and sizes are reported, not checked:
    their trend is in the summary."""
    h.need_dormouse()
    cycles = h.args.soak_cycles
    disk = h.new_disk("soak")
    append = f"vmcycles={cycles} vmsoakmodes={','.join(SOAK_MODES)} vmsoakkey={SOAK_KEY}"
    rows = []
    try:
        soak_cycles(h, disk, append, cycles, rows)
    except Failure as e:
        # The chain ends with the first cycle that does not come back.
        log(f"soak: {len(rows) + 1} cycles, 1 failures")
        raise Failure(f"soak: {len(rows) + 1} cycles, 1 failures: cycle {len(rows) + 1}: {e}")
    log(f"soak: {len(rows)} cycles, 0 failures")
    problems = []
    files0 = max(r["files"] for r in rows[:max(1, len(rows) // 3)])
    if max(r["files"] for r in rows) > files0 + SOAK_FILES_SLACK:
        problems.append(f"open files grew: {[r['files'] for r in rows]}")
    if any(r["peak_kib"] == 0 for r in rows):
        problems.append("a cycle printed no peak memory (DORMOUSE_DEBUG_TIMING's line)")
    for mode in SOAK_MODES:
        peaks = [r["peak_kib"] for r in rows if r["mode"] == mode]
        if peaks and max(peaks) > peaks[0] + SOAK_PEAK_SLACK_KIB:
            problems.append(f"dormouse's peak memory grew in mode {mode}: {peaks} KiB")
    # The trend per mode: the modes differ more from each other than a cycle
    # from the next.
    per_mode = []
    figures = {"cycles": len(rows), "rows": {"list": rows}}
    for mode in SOAK_MODES:
        mine = [r for r in rows if r["mode"] == mode]
        if not mine:
            continue
        t = {k: soak_trend(mine, k) for k in ("hibernate_s", "resume_s", "pages", "peak_kib",
                                              "files")}
        figures[mode] = {k: list(v) for k, v in t.items()}
        if t["pages"][1] > t["pages"][0] * (1 + SOAK_IMAGE_GROWTH):
            problems.append(f"the image grew in mode {mode}: {t['pages'][0]:.0f} pages in the "
                            f"first third, {t['pages'][1]:.0f} in the last")
        per_mode.append(f"{mode} ×{len(mine)}: hibernate {t['hibernate_s'][0]:.2f}→"
                        f"{t['hibernate_s'][1]:.2f} s, resume {t['resume_s'][0]:.2f}→"
                        f"{t['resume_s'][1]:.2f} s, image {t['pages'][0]:.0f}→{t['pages'][1]:.0f} "
                        f"pages, peak {t['peak_kib'][0]:.0f}→{t['peak_kib'][1]:.0f} KiB")
    h.figures["soak"] = figures
    summary = (f"soak: {len(rows)} cycles, 0 failures: every one restored with the workload "
               f"intact and plain swap, "
               f"open files {rows[0]['files']}→{rows[-1]['files']}; first third → last third "
               f"of each mode: " + "; ".join(per_mode))
    if problems:
        raise Failure("; ".join(problems) + "\n" + summary)
    return summary



# Issue 27's power cuts. The hibernation's every write and flush is logged
# by QEMU (writelog.py); each cut point is a disk as a power cut there
# could leave it (what the last flush covered, any subset of what came
# after, the last write maybe torn), booted to resume.
SWAP_MAGIC = b"SWAPSPACE2"


def signature_of(path):
    with open(path, "rb") as f:
        f.seek(4086)
        return f.read(10)


def boot_cut_state(h, name, state, res, extra=""):
    """Boots the disk `state` to resume: (outcome, dormouse resume's exit
    status or None, what was seen). Outcomes: "restored" (the workload
    back intact), "wrong" (something came back, not intact), "fresh"
    (dormouse resume gave up and left plain, usable swap), "stale" (it gave
    up and left its signature: an image a later boot could still resume),
    "unusable" (neither its signature nor usable swap). A boot that says
    neither is the harness's failure."""
    with VM(h, name, "dm-resume", state, extra) as vm:
        idx, _, _ = expect(vm, r"VMTEST: DORMOUSE resume start", "dormouse resume", 60)
        hit = vm.wait_for(r"^TICK \d+|VMTEST: DORMOUSE resume rc=(\d+)", 120, idx)
        if hit is None:
            raise Failure(f"{vm.name}: neither a restore nor dormouse resume's status; serial log "
                          f"{vm.logpath}:\n{vm.tail(25)}")
        if hit[2].group(1) is None:
            try:
                expect(vm, r"VMTEST: DORMOUSE hibernate rc=0", "the hibernate exiting 0", 60, idx)
                check_restored_workload(vm, res["checksum"], res["token"], res["counter"], idx)
            except Failure as e:
                return "wrong", None, str(e).splitlines()[0]
            expect_exit(vm, "power-off after the check")
            return "restored", None, ""
        rc = int(hit[2].group(1))
        _, _, sig = expect(vm, r"VMTEST: SIG (\S+)", "the signature after the resume", 30, hit[0])
        _, _, on = expect(vm, r"VMTEST: SWAPON (\w+)", "swapon after the resume", 60, hit[0])
        expect_exit(vm, "power-off")
        seen = f"signature {sig.group(1)}, swapon {on.group(1)}"
        if sig.group(1) == "SWAPSPACE2" and on.group(1) == "ok":
            return "fresh", rc, seen
        return ("unusable" if sig.group(1) == "SWAPSPACE2" else "stale"), rc, seen


def cut_summary(table):
    """The issue's line, "power-cut: N trials, S stale, W wrong, U
    unusable", from the outcomes in table."""
    n = {o: sum(1 for row in table if row["outcome"] == o) for o in ("stale", "wrong", "unusable")}
    return (f"power-cut: {len(table)} trials, {n['stale']} stale, {n['wrong']} wrong, "
            f"{n['unusable']} unusable")


def scenario_power_cut(h, name="power-cut", extra=""):
    """Issue 27: h.args.power_cuts cuts (and always: after everything, and
    on either side of the signature's write) across dormouse's writes of
    one hibernation, each booted. The image must come back whole when the
    cut left dormouse's signature on the disk and the guest must boot fresh
    with plain, usable swap when it did not: never a wrong restore, never a
    resume of a half-written image, never a session lost while its
    signature was there. extra: both boots' command line (the encrypted
    variant's key)."""
    h.need_dormouse()
    pfx = "cut" if name == "power-cut" else "ecut"  # the boots' and disks' names
    disk, log_path = h.new_disk(pfx), h.new_disk(f"{pfx}-log", 2 * DISK_SIZE)
    res = dormouse_boot1(h, f"{pfx}-1", disk, extra, write_log=log_path)
    require_powered_off(res)
    wl = writelog.WriteLog(log_path)
    writes = [e for e in wl.entries if not e.is_flush]
    # The log must be the disk: replayed onto an empty one it gives what QEMU left.
    replay = h.new_disk(f"{pfx}-replay")
    wl.apply([(e, e.sectors) for e in writes], replay)
    if not filecmp.cmp(replay, disk, shallow=False):
        raise Failure("the write log replayed does not give the disk QEMU left: the harness "
                      "cannot cut at points of it")
    replay.unlink()
    # dormouse's writes: after init.sh's mkswap, which writes page 0 only.
    first = next((e.index for e in writes if e.sector >= 8), None)
    sig = [e.index for e in writes if e.sector * wl.sector_size <= 4086
           < (e.sector + e.sectors) * wl.sector_size]
    if first is None or not sig:
        raise Failure(f"no image writes or no signature write in the log ({len(wl.entries)} "
                      f"entries)")
    last_sig = sig[-1]
    n = len(wl.entries)
    log(f"write log: {n} entries, {len(writes)} writes, "
                f"{n - len(writes)} flushes; dormouse's from entry {first}, "
                f"signature written at entry {last_sig}")
    rng = random.Random(h.args.power_cut_seed)
    cuts = writelog.pick_cuts(first, n, h.args.power_cuts, rng,
                              always=(n, last_sig, last_sig + 1))
    table, problems = [], []
    for k, cut in enumerate(cuts, 1):
        kept, desc = wl.crash_writes(cut, rng)
        state = h.new_disk(f"{pfx}-state")
        wl.apply(kept, state)
        has_sig = signature_of(state) != SWAP_MAGIC and any(e.index == last_sig for e, _ in kept)
        outcome, rc, seen = boot_cut_state(h, f"{pfx}-{k + 1}", state, res, extra)
        state.unlink()
        row = {"cut": cut, "kept": desc, "signature": has_sig, "outcome": outcome, "rc": rc}
        table.append(row)
        log(f"power cut {k:2}/{len(cuts)}: {desc}; {'signature' if has_sig else 'no signature'} "
            f"-> {outcome}" + (f" (dormouse resume exit {rc}; {seen})" if rc is not None else "")
            + (f": {seen}" if outcome == "wrong" else ""))
        if outcome in ("stale", "wrong", "unusable"):
            problems.append(f"cut {cut} ({desc}): {outcome}, {seen}")
        elif has_sig and outcome != "restored":
            problems.append(f"cut {cut}: the signature was on the disk but the session was not "
                            f"restored (exit {rc}): {desc}")
        elif not has_sig and outcome == "restored":
            problems.append(f"cut {cut}: restored without the signature: {desc}")
    counts = {}
    for row in table:
        key = f"{'signature' if row['signature'] else 'no signature'} -> {row['outcome']}"
        counts[key] = counts.get(key, 0) + 1
    h.figures[name] = {"cuts": len(table), "entries": n, "seed": h.args.power_cut_seed, **counts}
    summary = (f"{cut_summary(table)} (seed {h.args.power_cut_seed}, {n} logged requests: "
               + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) + ")")
    log(cut_summary(table))
    if problems:
        raise Failure("; ".join(problems) + "\n" + summary)
    return summary



def scenario_power_cut_encrypted(h):
    """Issue 27: power-cut with an encrypted image (passphrase mode, the
    key from a key file at hibernate and at every resume): the same cuts,
    the same rules. A cut mid-write must never leave a half-written image
    that decrypts to something, nor lose a session whose signature was
    there."""
    h.need_dormouse()
    return scenario_power_cut(h, "power-cut-encrypted", f"vmkey={ENC_RIGHT}")


# Where a resume was when its power went: the last of these its serial
# console showed (the restored system's workload ticks last).
RESUME_STAGES = (("before the image", r"VMTEST: DORMOUSE resume start"),
                 ("checking", r"Checking the image"),
                 ("reading", r"Restoring memory"),
                 ("restoring", r"Starting the saved system"),
                 ("restored system running", r"^TICK \d+"))


def resume_stage(vm, since):
    with vm.cond:
        lines = list(vm.lines[since:])
    stage = RESUME_STAGES[0][0]
    for _, text in lines:
        for name, rx in RESUME_STAGES[1:]:
            if re.search(rx, text):
                stage = name
    return stage


def scenario_power_cut_resume(h):
    """Issue 27: the power cut during a resume, h.args.power_cuts // 2 times
    (at least 3) at random moments from the resume's start to a second
    after its restored system ticked, each on a fresh copy of the same
    image; then the disk booted again. The next boot restores the session
    or boots fresh with plain, usable swap; it must never restore a
    session that had already been restored and ran (the image was
    consumed), and never restore a wrong one."""
    h.need_dormouse()
    disk = h.new_disk("cutr")
    res = dormouse_boot1(h, "cutr-1", disk)
    require_powered_off(res)
    base = h.work / "cutr-base.img"
    shutil.copyfile(disk, base)
    # How long a whole resume takes, on a copy: the cuts are drawn over it.
    vm, t_alive, _ = dormouse_resume_boot(h, "cutr-2", disk, res)
    span = t_alive - vm.resume_cmd_t + 1.0
    rng = random.Random(h.args.power_cut_seed)
    count = max(3, h.args.power_cuts // 2)
    table, problems = [], []
    for k in range(count):
        delay = span * (k + rng.random()) / count  # one in each stratum of the span
        shutil.copyfile(base, disk)
        with VM(h, f"cutr-{k + 3}a", "dm-resume", disk) as vm:
            idx, t0, _ = expect(vm, r"VMTEST: DORMOUSE resume start", "dormouse resume", 60)
            vm.wait_exit(max(0.0, t0 + delay - time.monotonic()))
            ended = vm.exit_t is not None
            vm.kill()
            stage = "powered off already" if ended else resume_stage(vm, idx)
        outcome, rc, seen = boot_cut_state(h, f"cutr-{k + 3}b", disk, res)
        ran = stage in ("restored system running", "powered off already")
        if ran and outcome == "restored":
            outcome = "stale"  # the same session twice: what it did after the first is lost
            seen = "restored again after its restored system had run"
        table.append({"delay": delay, "stage": stage, "outcome": outcome, "rc": rc})
        log(f"resume cut {k + 1}/{count}: {delay:.2f} s after the resume started, {stage} -> "
            f"next boot {outcome}" + (f" (dormouse resume exit {rc}; {seen})" if rc is not None
                                      else (f": {seen}" if seen else "")))
        if outcome in ("stale", "wrong", "unusable"):
            problems.append(f"the cut {delay:.2f} s into the resume ({stage}): {outcome}, {seen}")
    counts = {}
    for row in table:
        key = f"{row['stage']} -> {row['outcome']}"
        counts[key] = counts.get(key, 0) + 1
    h.figures["power-cut-resume"] = {"cuts": len(table), "seed": h.args.power_cut_seed, **counts}
    summary = (f"{cut_summary(table)} during the resume (seed {h.args.power_cut_seed}, "
               f"{span:.1f} s of resume: " + ", ".join(f"{v} {k}" for k, v in counts.items()) + ")")
    log(cut_summary(table) + " (during the resume)")
    if problems:
        raise Failure("; ".join(problems) + "\n" + summary)
    return summary




# Swap in use: what the hog in init.sh (vmswapfirst=) fills, of the guest's
# 768 MiB with the workload's 150 MiB in it, and the least it must leave
# on the swap area for the scenario to mean anything.
SWAP_FIRST_MIB = 600
SWAP_FIRST_MIN_KIB = 16 << 10


def scenario_swap_in_use(h):
    """Issue 27: the swap area already holds swapped-out pages when the
    hibernation starts (the workload pushed out by a tmpfs filled and
    removed again). dormouse's image must go beside them, not over them:
    after the resume the workload reads its memory back, from swap where it
    was swapped out, and its checksum must be the one of boot 1."""
    h.need_dormouse()
    disk = h.new_disk("swapuse")
    res = dormouse_boot1(h, "swapuse-1", disk, f"vmswapfirst={SWAP_FIRST_MIB}")
    require_powered_off(res)
    used = res["vm"].find_all(r"VMTEST: SWAPUSED (\d+) kB")
    kib = int(used[-1][2].group(1)) if used else 0
    if kib < SWAP_FIRST_MIN_KIB:
        raise Failure(f"swapuse-1: only {kib} kB of the swap area were in use when the hibernation "
                      f"started: nothing for the image to go beside")
    image, stored = image_kib(h, disk)
    vm, t_alive, _ = dormouse_resume_boot(h, "swapuse-2", disk, res)
    return (f"{kib >> 10} MiB of swapped-out pages on the swap area when the hibernation started, "
            f"the image ({stored} KiB stored) beside them; after the resume the workload's memory, "
            f"read back from swap, checks out; resume {t_alive - vm.start_t:.2f} s")



# Issue 27's memory pressure: the workload's incompressible anonymous
# memory and page cache fill 85-95 % of the guest's RAM (init.sh's MEMUSED
# line, checked), and the kernel keeps its own preferred image size (2/5
# of RAM): before either path's snapshot the kernel must drop cache and
# push memory to the swap area the image then goes to. The sizes are for
# MEMORY (768M) and this initramfs's own ~80 MB.
PRESSURE_APPEND = "vmmib=500 vmcache=120 vmimagesize=default"
PRESSURE_RANGE = (85, 95)


def scenario_memory_pressure(h):
    """Issue 27: the kernel's own path and dormouse's, one after the other,
    with a workload that fills 85-95 % of RAM. dormouse must hibernate and
    resume it whole (the workload's checksum, its pages read back from
    swap), or fail cleanly: the system thawed and running, the workload
    intact, the swap area usable, and a message saying what to do. Never a
    stuck freeze, never dormouse killed after the freeze. Both paths'
    figures are reported side by side."""
    h.need_dormouse()
    k = kernel_round_trip(h, "mp-k", append=PRESSURE_APPEND)
    disk = h.new_disk("mp")
    res = dormouse_boot1(h, "mp-1", disk, PRESSURE_APPEND)
    vm1 = res["vm"]
    used = memused(vm1)
    if used is None:
        raise Failure(f"{vm1.name}: no MEMUSED line: the page cache was not filled; serial log "
                      f"{vm1.logpath}")
    if not PRESSURE_RANGE[0] <= used[0] <= PRESSURE_RANGE[1]:
        raise Failure(f"{vm1.name}: the workload and its cache fill {used[0]} % of RAM, not "
                      f"{PRESSURE_RANGE[0]}-{PRESSURE_RANGE[1]} %: PRESSURE_APPEND needs new sizes")
    if vm1.find_all(r"Out of memory: Killed process|oom-kill:"):
        raise Failure(f"{vm1.name}: the OOM killer ran during the hibernation; serial log "
                      f"{vm1.logpath}:\n{vm1.tail(25)}")
    kernel = (f"kernel's path: hibernate {k['hibernate_s']:.2f} s, resume {k['resume_s']:.2f} s, "
              f"image {k['image_kib']} KiB, {k['swapped_out']} pages swapped out"
              + (f" (RAM {k['memused'][0]} % in use)" if k["memused"] else ""))
    if res["rc"] is not None:
        # Not powered off: a clean failure is the system running, the
        # workload intact, the swap area plain and usable, and a message
        # that says what to do.
        said = [m.group(0) for _, _, m in vm1.find_all(r"dormouse: .*")]
        checks = [vm1.find_all(r"VMTEST: WORKLOAD ok"), vm1.find_all(r"VMTEST: SWAPON ok")]
        raise Failure(f"{vm1.name}: dormouse hibernate exited {res['rc']} under memory pressure "
                      f"where the kernel's path hibernated ({kernel}); workload "
                      f"{'intact' if checks[0] else 'NOT intact'}, swap "
                      f"{'usable' if checks[1] else 'NOT usable'}; it said: {said[-3:]}")
    kib, stored = image_kib(h, disk)
    vm2, t_alive, _ = dormouse_resume_boot(h, "mp-2", disk, res)
    swapped = swapped_out(memstat(vm1, "before"), memstat(vm2, "after"))
    mine = (f"dormouse: hibernate {res['t_exit'] - res['t_start']:.2f} s, resume "
            f"{t_alive - vm2.start_t:.2f} s, image {kib} KiB (stored {stored} KiB), {swapped} pages "
            f"swapped out")
    h.figures["memory-pressure"] = {"kernel": k, "dormouse_hibernate_s": res["t_exit"] - res["t_start"],
                                    "dormouse_resume_s": t_alive - vm2.start_t, "image_kib": kib,
                                    "swapped_out": swapped, "memused": used}
    return (f"RAM {used[0]} % in use ({used[2] >> 10} MiB cached) when the hibernation started; "
            f"{mine}; the workload's memory checks out after the resume; {kernel}")


# A disk that fails: the sector blkdebug fails a write at, 128 MiB into the
# swap disk, where the image's data go (the kernel hands out the swap
# area's pages from its start).
WRITE_ERROR_SECTOR = 128 << 11
# ...and a read, 64 MiB in.
READ_ERROR_SECTOR = 64 << 11


def console_said(vm, text):
    """text, when the console of vm showed it; else a Failure."""
    if not vm.find_all(re.escape(text)):
        raise Failure(f"{vm.name}: no \"{text}\" on the console:\n{vm.tail(25)}")
    return text


def blkdebug_eio(h, event, sector):
    """A blkdebug config (disk_args) that fails the first request of event
    ("write_aio", "read_aio") covering sector with EIO, once."""
    conf = h.work / f"blkdebug-{event}.conf"
    conf.write_text(f'[inject-error]\nevent = "{event}"\nerrno = "5"\nsector = "{sector}"\n'
                    f'once = "on"\n')
    return conf


def scenario_write_error(h):
    """Issue 27: the swap disk fails one write in the middle of the image
    (blkdebug: EIO at a sector, once). dormouse hibernate must give up with
    the system thawed and running (the workload intact), name the device
    and the error, and leave plain, usable swap: no half-written image."""
    h.need_dormouse()
    conf = blkdebug_eio(h, "write_aio", WRITE_ERROR_SECTOR)
    disk = h.new_disk("werr")
    res = dormouse_boot1(h, "werr-1", disk, blkdebug=conf)
    vm = res["vm"]
    if res["rc"] in (None, 0, 5):
        raise Failure(f"werr-1: dormouse hibernate ended with {res['rc']}, not a failure, with a "
                      f"write error injected:\n{vm.tail()}")
    said = console_said(vm, "hibernation failed while writing the image to swap (/dev/vda): "
                            "Input/output error")
    running = vm.find_all(r"nothing was hibernated; the system is running")
    wl = vm.find_all(r"VMTEST: WORKLOAD (ok|BAD)")
    sig = vm.find_all(r"VMTEST: SIG (\S+)")
    on = vm.find_all(r"VMTEST: SWAPON (\w+)")
    if not running or not wl or wl[-1][2].group(1) != "ok":
        raise Failure(f"werr-1: the system is not said to be running with the workload intact "
                      f"({[m.group(0) for _, _, m in wl]})")
    if not sig or sig[-1][2].group(1) != "SWAPSPACE2" or not on or on[-1][2].group(1) != "ok":
        raise Failure(f"werr-1: after the failure the swap area is not plain, usable swap "
                      f"({sig and sig[-1][2].group(0)}, {on and on[-1][2].group(0)})")
    return (f"EIO at sector {WRITE_ERROR_SECTOR} of the image's write: exit {res['rc']}, "
            f"\"{said}\", the system thawed with the workload intact, "
            f"SWAPSPACE2 and swapon ok")


def scenario_read_error(h):
    """Issue 27: the swap disk fails one read of the image at resume
    (blkdebug: EIO at a sector inside its data, once). That is no proof
    the image is damaged: dormouse resume must keep it and stop the boot
    (exit 7), saying the disk could not be read; the image must still be
    on the disk, and the next boot, with the disk reading again, restores
    the session."""
    h.need_dormouse()
    disk = h.new_disk("rerr")
    res = dormouse_boot1(h, "rerr-1", disk)
    require_powered_off(res)
    conf = blkdebug_eio(h, "read_aio", READ_ERROR_SECTOR)
    with VM(h, "rerr-2", "dm-resume", disk, blkdebug=conf) as vm:
        idx, _, _ = expect(vm, r"VMTEST: DORMOUSE resume start", "dormouse resume", 60)
        hit = vm.wait_for(r"^TICK \d+|VMTEST: DORMOUSE resume rc=(\d+)", 120, idx)
        if hit is None or hit[2].group(1) != "7":
            raise Failure(f"rerr-2: with a read error injected dormouse resume ended with "
                          f"{hit[2].group(0) if hit else 'nothing'}, not exit 7:\n{vm.tail(25)}")
        said = console_said(vm, "/dev/vda: the disk could not be read (Input/output error); "
                                "the image is kept")
        expect_exit(vm, "power-off")
    back_s = kept_then_restored(h, "rerr", disk, res)
    return (f"EIO at sector {READ_ERROR_SECTOR} while reading the image: exit 7, "
            f"\"{said}\", the image still on the disk; the next boot restored "
            f"the session ({back_s:.2f} s)")


def kept_then_restored(h, prefix, disk, res):
    """After a resume that kept the image (exit 7): dormouse info must still
    find it on disk, and boot PREFIX-3 must restore res's session. Returns
    the seconds from that boot's power-on to the workload's return."""
    info = h.dormouse_info(disk) or {}
    if info.get("status") != "image":
        raise Failure(f"{prefix}-2: after the refused resume the image is gone (dormouse info: "
                      f"{info.get('status')})")
    vm, t_alive, _ = dormouse_resume_boot(h, f"{prefix}-3", disk, res)
    return t_alive - vm.start_t



# A disk that accepts only part of a write: the swap disk is cut to this
# size (QEMU's block_resize) once dormouse starts writing the image, ahead
# of the writer (the image goes from the swap area's start, ~250 MB of it,
# at ~90 MB/s). Half a page past a page boundary: dormouse writes whole,
# page-aligned pages, so the write that covers the cut is one the kernel
# must truncate (blkdev_write_iter: a short write), and the next, at the
# new end, fails with ENOSPC.
SHORT_WRITE_CUT = (160 << 20) + 2048
# What dormouse must say after the device's name: where it ends now (it
# measures the device again), where it ended when the hibernation started.
SHORT_WRITE_SAID = (f"the device ends at {SHORT_WRITE_CUT / 1e6:.1f} MB now, not "
                    f"{DISK_SIZE / 1e6:.1f} MB: it shrank while the image was being written")


def swap_drive_id():
    """QEMU's name of the swap disk's drive (disk_args), for the monitor."""
    return "swap0" if DISK == "iothread" else "virtio0"


def scenario_short_write(h):
    """Issue 27: the swap disk shrinks while dormouse writes the image, so
    that one of its writes is cut short by the kernel (block_resize from
    the host; virtio-blk tells the guest, which logs the capacity change).
    dormouse hibernate must give up with the system thawed and running
    (the workload intact), name the device and the error, and leave
    nothing that could be restored: no dormouse signature on the disk."""
    h.need_dormouse()
    disk = h.new_disk("swr")
    with VM(h, "swr-1", "dm-hibernate", disk) as vm:
        boot1_workload(vm)
        idx, t_start, _ = expect(vm, r"VMTEST: DORMOUSE hibernate start", "dormouse hibernate", 90)
        _, t_write, _ = expect(vm, r"\] Saving memory to disk", "the write phase", 90, idx)
        # HMP reads a bare number as MiB: "B" for bytes.
        t_cut = time.monotonic()
        out = vm.hmp(f"block_resize {swap_drive_id()} {SHORT_WRITE_CUT}B")
        if re.search(r"rror|invalid", out):
            said = out.rsplit("\r\n", 3)[-2] if "\r\n" in out else out
            raise Failure(f"swr-1: QEMU's block_resize failed: {said.strip()}")
        _, t_seen, cap = expect(vm, r"vda: detected capacity change from (\d+) to (\d+)",
                                "the guest kernel seeing the disk shrink", 30, idx)
        if int(cap.group(2)) * 512 != SHORT_WRITE_CUT - SHORT_WRITE_CUT % 512:
            raise Failure(f"swr-1: the guest sees {cap.group(2)} sectors, not the cut at "
                          f"{SHORT_WRITE_CUT} bytes")
        hit = vm.wait_for(r"VMTEST: DORMOUSE hibernate rc=(\d+)", BOOT_TIMEOUT, idx)
        rc = int(hit[2].group(1)) if hit else None
        expect(vm, r"VMTEST: SWAPON|VMTEST: POWEROFF", "the checks after the failure", 60, idx)
        expect_exit(vm, "power-off")
    if rc in (None, 0, 5):
        raise Failure(f"swr-1: dormouse hibernate ended with {rc}, not a failure, on a disk cut "
                      f"short under it:\n{vm.tail(25)}")
    said = vm.find_all(r"hibernation failed while writing the image to swap \(/dev/vda\): (.*)")
    if not said or said[-1][2].group(1) != SHORT_WRITE_SAID:
        raise Failure(f"swr-1: dormouse did not say \"hibernation failed while writing the image "
                      f"to swap (/dev/vda): {SHORT_WRITE_SAID}\" "
                      f"({[m.group(0) for _, _, m in said]}):\n{vm.tail(25)}")
    if vm.find_all(r"the swap area is too small for this image"):
        raise Failure("swr-1: dormouse blamed the size of the swap area, not the device that "
                      "shrank")
    console_said(vm, "run mkswap on /dev/vda before it is used as swap again")
    running = vm.find_all(r"nothing was hibernated; the system is running")
    wl = vm.find_all(r"VMTEST: WORKLOAD (ok|BAD)")
    if not running or not wl or wl[-1][2].group(1) != "ok":
        raise Failure(f"swr-1: the system is not said to be running with the workload intact "
                      f"({[m.group(0) for _, _, m in wl]})")
    sig = vm.find_all(r"VMTEST: SIG (\S+)")
    if not sig or sig[-1][2].group(1) != "SWAPSPACE2":
        raise Failure(f"swr-1: the swap signature after the failure is "
                      f"{sig and sig[-1][2].group(1)}, not SWAPSPACE2")
    # On the host: the disk QEMU left is the cut one, with no image on it,
    # and the half page before the cut written: the short write's part.
    size = disk.stat().st_size
    if size != SHORT_WRITE_CUT:
        raise Failure(f"swr-1: the disk is {size} bytes after the run, not {SHORT_WRITE_CUT}")
    r = run([str(h.dormouse), "info", "--json", str(disk)], check=False)
    try:
        status = json.loads(r.stdout).get("status")
    except ValueError:
        status = f"unreadable (exit {r.returncode}: {r.stderr.strip()[:200]})"
    if status != "none":
        raise Failure(f"swr-1: dormouse info finds {status!r} on the disk after the failure, "
                      f"not \"none\"")
    with open(disk, "rb") as f:
        f.seek(SHORT_WRITE_CUT - 2048)
        tail = f.read(2048)
    if not any(tail):
        raise Failure("swr-1: the 2048 bytes before the cut are zero: no write straddled it, so "
                      "nothing was cut short (the cut came too late, or the image is elsewhere)")
    # The swap area: its header is plain again (dormouse put page 0 back)
    # but still gives the old size, which the kernel refuses on a device
    # that is shorter (swapon: EINVAL, "Swap area shorter than signature
    # indicates"); dormouse's note asks for mkswap.
    on = vm.find_all(r"VMTEST: SWAPON (\w+)")
    kernel = vm.find_all(r"Swap area shorter than signature indicates")
    if not on or on[-1][2].group(1) != "failed" or not kernel:
        area = vm.find_all(r"VMTEST: SWAPAREA (.*)")
        raise Failure(f"swr-1: swapon on the shrunk area: {on and on[-1][2].group(0)} "
                      f"({area and area[-1][2].group(1)}), not the kernel's refusal "
                      f"\"Swap area shorter than signature indicates\"")
    return (f"disk cut to {SHORT_WRITE_CUT} bytes {(t_cut - t_write) * 1000:.0f} ms after "
            f"\"Saving memory to disk\", the guest's capacity change {(t_seen - t_cut) * 1000:.0f}"
            f" ms after the cut, the half page before the cut written (the short write); "
            f"exit {rc}, \"{said[-1][2].group(0)}\", the system thawed with the workload intact; "
            f"swap area afterwards: SIG {sig[-1][2].group(1)}, dormouse info \"{status}\", "
            f"swapon refused by the kernel (\"Swap area shorter than signature indicates\"), "
            f"dormouse's note: run mkswap")


def scenario_short_read(h):
    """Issue 27, the resume side of short-write: an image, then a boot on
    which the swap disk is shorter than its swap area (QEMU's raw driver
    with size=: the guest sees the first SHORT_WRITE_CUT bytes, the rest of
    the file stays behind them), so the image reaches past the device's
    end. A device shorter than its own swap header shrank; that is no
    proof the image is gone: dormouse resume must keep it and stop the
    boot (exit 7, as for read-error), saying so; the next boot, with the
    whole disk, must restore the session."""
    h.need_dormouse()
    disk = h.new_disk("srd")
    res = dormouse_boot1(h, "srd-1", disk)
    require_powered_off(res)
    with VM(h, "srd-2", "dm-resume", disk, disk_view=SHORT_WRITE_CUT) as vm:
        idx, _, _ = expect(vm, r"VMTEST: DORMOUSE resume start", "dormouse resume", 60)
        cap = vm.find_all(r"\[vda\] (\d+) 512-byte logical blocks")
        if not cap or int(cap[-1][2].group(1)) * 512 != SHORT_WRITE_CUT:
            raise Failure(f"srd-2: the guest's disk is {cap and cap[-1][2].group(0)}, not "
                          f"{SHORT_WRITE_CUT} bytes")
        hit = vm.wait_for(r"^TICK \d+|VMTEST: DORMOUSE resume rc=(\d+)", 120, idx)
        if hit is None or hit[2].group(1) != "7":
            raise Failure(f"srd-2: on the shrunk disk dormouse resume ended with "
                          f"{hit[2].group(0) if hit else 'nothing'}, not exit 7:\n{vm.tail(25)}")
        said = console_said(vm, f"/dev/vda: the device is {SHORT_WRITE_CUT / 1e6:.1f} MB, "
                                f"shorter than the swap area on it ({DISK_SIZE / 1e6:.1f} MB), "
                                f"and the image reaches past its end; the image is kept")
        expect_exit(vm, "power-off")
    sig = vm.find_all(r"VMTEST: SIG (\S+)")
    if len(sig) < 2 or sig[-1][2].group(1) != sig[0][2].group(1) or \
            sig[-1][2].group(1) == "SWAPSPACE2":
        raise Failure(f"srd-2: the signature went from {sig and sig[0][2].group(1)} to "
                      f"{sig and sig[-1][2].group(1)}: the image was not kept")
    back_s = kept_then_restored(h, "srd", disk, res)
    return (f"the disk seen as {SHORT_WRITE_CUT} bytes of {DISK_SIZE}: exit 7, \"{said}\", "
            f"the signature kept ({sig[-1][2].group(1)}) and the image whole (dormouse info: "
            f"image); the next boot, on the whole disk, restored the session ({back_s:.2f} s)")



# --------------------------------------------------------------------------
# Network suspend (issue 28): the image on an NBD export, served by nbdkit on
# the host behind QEMU's user-mode network (restrict=on: nothing leaves the
# machine; the server is reachable only through guestfwd), with no local
# swap in the guest.

NBD_ADDR = "10.0.2.100"
NBD_URL = f"nbd://{NBD_ADDR}/swap"


def nbd_client_path():
    """The host's nbd-client (package nbd-client), copied into the initramfs."""
    for p in (shutil.which("nbd-client"), "/usr/sbin/nbd-client", "/sbin/nbd-client"):
        if p and os.path.exists(p):
            return p
    return None


def need_nbd(h):
    h.need_dormouse()
    missing = [pkg for pkg, there in (("nbdkit", shutil.which("nbdkit")),
                                      ("nbd-client", nbd_client_path())) if not there]
    if missing:
        raise Failure(f"the nbd scenarios need {' and '.join(missing)} on the host "
                      f"(apt-get install {' '.join(missing)}; tools/packages lists them)")


def nbd_export(h, name):
    """The export's file, holding a swap area made once, as its administrator would."""
    export = h.new_disk(f"nbd-{name}")
    run(["mkswap", str(export)])
    return export


def nbd_nic(h, export, name, serve=True):
    """-nic for a boot: user-mode networking with the NBD server behind
    guestfwd at NBD_ADDR:10809. For each connection the guest makes there,
    slirp starts the command on that connection's stdin and stdout: nbdkit
    -s serving export (its pid in h.work/nbdkit-NAME.pid, its messages in
    nbdkit-NAME.log), or, serve False,
    a server that is gone (the connection closes at once)."""
    pidfile, logfile = h.work / f"nbdkit-{name}.pid", h.work / f"nbdkit-{name}.log"
    # slirp gives the command the connection as stderr too: nbdkit's
    # messages go to a file instead, or they would garble the protocol.
    cmd = (f"sh -c 'echo $$ >{pidfile}; exec nbdkit -s file {export} 2>>{logfile}'" if serve
           else "sh -c 'exit 1'")
    if "," in cmd:
        raise Failure(f"a comma in {cmd!r} would end QEMU's -nic option")
    return f"user,model=virtio-net-pci,restrict=on,guestfwd=tcp:{NBD_ADDR}:10809-cmd:{cmd}"


def nbd_append(url=NBD_URL):
    """The guest's command line: its network, no disk, the export as the
    resume device, and the image encrypted (passphrase from a key file:
    plain images on the network are refused by default)."""
    return f"vmnet=1 vmnodisk=1 vmresume={url} vmkey={ENC_RIGHT}"


def export_status(h, export):
    return (h.dormouse_info(export) or {}).get("status")


def scenario_nbd(h):
    """Hibernate a real kernel to an NBD export, power off, boot again with
    no local swap and resume over the network; then the same image size to
    a local virtio disk in the same run, for the figures."""
    need_nbd(h)
    export = nbd_export(h, "nbd")
    res = dormouse_boot1(h, "nbd-1", None, nbd_append(), nic=nbd_nic(h, export, "nbd-1"))
    require_powered_off(res)
    expect(res["vm"], r"VMTEST: NET eth0 inet 10\.0\.2\.15", "the guest's network", 1)
    if export_status(h, export) != "image":
        raise Failure(f"nbd-1: no image on the export after the power-off (dormouse info: "
                      f"{export_status(h, export)}); serial log {res['vm'].logpath}")
    kib, stored = image_kib(h, export)
    vm, t_alive, _ = dormouse_resume_boot(h, "nbd-2", None, res, nbd_append(),
                                          nic=nbd_nic(h, export, "nbd-2"))
    if vm.find_all(r"could not be disconnected cleanly"):
        raise Failure(f"nbd-2: the restored system could not let the export go:\n{vm.tail(25)}")
    if export_status(h, export) == "image":
        raise Failure("nbd-2: the image is still on the export after the restore")
    fig = {"hibernate_s": res["t_exit"] - res["t_start"], "resume_s": t_alive - vm.start_t,
           "resume_cmd_s": t_alive - vm.resume_cmd_t, "image_kib": kib, "stored_kib": stored}
    h.figures["nbd"] = fig
    # The same on a local virtio disk, encrypted alike.
    disk = h.new_disk("nbd-local")
    lres = dormouse_boot1(h, "nbdl-1", disk, f"vmkey={ENC_RIGHT}")
    require_powered_off(lres)
    lkib, lstored = image_kib(h, disk)
    lvm, lt_alive, _ = dormouse_resume_boot(h, "nbdl-2", disk, lres, f"vmkey={ENC_RIGHT}")
    local = {"hibernate_s": lres["t_exit"] - lres["t_start"], "resume_s": lt_alive - lvm.start_t,
             "resume_cmd_s": lt_alive - lvm.resume_cmd_t, "image_kib": lkib,
             "stored_kib": lstored}
    h.figures["nbd-local-disk"] = local
    return (f"over NBD: hibernate {fig['hibernate_s']:.1f} s, resume {fig['resume_cmd_s']:.1f} s "
            f"from the command ({stored} KiB stored); local virtio disk: hibernate "
            f"{local['hibernate_s']:.1f} s, resume {local['resume_cmd_s']:.1f} s "
            f"({lstored} KiB); the workload's checksum and counter continued")


def scenario_nbd_server_gone(h):
    """The server gone while the image is written (before the signature):
    the system thaws and says why, nothing restorable on the export. Then
    the server gone at boot: the boot goes on, the image on the export is
    intact, and the next boot with the server restores it."""
    need_nbd(h)
    export = nbd_export(h, "gone")
    name = "gone-1"
    with VM(h, name, "dm-hibernate", None, nbd_append(), nic=nbd_nic(h, export, name)) as vm:
        boot1_workload(vm)
        idx = expect(vm, r"VMTEST: DORMOUSE hibernate start", "dormouse hibernate", 90)[0]
        expect(vm, r"Saving memory to disk", "the write phase", 120, idx)
        pid = int((h.work / f"nbdkit-{name}.pid").read_text().strip())
        os.kill(pid, signal.SIGKILL)
        log(f"{name}: nbdkit (pid {pid}) killed in the write phase")
        _, _, m = expect(vm, r"VMTEST: DORMOUSE hibernate rc=(\d+)",
                         "dormouse hibernate's exit after the server went", 120, idx)
        rc = int(m.group(1))
        _, _, w = expect(vm, r"VMTEST: WORKLOAD (ok|BAD)", "the workload's verdict", 60, idx)
        expect_exit(vm, "power-off")
    if rc != 6:
        raise Failure(f"{name}: dormouse hibernate rc={rc} with the server gone, expected 6:\n"
                      f"{vm.tail(25)}")
    if w.group(1) != "ok":
        raise Failure(f"{name}: the thawed system's workload is not intact: {w.group(0)}")
    said = dormouse_lines(vm, r"VMTEST: DORMOUSE hibernate start")
    if not said:
        raise Failure(f"{name}: the hibernation failed without saying why:\n{vm.tail(25)}")
    if export_status(h, export) == "image":
        raise Failure(f"{name}: an image the next boot would restore is on the export")

    res = dormouse_boot1(h, "gone-2", None, nbd_append(), nic=nbd_nic(h, export, "gone-2"))
    require_powered_off(res)
    with VM(h, "gone-3", "dm-resume", None, nbd_append(),
            nic=nbd_nic(h, export, "gone-3", serve=False)) as vm3:
        _, t, m = expect(vm3, r"VMTEST: DORMOUSE resume rc=(\d+)", "dormouse resume's exit", 120)
        expect_exit(vm3, "power-off")
    if int(m.group(1)) != RC_NO_IMAGE:
        raise Failure(f"gone-3: with no server dormouse resume ended with rc={m.group(1)}, not "
                      f"{RC_NO_IMAGE} (the boot goes on):\n{vm3.tail(25)}")
    console_said(vm3, "cannot connect to the export \"swap\" of the NBD server " + NBD_ADDR)
    if vm3.find_all(r"^TICK \d+"):
        raise Failure("gone-3: a workload is running: something was restored")
    if export_status(h, export) != "image":
        raise Failure(f"gone-3: the image on the export did not survive a boot without the server "
                      f"(dormouse info: {export_status(h, export)})")
    vm4, t_alive, _ = dormouse_resume_boot(h, "gone-4", None, res, nbd_append(),
                                           nic=nbd_nic(h, export, "gone-4"))
    return (f"server killed in the write phase: exit 6, thawed, workload intact "
            f"(\"{said[-1].strip()[:70]}\"); no server at boot: exit 1, image kept; "
            f"restored at the next boot ({t_alive - vm4.start_t:.1f} s)")


def scenario_nbd_corrupt(h):
    """An image on the export corrupted between the boots: refused, nothing
    restored, the boot goes on."""
    need_nbd(h)
    export = nbd_export(h, "corrupt")
    res = dormouse_boot1(h, "ncorrupt-1", None, nbd_append(),
                         nic=nbd_nic(h, export, "ncorrupt-1"))
    require_powered_off(res)
    off = corrupt_image(h, export)
    log(f"nbd-corrupt: flipped 64 KiB at byte {off} of {export}")
    with VM(h, "ncorrupt-2", "dm-resume", None, nbd_append(),
            nic=nbd_nic(h, export, "ncorrupt-2")) as vm:
        _, _, m = expect(vm, r"VMTEST: DORMOUSE resume rc=(\d+)", "dormouse resume's exit", 120)
        expect_exit(vm, "power-off")
    if int(m.group(1)) != RC_REFUSED:
        raise Failure(f"ncorrupt-2: dormouse resume rc={m.group(1)} on a corrupted export, "
                      f"expected {RC_REFUSED}:\n{vm.tail(25)}")
    if vm.find_all(r"^TICK \d+"):
        raise Failure("ncorrupt-2: a workload is running: something was restored")
    msgs = dormouse_lines(vm)
    if not msgs:
        raise Failure(f"ncorrupt-2: refused without saying why:\n{vm.tail(25)}")
    if export_status(h, export) == "image":
        raise Failure("ncorrupt-2: the refused image is still on the export as one to restore")
    return f"refused with exit 3 ({msgs[-1].strip()[:80]}), the export usable swap again"


SCENARIOS = [
    ("kernel-baseline", scenario_kernel_baseline),
    ("kernel-lz4", scenario_kernel_lz4),
    ("dormouse-roundtrip", scenario_dormouse_roundtrip),
    ("eta-slow-disk", scenario_eta_slow_disk),
    ("splash-on-screen", scenario_splash_on_screen),
    ("virtio-gpu", scenario_virtio_gpu),
    ("4k", scenario_4k),
    ("two-heads", scenario_two_heads),
    ("abort", scenario_abort),
    ("no-image", scenario_no_image),
    ("noresume", scenario_noresume),
    ("corrupted", scenario_corrupted),
    ("first-frame", scenario_first_frame),
    ("first-frame-instructions", scenario_first_frame_instructions),
    ("one-cpu", scenario_one_cpu),
    ("two-cpus", scenario_two_cpus),
    ("plymouth-handover", scenario_plymouth_handover),
    ("fbdev", scenario_fbdev),
    ("handover", scenario_handover),
    ("encrypted", scenario_encrypted),
    ("tpm", scenario_tpm),
    ("tpm-pcr-changed", scenario_tpm_pcr_changed),
    ("tpm-rollback", scenario_tpm_rollback),
    ("io-levers", scenario_io_levers),
    ("hybrid-wake", scenario_hybrid_wake),
    ("hybrid-power-loss", scenario_hybrid_power_loss),
    ("suspend-then-hibernate", scenario_suspend_then_hibernate),
    ("sth-early-wake", scenario_sth_early_wake),
    ("no-resume-arg", scenario_no_resume_arg),
    ("lockdown", scenario_lockdown),
    ("stale-offset", scenario_stale_offset),
    ("soak", scenario_soak),
    ("power-cut", scenario_power_cut),
    ("power-cut-encrypted", scenario_power_cut_encrypted),
    ("power-cut-resume", scenario_power_cut_resume),
    ("swap-in-use", scenario_swap_in_use),
    ("memory-pressure", scenario_memory_pressure),
    ("write-error", scenario_write_error),
    ("read-error", scenario_read_error),
    ("short-write", scenario_short_write),
    ("short-read", scenario_short_read),
    ("nbd", scenario_nbd),
    ("nbd-server-gone", scenario_nbd_server_gone),
    ("nbd-corrupt", scenario_nbd_corrupt),
]


# Scenarios left out of the default set (make check-vm, CI); --all or
# --scenario runs them.
# eta-slow-disk: issue 35's time left on a throttled disk, run on its own
# (`--scenario eta-slow-disk`): its hibernate half is -46 to -48 % against a
# bound of 50 % (what is left compresses worse than what came first), too
# near it for CI.
# nbd, nbd-server-gone, nbd-corrupt: need nbdkit and nbd-client on the host
# (tools/packages); out of the default set until they have run here.
NOT_IN_DEFAULT = {"io-levers", "eta-slow-disk", "nbd", "nbd-server-gone", "nbd-corrupt",
                  # make bench-first-frame: figures only
                  "first-frame-instructions",
                  # make check-vm-memory-pressure and check-vm-gpus: CI's
                  # 45 minutes do not hold their 2 and 6 minutes
                  "memory-pressure", "virtio-gpu", "4k", "two-heads",
                  # make check-vm-power-cut: 10 more boots
                  "power-cut-encrypted",
                  # make check-vm-speed: paired rounds, figures only (about
                  # 3 minutes; kernel-baseline and dormouse-roundtrip give
                  # CI one pair)
                  "one-cpu", "two-cpus"}


def report_phases(h):
    """The per-phase table of both paths (tests/vm/phases.py) from the serial
    logs of kernel-baseline and dormouse-roundtrip, when either ran; it goes
    into h.figures["phases"] too. Then h.figures as JSON in OUT/figures.json."""
    def lines(name):
        p = h.work / f"serial-{name}.log"
        try:
            return phases.parse_log(p.read_text(errors="replace")) if p.exists() else None
        except OSError:
            return None
    def one_table(kb, rt, totals, key, title):
        logs = {n: lines(n) for n in (f"{kb}-1", f"{kb}-2", f"{rt}-1", f"{rt}-2")}
        if logs[f"{kb}-1"] is None and logs[f"{rt}-1"] is None:
            return
        try:
            t = phases.table(logs[f"{kb}-1"], logs[f"{kb}-2"], logs[f"{rt}-1"], logs[f"{rt}-2"],
                             totals)
            h.figures[key] = t
            log(f"{title} (the kernel's PM lines, dormouse's DORMOUSE_DEBUG_TIMING; limit: the "
                "phase at the speeds measured in this guest; – : no line for it)")
            for line in phases.format_table(t):
                log(line)
        except Exception as e:  # a table must never fail the run
            log(f"phase table: {type(e).__name__}: {e}")
    one_table("kb", "rt", h.figures, "phases", "phases")
    for paired in ("one-cpu", "two-cpus"):
        f = h.figures.get(paired)
        if f:  # its last round
            r, p = f["rounds"], f["prefix"]
            one_table(f"kb{p}{r}", f"rt{p}{r}", {"kernel-baseline": f["kernel_runs"][-1],
                                                 "dormouse-roundtrip": f["dormouse_runs"][-1]},
                      f"phases-{paired}", f"phases of {paired}, round {r}")
    if h.figures:
        try:
            OUT.mkdir(exist_ok=True)
            (OUT / "figures.json").write_text(json.dumps(h.figures, indent=1, default=str) + "\n")
            log(f"figures: {OUT / 'figures.json'}")
        except OSError as e:
            log(f"figures: {OUT / 'figures.json'}: {e}")


def find_dormouse(arg):
    if arg:
        return Path(arg)
    if os.environ.get("DORMOUSE_BIN"):
        return Path(os.environ["DORMOUSE_BIN"])
    cands = [Path(p) for p in glob.glob(str(REPO / "build*" / "dormouse"))
             + glob.glob(str(REPO.parent / "build*" / "dormouse")) + [str(REPO / "dormouse")]]
    cands = [p for p in cands if p.is_file() and os.access(p, os.X_OK)]
    return max(cands, key=lambda p: p.stat().st_mtime) if cands else None


def dormouse_usable(path):
    """Why the binary cannot run the dormouse scenarios, or None."""
    if path is None:
        return "no dormouse binary found (give --dormouse PATH or DORMOUSE_BIN)"
    if not path.is_file():
        return f"{path} does not exist"
    r = run([str(path), "--help"], check=False)
    text = r.stdout + r.stderr
    if "hibernate" not in text or "resume" not in text:
        return f"dormouse binary cannot hibernate yet ({path} --help names no hibernate/resume command)"
    return None


def play(h, names, scenarios, after_each, digits=1):
    """Runs the named scenarios in order, one TAP line each, and returns
    (passed, failed). A harness bug counts as a failure of its scenario.
    after_each() runs after every scenario, whatever happened (the desktop
    scenarios share this loop)."""
    passed = failed = 0
    for i, name in enumerate(names, start=1):
        fn = dict(scenarios)[name]
        t0 = time.monotonic()
        took = lambda: f"[{time.monotonic() - t0:.{digits}f} s]"
        try:
            STARTED_VMS.clear()
            try:
                detail = fn(h)
            except Failure as e:
                faulty = [vm.name for vm in STARTED_VMS if emulator_fault(vm)]
                if not faulty:
                    raise
                # Once: the emulator's fault, named, and the scenario again.
                log(f"{name}: QEMU's multi-threaded TCG faulted in the guest kernel's boot "
                    f"({', '.join(faulty)}: Oops: int3 before user space); running it again")
                after_each()
                STARTED_VMS.clear()
                detail = fn(h)
            passed += 1
            print(f"ok {i} - {name}: {detail} {took()}", flush=True)
        except Failure as e:
            failed += 1
            msg = str(e).splitlines()
            print(f"not ok {i} - {name}: {msg[0]} {took()}", flush=True)
            for line in msg[1:]:
                log(line)
        except Exception as e:  # a harness bug must still count as a failure
            failed += 1
            traceback.print_exc()
            print(f"not ok {i} - {name}: harness error {type(e).__name__}: {e}", flush=True)
        finally:
            after_each()
    return passed, failed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dormouse", help="the dormouse binary (default: $DORMOUSE_BIN or the newest build*/dormouse)")
    ap.add_argument("--all", action="store_true",
                    help="also the scenarios left out of the default set (" + (", ".join(sorted(NOT_IN_DEFAULT)) or "none at present") + ")")
    ap.add_argument("--scenario", action="append", choices=[n for n, _ in SCENARIOS],
                    help="run only this scenario (repeatable)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--workdir", help="work directory (default: a new one under $TMPDIR)")
    ap.add_argument("--demo", action="store_true",
                    help="run the round trip with screenshots and print where they are")
    ap.add_argument("--step-delay", type=int, default=20,
                    help="--debug-step-delay MS for the splash and abort scenarios")
    ap.add_argument("--shot-interval", type=float, default=0.4, help="seconds between screendumps")
    ap.add_argument("--append", default="",
                    help="extra kernel command line for every boot (e.g. vmsplash=text vmmib=50)")
    ap.add_argument("--boot", choices=["pvh", "bzimage"], default="pvh",
                    help="boot the extracted ELF vmlinux (PVH, default: faster) or the bzImage")
    ap.add_argument("--accel", choices=["auto", "tcg", "kvm"], default="auto")
    ap.add_argument("--soak-cycles", type=int, default=5,
                    help="hibernations in the soak scenario (make check-vm-soak: 100)")
    ap.add_argument("--rounds", type=int, default=2,
                    help="paired rounds of one-cpu and two-cpus (issue 39 asks for at least 5: "
                    "make check-vm-speed ROUNDS=5)")
    ap.add_argument("--power-cuts", type=int, default=10,
                    help="power cuts drawn in the power-cut scenario, half as many in power-cut-resume "
                    "(make check-vm-power-cut: 30)")
    ap.add_argument("--power-cut-seed", type=int, default=int(time.time()) % 100000,
                    help="the seed of the cut points and of what each cut keeps (default: the "
                    "clock's; printed, to replay a run)")
    ap.add_argument("--suite", choices=SUITES, default=DEFAULT_SUITE,
                    help="the Debian release whose current kernel boots (default: $DMO_VM_SUITE "
                         "or trixie)")
    args = ap.parse_args()

    atexit.register(kill_all_vms)
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, lambda *_: sys.exit(130))

    h = Harness(args)
    t_all = time.monotonic()
    names = args.scenario or [n for n, _ in SCENARIOS if args.all or n not in NOT_IN_DEFAULT]
    if args.demo:
        names = ["splash-on-screen"]
    passed = failed = 0
    try:
        h.kernel = prepare_kernel(args.suite)
        log(f"kernel package {h.kernel.package} version {h.kernel.version} ({h.kernel.kver})")
        h.boot_kernel = h.kernel.vmlinux() if args.boot == "pvh" else None
        if h.boot_kernel is None:
            h.boot_kernel = h.kernel.vmlinuz
        if not args.scenario and not kernel_has_compressor(h.kernel, "lz4"):
            names = [n for n in names if n != "kernel-lz4"]
            log(f"kernel-lz4 left out: {h.kernel.kver} has no hibernate.compressor=lz4")
        log(f"booting {h.boot_kernel.name}" + (" (PVH)" if h.boot_kernel != h.kernel.vmlinuz else ""))
        h.dormouse = find_dormouse(args.dormouse)
        h.dormouse_problem = dormouse_usable(h.dormouse)
        if h.dormouse_problem:
            log(h.dormouse_problem)
        workload = build_workload(h.work)
        h.initrd = build_initramfs(h.work, h.kernel, None if h.dormouse_problem else h.dormouse,
                                   workload)
        if args.accel == "kvm" or (args.accel == "auto" and kvm_works(h)[0]):
            h.accel_args = ["-accel", "kvm", "-cpu", "max"]
        log(f"accelerator: {' '.join(h.accel_args)}; memory {MEMORY}; work dir {h.work}")
        p, f = play(h, names, SCENARIOS, kill_all_vms)
        passed += p
        failed += f
    except Exception as e:
        failed += 1
        print(f"not ok - setup: {type(e).__name__}: {e}", flush=True)
    finally:
        kill_all_vms()
        if h.figures:
            log("timings (host clock; hibernate = command to QEMU exit, "
                "resume = QEMU start of boot 2 to the workload's first tick, "
                "from cmd = the resume command to that tick)")
            log(f"{'':20} {'hibernate':>10} {'resume':>8} {'from cmd':>9} {'image':>12} "
                f"{'stored':>12}")
            rows = dict(h.figures)
            for paired in ("one-cpu", "two-cpus"):  # medians of the rounds, a row per path
                if paired in rows:
                    for side, med in rows.pop(paired)["medians"].items():
                        rows[f"{paired} {side}"] = dict(med, image_kib=None, stored_kib=None)
            for name, f in rows.items():
                if name == "io-levers":
                    continue  # printed with the scenario
                if "hibernate_s" not in f:
                    log(f"{name:20} " + ", ".join(f"{k} {v}" for k, v in f.items()
                                                  if not isinstance(v, dict)))
                    continue
                img = f"{f['image_kib']} KiB" if f.get("image_kib") else "?"
                st = f"{f['stored_kib']} KiB" if f.get("stored_kib") else "?"
                cmd = f"{f['resume_cmd_s']:8.2f}s" if f.get("resume_cmd_s") else f"{'?':>9}"
                res = f"{f['resume_s']:7.2f}s" if f.get("resume_s") else f"{'?':>8}"
                log(f"{name:20} {f['hibernate_s']:9.2f}s {res} {cmd} {img:>12} {st:>12}")
            log(f"host load average {os.getloadavg()[0]:.1f} (other jobs on the machine skew these)")
        report_phases(h)
        if args.demo and (OUT / "splash-on-screen").exists():
            print(f"screenshots: {OUT / 'splash-on-screen'}", flush=True)
        log(f"total {time.monotonic() - t_all:.1f} s")
        if args.keep:
            log(f"work dir kept: {h.work}")
        elif not args.workdir:
            shutil.rmtree(h.work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
