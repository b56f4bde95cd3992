/* cas.h - content-addressed state: a sandbox's tree as pieces named by
 * their SHA-256, so stores keep identical files and directories once and a
 * change costs the pieces it touched.
 *
 * Pieces: a file's piece is its bytes, a symbolic link's its target (their
 * keys are the sandbox's own hashes, cached on the contents, so an export
 * hashes no unchanged file). A directory's piece lists its entries in byte
 * order of names:
 *
 *   "msb-dir-1\n", then per entry: kind ('F', 'D', 'L', 'X', or 'H' for
 *   a later name of a file whose first name came before in the walk: its
 *   piece is that name's member path, "workspace/a"), mode (u32),
 *   mtime in ns (i64), key (32 bytes), name length (u32), name bytes
 *
 * (integers big-endian); its key is the SHA-256 of those bytes. 'X' is a
 * command file (an empty file that runs a command, vfs_set_prog): its
 * piece is the command's name, checked on import as restore checks the
 * snapshot's command record.
 *
 * Records: export and import exchange a sequence of records, each a tag
 * byte, a u32 big-endian payload length and the payload:
 *   'V' revision (decimal)      'C' the shell's cwd
 *   'S' the shell session (pax records, shstate.c): on export its key
 *       and bytes, on import its key (the bytes come as a piece)
 *   'R' root hash (32 bytes)    'T' / 'W' /tmp and /workspace: key, mode
 *                                (u32), mtime (i64)
 *   'D' (export) a directory's piece: key, path length (u32), absolute
 *       path, piece bytes
 *   'L' (export) a link's, command file's or hard link's piece: key,
 *       target, command name or first name
 *   'U' (export) a directory unchanged since an earlier export: its key
 *   'P' (import) a piece: key, bytes; a piece that does not hash to its
 *       key is rejected by name
 *   'K' (import, first, empty) the host vouches for the keys (its own
 *       store): pieces are not hashed; the root hash is still checked. */
#ifndef MSB_CAS_H
#define MSB_CAS_H

#include <stddef.h>
#include <stdint.h>

#include "archive.h"
#include "buf.h"
#include "vfs.h"

#define CAS_DIR_MAGIC "msb-dir-1\n"
#define CAS_DIR_MAGIC_LEN 10
/* Bytes of an entry before its name. */
#define CAS_ENTRY_FIXED (1 + 4 + 8 + 32 + 4)

/* The keys of the directories the last export saw, each entry pinning its
 * node (an open vfs_dir): a pinned node is never changed in place (the
 * filesystem copies shared nodes first), so meeting the same node again
 * means the same listing and the same subtree - unless a file of several
 * names lies below (changed through another name, it changes no node
 * here): such directories are not kept. */
typedef struct cas_cache cas_cache;
void cas_cache_destroy(vfs *fs, mem *m, cas_cache *c);

/* Appends the records of fs's state (every directory's piece, the tops,
 * the root hash, revision, cwd and session) to out. With cached set, a
 * directory found in *cache is not walked: a 'U' record (its key) stands
 * for it and everything below, which the caller knows from an earlier
 * export. *cache is replaced by this export's directories on success.
 * 0 or MSB_ENOMEM. */
int cas_export(vfs *fs, const char *cwd, const char *session, size_t slen,
               cas_cache **cache, int cached, buf *out);

/* Turns import records into the uncompressed snapshot tar that restore
 * takes (so every check of snap_import applies), appended to tar. Pieces
 * that do not hash to their names cannot be named; a missing piece, a
 * malformed listing or a tree expanding past lim fails with MSB_ECORRUPT
 * and why names the reason. */
int cas_import_tar(mem *m, const uint8_t *rec, size_t len,
                   const arc_limits *lim, buf *tar, char *why, size_t whylen);

#endif
