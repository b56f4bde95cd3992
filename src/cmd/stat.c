/* stat.c - display file status (GNU coreutils).
 *
 * Usage: stat [OPTION]... FILE...
 *   -L, --dereference     follow links
 *   -c, --format=FORMAT   use FORMAT; a newline follows each use
 *       --printf=FORMAT   like --format, interpret backslash escapes, no
 *                         trailing newline
 *   -t, --terse           print the information in terse form
 * Directives: %a %A %b %B %d %D %f %F %g %G %h %i %m %n %N %o %s %t %T %u
 * %U %w %W %x %X %y %Y %z %Z %% with printf-style flags and width.
 * Sandbox values: owner user (1000), device 8,1 (2049), I/O block 4096,
 * blocks by the cmd_blocks rule, atime = ctime = mtime, no birth time.
 * -f (file system status) is refused. */
#include <stdio.h>
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char stat_usage[] MSB_COLD =
    "Usage: stat [OPTION]... FILE...\n"
    "Display file or file system status.\n"
    "\n"
    "  -L, --dereference     follow links\n"
    "  -c  --format=FORMAT   use the specified FORMAT instead of the "
    "default;\n"
    "                          output a newline after each use of FORMAT\n"
    "      --printf=FORMAT   like --format, but interpret backslash "
    "escapes,\n"
    "                          and do not output a mandatory trailing "
    "newline;\n"
    "                          if you want a newline, include \\n in "
    "FORMAT\n"
    "  -t, --terse           print the information in terse form\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

#define STAT_PRINTF 256
static const cmd_opt stat_opts[] = {{'L', "dereference", CMD_ARG_NONE, 'L'},
                                    {'f', "file-system", CMD_ARG_NONE, 'f'},
                                    {'c', "format", CMD_ARG_REQ, 'c'},
                                    {0, "printf", CMD_ARG_REQ, STAT_PRINTF},
                                    {'t', "terse", CMD_ARG_NONE, 't'},
                                    {0, 0, 0, 0}};

static const char *stat_type(const struct vfs_stat *st) {
  if (st->kind == VFS_DIR) return "directory";
  if (st->kind == VFS_LINK) return "symbolic link";
  if (st->mode & VFS_CHR) return "character special file";
  return st->size ? "regular file" : "regular empty file";
}

static void stat_time_epoch(int64_t ns, char *out, size_t n) {
  snprintf(out, n, "%lld", (long long)cmd_ns_to_s(ns));
}

/* Formats one directive into val; returns 1 when it is numeric. */
static int stat_dir(cmd_ctx *c, int d, const char *name, const char *abs,
                    const struct vfs_stat *st, buf *val) {
  char tmp[64];
  switch (d) {
  case 'a': buf_printf(val, "%o", (unsigned)(st->mode & 07777)); return 1;
  case 'A':
    cmd_mode_str(st->kind, st->mode, tmp);
    buf_puts(val, tmp);
    break;
  case 'b':
    buf_printf(val, "%llu", (unsigned long long)cmd_blocks(st));
    return 1;
  case 'B': buf_puts(val, "512"); return 1;
  case 'd': buf_puts(val, "2049"); return 1;
  case 'D': buf_puts(val, "801"); break;
  case 'f': {
    unsigned t = st->kind == VFS_DIR    ? 0040000u
                 : st->kind == VFS_LINK ? 0120000u
                                        : 0100000u;
    buf_printf(val, "%x", t | (unsigned)(st->mode & 07777));
    break;
  }
  case 'F': buf_puts(val, stat_type(st)); break;
  case 'g':
  case 'u': buf_puts(val, "1000"); return 1;
  case 'G':
  case 'U': buf_puts(val, "user"); break;
  case 'h': buf_printf(val, "%lu", (unsigned long)st->nlink); return 1;
  case 'i': buf_printf(val, "%llu", (unsigned long long)st->ino); return 1;
  case 'm': buf_puts(val, "/"); break;
  case 'n': buf_puts(val, name); break;
  case 'N':
    cmd_quote_buf(val, name, strlen(name), 1);
    if (st->kind == VFS_LINK) {
      buf t;
      buf_init(&t, c->m);
      vfs_readlink(c->fs, abs, &t);
      buf_puts(val, " -> ");
      cmd_quote_buf(val, buf_str(&t), t.len, 1);
      buf_finish(&t);
    }
    break;
  case 'o': buf_puts(val, "4096"); return 1;
  case 's': buf_printf(val, "%llu", (unsigned long long)cmd_size(st)); return 1;
  case 't': buf_printf(val, "%x", (unsigned)(st->rdev >> 8)); break;
  case 'T': buf_printf(val, "%x", (unsigned)(st->rdev & 0xff)); break;
  case 'w': buf_puts(val, "-"); break;
  case 'W': buf_puts(val, "0"); return 1;
  case 'x':
  case 'y':
  case 'z': {
    char t[48];
    cmd_time_full(st->mtime_ns, t);
    buf_puts(val, t);
    break;
  }
  case 'X':
  case 'Y':
  case 'Z':
    stat_time_epoch(st->mtime_ns, tmp, sizeof tmp);
    buf_puts(val, tmp);
    return 1;
  default: buf_putc(val, '?'); break;
  }
  return 0;
}

static int stat_escape(buf *o, const char **pp) {
  const char *p = *pp;
  int v = 0, k;
  switch (*p) {
  case 'a': buf_putc(o, '\a'); break;
  case 'b': buf_putc(o, '\b'); break;
  case 'e': buf_putc(o, 27); break;
  case 'f': buf_putc(o, '\f'); break;
  case 'n': buf_putc(o, '\n'); break;
  case 'r': buf_putc(o, '\r'); break;
  case 't': buf_putc(o, '\t'); break;
  case 'v': buf_putc(o, '\v'); break;
  case '\\': buf_putc(o, '\\'); break;
  case '"': buf_putc(o, '"'); break;
  case 'x':
    for (k = 0; k < 2; k++) {
      int ch = p[1], d = ch >= '0' && ch <= '9'   ? ch - '0'
                         : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                         : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                                  : -1;
      if (d < 0) break;
      v = v * 16 + d;
      p++;
    }
    if (k == 0) {
      buf_puts(o, "\\x");
      break;
    }
    buf_putc(o, v);
    break;
  default:
    if (*p >= '0' && *p <= '7') {
      for (k = 0; k < 3 && *p >= '0' && *p <= '7'; k++, p++)
        v = v * 8 + (*p - '0');
      p--;
      buf_putc(o, v & 255);
    } else {
      buf_putc(o, '\\');
      buf_putc(o, *p);
    }
  }
  *pp = p;
  return 0;
}

static void stat_format(cmd_ctx *c, const char *fmt, int esc, const char *name,
                        const char *abs, const struct vfs_stat *st) {
  buf *o = c->out;
  buf val;
  const char *p;
  buf_init(&val, c->m);
  for (p = fmt; *p; p++) {
    if (esc && *p == '\\' && p[1]) {
      p++;
      stat_escape(o, &p);
      continue;
    }
    if (*p != '%') {
      buf_putc(o, *p);
      continue;
    }
    if (!p[1]) {
      buf_putc(o, '%');
      break;
    }
    {
      const char *spec = ++p;
      int numeric;
      while (*p && strchr("-+ #0'", *p)) p++;
      while (*p >= '0' && *p <= '9') p++;
      if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') p++;
      }
      if (!*p) {
        buf_put(o, spec - 1, (size_t)(p - spec + 1));
        break;
      }
      if (*p == '%') {
        buf_putc(o, '%');
        continue;
      }
      buf_clear(&val);
      numeric = stat_dir(c, *p, name, abs, st, &val);
      cmd_pad(o, spec, (size_t)(p - spec), buf_str(&val), val.len, numeric);
    }
  }
  buf_finish(&val);
}

static void stat_default(cmd_ctx *c, const char *name, const char *abs,
                         const struct vfs_stat *st) {
  buf *o = c->out;
  char mode[11], t[48];
  char sz[32], bl[32];
  buf_puts(o, "  File: ");
  cmd_quote_buf(o, name, strlen(name), 0);
  if (st->kind == VFS_LINK) {
    buf tb;
    buf_init(&tb, c->m);
    vfs_readlink(c->fs, abs, &tb);
    buf_puts(o, " -> ");
    cmd_quote_buf(o, buf_str(&tb), tb.len, 0);
    buf_finish(&tb);
  }
  snprintf(sz, sizeof sz, "%llu", (unsigned long long)cmd_size(st));
  snprintf(bl, sizeof bl, "%llu", (unsigned long long)cmd_blocks(st));
  buf_printf(o, "\n  Size: %-10s\tBlocks: %-10s IO Block: %-6s %s\n", sz, bl,
             "4096", stat_type(st));
  snprintf(sz, sizeof sz, "%llu", (unsigned long long)st->ino);
  buf_printf(o, "Device: 8,1\tInode: %-11s Links: %lu\n", sz,
             (unsigned long)st->nlink);
  cmd_mode_str(st->kind, st->mode, mode);
  buf_printf(o, "Access: (%04o/%s)  Uid: (%5d/%8s)   Gid: (%5d/%8s)\n",
             (unsigned)(st->mode & 07777), mode, 1000, "user", 1000, "user");
  cmd_time_full(st->mtime_ns, t);
  buf_printf(o, "Access: %s\nModify: %s\nChange: %s\n Birth: -\n", t, t, t);
}

/* stat: print metadata of each FILE. */
int cmd_stat(cmd_ctx *c) {
  cmd_getopt g;
  int k, i, follow = 0, terse = 0, esc = 0, status = 0;
  const char *fmt = 0;
  cmd_opt_init(&g, c, stat_opts, stat_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case 'L': follow = 1; break;
    case 'f':
      cmd_err(c,
              "file system status (-f) is not supported in this "
              "sandbox");
      return 1;
    case 'c':
      fmt = g.arg;
      esc = 0;
      break;
    case STAT_PRINTF:
      fmt = g.arg;
      esc = 1;
      break;
    case 't': terse = 1; break;
    default: break;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (g.nops < 1) return cmd_usage_err(&g, "missing operand");
  for (i = 0; i < g.nops; i++) {
    const char *abs = cmd_path(c, g.ops[i]);
    struct vfs_stat st;
    int rc;
    if (!abs) return MSB_ENOMEM;
    rc = cmd_slash_check(c, g.ops[i], abs);
    if (rc == 0) rc = vfs_stat(c->fs, abs, follow, &st);
    if (rc < 0) {
      if (rc == MSB_ENOMEM) return rc;
      cmd_err(c, "cannot statx %s: %s", cmd_quote(c, g.ops[i]),
              cmd_strerror(rc));
      status = 1;
      continue;
    }
    if (fmt) {
      stat_format(c, fmt, esc, g.ops[i], abs, &st);
      if (!esc) buf_putc(c->out, '\n');
    } else if (terse) {
      stat_format(c, "%n %s %b %f %u %g %D %i %h %t %T %X %Y %Z %W %o\n", 0,
                  g.ops[i], abs, &st);
    } else {
      stat_default(c, g.ops[i], abs, &st);
    }
    if (c->out->err) return c->out->err;
    if (c->out_max && c->out->len > c->out_max) return MSB_ELIMIT;
  }
  return status;
}
