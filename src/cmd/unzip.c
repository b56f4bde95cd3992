/* unzip.c - list, test and extract zip archives (Info-ZIP UnZip 6.0).
 *
 * Reading goes through src/zip.c, which checks every offset and expands an
 * entry only up to its declared size, CRC checked. An entry larger than
 * the sandbox's file limit, or entries adding up to more than its byte
 * quota, are refused before anything expands, so a zip bomb costs nothing.
 *
 * Extraction stays inside the target as UnZip 6.0 keeps it: a leading "/"
 * is stripped and ".." components are skipped (each with UnZip's
 * warning), and symbolic links are deferred: an entry that is a link
 * leaves an empty placeholder file, so a later entry under it fails
 * ("checkdir error:  NAME exists but is not directory"), and the links
 * are made once every file is written. A path that already leads through
 * a symbolic link inside the target is refused the same way, so nothing
 * is ever written through a link.
 *
 * An existing file without -o or -n is asked about on stdin as UnZip
 * asks ([y]es, [n]o, [A]ll, [N]one); at the end of stdin the answer is
 * [N]one, with UnZip's message.
 *
 * Deviations: -Z supports only -Z1; -f -u -a -C -L -X -T -z and
 * passwords are refused with a message; encrypted, zip64 and multi-disk
 * archives are refused.
 *
 * Usage: unzip [-Z1] [-opts[modifiers]] file[.zip] [list] [-x xlist]
 *              [-d exdir] */
#include <stdio.h>
#include <string.h>

#include "../archive.h"
#include "../cold.h"
#include "../glob.h"
#include "../zip.h"
#include "cmd.h"

static const char unzip_usage[] MSB_COLD =
    "UnZip 6.00 of 20 April 2009, by Debian. Original by Info-ZIP.\n"
    "\n"
    "Usage: unzip [-Z] [-opts[modifiers]] file[.zip] [list] [-x xlist] [-d "
    "exdir]\n"
    "  Default action is to extract files in list, except those in xlist, "
    "to exdir;\n"
    "  file[.zip] may be a wildcard.  -Z => ZipInfo mode (\"unzip -Z\" for "
    "usage).\n"
    "\n"
    "  -p  extract files to pipe, no messages     -l  list files (short "
    "format)\n"
    "  -f  freshen existing files, create none    -t  test compressed "
    "archive data\n"
    "  -u  update files, create if necessary      -z  display archive "
    "comment only\n"
    "  -v  list verbosely/show version info       -T  timestamp archive to "
    "latest\n"
    "  -x  exclude files that follow (in xlist)   -d  extract files into "
    "exdir\n"
    "modifiers:\n"
    "  -n  never overwrite existing files         -q  quiet mode (-qq => "
    "quieter)\n"
    "  -o  overwrite files WITHOUT prompting      -a  auto-convert any text "
    "files\n"
    "  -j  junk paths (do not make directories)   -aa treat ALL files as "
    "text\n"
    "  -U  use escapes for all non-ASCII Unicode  -UU ignore any Unicode "
    "fields\n"
    "  -C  match filenames case-insensitively     -L  make (some) names "
    "lowercase\n"
    "  -X  restore UID/GID info                   -V  retain VMS version "
    "numbers\n"
    "  -K  keep setuid/setgid/tacky permissions   -M  pipe through \"more\" "
    "pager\n"
    "See \"unzip -hh\" or unzip.txt for more help.  Examples:\n"
    "  unzip data1 -x joe   => extract all files except joe from zipfile "
    "data1.zip\n"
    "  unzip -p foo | more  => send contents of foo.zip via pipe into "
    "program more\n"
    "  unzip -fo foo ReadMe => quietly replace existing ReadMe if archive "
    "file newer\n";

static const char unzip_noend[] =
    "  End-of-central-directory signature not found.  Either this file is "
    "not\n"
    "  a zipfile, or it constitutes one disk of a multi-part archive.  In "
    "the\n"
    "  latter case the central directory and zipfile comment will be found "
    "on\n"
    "  the last disk(s) of this archive.\n"
    "unzip:  cannot find zipfile directory in one of ";

/* A symbolic link made once every file is written. */
typedef struct unzip_link {
  const char *abs, *shown, *target;
} unzip_link;

typedef struct unzip_st {
  cmd_ctx *c;
  int mode; /* 'x' extract, 'l' list, 'v' verbose list, 't' test, 'p' pipe,
               '1' names (-Z1) */
  int quiet, over, never, junk, all, none;
  const char *zip, *exdir, *exabs;
  char **incl, **excl;
  int nincl, nexcl;
  char *found; /* per include pattern: matched something */
  unzip_link *links;
  size_t nlinks, caplinks;
  uint64_t total, budget;
  size_t in_pos; /* answers read from stdin */
  int warn, err;
} unzip_st;

/* ---- arguments -------------------------------------------------------- */

static int unzip_push(cmd_ctx *c, char ***v, int *n, char *s) {
  char **nv = arena_alloc(c->a, (size_t)(*n + 1) * sizeof *nv);
  if (!nv) return MSB_ENOMEM;
  if (*n) memcpy(nv, *v, (size_t)*n * sizeof *nv);
  nv[(*n)++] = s;
  *v = nv;
  return 0;
}

/* One cluster of option letters; *takes_d when -d wants the next word. */
static int unzip_letters(unzip_st *s, const char *a, int *list, int *takes_d) {
  cmd_ctx *c = s->c;
  for (; *a; a++) {
    switch (*a) {
    case 'l': s->mode = s->mode == 'v' ? 'v' : 'l'; break;
    case 'v': s->mode = 'v'; break;
    case 't': s->mode = 't'; break;
    case 'p': s->mode = 'p'; break;
    case 'q': s->quiet++; break;
    case 'o': s->over = 1; break;
    case 'n': s->never = 1; break;
    case 'j': s->junk = 1; break;
    case 'x': *list = 'x'; break;
    case 'd':
      if (a[1]) {
        s->exdir = a + 1;
        return 0;
      }
      *takes_d = 1;
      break;
    case 'Z':
      if (strcmp(a, "Z1")) goto bad;
      s->mode = '1';
      return 0;
    case 'h': buf_puts(c->out, cold_get(unzip_usage)); return -1;
    case 'K':
    case 'U':
    case 'V':
    case 'D':
    case 'M': break;
    default:
    bad:
      buf_printf(c->err, "unzip:  option -%c is not supported in memsandbox\n",
                 *a);
      return 10;
    }
  }
  return 0;
}

static int unzip_args(unzip_st *s) {
  cmd_ctx *c = s->c;
  int i, list = 0, takes_d = 0, rc;
  for (i = 1; i < c->argc; i++) {
    char *a = c->argv[i];
    if (takes_d) {
      s->exdir = a;
      takes_d = 0;
      continue;
    }
    if (a[0] == '-' && a[1]) {
      if (!strcmp(a, "--help")) a = (char *)"-h";
      list = 0;
      if ((rc = unzip_letters(s, a + 1, &list, &takes_d)) != 0) return rc;
      continue;
    }
    if (!s->zip)
      s->zip = a;
    else if ((rc = list ? unzip_push(c, &s->excl, &s->nexcl, a)
                        : unzip_push(c, &s->incl, &s->nincl, a)) < 0)
      return rc;
  }
  if (takes_d) {
    buf_puts(c->err,
             "error:  must specify directory to which to extract "
             "with -d option\n");
    return 10;
  }
  if (!s->zip) {
    buf_puts(c->out, cold_get(unzip_usage));
    return -1;
  }
  return 0;
}

/* ---- selection and names ---------------------------------------------- */

static int unzip_selected(unzip_st *s, const char *name) {
  int i, hit = !s->nincl;
  size_t nl = strlen(name);
  for (i = 0; i < s->nexcl; i++)
    if (glob_match(s->c->m, s->excl[i], strlen(s->excl[i]), name, nl, 0,
                   NULL) == 1)
      return 0;
  for (i = 0; i < s->nincl; i++)
    if (glob_match(s->c->m, s->incl[i], strlen(s->incl[i]), name, nl, 0,
                   NULL) == 1) {
      s->found[i] = 1;
      hit = 1;
    }
  return hit;
}

/* The name an entry is written under: leading '/' stripped, ".."
 * components skipped, each with UnZip's warning; -j keeps the last
 * part. "" when nothing is left. */
static const char *unzip_clean(unzip_st *s, const char *name) {
  cmd_ctx *c = s->c;
  buf b;
  const char *p = name, *r;
  int dotdot = 0, is_dir = *name && name[strlen(name) - 1] == '/';
  if (*p == '/') {
    if (!s->quiet)
      buf_printf(c->err, "warning:  stripped absolute path spec from %s\n",
                 name);
    s->warn = 1;
  }
  buf_init(&b, c->m);
  while (*p) {
    const char *e = strchr(p, '/');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n == 2 && p[0] == '.' && p[1] == '.')
      dotdot = 1;
    else if (n && !(n == 1 && p[0] == '.')) {
      if (b.len) buf_putc(&b, '/');
      buf_put(&b, p, n);
    }
    p += n + (e != NULL);
  }
  if (dotdot) {
    if (!s->quiet)
      buf_printf(c->out, "warning:  skipped \"../\" path component(s) in %s\n",
                 name);
    s->warn = 1;
  }
  if (s->junk && b.len) {
    const char *sl = memchr(b.p, '/', b.len) ? strrchr(b.p, '/') : NULL;
    if (sl) {
      size_t k = (size_t)(sl + 1 - b.p);
      memmove(b.p, b.p + k, b.len - k);
      b.len -= k;
    }
    if (is_dir) b.len = 0;
  }
  if (is_dir && b.len) buf_putc(&b, '/');
  r = b.err ? NULL : arena_strndup(c->a, b.p ? b.p : "", b.len);
  buf_finish(&b);
  return r;
}

/* ---- listing ---------------------------------------------------------- */

static void unzip_datetime(char out[24], int y, int mo, int d, int h, int mi) {
  snprintf(out, 24, "%04d-%02d-%02d %02d:%02d", y % 10000, mo % 100, d % 100,
           h % 100, mi % 100);
}

/* Date and time as UnZip prints them, from the entry. */
static void unzip_when(const zip_entry *e, char out[24]) {
  if (e->has_mtime) {
    cmd_tm tm;
    cmd_gmtime(e->mtime, &tm);
    unzip_datetime(out, (int)tm.year, tm.mon, tm.mday, tm.hour, tm.min);
  } else {
    unzip_datetime(out, 1980 + (e->ddate >> 9), e->ddate >> 5 & 15,
                   e->ddate & 31, e->dtime >> 11, e->dtime >> 5 & 63);
  }
}

/* UnZip's compression factor: per mille rounded, then to a percent. */
static int unzip_ratio(uint64_t u, uint64_t c) {
  uint64_t pm, d;
  int neg = c > u;
  if (!u) return 0;
  if (u > 2000000) {
    d = u / 1000;
    pm = ((neg ? c - u : u - c) + d / 2) / d;
  } else {
    pm = (1000 * (neg ? c - u : u - c) + u / 2) / u;
  }
  return neg ? -(int)((pm + 5) / 10) : (int)((pm + 5) / 10);
}

static void unzip_list_line(unzip_st *s, const zip_entry *e, const char *nm) {
  char when[24];
  unzip_when(e, when);
  if (s->mode == 'l')
    buf_printf(s->c->out, "%9llu  %s   %s\n", (unsigned long long)e->usize,
               when, nm);
  else
    buf_printf(s->c->out, "%8llu  %-6s %8llu %3d%% %s %08x  %s\n",
               (unsigned long long)e->usize, zip_method_name(e),
               (unsigned long long)e->csize, unzip_ratio(e->usize, e->csize),
               when, (unsigned)e->crc, nm);
}

static void unzip_list_end(unzip_st *s, uint64_t n, uint64_t u, uint64_t cz) {
  buf *o = s->c->out;
  const char *pl = n == 1 ? "" : "s";
  if (s->mode == 'l')
    buf_printf(o,
               "---------                     -------\n"
               "%9llu                     %llu file%s\n",
               (unsigned long long)u, (unsigned long long)n, pl);
  else
    buf_printf(o,
               "--------          -------  ---                            "
               "-------\n"
               "%8llu         %8llu %3d%%                            %llu "
               "file%s\n",
               (unsigned long long)u, (unsigned long long)cz,
               unzip_ratio(u, cz), (unsigned long long)n, pl);
}

/* ---- extraction ------------------------------------------------------- */

/* Whether a path under the target passes through a symbolic link or a
 * file (a deferred link's placeholder): the first such prefix, or NULL. */
static const char *unzip_blocked(unzip_st *s, const char *abs) {
  cmd_ctx *c = s->c;
  size_t base = strlen(s->exabs);
  const char *p = abs + base;
  while ((p = strchr(p + 1, '/')) != NULL) {
    struct vfs_stat st;
    char *pre = arena_strndup(c->a, abs, (size_t)(p - abs));
    if (!pre) return NULL;
    if (vfs_stat(c->fs, pre, 0, &st) < 0) return NULL;
    if (st.kind != VFS_DIR) return pre;
  }
  return NULL;
}

/* Asks whether to replace an existing file: 1 replace, 0 skip. */
static int unzip_ask(unzip_st *s, const char *shown) {
  cmd_ctx *c = s->c;
  int a;
  if (s->over || s->all) return 1;
  if (s->never || s->none) return 0;
  buf_printf(c->err,
             "replace %s? [y]es, [n]o, [A]ll, [N]one, [r]ename: ", shown);
  while ((a = cmd_answer(c, &s->in_pos)) >= 0) {
    c->in_used = s->in_pos;
    if (a == 'y' || a == 'Y') return 1;
    if (a == 'n') return 0;
    if (a == 'A') return s->all = 1;
    if (a == 'N') {
      s->none = 1;
      return 0;
    }
    buf_printf(c->err,
               "error:  invalid response [%c]\nreplace %s? [y]es, [n]o, "
               "[A]ll, [N]one, [r]ename: ",
               a ? a : ' ', shown);
  }
  buf_puts(c->err, " NULL\n(EOF or read error, treating as \"[N]one\" ...)\n");
  s->none = 1;
  s->warn = 1;
  return 0;
}

static int unzip_defer(unzip_st *s, const char *abs, const char *shown,
                       const buf *target) {
  cmd_ctx *c = s->c;
  unzip_link *l;
  if (s->nlinks == s->caplinks) {
    unzip_link *nv =
        cmd_grow(c, s->links, s->nlinks, &s->caplinks, sizeof *nv, 8);
    if (!nv) return MSB_ENOMEM;
    s->links = nv;
  }
  l = &s->links[s->nlinks++];
  l->abs = abs;
  l->shown = shown;
  l->target = arena_strndup(c->a, target->p ? target->p : "", target->len);
  return l->target ? 0 : MSB_ENOMEM;
}

/* Sets a written entry's time. */
static void unzip_stamp(unzip_st *s, const char *abs, const zip_entry *e) {
  int64_t t;
  if (e->has_mtime) {
    t = e->mtime;
  } else {
    cmd_tm tm;
    memset(&tm, 0, sizeof tm);
    tm.year = 1980 + (e->ddate >> 9);
    tm.mon = e->ddate >> 5 & 15;
    tm.mday = e->ddate & 31;
    tm.hour = e->dtime >> 11;
    tm.min = e->dtime >> 5 & 63;
    tm.sec = (e->dtime & 31) * 2;
    t = cmd_timegm(&tm);
  }
  vfs_utime(s->c->fs, abs, t * 1000000000, 1);
}

static void unzip_fail(unzip_st *s, const char *name, const char *why) {
  buf_printf(s->c->err, "unzip:  %s:  %s\n", name, why);
  s->err = 1;
}

/* Writes one file, link placeholder or directory. */
static int unzip_write(unzip_st *s, const zip_entry *e, const char *shown,
                       const char *abs, buf *data, int noeol) {
  cmd_ctx *c = s->c;
  uint32_t um = zip_unix_mode(e), perm;
  int is_dir = shown[strlen(shown) - 1] == '/', rc;
  int is_link = (um & 0170000) == 0120000;
  const char *slash = strrchr(abs, '/');
  char *parent = arena_strndup(c->a, abs, (size_t)(slash - abs));
  if (!parent) return MSB_ENOMEM;
  perm = um & 07777 ? um & 0777 : (is_dir ? 0777u : 0666u) & ~cmd_umask(c);
  if (is_dir) {
    rc = vfs_mkdir(c->fs, abs, perm | 0700, VFS_MK_PARENTS | VFS_MK_EXIST_OK);
    if (rc == 0 && !s->quiet) buf_printf(c->out, "   creating: %s\n", shown);
    return rc;
  }
  rc = vfs_mkdir(c->fs, parent, 0777 & ~cmd_umask(c),
                 VFS_MK_PARENTS | VFS_MK_EXIST_OK);
  if (rc < 0) return rc;
  if (!s->quiet)
    buf_printf(c->out, "%s: %-22s %s%s",
               is_link          ? "    linking"
               : e->method == 8 ? "  inflating"
                                : " extracting",
               shown, is_link ? " -> " : " ", noeol ? "" : "\n");
  if (is_link) {
    /* the " -> target " tail UnZip prints */
    if (!s->quiet) {
      buf_truncate(c->out, c->out->len - 1);
      buf_put(c->out, data->p ? data->p : "", data->len);
      buf_puts(c->out, " \n");
    }
    rc = vfs_write(c->fs, abs, "", 0, 0, 0600, NULL);
    return rc < 0 ? rc : unzip_defer(s, abs, shown, data);
  }
  rc = vfs_write(c->fs, abs, data->p ? data->p : "", data->len, 0, perm, NULL);
  if (rc == 0) {
    vfs_chmod(c->fs, abs, perm);
    unzip_stamp(s, abs, e);
  }
  return rc;
}

/* Extracts (or tests, or pipes) one selected entry. */
static int unzip_one(unzip_st *s, const zip_entry *e, const char *name) {
  cmd_ctx *c = s->c;
  buf data;
  const char *why = "", *shown, *abs, *blk;
  char crcmsg[64];
  struct vfs_stat st;
  int rc, badcrc, is_dir = name[strlen(name) - 1] == '/';
  uint64_t cap = c->lim->max_file_bytes;
  if (s->mode == 'p' && c->out_max && c->out_max < cap) cap = c->out_max;
  if (e->usize > cap || (s->mode != 't' && e->usize > s->budget - s->total)) {
    unzip_fail(s, name, "entry is larger than the sandbox allows");
    return 0;
  }
  if (s->mode != 't') s->total += e->usize;
  buf_init(&data, c->m);
  rc = is_dir && s->mode != 't' ? 0 : zip_rd_data(e, &data, cap, &why);
  if (rc == MSB_ENOMEM) goto out;
  badcrc = rc == MSB_ECORRUPT && !strcmp(why, "bad CRC");
  if (badcrc) {
    snprintf(crcmsg, sizeof crcmsg, "bad CRC %08x  (should be %08x)",
             (unsigned)arc_crc(0, (const uint8_t *)data.p, data.len),
             (unsigned)e->crc);
    why = crcmsg;
  }
  if (s->mode == 't') {
    if (!s->quiet)
      buf_printf(c->out, "    testing: %-22s   %s\n", name, rc ? why : "OK");
    if (rc) s->err = 1;
    rc = 0;
    goto out;
  }
  if (rc && !badcrc) {
    unzip_fail(s, name, why);
    rc = 0;
    goto out;
  }
  if (s->mode == 'p') {
    rc = cmd_write(c, data.p ? data.p : "", data.len);
    goto out;
  }
  shown = unzip_clean(s, name);
  if (!shown) {
    rc = MSB_ENOMEM;
    goto out;
  }
  if (!*shown) goto out;
  if (s->exdir) {
    buf b;
    buf_init(&b, c->m);
    buf_printf(&b, "%s/%s", s->exdir, shown);
    shown = b.err ? NULL : arena_strdup(c->a, b.p);
    buf_finish(&b);
    if (!shown) {
      rc = MSB_ENOMEM;
      goto out;
    }
  }
  abs = cmd_path(c, shown);
  if (!abs) {
    rc = MSB_ENOMEM;
    goto out;
  }
  if ((blk = unzip_blocked(s, abs)) != NULL) {
    buf_printf(c->err,
               "checkdir error:  %s exists but is not directory\n"
               "                 unable to process %s.\n",
               blk + strlen(s->exabs) + (s->exdir ? 1 : 1), shown);
    s->err = 1;
    goto out;
  }
  if (!is_dir && vfs_stat(c->fs, abs, 0, &st) == 0 && !unzip_ask(s, shown))
    goto out;
  rc = unzip_write(s, e, shown, abs, &data, badcrc);
  if (badcrc) {
    /* UnZip writes the data, then ends the line on stderr */
    buf_printf(c->err, " %s\n", why);
    s->err = 1;
  }
  if (rc < 0 && rc != MSB_ENOMEM && rc != MSB_ELIMIT) {
    unzip_fail(s, shown, cmd_strerror(rc));
    rc = 0;
  }
out:
  buf_finish(&data);
  return rc;
}

/* Replaces each placeholder by its link, as UnZip finishes them. */
static int unzip_links(unzip_st *s) {
  cmd_ctx *c = s->c;
  size_t i;
  int rc;
  if (!s->nlinks) return 0;
  if (!s->quiet) buf_puts(c->out, "finishing deferred symbolic links:\n");
  for (i = 0; i < s->nlinks; i++) {
    const unzip_link *l = &s->links[i];
    if (!s->quiet) buf_printf(c->out, "  %-22s -> %s\n", l->shown, l->target);
    vfs_remove(c->fs, l->abs, 0);
    if ((rc = vfs_symlink(c->fs, l->target, l->abs)) < 0) {
      if (rc == MSB_ENOMEM || rc == MSB_ELIMIT) return rc;
      unzip_fail(s, l->shown, cmd_strerror(rc));
    }
  }
  return 0;
}

/* ---- driver ----------------------------------------------------------- */

/* Finds the archive, trying NAME.zip and NAME.ZIP as UnZip does. */
static int unzip_open(unzip_st *s, const uint8_t **d, size_t *len) {
  cmd_ctx *c = s->c;
  static const char *const sfx[3] = {"", ".zip", ".ZIP"};
  int i;
  for (i = 0; i < 3; i++) {
    buf b;
    const char *name, *abs;
    buf_init(&b, c->m);
    buf_printf(&b, "%s%s", s->zip, sfx[i]);
    name = b.err ? NULL : arena_strdup(c->a, b.p);
    buf_finish(&b);
    abs = name ? cmd_path(c, name) : NULL;
    if (!abs) return MSB_ENOMEM;
    if (vfs_read(c->fs, abs, d, len) == 0) {
      s->zip = name;
      return 0;
    }
  }
  buf_printf(c->err, "unzip:  cannot find or open %s, %s.zip or %s.ZIP.\n",
             s->zip, s->zip, s->zip);
  return 9;
}

static int unzip_run(unzip_st *s, zip_rd *z) {
  cmd_ctx *c = s->c;
  zip_entry e;
  uint64_t n = 0, u = 0, cz = 0;
  int rc;
  if (s->mode == 'l')
    buf_puts(c->out,
             "  Length      Date    Time    Name\n"
             "---------  ---------- -----   ----\n");
  else if (s->mode == 'v')
    buf_puts(
        c->out,
        " Length   Method    Size  Cmpr    Date    Time   CRC-32   Name\n"
        "--------  ------  ------- ---- ---------- ----- --------  ----\n");
  while ((rc = zip_rd_next(z, &e)) == 1) {
    char *name = arena_strndup(c->a, e.name, e.nlen);
    if (!name) return MSB_ENOMEM;
    if ((++n & 255) == 0 && (rc = cmd_tick(c, 1)) != 0) return rc;
    if (!unzip_selected(s, name)) {
      n--;
      continue;
    }
    u += e.usize;
    cz += e.csize;
    if (s->mode == 'l' || s->mode == 'v')
      unzip_list_line(s, &e, name);
    else if (s->mode == '1')
      buf_printf(c->out, "%s\n", name);
    else if (*name && (rc = unzip_one(s, &e, name)) < 0)
      return rc;
  }
  if (rc < 0) {
    buf_printf(c->err, "error:  %s (%s)\n", z->why, s->zip);
    return 3;
  }
  if (s->mode == 'l' || s->mode == 'v') unzip_list_end(s, n, u, cz);
  if (s->mode == 'x' && (rc = unzip_links(s)) < 0) return rc;
  if (s->mode == 't' && !s->err && s->quiet < 2)
    buf_printf(c->out, "No errors detected in compressed data of %s.\n",
               s->zip);
  if (s->mode == 't' && s->err && s->quiet < 2)
    buf_printf(c->out, "At least one error was detected in %s.\n", s->zip);
  return 0;
}

/* Entry point: see the usage above. */
int cmd_unzip(cmd_ctx *c) {
  unzip_st s;
  zip_rd z;
  const uint8_t *d;
  size_t len;
  int rc, i, missing = 0;
  memset(&s, 0, sizeof s);
  s.c = c;
  s.mode = 'x';
  if ((rc = unzip_args(&s)) != 0) return rc < 0 ? (rc == -1 ? 0 : rc) : rc;
  if ((rc = unzip_open(&s, &d, &len)) != 0) return rc;
  s.found = arena_zalloc(c->a, (size_t)s.nincl + 1);
  s.exabs = cmd_path(c, s.exdir ? s.exdir : ".");
  if (!s.found || !s.exabs) return MSB_ENOMEM;
  s.budget = c->lim->max_total_bytes;
  if (s.mode != 'p' && s.mode != '1' && !s.quiet)
    buf_printf(c->out, "Archive:  %s\n", s.zip);
  if (zip_rd_open(&z, d, len, c->lim->max_nodes * 4) < 0) {
    if (strstr(z.why, "signature not found"))
      buf_printf(c->err,
                 "%s%s or\n        %s.zip, and cannot find %s.ZIP, "
                 "period.\n",
                 unzip_noend, s.zip, s.zip, s.zip);
    else
      buf_printf(c->err, "error:  %s (%s)\n", z.why, s.zip);
    return 9;
  }
  if (s.exdir && s.mode == 'x' &&
      (rc = vfs_mkdir(c->fs, s.exabs, 0777 & ~cmd_umask(c), VFS_MK_EXIST_OK)) <
          0) {
    buf_printf(c->err,
               "checkdir:  cannot create extraction directory: %s\n"
               "           %s\n",
               s.exdir, cmd_strerror(rc));
    return 3;
  }
  if ((rc = unzip_run(&s, &z)) != 0) return rc;
  for (i = 0; i < s.nincl; i++)
    if (!s.found[i]) {
      if (s.mode == 'x' || s.mode == 't' || s.mode == 'p')
        buf_printf(c->err, "caution: filename not matched:  %s\n", s.incl[i]);
      missing = 1;
    }
  if (missing) return 11;
  return s.err ? 2 : s.warn ? 1 : 0;
}
