/* df.c - report file system space usage (GNU coreutils).
 *
 * Usage: df [OPTION]... [FILE]...
 *   -h, --human-readable  -H, --si  -k  -T, --print-type  -i, --inodes
 *   -B, --block-size=SIZE  -P, --portability  -a, --all  -l, --local
 * The sandbox has one file system, "memsandbox" of type "memfs", mounted
 * on "/": its size is the byte quota (max_total_bytes), its usage the
 * bytes stored (apparent sizes), its inodes the node quota. Every FILE
 * operand names that same file system. */
#include <stdio.h>
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char df_usage[] MSB_COLD =
    "Usage: df [OPTION]... [FILE]...\n"
    "Show information about the file system on which each FILE resides,\n"
    "or all file systems by default.\n"
    "\n"
    "  -a, --all             include pseudo, duplicate, inaccessible file "
    "systems\n"
    "  -B, --block-size=SIZE  scale sizes by SIZE before printing them\n"
    "  -h, --human-readable  print sizes in powers of 1024 (e.g., 1023M)\n"
    "  -H, --si              print sizes in powers of 1000 (e.g., 1.1G)\n"
    "  -i, --inodes          list inode information instead of block "
    "usage\n"
    "  -k                    like --block-size=1K\n"
    "  -l, --local           limit listing to local file systems\n"
    "  -P, --portability     use the POSIX output format\n"
    "  -T, --print-type      print file system type\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

static const cmd_opt df_opts[] = {{'a', "all", CMD_ARG_NONE, 'a'},
                                  {'B', "block-size", CMD_ARG_REQ, 'B'},
                                  {'h', "human-readable", CMD_ARG_NONE, 'h'},
                                  {'H', "si", CMD_ARG_NONE, 'H'},
                                  {'i', "inodes", CMD_ARG_NONE, 'i'},
                                  {'k', 0, CMD_ARG_NONE, 'k'},
                                  {'l', "local", CMD_ARG_NONE, 'l'},
                                  {'P', "portability", CMD_ARG_NONE, 'P'},
                                  {'T', "print-type", CMD_ARG_NONE, 'T'},
                                  {0, 0, 0, 0}};

static void df_num(uint64_t v, uint64_t unit, int human, int si, char out[32]) {
  if (human || si)
    cmd_human(v, si, out);
  else
    snprintf(out, 32, "%llu", (unsigned long long)(v / unit + (v % unit != 0)));
}

static int df_width(const char *hdr, const char *val, int min) {
  int w = (int)strlen(hdr), v = (int)strlen(val);
  if (v > w) w = v;
  return w < min ? min : w;
}

/* df: print the sandbox file system's usage line. */
int cmd_df(cmd_ctx *c) {
  cmd_getopt g;
  int k, i, human = 0, si = 0, inodes = 0, type = 0, posix = 0, status = 0;
  uint64_t unit = 1024, size, used, avail, pct;
  char a[32], b[32], d[32], hdr[32];
  const vfs_limits *lim = vfs_get_limits(c->fs);
  int w1, w2, w3;
  cmd_opt_init(&g, c, df_opts, df_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case 'B':
      if (cmd_parse_size(g.arg, 0, &unit) < 0 || !unit) {
        cmd_err(c, "invalid -B argument %s", cmd_quote(c, g.arg));
        return 1;
      }
      human = si = 0;
      break;
    case 'h':
      human = 1;
      si = 0;
      break;
    case 'H':
      si = 1;
      human = 0;
      break;
    case 'i': inodes = 1; break;
    case 'k':
      unit = 1024;
      human = si = 0;
      break;
    case 'P': posix = 1; break;
    case 'T': type = 1; break;
    default: break;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  for (i = 0; i < g.nops; i++) {
    const char *abs = cmd_path(c, g.ops[i]);
    struct vfs_stat st;
    int rc;
    if (!abs) return MSB_ENOMEM;
    if ((rc = vfs_stat(c->fs, abs, 1, &st)) < 0) {
      cmd_err(c, "%s: %s", cmd_quotef(c, g.ops[i]), cmd_strerror(rc));
      status = 1;
    }
  }
  if (g.nops && status && g.nops == 1) return status;
  if (inodes) {
    size = lim ? lim->max_nodes : 0;
    used = vfs_total_nodes(c->fs);
    unit = 1;
    human = human || si;
  } else {
    size = lim ? lim->max_total_bytes : 0;
    used = vfs_total_bytes(c->fs);
  }
  if (used > size) size = used;
  avail = size - used;
  pct = size ? (used * 100 + size - 1) / size : 0;
  if (inodes) {
    if (human || si) {
      cmd_human(size, si, a);
      cmd_human(used, si, b);
      cmd_human(avail, si, d);
    } else {
      snprintf(a, sizeof a, "%llu", (unsigned long long)size);
      snprintf(b, sizeof b, "%llu", (unsigned long long)used);
      snprintf(d, sizeof d, "%llu", (unsigned long long)avail);
    }
  } else {
    df_num(size, unit, human, si, a);
    df_num(used, unit, human, si, b);
    df_num(avail, unit, human, si, d);
  }
  if (inodes)
    snprintf(hdr, sizeof hdr, "Inodes");
  else if (human || si)
    snprintf(hdr, sizeof hdr, "Size");
  else if (unit % 1048576 == 0)
    snprintf(hdr, sizeof hdr, "%lluM-blocks",
             (unsigned long long)(unit / 1048576));
  else if (unit % 1024 == 0)
    snprintf(hdr, sizeof hdr, "%lluK-blocks",
             (unsigned long long)(unit / 1024));
  else
    snprintf(hdr, sizeof hdr, "%llu-blocks", (unsigned long long)unit);
  if (posix && !inodes && !human && !si)
    snprintf(hdr, sizeof hdr, "%llu-blocks", (unsigned long long)unit);
  {
    const char *h2 = inodes ? "IUsed" : "Used";
    const char *h3 = inodes ? "IFree" : human || si ? "Avail" : "Available";
    const char *h4 = inodes ? "IUse%" : posix ? "Capacity" : "Use%";
    int w4 = (int)strlen(h4);
    w1 = df_width(hdr, a, 5);
    w2 = df_width(h2, b, 5);
    w3 = df_width(h3, d, 5);
    if (w4 < 4) w4 = 4;
    buf_printf(c->out, "%-14s", "Filesystem");
    if (type) buf_printf(c->out, " %-5s", "Type");
    buf_printf(c->out, " %*s %*s %*s %*s Mounted on\n", w1, hdr, w2, h2, w3, h3,
               w4, h4);
    buf_printf(c->out, "%-14s", "memsandbox");
    if (type) buf_printf(c->out, " %-5s", "memfs");
    buf_printf(c->out, " %*s %*s %*s %*llu%% /\n", w1, a, w2, b, w3, d, w4 - 1,
               (unsigned long long)pct);
  }
  return status;
}
