/* archive.h - tar reading and writing, gzip compression, all bounded.
 *
 * Everything here works on whole byte buffers (the sandbox holds files in
 * memory anyway): a tar reader that walks a buffer and validates every
 * header before handing out an entry, a tar writer that appends POSIX pax /
 * ustar records to a buf, and gzip framing around zlib's raw deflate (with
 * the sandbox allocator) and inf.c. Input is treated as hostile:
 * sizes, ratios, member counts and header sizes are capped, and every
 * rejection names its reason in a static string. */
#ifndef MSB_ARCHIVE_H
#define MSB_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "mem.h"

/* ---- gzip ------------------------------------------------------------ */

/* gzip's default level, as GNU gzip. */
#define ARC_GZ_LEVEL 6

/* Whether bytes start with the gzip magic. */
int arc_is_gzip(const uint8_t *p, size_t n);

/* Compresses in as one gzip member appended to out. The header is fixed
 * (deterministic) apart from name (NULL = none) and mtime (0 = none); the
 * OS byte is always 3 (Unix), as GNU gzip writes. level 1-9 (0 = store).
 * Returns 0, MSB_ENOMEM or MSB_EINVAL. */
int arc_gzip(mem *m, const uint8_t *in, size_t n, int level, const char *name,
             uint32_t mtime, buf *out);

/* A member's header as arc_gzip writes it (the writer of archive_gzw.c
 * too), and its trailer: the data's CRC-32 and length mod 2^32. */
int arc_gz_put_header(buf *out, int level, const char *name, uint32_t mtime);
int arc_gz_put_trailer(buf *out, uint32_t crc, uint64_t len);

/* CRC-32 (gzip's) of n bytes, continuing crc (0 to start). */
uint32_t arc_crc(uint32_t crc, const uint8_t *p, size_t n);
/* Clears a z_stream (zlib's struct z_stream_s) and makes it allocate
 * from m. */
struct z_stream_s;
void arc_zinit(struct z_stream_s *z, mem *m);

/* ---- gzip from pieces (archive_gzw.c) -------------------------------- */

/* A piece: raw deflate data that starts and ends on a byte boundary (a
 * sync flush ends it), refers to nothing before itself and holds no final
 * block, so pieces concatenate into one deflate stream. One mem block:
 * free it with mem_free. */
typedef struct arc_piece {
  uint32_t crc;  /* CRC-32 of the uncompressed bytes */
  int level;     /* the deflate level that made it */
  uint64_t ulen; /* uncompressed bytes */
  size_t clen;   /* compressed bytes in z */
  uint8_t z[];
} arc_piece;

/* A deterministic gzip member (fixed header: no name, mtime 0) written as
 * a tar stream: header blocks, encoded by the writer, and pieces. begin
 * appends the gzip header to out; headers takes whole 512-byte blocks;
 * piece appends a piece of the writer's level; piece_make compresses
 * data[0..n) plus pad zero bytes (pad < 512) into a new piece (the caller
 * owns it); finish encodes the last header blocks (the end of the
 * archive, a multiple of 512 bytes), appends the trailer and frees the
 * writer (also when it fails); abort only frees it. Each returns 0,
 * MSB_ENOMEM or MSB_EINVAL. */
typedef struct arc_gzw arc_gzw;
int arc_gzw_begin(mem *m, int level, buf *out, arc_gzw **w);
int arc_gzw_headers(arc_gzw *w, const void *p, size_t n);
int arc_gzw_piece(arc_gzw *w, const arc_piece *pc);
int arc_gzw_piece_make(arc_gzw *w, const uint8_t *data, size_t n, size_t pad,
                       arc_piece **out);
int arc_gzw_finish(arc_gzw *w, const void *tail, size_t n);
void arc_gzw_abort(arc_gzw *w);
/* The writer's level, and the uncompressed bytes written so far. */
int arc_gzw_level(const arc_gzw *w);
uint64_t arc_gzw_total(const arc_gzw *w);

/* Decompression bounds. ratio applies once the output passes 1 MiB; it is
 * checked at the end of each member against the input used so far, and
 * expansion stops as soon as the output passes max_out or max_ratio times
 * the whole input. */
typedef struct arc_limits {
  uint64_t max_in;      /* compressed bytes */
  uint64_t max_out;     /* expanded bytes */
  uint64_t max_ratio;   /* expanded / compressed */
  uint64_t max_members; /* tar members */
  uint64_t max_header;  /* one pax header or GNU long name */
  uint64_t max_global;  /* one pax global header (0: max_header); our
                           snapshots carry the shell session there */
} arc_limits;

/* What gunzip found around the compressed members. */
typedef struct arc_gz_info {
  int trailing;          /* 0 none, 1 only zero bytes, 2 other bytes */
  const char *name;      /* first member's FNAME (borrowed from input, NUL-
                            terminated) or NULL */
  uint32_t mtime;        /* first member's MTIME */
  uint32_t isize;        /* last member's ISIZE (size mod 2^32) */
} arc_gz_info;

/* Expands every concatenated gzip member of in and appends the bytes to
 * out. Returns 0, MSB_ENOMEM, or MSB_ECORRUPT with *why set to GNU gzip's
 * wording ("not in gzip format", "unexpected end of file",
 * "invalid compressed data--crc error", ...) or a limit's name. Anything
 * after the last member is reported in info->trailing (not an error here).
 * info may be NULL. */
int arc_gunzip(const uint8_t *in, size_t n, const arc_limits *lim, buf *out,
               arc_gz_info *info, const char **why);
/* A watcher of expanding gzip data (see inf.h's), in stream offsets:
 * the output of all members counts as one stream, of which out holds the
 * bytes from base on. */
typedef struct arc_look {
  const uint8_t *p; /* the bytes held: stream offsets base .. base+len */
  size_t len;
  uint64_t base;
  uint64_t in_used; /* compressed bytes consumed, from the input's start */
  uint64_t next;    /* answer: stream offset of the next call (0: soon) */
  uint64_t keep;    /* answer: stream offset from which the bytes are
                       still needed (those before may go) */
} arc_look;

typedef struct arc_watch {
  int (*fn)(void *ctx, arc_look *l); /* 0, MSB_ENOMEM, or else stop */
  void *ctx;
  size_t every; /* least output between calls */
} arc_watch;

/* arc_gunzip under a watcher (may be NULL) that sees the output grow,
 * can stop the expansion early (then the result is MSB_ECORRUPT with *why
 * "stopped by the reader", and the watcher's context says why), and can
 * let go of bytes it is done with: then out holds only the stream's bytes
 * from *base on (*base may be NULL without a watcher). Every member's
 * CRC-32 and length are checked all the same. */
int arc_gunzip_watch(const uint8_t *in, size_t n, const arc_limits *lim,
                     const arc_watch *w, buf *out, uint64_t *base,
                     arc_gz_info *info, const char **why);

/* ---- tar reading ----------------------------------------------------- */

enum { ARC_FILE = 1, ARC_DIR = 2, ARC_SYMLINK = 3, ARC_HARDLINK = 4 };

/* The pax record marking a file as a command (vfs_set_prog): an extended
 * attribute in GNU tar's spelling, which tar keeps with --xattrs and
 * otherwise ignores without a warning. */
#define ARC_CMD_KEY "SCHILY.xattr.user.memsandbox.command"

typedef struct arc_entry {
  int type;              /* ARC_* */
  const char *path;      /* as stored (pax path / GNU long name applied) */
  const char *link;      /* link target for links, else "" */
  uint32_t mode;         /* permission bits (& 07777) */
  int64_t mtime_ns;
  uint64_t size;         /* data bytes (a regular file's contents; other
                            members' data is skipped) */
  const uint8_t *data;   /* borrowed from the archive buffer */
  uint64_t have;         /* data bytes present: size, or fewer for a
                            member cut short (lenient) */
  uint64_t uid, gid;
  const char *uname;     /* "" when absent */
  const char *gname;
  uint64_t offset;       /* stream offset of the member's header */
  const char *command;   /* ARC_CMD_KEY: the command the file is, or "" */
} arc_entry;

typedef struct arc_tar {
  mem *m;
  const uint8_t *p;
  size_t len, pos;
  uint64_t members, max_members, max_header, max_global;
  buf path, link, uname, gname; /* current entry's strings */
  buf xpath, xlink;             /* pending pax / GNU overrides */
  buf xcmd;                     /* pending ARC_CMD_KEY value */
  int has_xpath, has_xlink, has_xcmd;
  int has_xsize, has_xmtime;
  uint64_t xsize;
  int64_t xmtime;
  buf globals; /* MEMSANDBOX.* records from 'g' headers: key\0value\0 */
  int done;
  int lenient; /* set by callers: a member cut short is returned with the
                  bytes present before the truncation error (tar -t/-x) */
  int more;    /* set by callers: the buffer is a prefix of the archive
                  that will grow (see arc_tar_feed) */
  int nodata;  /* set by callers: members' data is not wanted (listing),
                  so while more is set a member comes at its header (data
                  NULL, have 0) and its data is skipped as it arrives */
  int trunc;
  int pending; /* extended headers read for the next member (bits) */
  int ended;   /* the end-of-archive block was read */
  size_t tail; /* bytes after it checked up to here */
  uint64_t base; /* stream offset of p[0] (arc_tar_feed) */
  uint64_t need; /* with ARC_MORE: the stream offset the buffer must
                    reach */
  char why[160]; /* reason of the last error */
} arc_tar;

/* Starts reading an uncompressed tar held in p (borrowed for the reader's
 * lifetime). lim may be NULL (generous defaults). */
void arc_tar_init(arc_tar *t, mem *m, const uint8_t *p, size_t len,
                  const arc_limits *lim);
/* Next member: 1 and *e (valid until the next call), 0 at a well-formed
 * end, or MSB_ECORRUPT / MSB_ENOMEM with t->why describing the fault
 * (checksum, truncation, trailing garbage, unsupported type, ...).
 * While t->more is set, a buffer that ends too soon gives ARC_MORE with
 * t->need the length it must reach, and nothing consumed; when what is
 * missing is a member's data, *e already describes the member (data
 * NULL, size as announced), so a caller can refuse it before its bytes
 * are produced. Bytes after the end are checked as they come. */
#define ARC_MORE 2
int arc_tar_next(arc_tar *t, arc_entry *e);
/* Points the reader at the grown buffer p[0..len), which holds the
 * archive's bytes from stream offset base on (moved, longer, or without
 * bytes before the member being read); more says whether it may grow
 * again. */
void arc_tar_feed(arc_tar *t, const uint8_t *p, size_t len, uint64_t base,
                  int more);
/* Stream offset of the first byte the reader still needs. */
uint64_t arc_tar_keep(const arc_tar *t);
/* Value of a MEMSANDBOX.* global record (key without the prefix), or NULL.
 * Borrowed from the reader. */
const char *arc_tar_global(const arc_tar *t, const char *key);
void arc_tar_finish(arc_tar *t);

/* Normalises a member name into out: strips leading "/" (sets
 * *had_slash) and "./", drops "." components and repeated "/", and drops a
 * trailing "/". Returns 0, MSB_ENOMEM, or MSB_EINVAL when a component is
 * ".." (*why says so) or nothing is left ("." alone gives MSB_ENOENT). */
int arc_path_clean(const char *in, buf *out, int *had_slash, const char **why);

/* ---- tar writing ----------------------------------------------------- */

/* Files of several names met while writing an archive: a later name of
 * an earlier file becomes a hard-link member naming the first one (as GNU
 * tar writes). Snapshots and the content-addressed export share it. */
typedef struct arc_links {
  struct arc_link_slot *e; /* open addressing by inode; ino 0 is free */
  size_t n, cap;
  buf names; /* first names, NUL-terminated */
} arc_links;
void arc_links_init(arc_links *l, mem *m);
/* The first name recorded for ino, or NULL after recording path as it
 * (NULL too when out of memory: l->names.err is set). */
const char *arc_links_seen(arc_links *l, uint64_t ino, const char *path);
void arc_links_finish(arc_links *l);

typedef struct arc_wentry {
  int type;            /* ARC_FILE, ARC_DIR, ARC_SYMLINK, ARC_HARDLINK */
  const char *path;    /* without a trailing "/" (added for directories) */
  const char *link;    /* symlink target; a hard link's earlier member */
  uint32_t mode;
  int64_t mtime_ns;
  const uint8_t *data; /* file bytes */
  uint64_t size;
  uint32_t uid, gid;
  const char *uname, *gname;
  const char *command; /* NULL, or the command the file is (ARC_CMD_KEY) */
} arc_wentry;

/* Appends one member to out, with a pax 'x' header first when the name or
 * link does not fit ustar or the mtime is negative or fractional. Errors
 * are sticky in out->err; returns it. */
int arc_tar_put(buf *out, const arc_wentry *e);
/* The two halves of arc_tar_put: the header blocks, then (files) the data
 * with its padding. */
int arc_tar_put_header(buf *out, const arc_wentry *e);
int arc_tar_put_data(buf *out, const void *d, uint64_t n);
/* Zero bytes that pad n bytes of member data to a whole block. */
size_t arc_tar_pad(uint64_t n);
/* Appends one pax record "LEN key=value\n" to b. */
int arc_pax_record(buf *b, const char *key, const char *val, size_t vlen);
/* Appends a pax global header ('g') holding the records in rec. */
int arc_tar_put_global(buf *out, const char *rec, size_t len);
/* Appends the two zero end blocks and pads to a 10240-byte record, as GNU
 * tar does; before is the archive's length ahead of out (when the archive
 * is written out in parts). */
int arc_tar_end(buf *out, uint64_t before);

#endif
