/* patch.h - the patch engine: parse unified diffs and OpenAI V4A patches,
 * locate hunks with GNU patch's rules, and apply whole patches atomically.
 *
 * Two layers. The low layer (patch_parse, patch_tgt_*) is what the `patch`
 * command drives hunk by hunk so it can print GNU's messages and write
 * rejects. The high layer (patch_apply) is the library entry for the API
 * and the agent tools: it computes every new file content in memory first,
 * then commits all writes, deletes and moves inside one vfs batch, and on any
 * failure restores the tree it started from, so nothing changes. */
#ifndef MSB_PATCH_H
#define MSB_PATCH_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "mem.h"
#include "vfs.h"

/* Bounds on hostile input. */
#define PATCH_MAX_BYTES (64u << 20) /* patch text */
#define PATCH_MAX_HUNKS 100000u
#define PATCH_MAX_FILES 10000u

/* One body line of a hunk. op is ' ', '-', '+' or, in V4A, '@' for an
 * anchor line (the text after "@@ "). */
typedef struct patch_line {
  const char *s; /* borrowed from the patch text */
  size_t n;      /* without the newline */
  char op;
} patch_line;

typedef struct patch_hunk {
  int64_t old_start, old_count, new_start, new_count;
  size_t first, nlines;  /* slice of patch_set.lines */
  int old_noeol;         /* "\ No newline" after the last old-side line */
  int new_noeol;         /* same for the new side */
  int eof;               /* V4A "*** End of File" */
  int64_t line_no;       /* 1-based patch line of the "@@" */
  const char *fn;        /* text after the closing "@@" (borrowed) */
  size_t fn_len;
} patch_hunk;

enum { PATCH_UPDATE = 0, PATCH_ADD = 1, PATCH_DELETE = 2 };

typedef struct patch_file {
  int kind;         /* PATCH_*: from /dev/null headers or V4A markers */
  int v4a;          /* from a V4A envelope */
  char *old_name;   /* "--- " name (timestamp removed), or NULL */
  char *new_name;   /* "+++ " name, or NULL */
  const char *old_ts; /* header text from the TAB on (timestamp), borrowed */
  size_t old_ts_len;
  const char *new_ts;
  size_t new_ts_len;
  char *git_old;    /* "diff --git a/x b/x" names, or NULL */
  char *git_new;
  char *path;       /* V4A path */
  char *move_to;    /* V4A "*** Move to:" or NULL */
  size_t first_hunk, nhunks;
  int64_t hdr_line; /* patch line number of the last header line */
  const char *pre;  /* the header text leading up to the hunks */
  size_t pre_len;
} patch_file;

typedef struct patch_set {
  mem *m;
  arena a;
  int v4a;
  int bad;          /* parse stopped at a malformed line (see patch_parse) */
  patch_file *files;
  size_t nfiles, capf;
  patch_hunk *hunks;
  size_t nhunks, caph;
  patch_line *lines;
  size_t nlines, capl;
} patch_set;

/* Parses text (borrowed: the set points into it, keep it alive). A V4A
 * envelope is recognised by its "*** Begin Patch" line; anything else is
 * read as unified diffs, skipping preambles (diff --git, index ...). On a
 * malformed patch returns MSB_ECORRUPT with a message in err (GNU wording
 * where GNU has one, e.g. "malformed patch at line 5: ?x"). For unified
 * input *out then still receives what parsed (set->bad = 1; the last file
 * is the one that broke and holds only its complete hunks), so the command
 * can act like GNU up to the error; the caller frees it. An input with no
 * patch at all gives a set with nfiles == 0. */
int patch_parse(mem *m, const char *text, size_t len, patch_set **out,
                buf *err);
void patch_free(patch_set *ps);

/* ---- Applying hunks to one file (GNU rules) ----------------------------
 * A target holds the input file split into lines and the output built so
 * far. For each hunk in order: patch_tgt_locate finds where it applies
 * (exact position, then outward offsets, at the given fuzz), then
 * patch_tgt_apply emits it; hunks that fail are simply not applied.
 * patch_tgt_finish copies the rest of the input. */
typedef struct patch_tline {
  const char *s;
  size_t n;
} patch_tline;

/* The step meter of a run that applies a patch: the search's line
 * comparisons are paid in steps, PATCH_UNITS_PER_STEP a step, so a slow
 * patch stops at the run's named step limit. charge returns 0 to go on or
 * a negative code (the payer records the limit). charge NULL: a fixed
 * budget (host calls outside a run). */
typedef struct patch_meter {
  int (*charge)(void *arg, uint64_t steps);
  void *arg;
} patch_meter;
#define PATCH_UNITS_PER_STEP 64u

typedef struct patch_tgt {
  mem *m;
  patch_tline *in;      /* input lines */
  int64_t nin;
  int in_noeol;         /* the last input line has no newline */
  int64_t in_offset;    /* GNU's running offset */
  int64_t frozen;       /* input lines already consumed (copied/replaced) */
  uint64_t budget;      /* comparison steps left; MSB_ELIMIT when gone */
  patch_meter meter;    /* pays for more when set (patch_tgt_init) */
  buf out;
  int out_noeol;        /* output currently ends without a newline */
  int creating;         /* set by the caller for a file-creating patch */
} patch_tgt;

/* Splits data (borrowed) into lines. With a meter (may be NULL) the
 * comparisons are paid in steps; without, budget bounds them (0 means a
 * default bound). */
int patch_tgt_init(patch_tgt *t, mem *m, const uint8_t *data, size_t len,
                   uint64_t budget, const patch_meter *meter);
void patch_tgt_free(patch_tgt *t);
/* Old-side line count, leading and trailing context of a hunk; reverse
 * swaps the sides. */
int64_t patch_hunk_old_lines(const patch_set *ps, const patch_hunk *h,
                             int reverse);
int patch_hunk_context(const patch_set *ps, const patch_hunk *h, int reverse,
                       int *prefix, int *suffix);
/* Where (1-based input line) hunk h applies with fuzz, or 0; updates the
 * running offset on success. Negative MSB_ELIMIT when the budget is gone.
 * *offset receives the offset from the hunk's stated line. */
int64_t patch_tgt_locate(patch_tgt *t, const patch_set *ps, const patch_hunk *h,
                         int reverse, int fuzz, int64_t *offset);
/* Emits hunk h at where (from patch_tgt_locate). */
int patch_tgt_apply(patch_tgt *t, const patch_set *ps, const patch_hunk *h,
                    int reverse, int64_t where);
/* Copies the remaining input; the result is t->out. */
int patch_tgt_finish(patch_tgt *t);

/* Appends hunk h (forward or reversed) in unified form, for .rej files. */
int patch_hunk_unified(const patch_set *ps, const patch_hunk *h, int reverse,
                       buf *b);

/* Applies V4A file f (an update) to data: context search from a cursor
 * (exact, then ignoring trailing, then surrounding whitespace), anchors,
 * "*** End of File". The result (always newline-terminated) goes to out.
 * On failure returns MSB_ECORRUPT with a message naming hunk and file in
 * err. */
int patch_v4a_update(const patch_set *ps, const patch_file *f,
                     const uint8_t *data, size_t len, buf *out, buf *err,
                     const patch_meter *meter);

/* ---- Names inside the working directory --------------------------------
 * GNU patch 2.7 resolves a relative file name from its working directory
 * one component at a time: ".." may not climb above it, and a symbolic
 * link on the way is followed only where it stays inside (an absolute
 * link must lead back into it); the last component is not followed. So a
 * patch naming l/x, where l links outside, never reads or writes there.
 * patch_resolve does the same in the sandbox: out receives the real path
 * (the last component appended to the resolved directory) and st the last
 * component's lstat. Returns 0 when it exists, MSB_ENOENT when a component
 * is missing (out then names where it would be created, still inside; or
 * is empty when the missing one is a link's target: GNU creates nothing
 * through a dangling link),
 * MSB_EPERM when the name leads outside, MSB_ENOTDIR, MSB_ELOOP or
 * MSB_ENOMEM. An absolute name is not resolved (GNU refuses those
 * earlier, see patch_name_ok): out is it, lexically normalised. */
int patch_resolve(vfs *v, const char *root, const char *name, buf *out,
                  struct vfs_stat *st);
/* Whether GNU patch takes a name from a patch: not absolute and without a
 * ".." component ("Ignoring potentially dangerous file name"), unless the
 * working directory is the root. */
int patch_name_ok(const char *cwd, const char *name);

/* ---- Whole patches, atomically ----------------------------------------- */
typedef struct patch_opts {
  int strip;      /* unified: -pN; -1 strips a leading "a/" and "b/" */
  int max_fuzz;   /* unified: GNU fuzz factor (0..2 typical) */
  int exact;      /* unified: no offset search, no fuzz (spec 1.6) */
  int reverse;    /* unified: apply reversed */
  int dry_run;    /* compute and report, change nothing */
  int workspace;  /* every path free of ".." and under /workspace;
                     implies confined */
  int confined;   /* names taken as GNU patch takes them: relative, no
                     "..", resolved inside cwd (patch_resolve), not a
                     link themselves */
  patch_meter meter; /* the run's step meter, or {NULL, NULL} */
} patch_opts;

/* Applies a unified diff or a V4A patch to the filesystem, paths relative
 * to cwd. All or nothing: every file's new content is computed first; then
 * all writes, deletes and moves are committed in one vfs batch, and if any
 * fails the tree is restored. On success report gets one line per file,
 * "A path", "M path" or "D path" (V4A's "Success. Updated the following
 * files:" style is left to the caller). On failure returns a negative code
 * (MSB_ECORRUPT for a malformed or non-applying patch, or the vfs error)
 * and report holds one message naming the file and hunk. o may be NULL
 * (strip -1, fuzz 2). */
int patch_apply(vfs *v, const char *cwd, const char *text, size_t len,
                const patch_opts *o, buf *report);
/* patch_apply that also lists what it changed: on success, changes (may
 * be NULL) gets one record per pending operation in patch order: 'W'
 * (write) or 'D' (delete), the absolute path and a NUL, the source path
 * of a V4A move (empty otherwise) and a NUL, then the SHA-256 of the
 * written content as lowercase hex (empty for a delete) and a NUL. The
 * API reports added, updated, deleted and moved files from it, dry runs
 * included. */
int patch_apply_list(vfs *v, const char *cwd, const char *text, size_t len,
                     const patch_opts *o, buf *report, buf *changes);

#endif
