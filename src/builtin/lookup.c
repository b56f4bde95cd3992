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
    "For each NAME, indicate how it would be interpreted if used as a\n"
    "command name.\n"
    "\n"
    "Options:\n"
    "  -a\tdisplay all locations containing an executable named NAME;\n"
    "\t\tincludes aliases, builtins, and functions, if and only if\n"
    "\t\tthe `-p' option is not also used\n"
    "  -f\tsuppress shell function lookup\n"
    "  -P\tforce a PATH search for each NAME, even if it is an alias,\n"
    "\t\tbuiltin, or function, and returns the name of the disk file\n"
    "\t\tthat would be executed\n"
    "  -p\treturns either the name of the disk file that would be executed,\n"
    "\t\tor nothing if `type -t NAME' would not return `file'\n"
    "  -t\toutput a single word which is one of `alias', `keyword',\n"
    "\t\t`function', `builtin', `file' or `', if NAME is an alias,\n"
    "\t\tshell reserved word, shell function, shell builtin, disk file,\n"
    "\t\tor not found, respectively\n"
    "\n"
    "Arguments:\n"
    "  NAME\tCommand name to be interpreted.\n"
    "\n"
    "Exit Status:\n"
    "Returns success if all of the NAMEs are found; fails if any are not "
    "found.\n"};

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
    "Runs COMMAND with ARGS suppressing  shell function lookup, or display\n"
    "information about the specified COMMANDs.  Can be used to invoke "
    "commands\n"
    "on disk when a function with the same name exists.\n"
    "\n"
    "Options:\n"
    "  -p    use a default value for PATH that is guaranteed to find all of\n"
    "        the standard utilities\n"
    "  -v    print a description of COMMAND similar to the `type' builtin\n"
    "  -V    print a more verbose description of each COMMAND\n"
    "\n"
    "Exit Status:\n"
    "Returns exit status of COMMAND, or failure if COMMAND is not found.\n"};

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
    "Execute SHELL-BUILTIN with arguments ARGs without performing command\n"
    "lookup.  This is useful when you wish to reimplement a shell builtin\n"
    "as a shell function, but need to execute the builtin within the "
    "function.\n"
    "\n"
    "Exit Status:\n"
    "Returns the exit status of SHELL-BUILTIN, or false if SHELL-BUILTIN is\n"
    "not a shell builtin.\n"};

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
    "Determine and remember the full pathname of each command NAME.  If\n"
    "no arguments are given, information about remembered commands is "
    "displayed.\n"
    "\n"
    "Options:\n"
    "  -d\tforget the remembered location of each NAME\n"
    "  -l\tdisplay in a format that may be reused as input\n"
    "  -p pathname\tuse PATHNAME as the full pathname of NAME\n"
    "  -r\tforget all remembered locations\n"
    "  -t\tprint the remembered location of each NAME, preceding\n"
    "\t\teach location with the corresponding NAME if multiple\n"
    "\t\tNAMEs are given\n"
    "Arguments:\n"
    "  NAME\tEach NAME is searched for in $PATH and added to the list\n"
    "\t\tof remembered commands.\n"
    "\n"
    "Exit Status:\n"
    "Returns success unless NAME is not found or an invalid option is "
    "given.\n"};

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
    "Without arguments, `alias' prints the list of aliases in the reusable\n"
    "form `alias NAME=VALUE' on standard output.\n"
    "\n"
    "Otherwise, an alias is defined for each NAME whose VALUE is given.\n"
    "A trailing space in VALUE causes the next word to be checked for\n"
    "alias substitution when the alias is expanded.\n"
    "\n"
    "Options:\n"
    "  -p\tprint all defined aliases in a reusable format\n"
    "\n"
    "Exit Status:\n"
    "alias returns true unless a NAME is supplied for which no alias has "
    "been\n"
    "defined.\n"};

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
    "Options:\n"
    "  -a\tremove all alias definitions\n"
    "\n"
    "Return success unless a NAME is not an existing alias.\n"};

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
    "Without EXPR, returns \"$line $filename\".  With EXPR, returns\n"
    "\"$line $subroutine $filename\"; this extra information can be used to\n"
    "provide a stack trace.\n"
    "\n"
    "The value of EXPR indicates how many call frames to go back before the\n"
    "current one; the top frame is frame 0.\n"
    "\n"
    "Exit Status:\n"
    "Returns 0 unless the shell is not executing a shell function or EXPR\n"
    "is invalid.\n"};

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
    "Enables and disables builtin shell commands.  Disabling allows you to\n"
    "execute a disk command which has the same name as a shell builtin\n"
    "without using a full pathname.\n"
    "\n"
    "Options:\n"
    "  -a\tprint a list of builtins showing whether or not each is enabled\n"
    "  -n\tdisable each NAME or display a list of disabled builtins\n"
    "  -p\tprint the list of builtins in a reusable format\n"
    "  -s\tprint only the names of Posix `special' builtins\n"
    "\n"
    "Options controlling dynamic loading:\n"
    "  -f\tLoad builtin NAME from shared object FILENAME\n"
    "  -d\tRemove a builtin loaded with -f\n"
    "\n"
    "Without options, each NAME is enabled.\n"
    "\n"
    "To use the `test' found in $PATH instead of the shell builtin\n"
    "version, type `enable -n test'.\n"
    "\n"
    "Exit Status:\n"
    "Returns success unless NAME is not a shell builtin or an error occurs.\n"};

int bi_enable(shell *sh, int argc, char **argv) {
  (void)argc;
  interp_errf(sh, "%s: not supported in memsandbox", argv[0]);
  return 1;
}
