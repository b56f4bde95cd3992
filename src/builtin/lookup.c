/* lookup.c - what a name runs, and the names themselves: type, command,
 * builtin, hash, alias, unalias, caller, enable. */
#include <string.h>

#include "builtin.h"

static const char *const bi_keywords[] = {
    "!",    "[[",   "]]",    "case",  "coproc",   "do", "done", "elif",
    "else", "esac", "fi",    "for",   "function", "if", "in",   "select",
    "then", "time", "until", "while", "{",        "}"};

static int bi_is_keyword(const char *s) {
  size_t k;
  for (k = 0; k < sizeof bi_keywords / sizeof bi_keywords[0]; k++)
    if (!strcmp(bi_keywords[k], s)) return 1;
  return 0;
}

static sh_alias *bi_alias_get(shell *sh, const char *name) {
  size_t k;
  for (k = 0; k < sh->naliases; k++)
    if (!strcmp(sh->aliases[k].name, name)) return &sh->aliases[k];
  return NULL;
}

/* bash and sh run in-process, but on disk they are /usr/bin/bash and
 * /usr/bin/sh, which is what type, command -v and builtin report. */
static int bi_on_disk(const char *name) {
  return !strcmp(name, "bash") || !strcmp(name, "sh");
}

/* The PATH hit(s) of command name for bi_describe_cmd: /usr/bin/name, and
 * with -a also /bin/name, the same file through the /bin link, as the
 * default PATH lists both. */
static void bi_describe_file(const char *name, int mode, int all, buf *b) {
  static const char *const dirs[] = {"/usr/bin", "/bin"};
  int k;
  for (k = 0; k < (all ? 2 : 1); k++) {
    if (mode == 't')
      buf_puts(b, "file\n");
    else if (mode == 'v' || mode == 'p' || mode == 'P')
      buf_printf(b, "%s/%s\n", dirs[k], name);
    else
      buf_printf(b, "%s is %s/%s\n", name, dirs[k], name);
  }
}

/* Describes how name would be run; mode: 0 type, 't' -t, 'p' -p, 'v'
 * command -v, 'V' command -V. Returns 1 when found. */
static int bi_describe_cmd(shell *sh, const char *name, int mode, int all,
                           int nofunc, buf *b) {
  const cmd_desc *d;
  int found = 0;
  sh_alias *al = bi_alias_get(sh, name);
  if (strchr(name, '/')) {
    buf p;
    struct vfs_stat st;
    int ok;
    buf_init(&p, sh->m);
    interp_abspath(sh, name, &p);
    ok = !p.err && !vfs_stat(sh->fs, buf_str(&p), 1, &st) &&
         st.kind == VFS_FILE && (st.mode & 0111);
    buf_finish(&p);
    if (!ok) return 0;
    if (mode == 't')
      buf_puts(b, "file\n");
    else if (mode == 'v' || mode == 'p')
      buf_printf(b, "%s\n", name);
    else
      buf_printf(b, "%s is %s\n", name, name);
    return 1;
  }
  if (al && mode != 'p') {
    found = 1;
    if (mode == 't')
      buf_puts(b, "alias\n");
    else if (mode == 'v') {
      buf_printf(b, "alias %s=", name);
      expand_quote(b, al->value, 1);
      buf_putc(b, '\n');
    } else
      buf_printf(b, "%s is aliased to `%s'\n", name, al->value);
    if (!all) return 1;
  }
  if (bi_is_keyword(name) && mode != 'p') {
    found = 1;
    if (mode == 't')
      buf_puts(b, "keyword\n");
    else if (mode == 'v')
      buf_printf(b, "%s\n", name);
    else
      buf_printf(b, "%s is a shell keyword\n", name);
    if (!all) return 1;
  }
  if (!nofunc && interp_func_get(sh, name) && mode != 'p') {
    found = 1;
    if (mode == 't')
      buf_puts(b, "function\n");
    else if (mode == 'v')
      buf_printf(b, "%s\n", name);
    else {
      buf_printf(b, "%s is a function\n", name);
      interp_print_func(sh, name, interp_func_get(sh, name)->body, b);
    }
    if (!all) return 1;
  }
  d = cmd_find(name);
  if (bi_on_disk(name)) {
    bi_describe_file(name, mode, all, b);
    return 1;
  }
  if ((builtin_find(name) || (d && (d->flags & CMD_BUILTIN))) && mode != 'p') {
    found = 1;
    if (mode == 't')
      buf_puts(b, "builtin\n");
    else if (mode == 'v')
      buf_printf(b, "%s\n", name);
    else
      buf_printf(b, "%s is a shell builtin\n", name);
    if (!all) return 1;
  }
  if (d || (builtin_find(name) && all && (mode == 'p' || mode == 'P'))) {
    if (d && (d->flags & CMD_BUILTIN) && !all && mode != 'p' && mode != 'P')
      return found;
    if (!d && !builtin_find(name)) return found;
    found = 1;
    bi_describe_file(name, mode, all, b);
  }
  return found;
}

int bi_type(shell *sh, int argc, char **argv) {
  int i = 1, mode = 0, all = 0, status = 0, nofunc = 0;
  buf b;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    const char *o;
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    for (o = argv[i] + 1; *o; o++) {
      if (*o == 't')
        mode = 't';
      else if (*o == 'p')
        mode = 'p';
      else if (*o == 'P')
        mode = 'P';
      else if (*o == 'a')
        all = 1;
      else if (*o == 'f')
        nofunc = 1;
      else {
        char bad[3] = {'-', *o, 0};
        return bi_badopt(sh, "type", bad, "type [-afptP] name [name ...]");
      }
    }
  }
  buf_init(&b, sh->m);
  for (; i < argc; i++) {
    if (!bi_describe_cmd(sh, argv[i], mode == 'P' ? 'p' : mode, all, nofunc,
                         &b)) {
      if (!mode) {
        bi_out(sh, &b);
        buf_init(&b, sh->m);
        interp_errf(sh, "type: %s: not found", argv[i]);
      }
      status = 1;
    }
  }
  {
    int rc = bi_out(sh, &b);
    return rc ? rc : status;
  }
}

int bi_command(shell *sh, int argc, char **argv) {
  int i = 1, mode = 0, status = 0;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    const char *o;
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    for (o = argv[i] + 1; *o; o++) {
      if (*o == 'v')
        mode = 'v';
      else if (*o == 'V')
        mode = 'V';
      else if (*o == 'p')
        ;
      else {
        char bad[3] = {'-', *o, 0};
        return bi_badopt(sh, "command", bad,
                         "command [-pVv] command [arg ...]");
      }
    }
  }
  if (i >= argc) return 0;
  if (mode) {
    buf b;
    buf_init(&b, sh->m);
    for (; i < argc; i++)
      if (!bi_describe_cmd(sh, argv[i], mode == 'V' ? 0 : 'v', 0, 0, &b)) {
        if (mode == 'V') {
          bi_out(sh, &b);
          buf_init(&b, sh->m);
          interp_errf(sh, "command: %s: not found", argv[i]);
        }
        status = 1;
      }
    {
      int rc = bi_out(sh, &b);
      return rc ? rc : status;
    }
  }
  return interp_run_argv(sh, argc - i, argv + i, 1);
}

int bi_builtin(shell *sh, int argc, char **argv) {
  const sh_builtin *b;
  const cmd_desc *d;
  if (argc < 2) return 0;
  b = bi_on_disk(argv[1]) ? NULL : builtin_find(argv[1]);
  if (b) return b->fn(sh, argc - 1, argv + 1);
  d = cmd_find(argv[1]);
  if (d && (d->flags & CMD_BUILTIN))
    return interp_cmd(sh, d, argc - 1, argv + 1);
  interp_errf(sh, "builtin: %s: not a shell builtin", argv[1]);
  return 1;
}

/* hash: the sandbox remembers no paths; it only checks the names. */
int bi_hash(shell *sh, int argc, char **argv) {
  int i = bi_opts_only(sh, argc, argv, "lrpdt",
                       "hash [-lr] [-p pathname] [-dt] [name ...]");
  int status = 0;
  if (i < 0) return 2;
  if (argc == 1) {
    buf b;
    buf_init(&b, sh->m);
    buf_puts(&b, "hash: hash table empty\n");
    return bi_out(sh, &b);
  }
  for (; i < argc; i++)
    if (!strchr(argv[i], '/') && !builtin_find(argv[i]) && !cmd_find(argv[i]) &&
        !interp_func_get(sh, argv[i])) {
      interp_errf(sh, "hash: %s: not found", argv[i]);
      status = 1;
    }
  return status;
}

int bi_alias(shell *sh, int argc, char **argv) {
  int i, status = 0;
  buf b;
  if (bi_opts_only(sh, argc, argv, "p", "alias [-p] [name[=value] ... ]") < 0)
    return 2;
  buf_init(&b, sh->m);
  if (argc == 1 || (argc == 2 && !strcmp(argv[1], "-p"))) {
    size_t k;
    for (k = 0; k < sh->naliases; k++) {
      buf_printf(&b, "alias %s=", sh->aliases[k].name);
      expand_quote(&b, sh->aliases[k].value, 1);
      buf_putc(&b, '\n');
    }
    return bi_out(sh, &b);
  }
  for (i = 1; i < argc; i++) {
    char *eq = strchr(argv[i], '=');
    sh_alias *a;
    if (!eq || eq == argv[i]) {
      a = bi_alias_get(sh, argv[i]);
      if (!a) {
        interp_errf(sh, "alias: %s: not found", argv[i]);
        status = 1;
      } else {
        buf_printf(&b, "alias %s=", a->name);
        expand_quote(&b, a->value, 1);
        buf_putc(&b, '\n');
      }
      continue;
    }
    *eq = 0;
    if (strpbrk(argv[i], "/$`=\"'\\()<>;&| \t\n")) {
      interp_errf(sh, "alias: `%s': invalid alias name", argv[i]);
      *eq = '=';
      status = 1;
      continue;
    }
    a = bi_alias_get(sh, argv[i]);
    if (a) {
      char *nv = mem_strdup(sh->m, eq + 1);
      if (!nv) return MSB_ENOMEM;
      mem_free(sh->m, a->value);
      a->value = nv;
    } else {
      sh_alias *na =
          mem_realloc(sh->m, sh->aliases, (sh->naliases + 1) * sizeof *na);
      if (!na) return MSB_ENOMEM;
      sh->aliases = na;
      na[sh->naliases].name = mem_strdup(sh->m, argv[i]);
      na[sh->naliases].value = mem_strdup(sh->m, eq + 1);
      if (!na[sh->naliases].name || !na[sh->naliases].value) {
        mem_free(sh->m, na[sh->naliases].name);
        mem_free(sh->m, na[sh->naliases].value);
        return MSB_ENOMEM;
      }
      sh->naliases++;
    }
    *eq = '=';
  }
  {
    int rc = bi_out(sh, &b);
    return rc ? rc : status;
  }
}

int bi_unalias(shell *sh, int argc, char **argv) {
  int i, status = 0;
  size_t k;
  if (argc > 1 && !strcmp(argv[1], "-a")) {
    for (k = 0; k < sh->naliases; k++) {
      mem_free(sh->m, sh->aliases[k].name);
      mem_free(sh->m, sh->aliases[k].value);
    }
    sh->naliases = 0;
    return 0;
  }
  for (i = 1; i < argc; i++) {
    sh_alias *a = bi_alias_get(sh, argv[i]);
    if (!a) {
      interp_errf(sh, "unalias: %s: not found", argv[i]);
      status = 1;
      continue;
    }
    k = (size_t)(a - sh->aliases);
    mem_free(sh->m, a->name);
    mem_free(sh->m, a->value);
    memmove(a, a + 1, (sh->naliases - k - 1) * sizeof *a);
    sh->naliases--;
  }
  return status;
}

int bi_caller(shell *sh, int argc, char **argv) {
  (void)argc;
  (void)argv;
  (void)sh;
  return 1;
}

int bi_enable(shell *sh, int argc, char **argv) {
  (void)argc;
  interp_errf(sh, "%s: not supported in memsandbox", argv[0]);
  return 1;
}
