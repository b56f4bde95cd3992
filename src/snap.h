/* snap.h - whole-sandbox snapshots as deterministic tar.gz, and restore.
 *
 * A snapshot is a gzip-compressed POSIX pax tar: a global header whose
 * MEMSANDBOX.* records carry the session state (format, cwd, revision,
 * root hash, and the shell session from shstate.c), then "tmp/..." and "workspace/..." members in sorted
 * depth-first order with uid/gid 1000, owner "user", the sandbox's modes and
 * mtimes. Restore accepts those and any plain tar / tar.gz (loaded into
 * /workspace), validates everything and changes nothing unless the whole
 * archive loads. */
#ifndef MSB_SNAP_H
#define MSB_SNAP_H

#include <stddef.h>
#include <stdint.h>

#include "archive.h"
#include "buf.h"
#include "vfs.h"

/* Format 2 added the shell session records (shstate.c); format 1
 * snapshots (cwd only) still load. */
#define SNAP_FORMAT "2"
/* Default snapshot level. Measured on 8 MB of C source: level 1 deflates
 * about 3.6 times faster than 6 for 25% more bytes (2.69 MB vs 2.15 MB),
 * and inflating costs the same, so snapshots favour speed; and since each
 * file is compressed once and its piece kept, the level mostly costs the
 * first snapshot. */
#define SNAP_LEVEL 1
/* The largest revision a snapshot may record: JavaScript's largest exact
 * integer (2^53 - 1), so every host holds it as it is. */
#define SNAP_MAX_REVISION 9007199254740991ull

/* Decompression and member bounds derived from a filesystem's quotas. */
void snap_limits(const vfs_limits *vl, arc_limits *al);

/* Appends a snapshot of fs (cwd recorded as the shell's directory) to out.
 * extra[0..extralen) holds more pax records for the global header (the
 * session). level 0-9 or -1 for SNAP_LEVEL. Returns 0 or
 * MSB_ENOMEM/MSB_EINVAL. */
int snap_export(vfs *fs, const char *cwd, const char *extra, size_t extralen,
                int level, buf *out);

/* As snap_export without compression or root hash record: the plain tar a
 * fork hands from one sandbox to another inside one process. */
int snap_export_tar(vfs *fs, const char *cwd, const char *extra,
                    size_t extralen, buf *out);

/* Called by snap_import once the tree is built and checked, before it is
 * kept: recs holds the archive's MEMSANDBOX.* records as "key\0value\0"
 * pairs without the prefix (NULL for an archive that is not a snapshot).
 * A non-zero return rejects the archive (why filled) and nothing changes. */
typedef int (*snap_state_fn)(void *ctx, const char *recs, size_t len, char *why,
                             size_t whylen);

/* Replaces /workspace (and /tmp for our snapshots) with the archive's
 * members. On success returns 0 and appends the snapshot's cwd to cwd_out
 * (nothing for foreign archives). On failure the tree and revision are
 * exactly as before and why (whylen bytes) names the reason; codes:
 * MSB_ECORRUPT (hostile or malformed), MSB_ENOSPC / MSB_EDQUOT / MSB_EFBIG
 * / MSB_ENAMETOOLONG (quota), MSB_ENOMEM. */
int snap_import(vfs *fs, const uint8_t *data, size_t len, const arc_limits *lim,
                buf *cwd_out, char *why, size_t whylen);
/* As snap_import, calling state (when not NULL) before keeping the tree. */
int snap_import_state(vfs *fs, const uint8_t *data, size_t len,
                      const arc_limits *lim, snap_state_fn state, void *ctx,
                      buf *cwd_out, char *why, size_t whylen);

#endif
