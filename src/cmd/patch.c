/* patch.c - apply a diff file to an original (GNU patch 2.7).
 *
 * Usage: patch [OPTION]... [ORIGFILE [PATCHFILE]]
 *   -p NUM, --strip=NUM      strip NUM leading components from file names
 *   -i FILE, --input=FILE    read the patch from FILE (default stdin)
 *   -o FILE, --output=FILE   write the result to FILE
 *   -d DIR, --directory=DIR  change to DIR first
 *   -R, --reverse            apply reversed
 *   -N, --forward            skip patches that seem reversed or applied
 *   -f, --force              assume the patch is right (no reversal check)
 *   -t, --batch              answer questions like GNU's batch mode
 *   -F NUM, --fuzz=NUM       fuzz factor (default 2)
 *   -s, --quiet, --silent    no messages except errors
 *   -b, --backup             keep FILE.orig
 *   -E, --remove-empty-files remove files that end up empty
 *       --dry-run            report without changing files
 *       --no-backup-if-mismatch   no FILE.orig when hunks are inexact
 * The engine (../patch.c) locates hunks with GNU's rules; this file drives
 * it hunk by hunk to print GNU's messages, write FILE.rej in unified form
 * and back up to FILE.orig on mismatch as GNU does by default. Stdin is
 * never a terminal here, so every question gets the answer GNU prints when
 * it reads end of file. File names are taken as GNU patch 2.7 takes them:
 * resolved from the working directory without leaving it (patch_resolve:
 * a symbolic link leading outside makes the name not found, or "Invalid
 * file name" when creating), absolute names and ".." reported as
 * dangerous, and a name that is itself a link refused. Extension: a V4A
 * patch ("*** Begin Patch") is applied atomically through patch_apply,
 * under the same name rules. Deviation: creating through a dangling link
 * fails with "Can't create file NAME" (GNU names its temporary file).
 * Exit 0 ok, 1 some hunks failed, 2 trouble. */
#include <stdarg.h>
#include <string.h>

#include "../cold.h"
#include "../patch.h"
#include "cmd.h"

static const char patch_usage[] MSB_COLD =
    "Usage: patch [OPTION]... [ORIGFILE [PATCHFILE]]\n"
    "\n"
    "Input options:\n"
    "\n"
    "  -p NUM  --strip=NUM  Strip NUM leading components from file names.\n"
    "  -F LINES  --fuzz LINES  Set the fuzz factor to LINES for inexact "
    "matching.\n"
    "  -N  --forward  Ignore patches that seem to be reversed or already "
    "applied.\n"
    "  -R  --reverse  Assume patches were created with old and new files "
    "swapped.\n"
    "  -i PATCHFILE  --input=PATCHFILE  Read patch from PATCHFILE instead "
    "of stdin.\n"
    "\n"
    "Output options:\n"
    "\n"
    "  -o FILE  --output=FILE  Output patched files to FILE.\n"
    "  -E  --remove-empty-files  Remove output files that are empty after "
    "patching.\n"
    "  -b  --backup  Back up the original contents of each file.\n"
    "  --no-backup-if-mismatch  Back up only if otherwise requested.\n"
    "\n"
    "Miscellaneous options:\n"
    "\n"
    "  -t  --batch  Ask no questions; skip bad-Prereq patches; assume "
    "reversed.\n"
    "  -f  --force  Like -t, but ignore bad-Prereq patches, and assume "
    "unreversed.\n"
    "  -s  --quiet  --silent  Work silently unless an error occurs.\n"
    "  --dry-run  Do not actually change any files; just print what would "
    "happen.\n"
    "  -d DIR  --directory=DIR  Change the working directory to DIR first.\n"
    "\n"
    "  --help  Output this help.\n"
    "  -v  --version  Output version info.\n"
    "\n"
    "Extension: a V4A patch (*** Begin Patch ... *** End Patch) is applied "
    "atomically.\n";

enum { PATCH_DRY = 256, PATCH_NOBACKUP };
static const cmd_opt patch_opts_tab[] = {
    {'p', "strip", CMD_ARG_REQ, 'p'},
    {'i', "input", CMD_ARG_REQ, 'i'},
    {'o', "output", CMD_ARG_REQ, 'o'},
    {'d', "directory", CMD_ARG_REQ, 'd'},
    {'R', "reverse", CMD_ARG_NONE, 'R'},
    {'N', "forward", CMD_ARG_NONE, 'N'},
    {'f', "force", CMD_ARG_NONE, 'f'},
    {'t', "batch", CMD_ARG_NONE, 't'},
    {'F', "fuzz", CMD_ARG_REQ, 'F'},
    {'s', "quiet", CMD_ARG_NONE, 's'},
    {0, "silent", CMD_ARG_NONE, 's'},
    {'b', "backup", CMD_ARG_NONE, 'b'},
    {'E', "remove-empty-files", CMD_ARG_NONE, 'E'},
    {'u', "unified", CMD_ARG_NONE, 'u'},
    {0, "dry-run", CMD_ARG_NONE, PATCH_DRY},
    {0, "no-backup-if-mismatch", CMD_ARG_NONE, PATCH_NOBACKUP},
    {0, 0, 0, 0}};

typedef struct patch_cfg {
  int strip; /* -1 when -p was not given */
  int reverse, forward, force, batch, quiet, backup, rmempty, dry;
  int nobackup;
  int fuzz;
  const char *out;      /* -o */
  const char *origfile; /* ORIGFILE operand */
  const char *cwd;      /* after -d */
  int out_used;         /* -o written once already (later files append) */
  const char *bad;      /* the dangerous name reported in this section */
} patch_cfg;

/* GNU's say(): messages go to stdout, or to stderr when -o - sends the
 * patched text there. */
static void patch_say(cmd_ctx *c, const patch_cfg *g, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void patch_say(cmd_ctx *c, const patch_cfg *g, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (g->out && strcmp(g->out, "-") == 0) {
    buf_vprintf(c->err, fmt, ap);
  } else {
    buf tmp;
    buf_init(&tmp, c->m);
    buf_vprintf(&tmp, fmt, ap);
    cmd_write(c, tmp.p ? tmp.p : "", tmp.len);
    buf_finish(&tmp);
  }
  va_end(ap);
}

/* "patch: **** msg" on stderr; returns 2. */
static int patch_fatal(cmd_ctx *c, const char *msg) {
  buf_printf(c->err, "%s: **** %s\n", cmd_name(c), msg);
  return 2;
}

/* Absolute path of a name relative to the -d directory (arena). */
static const char *patch_abs_path(cmd_ctx *c, const patch_cfg *g,
                                  const char *name) {
  buf b;
  const char *r = NULL;
  buf_init(&b, c->m);
  if (!vfs_abspath(g->cwd, name, &b) && !b.err)
    r = arena_strdup(c->a, buf_str(&b));
  buf_finish(&b);
  return r;
}

/* GNU's -p: strip n leading components; without -p the base name. NULL
 * when the name has fewer components. */
static const char *patch_strip_name(const char *name, int strip) {
  if (!name || strcmp(name, "/dev/null") == 0) return NULL;
  if (strip < 0) {
    const char *s = strrchr(name, '/');
    return s ? (s[1] ? s + 1 : NULL) : name;
  }
  while (strip-- > 0) {
    const char *s = strchr(name, '/');
    if (!s) return NULL;
    while (*s == '/') s++;
    name = s;
  }
  return *name ? name : NULL;
}

/* GNU's stat of a candidate name: resolved from the working directory
 * without leaving it (patch_resolve), the last component not followed.
 * A name that leads outside does not exist. */
static int patch_exists(cmd_ctx *c, const patch_cfg *g, const char *name) {
  struct vfs_stat st;
  buf b;
  int rc;
  if (!name) return 0;
  buf_init(&b, c->m);
  rc = patch_resolve(c->fs, g->cwd, name, &b, &st);
  buf_finish(&b);
  return rc == 0;
}

/* GNU's name_is_valid: a dangerous name (patch_name_ok) is reported once
 * per file section and not used. */
static int patch_valid(cmd_ctx *c, patch_cfg *g, const char *name) {
  if (patch_name_ok(g->cwd, name)) return 1;
  if (!g->bad || strcmp(g->bad, name)) {
    patch_say(c, g, "Ignoring potentially dangerous file name %s\n", name);
    g->bad = name;
  }
  return 0;
}

static size_t patch_components(const char *s) {
  size_t k = 1;
  for (; *s; s++)
    if (*s == '/') k++;
  return k;
}

/* GNU's choice among existing candidate names: fewest components, then
 * shortest base name, then shortest name; the old name wins ties. */
static const char *patch_better(const char *a, const char *b) {
  size_t ca, cb, ba, bb;
  const char *sa, *sb;
  if (!a) return b;
  if (!b) return a;
  ca = patch_components(a);
  cb = patch_components(b);
  if (ca != cb) return ca < cb ? a : b;
  sa = strrchr(a, '/');
  sb = strrchr(b, '/');
  ba = strlen(sa ? sa + 1 : a);
  bb = strlen(sb ? sb + 1 : b);
  if (ba != bb) return ba < bb ? a : b;
  return strlen(a) <= strlen(b) ? a : b;
}

/* Where the file of name is (arena), as GNU patch finds it without
 * leaving the working directory: 0 and *abs, with *notreg set when the
 * name is a symbolic link (GNU refuses to patch it); 1 when the name
 * leads outside ("Invalid file name"); or MSB_ENOMEM. An ORIGFILE operand
 * is the user's and taken as given. 2 when the name lies behind a
 * dangling link, through which GNU creates nothing. */
static int patch_target(cmd_ctx *c, patch_cfg *g, const char *name,
                        const char **abs, int *notreg) {
  struct vfs_stat st;
  buf b;
  int rc;
  *notreg = 0;
  if (name == g->origfile) {
    *abs = patch_abs_path(c, g, name);
    return *abs ? 0 : MSB_ENOMEM;
  }
  buf_init(&b, c->m);
  rc = patch_resolve(c->fs, g->cwd, name, &b, &st);
  if (rc == MSB_EPERM || rc == MSB_ELOOP) {
    buf_finish(&b);
    return 1;
  }
  *notreg = rc == 0 && st.kind == VFS_LINK;
  if (rc == MSB_ENOENT && !b.len) { /* behind a dangling link */
    buf_finish(&b);
    return 2;
  }
  /* missing or not a directory on the way: reading says so */
  *abs = rc && rc != MSB_ENOENT ? patch_abs_path(c, g, name)
                                : arena_strdup(c->a, buf_str(&b));
  buf_finish(&b);
  return rc == MSB_ENOMEM || !*abs ? MSB_ENOMEM : 0;
}

/* Whether a ranks as b in patch_better (b one of the names compared). */
static int patch_same_rank(const char *a, const char *b) {
  return a == b || (patch_better(a, b) == a && patch_better(b, a) == b);
}

static void patch_leading_text(cmd_ctx *c, const patch_cfg *g,
                               const patch_file *f) {
  const char *p = f->pre, *e = f->pre + f->pre_len;
  patch_say(c, g, "%s",
            "The text leading up to this was:\n"
            "--------------------------\n");
  while (p < e) {
    const char *nl = memchr(p, '\n', (size_t)(e - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(e - p);
    patch_say(c, g, "%s", "|");
    patch_say(c, g, "%.*s", (int)n, p);
    patch_say(c, g, "%s", "\n");
    p += n + (nl ? 1 : 0);
  }
  patch_say(c, g, "%s", "--------------------------\n");
}

static int patch_write_file(cmd_ctx *c, const char *abs, const void *d,
                            size_t n, unsigned flags) {
  /* GNU patch writes a new file over the old (a hard link keeps it) */
  return vfs_write(c->fs, abs, d, n,
                   flags | VFS_PARENTS | VFS_KEEP_MODE | VFS_REPLACE,
                   CMD_NEWFILE(c), NULL);
}

/* Whether applying f (reverse or not) creates its file: a creation
 * patch forward, a deletion patch reversed. */
static int patch_eff_create(const patch_file *f, int creating, int reverse) {
  return reverse ? f->kind == PATCH_DELETE : creating;
}
/* The step meter's payment for the hunk search (patch_meter). */
static int patch_charge(void *arg, uint64_t steps) {
  return cmd_tick((cmd_ctx *)arg, steps);
}

/* Applies one unified file section. Returns 0, 1 (hunks failed/ignored)
 * or a negative MSB_E* code. */
static int patch_one(cmd_ctx *c, patch_cfg *g, const patch_set *ps,
                     const patch_file *f, int announce_only) {
  const char *on = patch_strip_name(f->old_name, g->strip);
  const char *nn = patch_strip_name(f->new_name, g->strip);
  const char *name = NULL, *abs, *outabs, *rejname;
  const uint8_t *d = NULL;
  size_t n = 0, hi;
  int exists = 0, rc, reverse = g->reverse, skip = 0, mismatch = 0;
  int failed = 0, creating = f->kind == PATCH_ADD, notreg = 0;
  int64_t fail_delta = 0;
  patch_meter meter = {patch_charge, NULL};
  patch_tgt t;
  buf rej;
  const patch_hunk *h0 = f->nhunks ? &ps->hunks[f->first_hunk] : NULL;
  g->bad = NULL;
  if (g->origfile) {
    name = g->origfile;
  } else {
    int eo = patch_exists(c, g, on), en = patch_exists(c, g, nn);
    if (eo || en) {
      /* the best of the existing names, if GNU takes it */
      const char *best = patch_better(eo ? on : NULL, en ? nn : NULL);
      if (eo && patch_same_rank(on, best) && patch_valid(c, g, on))
        name = on;
      else if (en && patch_same_rank(nn, best) && patch_valid(c, g, nn))
        name = nn;
    } else if (f->kind == PATCH_DELETE && on) {
      name = on;
    } else if (creating || (h0 && h0->old_start == 0 && h0->old_count == 0)) {
      name = nn ? nn : on, creating = 1;
      if (!patch_valid(c, g, name)) name = NULL;
    }
  }
  if (!name) {
    patch_say(c, g, "can't find file to patch at input line %lld\n",
              (long long)f->hdr_line + 1);
    if (g->strip >= 0)
      patch_say(c, g, "%s",
                "Perhaps you used the wrong -p or --strip option?\n");
    else
      patch_say(c, g, "%s",
                "Perhaps you should have used the -p or --strip "
                "option?\n");
    patch_leading_text(c, g, f);
    if (g->force || g->batch)
      patch_say(c, g, "%s", "No file to patch.  Skipping patch.\n");
    else
      patch_say(c, g, "%s",
                g->quiet ? "File to patch: \nSkip this patch? [y] \n"
                         : "File to patch: \nSkip this patch? [y] \n"
                           "Skipping patch.\n");
    patch_say(c, g, "%zu out of %zu hunk%s ignored\n", f->nhunks, f->nhunks,
              f->nhunks == 1 ? "" : "s");
    return 1;
  }
  rc = patch_target(c, g, name, &abs, &notreg);
  if (rc < 0) return rc;
  if (rc == 1) { /* its directory lies outside: GNU cannot make its file */
    patch_say(c, g, "Invalid file name %s -- skipping patch\n", name);
    return 1;
  }
  if (rc) { /* GNU creates nothing through a dangling link */
    buf_printf(c->err, "%s: **** Can't create file %s : %s\n", cmd_name(c),
               name, cmd_strerror(MSB_ENOENT));
    return 2;
  }
  rc = notreg ? MSB_ENOENT : vfs_read(c->fs, abs, &d, &n);
  if (notreg) {
    skip = 1; /* every hunk goes to the reject file */
  } else if (rc == 0) {
    exists = 1;
  } else if (rc != MSB_ENOENT || (!creating && f->kind != PATCH_DELETE)) {
    buf_printf(c->err, "%s: **** Can't open file %s : %s\n", cmd_name(c), name,
               cmd_strerror(rc));
    return rc == MSB_ENOMEM ? rc : 2;
  }
  outabs = g->out ? patch_abs_path(c, g, g->out) : abs;
  if (!outabs) return MSB_ENOMEM;
  if (((patch_eff_create(f, creating, reverse) && exists && n) ||
       (patch_eff_create(f, creating, !reverse) && !exists))) {
    /* GNU: the next patch would create a file that already exists, or
     * delete one that does not. */
    patch_say(c, g, "The next patch%s would %s the file %s,\nwhich %s!  ",
              reverse ? ", when reversed," : "",
              exists && n ? "create" : "delete", name,
              exists && n ? "already exists" : "does not exist");
    if (g->force) {
      patch_say(c, g, "%s", "Applying it anyway.\n");
    } else if (g->forward) {
      patch_say(c, g, "%s", "Skipping patch.\n");
      skip = 2;
    } else if (g->batch) {
      patch_say(c, g, "%s", reverse ? "Ignoring -R.\n" : "Assuming -R.\n");
      reverse = !reverse;
    } else {
      patch_say(c, g, "%s? [n] \nApply anyway? [n] \n%s",
                g->reverse ? "Ignore -R" : "Assume -R",
                g->quiet ? "" : "Skipping patch.\n");
      skip = 2;
    }
  }
  meter.arg = c;
  rc = patch_tgt_init(&t, c->m, exists ? d : NULL, exists ? n : 0, 0, &meter);
  t.creating = patch_eff_create(f, creating, reverse);
  buf_init(&rej, c->m);
  if (!rc) {
    /* GNU's .rej header: the names as stripped, timestamps kept, sides
     * swapped with -R. */
    const char *r1 = on ? on : "/dev/null", *r2 = nn ? nn : "/dev/null";
    const char *t1 = f->old_ts, *t2 = f->new_ts;
    size_t l1 = f->old_ts_len, l2 = f->new_ts_len;
    if (reverse) {
      const char *x = r1;
      size_t y = l1;
      r1 = r2, r2 = x;
      x = t1, t1 = t2, t2 = x;
      l1 = l2, l2 = y;
    }
    buf_printf(&rej, "--- %s", r1);
    buf_put(&rej, t1, l1);
    buf_printf(&rej, "\n+++ %s", r2);
    buf_put(&rej, t2, l2);
    buf_putc(&rej, '\n');
  }
  if (!rc && notreg) {
    patch_say(c, g, "File %s is not a regular file -- refusing to patch\n",
              name);
  } else if (!rc && !g->quiet && skip != 2) {
    patch_say(c, g, "%s file %s", g->dry ? "checking" : "patching",
              g->out ? g->out : name);
    if (g->out) patch_say(c, g, " (read from %s)", name);
    patch_say(c, g, "%s", "\n");
  }
  if (announce_only) {
    buf_finish(&rej);
    patch_tgt_free(&t);
    return 0;
  }
  for (hi = 0; !rc && hi < f->nhunks; hi++) {
    const patch_hunk *h = &ps->hunks[f->first_hunk + hi];
    int64_t where = 0, off = 0;
    int fuzz = 0, pc, sc, maxf = patch_hunk_context(ps, h, reverse, &pc, &sc);
    if (maxf > g->fuzz) maxf = g->fuzz;
    if (cmd_tick(c, 1)) {
      rc = MSB_ELIMIT;
      break;
    }
    if (!skip) {
      do {
        where = patch_tgt_locate(&t, ps, h, reverse, fuzz, &off);
        if (where < 0) break;
        if (!where || fuzz || t.in_offset) mismatch = 1;
        if (hi == 0 && !where && !g->force && reverse == g->reverse) {
          int64_t save = t.in_offset, w2, off2;
          w2 = patch_tgt_locate(&t, ps, h, !reverse, fuzz, &off2);
          if (w2 < 0) {
            where = w2;
            break;
          }
          if (w2) {
            patch_say(c, g, "%s",
                      g->reverse ? "Unreversed patch detected!  "
                                 : "Reversed (or previously applied) "
                                   "patch detected!  ");
            if (g->forward) {
              patch_say(c, g, "%s", "Skipping patch.\n");
              skip = 1;
            } else if (g->batch) {
              patch_say(c, g, "%s",
                        g->reverse ? "Ignoring -R.\n" : "Assuming -R.\n");
              reverse = !reverse;
              where = w2;
              off = off2;
            } else {
              patch_say(c, g, "%s? [n] \nApply anyway? [n] \n%s",
                        g->reverse ? "Ignore -R" : "Assume -R",
                        g->quiet ? "" : "Skipping patch.\n");
              skip = 1;
            }
            if (skip) t.in_offset = save;
          } else {
            t.in_offset = save;
          }
        }
      } while (!skip && !where && ++fuzz <= maxf);
    }
    if (where < 0) {
      rc = (int)where;
      break;
    }
    if (skip || !where) {
      int64_t os = reverse ? h->new_start : h->old_start;
      int64_t oc = reverse ? h->new_count : h->old_count;
      int64_t nl = reverse ? h->old_count : h->new_count;
      failed++;
      if (!skip && !g->quiet)
        patch_say(c, g, "Hunk #%zu FAILED at %lld.\n", hi + 1,
                  (long long)(oc ? os : os + 1));
      fail_delta -= nl - oc;
      patch_hunk_unified(ps, h, reverse, &rej);
      continue;
    }
    rc = patch_tgt_apply(&t, ps, h, reverse, where);
    if (!rc && (fuzz || t.in_offset) && !g->quiet) {
      int64_t ns = reverse ? h->old_start : h->new_start;
      int64_t nc = reverse ? h->old_count : h->new_count;
      patch_say(c, g, "Hunk #%zu succeeded at %lld", hi + 1,
                (long long)((nc ? ns : ns + 1) + t.in_offset + fail_delta));
      if (fuzz) patch_say(c, g, " with fuzz %d", fuzz);
      if (t.in_offset)
        patch_say(c, g, " (offset %lld line%s)", (long long)t.in_offset,
                  t.in_offset == 1 || t.in_offset == -1 ? "" : "s");
      patch_say(c, g, "%s", ".\n");
    }
  }
  if (!rc && !skip) rc = patch_tgt_finish(&t);
  if (!rc) rc = rej.err;
  if (!rc && !skip && !g->dry) {
    int remove = t.out.len == 0 &&
                 (g->rmempty || patch_eff_create(f, creating, !reverse)) &&
                 !g->out;
    if (!g->out && (g->backup || (mismatch && !g->nobackup))) {
      const char *bak = arena_strdup(c->a, abs);
      buf bn;
      buf_init(&bn, c->m);
      buf_printf(&bn, "%s.orig", bak ? bak : "");
      rc = bn.err ? bn.err : patch_write_file(c, buf_str(&bn), d, n, 0);
      buf_finish(&bn);
    }
    if (!rc && remove) {
      rc = vfs_remove(c->fs, abs, VFS_RM_NODIR);
      if (rc == MSB_ENOENT) rc = 0;
    } else if (!rc && g->out && strcmp(g->out, "-") == 0) {
      rc = cmd_write(c, t.out.p ? t.out.p : "", t.out.len);
    } else if (!rc) {
      rc = patch_write_file(c, outabs, t.out.p ? t.out.p : "", t.out.len,
                            g->out && g->out_used ? VFS_APPEND : 0);
      if (g->out) g->out_used = 1;
    }
    if (rc < 0 && rc != MSB_ENOMEM && rc != MSB_ELIMIT) {
      buf_printf(c->err, "%s: **** Can't create file %s : %s\n", cmd_name(c),
                 g->out ? g->out : name, cmd_strerror(rc));
      rc = 2;
    }
  }
  if (!rc && failed) {
    const char *rn = g->out ? g->out : name;
    rejname = arena_strdup(c->a, rn);
    patch_say(c, g, "%d out of %zu hunk%s %s", failed, f->nhunks,
              f->nhunks == 1 ? "" : "s", skip ? "ignored" : "FAILED");
    if (g->dry || skip == 2) {
      patch_say(c, g, "%s", "\n");
    } else {
      buf rp;
      const char *rabs;
      patch_say(c, g, " -- saving rejects to file %s.rej\n", rejname);
      buf_init(&rp, c->m);
      /* beside the file as resolved, or the -o file */
      buf_printf(&rp, "%s.rej", g->out ? rn : abs);
      rabs = rp.err ? NULL : patch_abs_path(c, g, buf_str(&rp));
      buf_finish(&rp);
      rc = rabs ? patch_write_file(c, rabs, rej.p, rej.len, 0) : MSB_ENOMEM;
    }
    if (!rc) rc = 1;
  }
  buf_finish(&rej);
  patch_tgt_free(&t);
  return rc;
}

/* Extension: V4A through the atomic engine. */
static int patch_v4a(cmd_ctx *c, patch_cfg *g, const char *text, size_t len) {
  patch_opts o = {-1, g->fuzz, 0, g->reverse, g->dry, 0, 1, {patch_charge, c}};
  buf rep;
  int rc;
  buf_init(&rep, c->m);
  rc = patch_apply(c->fs, g->cwd, text, len, &o, &rep);
  if (rc == 0) {
    const char *p = buf_str(&rep);
    while (*p && !g->quiet) {
      const char *nl = strchr(p, '\n');
      size_t k = nl ? (size_t)(nl - p) : strlen(p);
      if (k > 2)
        cmd_outf(c, "%s file %.*s\n",
                 g->dry        ? "checking"
                 : p[0] == 'D' ? "removing"
                 : p[0] == 'A' ? "creating"
                               : "patching",
                 (int)(k - 2), p + 2);
      p += k + (nl ? 1 : 0);
    }
  } else if (rc != MSB_ENOMEM && rc != MSB_ELIMIT) {
    buf_printf(c->err, "%s: **** %s\n", cmd_name(c), buf_str(&rep));
    rc = rc == MSB_ECORRUPT ? 1 : 2;
  }
  buf_finish(&rep);
  return rc;
}

/* GNU patch prefixes its "Try" line with "patch: "; the shared option
 * parser does not, so the line is rewritten after the fact. */
static void patch_fix_try(cmd_ctx *c, size_t from) {
  buf *e = c->err;
  size_t i;
  for (i = from; i + 5 <= e->len; i++) {
    if ((i == from || e->p[i - 1] == '\n') &&
        memcmp(e->p + i, "Try '", 5) == 0) {
      buf tail;
      buf_init(&tail, c->m);
      buf_put(&tail, e->p + i, e->len - i);
      if (tail.err) break;
      buf_truncate(e, i);
      buf_printf(e, "%s: ", cmd_name(c));
      buf_put(e, tail.p, tail.len);
      buf_finish(&tail);
      break;
    }
  }
}

/* patch: options, then each file section in order. */
int cmd_patch(cmd_ctx *c) {
  cmd_getopt go;
  patch_cfg g;
  const char *input = NULL;
  const uint8_t *text;
  size_t len, i;
  patch_set *ps = NULL;
  buf perr;
  int k, rc, status = 0;
  size_t errlen;
  memset(&g, 0, sizeof g);
  g.strip = -1;
  g.fuzz = 2;
  g.cwd = c->cwd;
  errlen = c->err->len;
  cmd_opt_init(&go, c, patch_opts_tab, patch_usage, 0);
  go.status = 2;
  while ((k = cmd_opt_next(&go)) > 0) {
    int64_t v;
    switch (k) {
    case 'p':
    case 'F':
      if (cmd_parse_int(go.arg, &v) || v < 0 || v > 1000000) {
        buf_printf(c->err, "%s: **** %s %s is not a number\n", cmd_name(c),
                   k == 'p' ? "strip count" : "fuzz factor", go.arg);
        return 2;
      }
      if (k == 'p')
        g.strip = (int)v;
      else
        g.fuzz = (int)v;
      break;
    case 'i': input = go.arg; break;
    case 'o': g.out = go.arg; break;
    case 'd': g.cwd = go.arg; break;
    case 'R': g.reverse = 1; break;
    case 'N': g.forward = 1; break;
    case 'f': g.force = 1; break;
    case 't': g.batch = 1; break;
    case 's': g.quiet = 1; break;
    case 'b': g.backup = 1; break;
    case 'E': g.rmempty = 1; break;
    case 'u': break;
    case PATCH_DRY: g.dry = 1; break;
    case PATCH_NOBACKUP: g.nobackup = 1; break;
    default: break;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k == CMD_OPT_ERR) {
    patch_fix_try(c, errlen);
    return go.status;
  }
  if (k < 0) return k;
  if (go.nops > 2) {
    buf_printf(c->err,
               "%s: %s: extra operand\n"
               "%s: Try '%s --help' for more information.\n",
               cmd_name(c), go.ops[2], cmd_name(c), cmd_name(c));
    return 2;
  }
  if (go.nops >= 1) g.origfile = go.ops[0];
  if (go.nops == 2) input = go.ops[1];
  if (g.cwd != c->cwd) {
    struct vfs_stat st;
    const char *d = cmd_path(c, g.cwd);
    if (!d) return MSB_ENOMEM;
    rc = vfs_stat(c->fs, d, 1, &st);
    if (!rc && st.kind != VFS_DIR) rc = MSB_ENOTDIR;
    if (rc) {
      buf_printf(c->err, "%s: **** Can't change to directory %s : %s\n",
                 cmd_name(c), g.cwd, cmd_strerror(rc));
      return 2;
    }
    g.cwd = d;
  }
  if (input && strcmp(input, "-") != 0) {
    const char *p = patch_abs_path(c, &g, input);
    if (!p) return MSB_ENOMEM;
    rc = vfs_read(c->fs, p, &text, &len);
    if (rc) {
      buf_printf(c->err, "%s: **** Can't open patch file %s : %s\n",
                 cmd_name(c), input, cmd_strerror(rc));
      return 2;
    }
  } else {
    text = c->in;
    len = c->in_len;
    c->in_used = c->in_len;
    c->in_eof = 1;
  }
  /* The patch text must outlive the writes that invalidate a view. */
  {
    char *copy = arena_alloc(c->a, len + 1);
    if (!copy) return MSB_ENOMEM;
    if (len) memcpy(copy, text, len);
    text = (const uint8_t *)copy;
  }
  buf_init(&perr, c->m);
  rc = patch_parse(c->m, (const char *)text, len, &ps, &perr);
  if (rc == MSB_ENOMEM) {
    buf_finish(&perr);
    return rc;
  }
  if (rc && !ps) {
    status = patch_fatal(c, buf_str(&perr));
    buf_finish(&perr);
    return status;
  }
  if (ps->v4a) {
    buf_finish(&perr);
    patch_free(ps);
    return patch_v4a(c, &g, (const char *)text, len);
  }
  if (ps->nfiles == 0 && !ps->bad) {
    for (i = 0; i < len; i++)
      if (text[i] != ' ' && text[i] != '\n' && text[i] != '\t') break;
    buf_finish(&perr);
    patch_free(ps);
    if (i < len)
      return patch_fatal(c, "Only garbage was found in the patch input.");
    return 0;
  }
  for (i = 0; i < ps->nfiles; i++) {
    if (ps->bad && i + 1 == ps->nfiles) {
      /* GNU announces the file whose hunk is malformed, then dies. */
      rc = patch_one(c, &g, ps, &ps->files[i], 1);
      if (rc == MSB_ENOMEM) status = rc;
      break;
    }
    rc = patch_one(c, &g, ps, &ps->files[i], 0);
    if (rc < 0 && (rc == MSB_ENOMEM || rc == MSB_ELIMIT)) {
      status = rc;
      break;
    }
    if (rc < 0) rc = 2;
    if (rc > status) status = rc;
  }
  if (ps->bad && status != MSB_ENOMEM && status != MSB_ELIMIT) {
    /* GNU prints the offending line with its newline, then one more. */
    buf_printf(c->err, "%s: **** %s\n%s", cmd_name(c), buf_str(&perr),
               strncmp(buf_str(&perr), "malformed", 9) == 0 ? "\n" : "");
    status = 2;
  }
  buf_finish(&perr);
  patch_free(ps);
  return status;
}
