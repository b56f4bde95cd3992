#!/usr/bin/env python3
"""make.py - builds the archive corpus (valid and hostile) into a directory.

Usage: python3 tests/archives/make.py OUTDIR

Each file is named NAME.tar / NAME.tgz; hostile ones start with "bad-".
The corpus seeds the fuzz target (tests/fuzz/fuzz_archive.c) and is the
file form of the hostile cases test_snap.c builds in C (snap-2.1). Only the
Python standard library is used, so no host tar is needed.
"""
import gzip
import io
import os
import sys
import tarfile


def hdr(name, typ=b"0", size=0, link=b"", bad_sum=False, size_field=None,
        magic=b"ustar\x0000"):
    h = bytearray(512)
    h[0:len(name)] = name[:100]
    h[100:108] = b"0000644\x00"
    h[108:116] = b"0001750\x00"
    h[116:124] = b"0001750\x00"
    sf = size_field if size_field is not None else b"%011o\x00" % size
    h[124:124 + len(sf)] = sf
    h[136:148] = b"15000000000\x00"
    h[148:156] = b" " * 8
    h[156:157] = typ
    h[157:157 + len(link)] = link
    h[257:265] = magic
    h[265:269] = b"user"
    h[297:301] = b"user"
    s = sum(h) + (1 if bad_sum else 0)
    h[148:156] = b"%06o\x00 " % s
    return bytes(h)


def data(d):
    return d + b"\x00" * ((-len(d)) % 512)


END = b"\x00" * 1024


def pax(records, typ=b"x"):
    body = b""
    for k, v in records:
        rec = b" %s=%s\n" % (k, v)
        n = len(rec) + 1
        while len(b"%d" % n) + len(rec) != n:
            n += 1
        body += b"%d" % n + rec
    return hdr(b"PaxHeaders/x", typ, len(body)) + data(body)


def good():
    out = {}
    for fmt, tag in ((tarfile.GNU_FORMAT, "gnu"), (tarfile.PAX_FORMAT, "pax"),
                     (tarfile.USTAR_FORMAT, "ustar")):
        b = io.BytesIO()
        with tarfile.open(fileobj=b, mode="w", format=fmt) as t:
            for name, body in ((b"d/a.txt", b"hello\n"),
                               (b"d/" + b"n" * 90 + b"/f", b"x" * 700)):
                i = tarfile.TarInfo(name.decode())
                i.size = len(body)
                i.mtime = 1700000000
                t.addfile(i, io.BytesIO(body))
            i = tarfile.TarInfo("d/l")
            i.type = tarfile.SYMTYPE
            i.linkname = "a.txt"
            t.addfile(i)
            i = tarfile.TarInfo("d/h")
            i.type = tarfile.LNKTYPE
            i.linkname = "d/a.txt"
            t.addfile(i)
        out["good-%s.tar" % tag] = b.getvalue()
        out["good-%s.tgz" % tag] = gzip.compress(b.getvalue(), mtime=0)
    out["good-session.tar"] = session([]) + hdr(b"workspace/x") + END
    return out


def session(extra):
    """A snapshot's global header with a small shell session (shstate.c)."""
    recs = [(b"MEMSANDBOX.cwd", b"/workspace"), (b"MEMSANDBOX.format", b"2"),
            (b"MEMSANDBOX.shell", b"1"),
            (b"MEMSANDBOX.set", b"braceexpand hashall pipefail"),
            (b"MEMSANDBOX.shopt", b"extglob"),
            (b"MEMSANDBOX.args", b"one two%20words"),
            (b"MEMSANDBOX.alias.ll", b"ls -l"),
            (b"MEMSANDBOX.var.x", b"-x 1"),
            (b"MEMSANDBOX.var.m", b"-A k=v sp%20ace=%0A"),
            (b"MEMSANDBOX.var.a", b"-a 0=zero 7=seven"),
            (b"MEMSANDBOX.func.f", b"f () \n{ \n    echo hi\n}")]
    keys = [k for k, _ in extra]
    return pax([r for r in recs if r[0] not in keys] + extra, b"g")


def bad():
    z = lambda b: gzip.compress(b, mtime=0)
    plain = hdr(b"a") + END
    return {
        "bad-checksum.tar": hdr(b"a", bad_sum=True) + END,
        "bad-absolute.tar": hdr(b"/etc/passwd") + END,
        "bad-dotdot.tar": hdr(b"a/../../x") + END,
        "bad-device.tar": hdr(b"dev", b"4") + END,
        "bad-fifo.tar": hdr(b"p", b"6") + END,
        "bad-symlink.tar": hdr(b"l", b"2", link=b"/tmp") + hdr(b"l/x") + END,
        "bad-duplicate.tar": hdr(b"a") + hdr(b"a") + END,
        "bad-octal.tar": hdr(b"a", size_field=b"0000000008 ") + END,
        "bad-negative.tar": hdr(b"a", size_field=b"\xff" * 12) + END,
        "bad-truncated.tar": hdr(b"a", size=4096) + b"abc",
        "bad-trailing.tar": plain + b"garbage",
        "bad-hugepax.tar": hdr(b"x", b"x", 2 << 20) + b"a" * (2 << 20) + END,
        "bad-pax-absolute.tar": pax([(b"path", b"/etc/pwn")]) + hdr(b"x") +
        END,
        "bad-longname.tar": hdr(b"././@LongLink", b"L", 10) +
        data(b"../escape\x00") + hdr(b"x") + END,
        "bad-hardlink.tar": hdr(b"h", b"1", link=b"missing") + END,
        "bad-gzip-trailing.tgz": z(plain) + b"junk",
        "bad-gzip-truncated.tgz": z(plain)[:-10],
        "bad-bomb.tgz": z(hdr(b"zeros", size=8 << 20) + b"\x00" * (8 << 20) +
                          END),
        "bad-outside.tar": pax([(b"MEMSANDBOX.format", b"1")], b"g") +
        hdr(b"etc/x") + END,
        "bad-session-attr.tar": session([(b"MEMSANDBOX.var.y", b"-Q 1")]) +
        hdr(b"workspace/x") + END,
        "bad-session-func.tar": session([(b"MEMSANDBOX.func.g",
                                          b"g () { :; }; rm -rf /")]) +
        hdr(b"workspace/x") + END,
        "bad-session-name.tar": session([(b"MEMSANDBOX.var.1x", b"- 1")]) +
        hdr(b"workspace/x") + END,
        "bad-session-version.tar": session([(b"MEMSANDBOX.shell", b"2")]) +
        hdr(b"workspace/x") + END,
        "bad-roothash.tar": pax([(b"MEMSANDBOX.format", b"1"),
                                 (b"MEMSANDBOX.root_hash", b"00")], b"g") +
        hdr(b"workspace/x") + END,
    }


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make.py OUTDIR")
    os.makedirs(sys.argv[1], exist_ok=True)
    for name, body in {**good(), **bad()}.items():
        with open(os.path.join(sys.argv[1], name), "wb") as f:
            f.write(body)


if __name__ == "__main__":
    main()
