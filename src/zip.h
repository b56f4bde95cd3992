/* zip.h - zip archives (PKWARE APPNOTE): a bounded reader and a writer.
 *
 * The reader trusts nothing: it finds the end-of-central-directory record,
 * checks that every central entry, its local header and its data lie inside
 * the buffer, and expands an entry only up to the size the caller allows
 * (and exactly to the size the entry declares, with its CRC checked), so
 * a zip bomb stops at its bound. Stored (0) and deflated (8) entries are
 * read; zip64, multi-disk and encrypted archives are refused with a
 * reason. The writer appends local headers and data to a buffer and keeps
 * the central directory aside until zip_wr_end. Names and data are bytes;
 * nothing here touches the filesystem. */
#ifndef MSB_ZIP_H
#define MSB_ZIP_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "mem.h"

/* One central directory entry, borrowed from the archive buffer. */
typedef struct zip_entry {
  const char *name; /* not NUL-terminated */
  size_t nlen;
  uint16_t made_by, flags, method, dtime, ddate;
  uint32_t crc, ext_attr;
  uint64_t csize, usize;
  int64_t mtime;     /* from the extended timestamp field (seconds) */
  int has_mtime;
  const uint8_t *data; /* csize bytes of (compressed) data */
  const uint8_t *local; /* the local header through the data's end */
  size_t local_len;
} zip_entry;

typedef struct zip_rd {
  const uint8_t *p;
  size_t len;
  size_t cd, cd_end, pos; /* central directory bounds, next entry */
  uint64_t n, i;          /* entries announced, entries read */
  char why[128];          /* reason of the last error */
} zip_rd;

/* Opens the archive p[0..len) (borrowed): MSB_ECORRUPT with z->why when it
 * has no end record or announces more than max_entries entries, else 0. */
int zip_rd_open(zip_rd *z, const uint8_t *p, size_t len, uint64_t max_entries);
/* Next entry: 1 and *e, 0 after the last, or MSB_ECORRUPT (z->why). */
int zip_rd_next(zip_rd *z, zip_entry *e);
/* Appends e's contents to out, expanding at most cap bytes: 0,
 * MSB_ENOMEM, MSB_ENOTSUP (encrypted, unknown method) or MSB_ECORRUPT
 * (bad data, wrong size, CRC mismatch, more than cap), *why saying which
 * (a static string). */
int zip_rd_data(const zip_entry *e, buf *out, uint64_t cap, const char **why);
/* The entry's Unix mode bits (with type) when a Unix zip made it, else 0. */
uint32_t zip_unix_mode(const zip_entry *e);
/* Method names as unzip -v prints them ("Stored", "Defl:N"...). */
const char *zip_method_name(const zip_entry *e);

/* Writer. out holds the archive so far (may start empty). */
typedef struct zip_wr {
  mem *m;
  buf *out;
  buf cd;
  uint64_t n;
} zip_wr;

/* A member to add: a file (data), a directory (name ends in '/') or a
 * symlink (data is the target, mode says S_IFLNK). */
typedef struct zip_item {
  const char *name;
  size_t nlen;
  const uint8_t *data;
  size_t len;
  uint32_t mode;  /* Unix mode with type bits */
  uint16_t dtime, ddate;
  int64_t mtime;  /* seconds, stored in an extended timestamp field */
  int level;      /* 0 stores; 1-9 deflate (stored when that is no smaller) */
} zip_item;

void zip_wr_init(zip_wr *w, mem *m, buf *out);
/* Appends a member; *csize and *method tell what was written. 0,
 * MSB_ENOMEM or MSB_EFBIG (past the 4 GiB zip32 limits). */
int zip_wr_add(zip_wr *w, const zip_item *it, uint64_t *csize, int *method);
/* Copies an entry read from another archive unchanged. */
int zip_wr_copy(zip_wr *w, const zip_entry *e);
/* Appends the central directory and the end record; frees w's state. */
int zip_wr_end(zip_wr *w);
/* Frees w's state without finishing. */
void zip_wr_abort(zip_wr *w);

#endif
