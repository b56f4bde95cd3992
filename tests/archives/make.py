#!/usr/bin/env python3
"""make.py - builds the archive corpus (valid and hostile) into a directory.

Usage: python3 tests/archives/make.py OUTDIR
       python3 tests/archives/make.py --b64 NAME

Each file is named NAME.tar / NAME.tgz; hostile ones start with "bad-".
The corpus seeds the fuzz target (tests/fuzz/fuzz_archive.c, by make fuzz
and fuzz-short) and is the file form of the hostile cases test_snap.c
builds in C (snap-2.1, snap-6.x). --b64 prints one archive gzipped and in
base64, the form tests/cmd/tar.cases embeds (tar-3.x). Only the Python
standard library is used, so no host tar is needed.
"""
import base64
import gzip
import io
import os
import sys
import tarfile
import zlib


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


def zeros_gz(head, n, tail=b""):
    """gzip of head, n zero bytes and tail, streamed (a bomb's shape)."""
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    out = [c.compress(head)]
    block = b"\x00" * (1 << 20)
    for _ in range(n >> 20):
        out.append(c.compress(block))
    out.append(c.compress(tail))
    out.append(c.flush())
    return b"".join(out)


def escapes():
    """Members that try to land outside the extraction directory through
    names, symbolic links and hard links from the same archive."""
    f = lambda name, d: hdr(name, size=len(d)) + data(d)
    ln = lambda name, to: hdr(name, b"2", link=to)
    hl = lambda name, to: hdr(name, b"1", link=to)
    d = lambda name: hdr(name, b"5")
    return {
        "bad-symlink-abs.tar": ln(b"l", b"/workspace") +
        f(b"l/important.txt", b"pwned\n") + END,
        "bad-symlink-dotdot.tar": ln(b"l", b"../..") + f(b"l/x", b"x\n") +
        END,
        "bad-symlink-chain.tar": ln(b"a", b"b") + ln(b"b", b"/workspace") +
        f(b"a/important.txt", b"pwned\n") + END,
        "bad-symlink-dir.tar": ln(b"l", b"/tmp") + d(b"l/") +
        f(b"l/x", b"x\n") + END,
        "bad-symlink-deep.tar": d(b"d/") + ln(b"d/l", b"../../usr/bin") +
        f(b"d/l/cat", b"pwned\n") + END,
        "bad-hardlink-dotdot.tar": hl(b"h", b"../../etc/passwd") + END,
        "bad-hardlink-abs.tar": hl(b"h", b"/workspace/important.txt") + END,
        "bad-hardlink-link.tar": ln(b"l", b"/tmp") + hl(b"h", b"l") +
        f(b"h/x", b"x\n") + END,
        "bad-dir-data.tar": hdr(b"d/", b"5", 1024) + b"\x00" * 1024 + END,
        "bad-names.tar": f(b"/abs/x", b"1\n") + f(b"../y", b"2\n") +
        f(b"a/../../z", b"3\n") + f(b"ok", b"4\n") + END,
    }


def bombs():
    """Compressed archives that expand far past any budget."""
    return {
        "bad-bomb-member.tgz": zeros_gz(hdr(b"zeros", size=4 << 30), 8 << 20),
        "bad-bomb-tail.tgz": zeros_gz(hdr(b"a") + END, 16 << 20),
        "bad-bomb-pax.tgz": zeros_gz(hdr(b"p", b"x", 4 << 30), 8 << 20),
        "bad-bomb-dir.tgz": zeros_gz(hdr(b"d/", b"5", 1 << 30), 8 << 20),
        "bad-bomb-quota.tgz": zeros_gz(
            b"".join(hdr(b"f%d" % i, size=1 << 20) + b"\x00" * (1 << 20)
                     for i in range(40)), 0, END),
    }


def bad():
    z = lambda b: gzip.compress(b, mtime=0)
    plain = hdr(b"a") + END
    return {
        **escapes(),
        **bombs(),
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
    if len(sys.argv) == 3 and sys.argv[1] == "--b64":
        body = {**good(), **bad()}[sys.argv[2]]
        if not body.startswith(b"\x1f\x8b"):
            body = gzip.compress(body, mtime=0)
        sys.stdout.write(base64.encodebytes(body).decode())
        return
    if len(sys.argv) != 2:
        sys.exit("usage: make.py OUTDIR | --b64 NAME")
    os.makedirs(sys.argv[1], exist_ok=True)
    for name, body in {**good(), **bad()}.items():
        with open(os.path.join(sys.argv[1], name), "wb") as f:
            f.write(body)


if __name__ == "__main__":
    main()
