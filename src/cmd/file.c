/* file.c - determine file type (file 5.44 wording, a deterministic subset).
 *
 * Usage: file [-bhiL] [--mime-type] [--mime-encoding] [--] FILE...
 * Recognised: directories, symlinks, empty files, PNG (size, depth, colour
 * type), GIF, JPEG, PDF, gzip (name, mtime, flags, size), Zip (version,
 * method), tar (POSIX / GNU), ELF (class and byte order only), JSON,
 * XML, HTML, scripts by #! line (bash, sh, python, perl, ruby, node, other
 * interpreters), and text: ASCII, UTF-8 ("Unicode text, UTF-8 text"),
 * ISO-8859, with line-terminator, escape-sequence and long-line notes;
 * anything else is "data". The magic database is not emulated beyond
 * that: richer descriptions (JPEG/EXIF details, ELF machine, office
 * formats) are shorter than real file's. Output columns align like file's
 * (names padded to the longest). */
#include <stdio.h>
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char file_usage[] MSB_COLD =
    "Usage: file [-bhiL] [--mime-type] [--mime-encoding] [--] FILE...\n"
    "Determine type of FILEs.\n"
    "\n"
    "  -b, --brief                do not prepend filenames to output "
    "lines\n"
    "  -h, --no-dereference       don't follow symlinks (default)\n"
    "  -i, --mime                 output MIME type strings\n"
    "      --mime-type            output the MIME type\n"
    "      --mime-encoding        output the MIME encoding\n"
    "  -L, --dereference          follow symlinks\n"
    "      --help                 display this help and exit\n"
    "  -v, --version              output version information and exit\n";

enum { FILE_MIMETYPE = 256, FILE_MIMEENC };
static const cmd_opt file_opts[] = {
    {'b', "brief", CMD_ARG_NONE, 'b'},
    {'h', "no-dereference", CMD_ARG_NONE, 'h'},
    {'i', "mime", CMD_ARG_NONE, 'i'},
    {0, "mime-type", CMD_ARG_NONE, FILE_MIMETYPE},
    {0, "mime-encoding", CMD_ARG_NONE, FILE_MIMEENC},
    {'L', "dereference", CMD_ARG_NONE, 'L'},
    {0, 0, 0, 0}};

/* Text classes: 0 binary, 1 ASCII, 2 UTF-8, 3 ISO-8859. */
static int file_text_ascii(int ch) {
  return (ch >= 0x20 && ch < 0x7f) || (ch >= 7 && ch <= 13) || ch == 27;
}

static int file_text_kind(const uint8_t *d, size_t n) {
  size_t i;
  int high = 0, utf8 = 1;
  for (i = 0; i < n; i++) {
    int ch = d[i];
    if (ch < 0x80) {
      if (!file_text_ascii(ch)) return 0;
      continue;
    }
    high = 1;
    if (utf8) {
      size_t len = ch >= 0xf0 && ch < 0xf5   ? 4
                   : ch >= 0xe0              ? 3
                   : ch >= 0xc2 && ch < 0xe0 ? 2
                                             : 0;
      size_t j;
      if (ch >= 0xf5) len = 0;
      if (!len || i + len > n) {
        utf8 = 0;
      } else {
        for (j = 1; j < len; j++)
          if ((d[i + j] & 0xc0) != 0x80) utf8 = 0;
        if (utf8) i += len - 1;
      }
    }
  }
  if (!high) return 1;
  if (utf8) return 2;
  for (i = 0; i < n; i++)
    if (d[i] >= 0x80 && d[i] < 0xa0) return 0;
  return 3;
}

/* Minimal JSON validator (iterative; nesting kept in a byte stack). */
static int file_json(cmd_ctx *c, const uint8_t *d, size_t n) {
  size_t cap = n + 1 < 1024 ? n + 1 : 1024; /* nesting limit */
  char *stk = arena_alloc(c->a, cap);
  size_t i = 0, sp = 0;
  int want = 1; /* expecting a value */
  if (!stk) return 0;
  while (i < n && strchr(" \t\r\n", d[i])) i++;
  if (i >= n || (d[i] != '{' && d[i] != '[')) return 0;
  while (i < n) {
    int ch = d[i];
    if (strchr(" \t\r\n", ch)) {
      i++;
      continue;
    }
    if (want) {
      if (ch == '{' || ch == '[') {
        if (sp + 1 >= cap) return 0;
        stk[sp++] = (char)ch;
        i++;
        while (i < n && strchr(" \t\r\n", d[i])) i++;
        if (i < n &&
            ((ch == '{' && d[i] == '}') || (ch == '[' && d[i] == ']'))) {
          sp--;
          i++;
          want = 0;
          if (!sp) break;
          continue;
        }
        if (ch == '{') {
          if (i >= n || d[i] != '"') return 0;
          continue; /* key string parsed as a value below */
        }
        continue;
      }
      if (ch == '"') {
        for (i++; i < n && d[i] != '"'; i++)
          if (d[i] == '\\') i++;
        if (i >= n) return 0;
        i++;
      } else if (ch == '-' || (ch >= '0' && ch <= '9')) {
        while (i < n && strchr("+-0123456789.eE", d[i])) i++;
      } else if (n - i >= 4 && !memcmp(d + i, "true", 4)) {
        i += 4;
      } else if (n - i >= 5 && !memcmp(d + i, "false", 5)) {
        i += 5;
      } else if (n - i >= 4 && !memcmp(d + i, "null", 4)) {
        i += 4;
      } else {
        return 0;
      }
      want = 0;
      continue;
    }
    if (!sp) return 0;
    if (ch == ':' && stk[sp - 1] == '{') {
      stk[sp - 1] = ':';
      want = 1;
    } else if (ch == ',' && (stk[sp - 1] == '[' || stk[sp - 1] == ':')) {
      if (stk[sp - 1] == ':') {
        stk[sp - 1] = '{';
        i++;
        while (i < n && strchr(" \t\r\n", d[i])) i++;
        if (i >= n || d[i] != '"') return 0;
        want = 1;
        continue;
      }
      want = 1;
    } else if (ch == ']' && stk[sp - 1] == '[') {
      sp--;
    } else if (ch == '}' && stk[sp - 1] == ':') {
      sp--;
    } else {
      return 0;
    }
    i++;
    if (!sp) break;
  }
  if (sp) return 0;
  while (i < n && strchr(" \t\r\n", d[i])) i++;
  return i == n;
}

static void file_text_notes(buf *o, const uint8_t *d, size_t n) {
  size_t i, line = 0, maxline = 0;
  int crlf = 0, lf = 0, cr = 0, esc = 0;
  for (i = 0; i < n; i++) {
    if (d[i] == '\n') {
      if (i && d[i - 1] == '\r')
        crlf = 1;
      else
        lf = 1;
      if (line > maxline) maxline = line;
      line = 0;
    } else if (d[i] == '\r') {
      if (i + 1 >= n || d[i + 1] != '\n') cr = 1;
      if (line > maxline) maxline = line;
      line = 0;
    } else {
      if (d[i] == 27) esc = 1;
      line++;
    }
  }
  if (line > maxline) maxline = line;
  if (maxline > 300) buf_printf(o, ", with very long lines (%zu)", maxline);
  if (crlf && !lf && !cr)
    buf_puts(o, ", with CRLF line terminators");
  else if (crlf && lf && !cr)
    buf_puts(o, ", with CRLF, LF line terminators");
  else if (cr && !crlf && !lf)
    buf_puts(o, ", with CR line terminators");
  else if (cr && lf && !crlf)
    buf_puts(o, ", with CR, LF line terminators");
  else if (cr && crlf)
    buf_puts(o, ", with CRLF, CR line terminators");
  else if (!crlf && !lf && !cr)
    buf_puts(o, ", with no line terminators");
  if (esc) buf_puts(o, ", with escape sequences");
}

static uint32_t file_be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         p[3];
}

static uint32_t file_le32(const uint8_t *p) {
  return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 |
         p[0];
}

/* Describes the bytes into o (desc) and mime. */
static void file_describe(cmd_ctx *c, const uint8_t *d, size_t n, buf *o,
                          const char **mime, const char **enc) {
  int tk;
  *enc = "binary";
  if (n >= 24 && !memcmp(d, "\x89PNG\r\n\x1a\n", 8) &&
      !memcmp(d + 12, "IHDR", 4)) {
    static const char *types[] = {"grayscale",  "?", "RGB", "colormap",
                                  "gray+alpha", "?", "RGBA"};
    int ct = n > 25 ? d[25] : 0;
    buf_printf(o, "PNG image data, %u x %u", file_be32(d + 16),
               file_be32(d + 20));
    if (n > 28 && ct == 3)
      buf_printf(o, ", %d-bit colormap, %s", d[24],
                 d[28] ? "interlaced" : "non-interlaced");
    else if (n > 28)
      buf_printf(o, ", %d-bit/color %s, %s", d[24], types[ct <= 6 ? ct : 1],
                 d[28] ? "interlaced" : "non-interlaced");
    *mime = "image/png";
    return;
  }
  if (n >= 6 && (!memcmp(d, "GIF87a", 6) || !memcmp(d, "GIF89a", 6))) {
    buf_printf(o, "GIF image data, version %.3s", (const char *)d + 3);
    if (n >= 10) buf_printf(o, ", %u x %u", d[6] | d[7] << 8, d[8] | d[9] << 8);
    *mime = "image/gif";
    return;
  }
  if (n >= 3 && d[0] == 0xff && d[1] == 0xd8 && d[2] == 0xff) {
    buf_puts(o, "JPEG image data");
    *mime = "image/jpeg";
    return;
  }
  if (n >= 5 && !memcmp(d, "%PDF-", 5)) {
    size_t i = 5;
    buf_puts(o, "PDF document, version ");
    while (i < n && i < 12 && ((d[i] >= '0' && d[i] <= '9') || d[i] == '.'))
      buf_putc(o, d[i++]);
    *mime = "application/pdf";
    *enc = "us-ascii";
    return;
  }
  if (n >= 10 && d[0] == 0x1f && d[1] == 0x8b) {
    int fl = d[3];
    uint32_t mt = file_le32(d + 4);
    buf_puts(o, "gzip compressed data");
    if (fl & 8) {
      size_t i = 10;
      if (fl & 4 && n >= 12) i += 2 + (size_t)(d[10] | d[11] << 8);
      buf_puts(o, ", was \"");
      for (; i < n && d[i]; i++) buf_putc(o, d[i]);
      buf_putc(o, '"');
    }
    if (mt) {
      cmd_tm tm;
      static const char *days[] = {"Sun", "Mon", "Tue", "Wed",
                                   "Thu", "Fri", "Sat"};
      static const char mons[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
      cmd_gmtime(mt, &tm);
      buf_printf(o, ", last modified: %s %.3s %2d %02d:%02d:%02d %lld",
                 days[tm.wday], mons + (tm.mon - 1) * 3, tm.mday, tm.hour,
                 tm.min, tm.sec, (long long)tm.year);
    }
    if (d[8] == 2) buf_puts(o, ", max compression");
    if (d[8] == 4) buf_puts(o, ", max speed");
    if (d[9] == 3) buf_puts(o, ", from Unix");
    if (n >= 18)
      buf_printf(o, ", original size modulo 2^32 %u", file_le32(d + n - 4));
    *mime = "application/gzip";
    return;
  }
  if (n >= 30 && !memcmp(d, "PK\x03\x04", 4)) {
    int ver = d[4] | d[5] << 8, meth = d[8] | d[9] << 8;
    buf_printf(o, "Zip archive data, at least v%d.%d to extract", ver / 10,
               ver % 10);
    if (meth == 0)
      buf_puts(o, ", compression method=store");
    else if (meth == 8)
      buf_puts(o, ", compression method=deflate");
    *mime = "application/zip";
    return;
  }
  if (n >= 263 && !memcmp(d + 257, "ustar", 5)) {
    buf_puts(o, !memcmp(d + 257, "ustar  ", 8) ? "POSIX tar archive (GNU)"
                                               : "POSIX tar archive");
    *mime = "application/x-tar";
    return;
  }
  if (n >= 6 && !memcmp(d,
                        "\x7f"
                        "ELF",
                        4)) {
    buf_printf(o, "ELF %s-bit %s", d[4] == 2 ? "64" : "32",
               d[5] == 2 ? "MSB" : "LSB");
    *mime = "application/octet-stream";
    return;
  }
  if (n > 1048576) n = 1048576; /* file reads at most 1 MiB by default */
  tk = file_text_kind(d, n);
  if (!tk) {
    buf_puts(o, n == 1 ? "very short file (no magic)" : "data");
    *mime = "application/octet-stream";
    return;
  }
  {
    const char *tname = tk == 1   ? "ASCII text"
                        : tk == 2 ? "Unicode text, UTF-8 text"
                                  : "ISO-8859 text";
    *enc = tk == 1 ? "us-ascii" : tk == 2 ? "utf-8" : "iso-8859-1";
    *mime = "text/plain";
    if (n > 2 && d[0] == '#' && d[1] == '!') {
      size_t i = 2, s0, e0;
      const char *interp;
      char name[64];
      size_t nl;
      while (i < n && (d[i] == ' ' || d[i] == '\t')) i++;
      s0 = i;
      while (i < n && !strchr(" \t\n", d[i])) i++;
      e0 = i;
      interp = (const char *)d + s0;
      for (nl = e0; nl > s0 && d[nl - 1] != '/'; nl--) {
      }
      snprintf(name, sizeof name, "%.*s", (int)(e0 - nl), (const char *)d + nl);
      if (!strcmp(name, "env")) {
        while (i < n && (d[i] == ' ' || d[i] == '\t')) i++;
        s0 = i;
        while (i < n && !strchr(" \t\n", d[i])) i++;
        snprintf(name, sizeof name, "%.*s", (int)(i - s0),
                 (const char *)d + s0);
      }
      if (!strcmp(name, "bash")) {
        buf_printf(o, "Bourne-Again shell script, %s executable", tname);
        *mime = "text/x-shellscript";
      } else if (!strcmp(name, "sh") || !strcmp(name, "dash")) {
        buf_printf(o, "POSIX shell script, %s executable", tname);
        *mime = "text/x-shellscript";
      } else if (!strncmp(name, "python", 6)) {
        buf_printf(o, "Python script, %s executable", tname);
        *mime = "text/x-script.python";
      } else if (!strcmp(name, "perl")) {
        buf_printf(o, "Perl script text executable");
        *mime = "text/x-perl";
        return;
      } else if (!strcmp(name, "ruby")) {
        buf_printf(o, "Ruby script, %s executable", tname);
        *mime = "text/x-ruby";
      } else if (!strcmp(name, "node")) {
        buf_printf(o, "Node.js script executable, %s", tname);
        *mime = "application/javascript";
      } else {
        buf_printf(o, "a %.*s script, %s executable",
                   (int)(e0 - (size_t)(interp - (const char *)d)), interp,
                   tname);
        *mime = "text/plain";
      }
      file_text_notes(o, d, n);
      return;
    }
    if (n >= 5 && !memcmp(d, "<?xml", 5)) {
      buf_printf(o, "XML 1.0 document, %s", tname);
      *mime = "text/xml";
      file_text_notes(o, d, n);
      return;
    }
    {
      size_t i = 0;
      while (i < n && strchr(" \t\r\n", d[i])) i++;
      const char *t = (const char *)d + i;
      if ((n - i >= 14 && !strncmp(t, "<!DOCTYPE html", 14)) ||
          (n - i >= 14 && !strncmp(t, "<!doctype html", 14)) ||
          (n - i >= 5 && !strncmp(t, "<html", 5))) {
        buf_printf(o, "HTML document, %s", tname);
        *mime = "text/html";
        file_text_notes(o, d, n);
        return;
      }
    }
    if (tk == 1 && file_json(c, d, n)) {
      buf_puts(o, "JSON text data");
      *mime = "application/json";
      return;
    }
    buf_puts(o, tname);
    file_text_notes(o, d, n);
  }
}

/* file: print a description of each FILE's contents. */
int cmd_file(cmd_ctx *c) {
  cmd_getopt g;
  int k, i, brief = 0, mime = 0, follow = 0;
  size_t width = 0;
  buf desc;
  cmd_opt_init(&g, c, file_opts, file_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case 'b': brief = 1; break;
    case 'h': follow = 0; break;
    case 'i': mime = 3; break;
    case FILE_MIMETYPE: mime = 1; break;
    case FILE_MIMEENC: mime = 2; break;
    case 'L': follow = 1; break;
    default: break;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (g.nops < 1) {
    buf_puts(c->err,
             "Usage: file [-bcCdEhikLlNnprsSvzZ0] [--apple] "
             "[--extension] [--mime-encoding]\n"
             "            [--mime-type] [-e <testname>] "
             "[-F <separator>]  [-f <namefile>]\n"
             "            [-m <magicfiles>] [-P <parameter=value>] "
             "[--exclude-quiet]\n"
             "            <file> ...\n"
             "       file -C [-m <magicfiles>]\n"
             "       file [--help]\n");
    return 1;
  }
  for (i = 0; i < g.nops; i++)
    if (strlen(g.ops[i]) > width) width = strlen(g.ops[i]);
  buf_init(&desc, c->m);
  for (i = 0; i < g.nops; i++) {
    const char *op = g.ops[i], *abs = cmd_path(c, op);
    const char *mt = "application/octet-stream", *enc = "binary";
    struct vfs_stat st;
    int rc;
    if (!abs) {
      buf_finish(&desc);
      return MSB_ENOMEM;
    }
    buf_clear(&desc);
    rc = cmd_slash_check(c, op, abs);
    if (rc == 0) rc = vfs_stat(c->fs, abs, follow, &st);
    if (rc < 0) {
      buf_printf(&desc, "cannot open `%s' (%s)", op, cmd_strerror(rc));
      mt = 0;
    } else if (st.kind == VFS_DIR) {
      buf_puts(&desc, "directory");
      mt = "inode/directory";
    } else if (st.kind == VFS_LINK) {
      struct vfs_stat t;
      buf_puts(&desc, vfs_stat(c->fs, abs, 1, &t) == 0
                          ? "symbolic link to "
                          : "broken symbolic link to ");
      vfs_readlink(c->fs, abs, &desc);
      mt = "inode/symlink";
    } else if (st.mode & VFS_CHR) { /* /dev/null is 1,3 on Linux */
      buf_printf(&desc, "character special (%u/%u)", (unsigned)(st.rdev >> 8),
                 (unsigned)(st.rdev & 0xff));
      mt = "inode/chardevice";
    } else if (st.size == 0) {
      buf_puts(&desc, "empty");
      mt = "inode/x-empty";
    } else {
      const uint8_t *d;
      size_t n;
      rc = vfs_read(c->fs, abs, &d, &n);
      if (rc < 0) {
        buf_printf(&desc, "cannot open `%s' (%s)", op, cmd_strerror(rc));
        mt = 0;
      } else {
        file_describe(c, d, n, &desc, &mt, &enc);
      }
    }
    if (!brief) {
      buf_printf(c->out, "%s:", op);
      if (width >= strlen(op))
        buf_printf(c->out, "%*s", (int)(width - strlen(op) + 1), "");
    }
    if (mime && mt) {
      if (mime == 1)
        buf_puts(c->out, mt);
      else if (mime == 2)
        buf_puts(c->out, enc);
      else
        buf_printf(c->out, "%s; charset=%s", mt, enc);
    } else {
      buf_put(c->out, buf_str(&desc), desc.len);
    }
    buf_putc(c->out, '\n');
    if (c->out->err) break;
    if (c->out_max && c->out->len > c->out_max) {
      buf_finish(&desc);
      return MSB_ELIMIT;
    }
  }
  buf_finish(&desc);
  return c->out->err ? c->out->err : 0;
}
