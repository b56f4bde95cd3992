/* truncate.c - shrink or extend the size of each FILE (GNU coreutils 9).
 *
 * SIZE is a number with GNU's suffixes (K, KB, KiB... as cmd_parse_size
 * reads them), optionally prefixed by '+' (extend by), '-' (reduce by),
 * '<' (at most), '>' (at least), '/' (round down to a multiple) or '%'
 * (round up to one). -r takes the size from a reference file. Missing
 * files are created unless -c. A file is rewritten whole: extended with
 * NUL bytes, bounded by the sandbox's file size limit.
 *
 * Deviation: -o/--io-blocks is refused (there are no blocks to count).
 *
 * Usage: truncate OPTION... FILE... */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char truncate_usage[] MSB_COLD =
    "Usage: truncate OPTION... FILE...\n"
    "Shrink or extend the size of each FILE to the specified size\n"
    "\n"
    "A FILE argument that does not exist is created.\n"
    "\n"
    "If a FILE is larger than the specified size, the extra data is lost.\n"
    "If a FILE is shorter, it is extended and the sparse extended part "
    "(hole)\n"
    "reads as zero bytes.\n"
    "\n"
    "Mandatory arguments to long options are mandatory for short options "
    "too.\n"
    "  -c, --no-create        do not create any files\n"
    "  -o, --io-blocks        treat SIZE as number of IO blocks instead of "
    "bytes\n"
    "  -r, --reference=RFILE  base size on RFILE\n"
    "  -s, --size=SIZE        set or adjust the file size by SIZE bytes\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

static const cmd_opt truncate_opts[] = {{'c', "no-create", CMD_ARG_NONE, 'c'},
                                        {'o', "io-blocks", CMD_ARG_NONE, 'o'},
                                        {'r', "reference", CMD_ARG_REQ, 'r'},
                                        {'s', "size", CMD_ARG_REQ, 's'},
                                        {0, 0, 0, 0}};

/* The new size of a file of size cur: mode is 0 (set) or a prefix. */
static int truncate_target(int mode, uint64_t n, uint64_t cur, uint64_t *out) {
  switch (mode) {
  case '+': *out = cur + n; return cur + n < cur ? -1 : 0;
  case '-': *out = n > cur ? 0 : cur - n; return 0;
  case '<': *out = cur < n ? cur : n; return 0;
  case '>': *out = cur > n ? cur : n; return 0;
  case '/': *out = cur / n * n; return 0;
  case '%': *out = (cur + n - 1) / n * n; return 0;
  default: *out = n; return 0;
  }
}

/* Resizes one file. 0, 1 (reported) or a negative code. */
static int truncate_one(cmd_ctx *c, const char *op, int mode, uint64_t n,
                        int nocreate) {
  const char *abs = cmd_path(c, op);
  struct vfs_stat st;
  const uint8_t *d = NULL;
  uint64_t size;
  size_t len = 0;
  uint8_t *nd;
  int rc;
  if (!abs) return MSB_ENOMEM;
  rc = vfs_stat(c->fs, abs, 1, &st);
  if (rc == MSB_ENOENT && nocreate) return 0;
  if (rc == 0 && st.kind == VFS_DIR) rc = MSB_EISDIR;
  if (rc == 0) rc = vfs_read(c->fs, abs, &d, &len);
  if (rc < 0 && rc != MSB_ENOENT) goto fail;
  if (truncate_target(mode, n, len, &size) || size > c->lim->max_file_bytes) {
    cmd_err(c, "failed to truncate %s at %llu bytes: File too large",
            cmd_quote(c, op), (unsigned long long)size);
    return 1;
  }
  if (size == len && rc == 0) return 0;
  nd = arena_zalloc(c->a, (size_t)size + 1);
  if (!nd) return MSB_ENOMEM;
  memcpy(nd, d ? d : (const uint8_t *)"", size < len ? (size_t)size : len);
  rc = vfs_write(c->fs, abs, nd, (size_t)size, VFS_KEEP_MODE, CMD_NEWFILE(c),
                 NULL);
  if (rc == 0) return 0;
fail:
  if (rc == MSB_ENOMEM || rc == MSB_ELIMIT) return rc;
  cmd_err(c, "cannot open %s for writing: %s", cmd_quote(c, op),
          cmd_strerror(rc));
  return 1;
}

/* Entry point: see the usage above. */
int cmd_truncate(cmd_ctx *c) {
  cmd_getopt g;
  const char *size = NULL, *ref = NULL;
  int k, i, nocreate = 0, mode = 0, status = 0, rc;
  uint64_t n = 0;
  cmd_opt_init(&g, c, truncate_opts, truncate_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    if (k == 'c') nocreate = 1;
    if (k == 'r') ref = g.arg;
    if (k == 's') size = g.arg;
    if (k == 'o') {
      cmd_err(c, "--io-blocks is not supported in memsandbox");
      return 1;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (!size && !ref)
    return cmd_usage_err(&g,
                         "you must specify either '--size' or '--reference'");
  if (!g.nops) return cmd_usage_err(&g, "missing file operand");
  if (size && ref && !strchr("+-<>/%", *size))
    return cmd_usage_err(&g,
                         "you must specify a relative '--size' with "
                         "'--reference'");
  if (size) {
    if (strchr("+-<>/%", *size) && *size) mode = *size++;
    if (cmd_parse_size(size, 0, &n)) {
      cmd_err(c, "Invalid number: %s", cmd_quote(c, size));
      return 1;
    }
    if ((mode == '/' || mode == '%') && !n) {
      cmd_err(c, "division by zero");
      return 1;
    }
  }
  if (ref) {
    struct vfs_stat st;
    const char *abs = cmd_path(c, ref);
    if (!abs) return MSB_ENOMEM;
    if ((rc = vfs_stat(c->fs, abs, 1, &st)) < 0) {
      cmd_err(c, "cannot stat %s: %s", cmd_quote(c, ref), cmd_strerror(rc));
      return 1;
    }
    /* with -s, the reference size is what the prefix adjusts */
    if (size) {
      uint64_t t;
      truncate_target(mode, n, cmd_size(&st), &t);
      n = t;
      mode = 0;
    } else {
      n = cmd_size(&st);
    }
  }
  for (i = 0; i < g.nops; i++) {
    rc = truncate_one(c, g.ops[i], mode, n, nocreate);
    if (rc < 0) return rc;
    status |= rc;
  }
  return status;
}
