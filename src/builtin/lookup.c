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
  /* bash reports aliases only while they expand (shopt expand_aliases) */
  sh_alias *al =
      (sh->shopts & SH_SO_EXPAND_ALIASES) ? bi_alias_get(sh, name) : NULL;
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

/* type -p: the file only when `type -t' would say file; a builtin or
 * function prints nothing yet counts as found, as bash. */
static int bi_type_p(shell *sh, const char *name, int nofunc, buf *b) {
  buf kind;
  int found, file;
  buf_init(&kind, sh->m);
  found = bi_describe_cmd(sh, name, 't', 0, nofunc, &kind);
  file = found && kind.len && !strcmp(buf_str(&kind), "file\n");
  buf_finish(&kind);
  return file ? bi_describe_cmd(sh, name, 'p', 0, nofunc, b) : found;
}

/* help type */
const help_text bi_help_type = {
    "type [-afptP] name [name ...]",
    "\n"
    "Tells for each NAME whether it is an alias, keyword, function, builtin\n"
    "or program, and which one would run.\n"
    "\n"
    "Options:\n"
    "  -a   show every match, not just the first\n"
    "  -f   skip functions\n"
    "  -P   print the path of the program NAME, even if something else\n"
    "       would run first\n"
    "  -p   print the path only when NAME runs a program\n"
    "  -t   print one word: alias, keyword, function, builtin, file, or\n"
    "       nothing when not found\n"
    "\n"
    "Exit status:\n"
    "0 when every NAME is found, otherwise 1.\n"};

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
    if (!(mode == 'p' && !all
              ? bi_type_p(sh, argv[i], nofunc, &b)
              : bi_describe_cmd(sh, argv[i], mode == 'P' ? 'p' : mode, all,
                                nofunc, &b))) {
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

/* help command */
const help_text bi_help_command = {
    "command [-pVv] command [arg ...]",
    "\n"
    "Runs COMMAND with its ARGs as a builtin or a program only: a function\n"
    "of the same name is not called.  With -v or -V, describes COMMAND\n"
    "instead of running it.\n"
    "\n"
    "Options:\n"
    "  -p   search a default PATH that finds the standard utilities\n"
    "  -v   print the word or path that would run COMMAND\n"
    "  -V   print a sentence describing what COMMAND is\n"
    "\n"
    "Exit status:\n"
    "COMMAND's status, or 127 when it cannot be found.\n"};

int bi_command(shell *sh, int argc, char **argv) {
  int i = 1, mode = 0, status = 1;
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
      } else
        status = 0; /* bash: success when any name was found */
    {
      int rc = bi_out(sh, &b);
      return rc ? rc : status;
    }
  }
  return interp_run_argv(sh, argc - i, argv + i, 1);
}

/* help builtin */
const help_text bi_help_builtin = {
    "builtin [shell-builtin [arg ...]]",
    "\n"
    "Runs the builtin SHELL-BUILTIN with the ARGs even when a function of\n"
    "the same name exists; useful inside a function that wraps a builtin.\n"
    "\n"
    "Exit status:\n"
    "That of SHELL-BUILTIN, or 1 when it is not a builtin.\n"};

int bi_builtin(shell *sh, int argc, char **argv) {
  const sh_builtin *b;
  const cmd_desc *d;
  if (argc < 2) return 0;
  b = bi_on_disk(argv[1]) ? NULL : builtin_find(argv[1]);
  if (b) return interp_builtin(sh, b, argc - 1, argv + 1);
  d = cmd_find(argv[1]);
  if (d && (d->flags & CMD_BUILTIN))
    return interp_cmd(sh, d, argc - 1, argv + 1);
  interp_errf(sh, "builtin: %s: not a shell builtin", argv[1]);
  return 1;
}

/* help hash */
const help_text bi_help_hash = {
    "hash [-lr] [-p pathname] [-dt] [name ...]",
    "\n"
    "The sandbox finds commands in its own table, not by searching PATH,\n"
    "so there are no locations to remember: without NAMEs hash reports an\n"
    "empty table, and with NAMEs it checks that each one names a command,\n"
    "function or path.  The options are accepted and change nothing.\n"
    "\n"
    "Exit status:\n"
    "0, unless a NAME is not found or an option is invalid.\n"};

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

/* help alias */
const help_text bi_help_alias = {
    "alias [-p] [name[=value] ... ]",
    "\n"
    "With NAME=VALUE, makes NAME an alias: when NAME is the first word of a\n"
    "simple command, VALUE is used in its place.  A VALUE that ends in a\n"
    "blank lets the next word be alias-expanded too.  A bare NAME prints\n"
    "that alias; no operands (or -p) print every alias as `alias NAME=VALUE'.\n"
    "\n"
    "Exit status:\n"
    "0, or 1 when a NAME given alone has no alias.\n"};

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

/* help unalias */
const help_text bi_help_unalias = {
    "unalias [-a] name [name ...]",
    "\n"
    "Deletes the alias of each NAME; -a deletes every alias.\n"
    "\n"
    "Exit status:\n"
    "0, or 1 when a NAME has no alias.\n"};

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

/* help caller */
const help_text bi_help_caller = {
    "caller [expr]",
    "\n"
    "Without EXPR, prints the line number and file name of the current\n"
    "call.  With EXPR, a number N, prints the line, function name and file of\n"
    "the frame N levels up the call stack (0 is the current call).\n"
    "\n"
    "Exit status:\n"
    "0, or 1 outside a function or when EXPR is beyond the stack.\n"};

int bi_caller(shell *sh, int argc, char **argv) {
  (void)argc;
  (void)argv;
  (void)sh;
  return 1;
}

/* help enable */
const help_text bi_help_enable = {
    "enable [-a] [-dnps] [-f filename] [name ...]",
    "\n"
    "The set of builtins is fixed in the sandbox; enable reports that it is\n"
    "not supported.\n"
    "\n"
    "Exit status:\n"
    "Always 1.\n"};

int bi_enable(shell *sh, int argc, char **argv) {
  (void)argc;
  interp_errf(sh, "%s: not supported in memsandbox", argv[0]);
  return 1;
}
