/* shstate.h - the shell session as snapshot records, and back.
 *
 * A snapshot carries the session in MEMSANDBOX.* pax records (see
 * shstate.c for the encoding). Saving reads a live session; loading builds
 * a new, separate session that the caller swaps in only when the whole
 * archive has loaded, so a bad record changes nothing. */
#ifndef MSB_SHSTATE_H
#define MSB_SHSTATE_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "shell.h"

/* Version of the session encoding (MEMSANDBOX.shell). */
#define SHSTATE_VERSION "1"

/* Appends the session's pax records (without MEMSANDBOX.cwd, which the
 * snapshot writes itself) to rec. Returns 0, MSB_ENOMEM, or MSB_ENOTSUP
 * with why naming a function whose body cannot be printed back exactly. */
int shstate_save(shell *sh, buf *rec, char *why, size_t whylen);

/* Builds a new session from a snapshot's records: recs holds "key\0value\0"
 * pairs with the MEMSANDBOX. prefix removed (arc_tar's globals), or is NULL
 * for an archive without them (a fresh session). The other arguments are
 * shell_create's. Returns 0 with *out set, MSB_ECORRUPT with why filled for
 * a malformed record, or MSB_ENOMEM. */
int shstate_load(mem *m, vfs *fs, const msb_limits *lim, uint64_t seed,
                 int64_t *clock_ns, const char *recs, size_t len, shell **out,
                 char *why, size_t whylen);

#endif
