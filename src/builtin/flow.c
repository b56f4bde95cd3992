/* flow.c - the builtins that decide what runs next: `:`, eval, `.`
 * (source), exit, return, break, continue, exec, and bash/sh (a script in a
 * nested shell). */
#include <string.h>

#include "../cmd/cmd.h"
#include "builtin.h"

/* help : */
const help_text bi_help_colon = {":",
                                 "\n"
                                 "Expands its arguments and ignores them.\n"
                                 "\n"
                                 "Exit status:\n"
                                 "Always 0.\n"};

int bi_colon(shell *sh, int argc, char **argv) {
  (void)sh;
  (void)argc;
  (void)argv;
  return 0;
}

static int bi_join(shell *sh, int argc, char **argv, int from, char **out) {
  buf b;
  int i;
  buf_init(&b, sh->m);
  for (i = from; i < argc; i++) {
    if (i > from) buf_putc(&b, ' ');
    buf_puts(&b, argv[i]);
  }
  if (b.err) {
    buf_finish(&b);
    return MSB_ENOMEM;
  }
  *out = buf_steal(&b, NULL);
  if (!*out) *out = mem_strdup(sh->m, "");
  buf_finish(&b);
  return *out ? 0 : MSB_ENOMEM;
}

/* help eval */
const help_text bi_help_eval = {
    "eval [arg ...]",
    "\n"
    "Joins the ARGs with spaces and parses and runs the result in the\n"
    "current shell, so the text goes through expansion a second time.\n"
    "\n"
    "Exit status:\n"
    "That of the last command run, or 0 when the text is empty.\n"};

int bi_eval(shell *sh, int argc, char **argv) {
  char *s;
  int rc, i = bi_opts_only(sh, argc, argv, "", "eval [arg ...]");
  if (i < 0) return 2;
  if (i >= argc) return 0;
  if ((rc = bi_join(sh, argc, argv, i, &s))) return rc;
  {
    const char *opp = sh->parse_prefix;
    sh->xlevel++;
    sh->parse_prefix = "eval: ";
    rc = interp_string(sh, s, strlen(s), sh->line);
    sh->parse_prefix = opp;
    sh->xlevel--;
  }
  mem_free(sh->m, s);
  return rc;
}

/* help . and help source: one text, two names */
static const char bi_source_help[] =
    "\n"
    "Reads FILENAME and runs its commands in this shell, so that variables,\n"
    "functions and directory changes it makes stay in effect afterwards.  A\n"
    "FILENAME without a slash is looked up in the directories of $PATH.  Any\n"
    "ARGUMENTS replace the positional parameters while the file runs.\n"
    "\n"
    "Exit status:\n"
    "The status of the file's last command, or failure when FILENAME cannot\n"
    "be found or read.\n";

const help_text bi_help_dot = {". filename [arguments]", bi_source_help};

const help_text bi_help_source = {"source filename [arguments]",
                                  bi_source_help};

int bi_source(shell *sh, int argc, char **argv) {
  buf p;
  const uint8_t *data;
  size_t len;
  int rc, i = 1;
  char *copy, **opos = NULL;
  int onpos = 0, swapped = 0;
  if (argc > 1 && !strcmp(argv[1], "--")) i = 2;
  if (i >= argc) {
    interp_errf(sh, "%s: filename argument required", argv[0]);
    interp_usagef(sh, "%s: usage: %s filename [arguments]", argv[0], argv[0]);
    return 2;
  }
  buf_init(&p, sh->m);
  interp_abspath(sh, argv[i], &p);
  rc = p.err ? p.err : vfs_read(sh->fs, buf_str(&p), &data, &len);
  buf_finish(&p);
  if (rc == MSB_ENOMEM) return rc;
  if (rc) {
    interp_errf(sh, "%s: %s", argv[i], msb_strerror(rc));
    return 1;
  }
  copy = mem_strndup(sh->m, (const char *)data, len);
  if (!copy) return MSB_ENOMEM;
  if (argc > i + 1) {
    opos = sh->pos;
    onpos = sh->npos;
    sh->pos = NULL;
    sh->npos = 0;
    swapped = 1;
    if ((rc = interp_set_pos(sh, argv + i + 1, argc - i - 1))) {
      sh->pos = opos;
      sh->npos = onpos;
      mem_free(sh->m, copy);
      return rc;
    }
  }
  {
    const char *osrc = sh->cur_src;
    if (interp_push_frame(sh, "source", argv[i])) {
      rc = MSB_ENOMEM;
    } else {
      sh->cur_src = argv[i];
      sh->sourcing++;
      sh->xlevel++;
      rc = interp_string(sh, copy, len, 1);
      sh->xlevel--;
      sh->sourcing--;
      sh->cur_src = osrc;
      sh->nfstack--;
    }
  }
  if (sh->flow == SH_FLOW_RETURN) {
    sh->flow = SH_FLOW_NONE;
    if (rc >= 0) rc = sh->status;
  }
  mem_free(sh->m, copy);
  if (swapped) {
    interp_set_pos(sh, NULL, 0);
    sh->pos = opos;
    sh->npos = onpos;
  }
  return rc;
}

/* help exit */
const help_text bi_help_exit = {
    "exit [n]",
    "\n"
    "Stops the shell with status N (0 to 255); without N, with the status\n"
    "of the last command.  An EXIT trap runs first.\n"};

/* exit and return: the status is N (the last command's by default), taken
 * modulo 256; a non-number is status 2 after bash's message, and a second
 * argument an error that leaves nothing. */
static int bi_leave(shell *sh, int argc, char **argv, int flow) {
  int64_t v = sh->status;
  if (argc > 1) {
    if (!bi_parse_int(argv[1], &v)) {
      interp_errf(sh, "%s: %s: numeric argument required", argv[0], argv[1]);
      v = 2;
    } else if (argc > 2) {
      interp_errf(sh, "%s: too many arguments", argv[0]);
      return 1;
    }
  }
  sh->status = (int)(v & 255);
  sh->flow = flow;
  return sh->status;
}

int bi_exit(shell *sh, int argc, char **argv) {
  return bi_leave(sh, argc, argv, SH_FLOW_EXIT);
}

/* help return */
const help_text bi_help_return = {
    "return [n]",
    "\n"
    "Ends the running function or sourced file with status N (0 to 255),\n"
    "or with the status of the last command when N is omitted.\n"
    "\n"
    "Exit status:\n"
    "N, or 1 when used outside a function or sourced file.\n"};

int bi_return(shell *sh, int argc, char **argv) {
  if (!sh->funcs_active && !sh->sourcing) {
    interp_errf(sh,
                "return: can only `return' from a function or sourced "
                "script");
    return 2;
  }
  return bi_leave(sh, argc, argv, SH_FLOW_RETURN);
}

/* help break */
const help_text bi_help_break = {
    "break [n]",
    "\n"
    "Ends the innermost for, while, until or select loop, or the N-th\n"
    "enclosing one when N (at least 1) is given.\n"
    "\n"
    "Exit status:\n"
    "0, unless N is not a positive number.\n"};

/* help continue */
const help_text bi_help_continue = {
    "continue [n]",
    "\n"
    "Skips the rest of the body of the innermost for, while, until or select\n"
    "loop and starts its next iteration; with N, of the N-th enclosing loop.\n"
    "\n"
    "Exit status:\n"
    "0, unless N is not a positive number.\n"};

int bi_loopctl(shell *sh, int argc, char **argv) {
  int64_t n = 1;
  int brk = argv[0][0] == 'b';
  if (argc > 1) {
    if (!bi_parse_int(argv[1], &n)) {
      interp_errf(sh, "%s: %s: numeric argument required", argv[0], argv[1]);
      sh->status = 128;
      sh->flow = SH_FLOW_EXIT;
      return 128;
    }
    if (n < 1) {
      interp_errf(sh, "%s: %s: loop count out of range", argv[0], argv[1]);
      return 1;
    }
  }
  if (!sh->loops) {
    interp_errf(sh,
                "%s: only meaningful in a `for', `while', or `until' "
                "loop",
                argv[0]);
    return 0;
  }
  if (argc > 2) {
    /* bash abandons the whole script here */
    interp_errf(sh, "%s: too many arguments", argv[0]);
    sh->status = 1;
    sh->flow = SH_FLOW_EXIT;
    return 1;
  }
  if (n > sh->loops) n = sh->loops;
  sh->flow = brk ? SH_FLOW_BREAK : SH_FLOW_CONT;
  sh->flow_n = (int)n;
  return 0;
}

/* help exec */
const help_text bi_help_exec = {
    "exec [-cl] [-a name] [command [argument ...]] [redirection ...]",
    "\n"
    "With COMMAND, runs it and then ends the shell with its status, as a\n"
    "real exec replacing the process would.  Without COMMAND, the\n"
    "redirections apply to the current shell and stay in effect.  The\n"
    "options -a, -c and -l are not supported in the sandbox.\n"
    "\n"
    "Exit status:\n"
    "Without COMMAND, 0 unless a redirection fails; with one, the shell ends\n"
    "with COMMAND's status (127 when it is not found).\n"};

#define BI_EXEC_USAGE \
  "exec [-cl] [-a name] [command [argument ...]] [redirection ...]"

/* Whether exec finds name: a program on disk (the commands, bash and sh,
 * scripts on $PATH), never a function or a shell-only builtin. */
static int bi_exec_found(shell *sh, const char *name) {
  buf full;
  int found;
  if (strchr(name, '/') || cmd_find(name) || !strcmp(name, "bash") ||
      !strcmp(name, "sh"))
    return 1;
  buf_init(&full, sh->m);
  found = interp_path_script(sh, name, &full);
  buf_finish(&full);
  return found;
}

int bi_exec(shell *sh, int argc, char **argv) {
  int rc, i = 1;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    const char *o = argv[i] + 1;
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    for (; *o; o++) {
      if (*o == 'a') {
        /* -a NAME sets the program's $0, which no command here reads */
        if (!o[1] && ++i >= argc) {
          interp_errf(sh, "exec: -a: option requires an argument");
          return bi_usage(sh, "exec", BI_EXEC_USAGE);
        }
        break;
      }
      if (*o != 'c' && *o != 'l')
        return bi_badletter(sh, "exec", *o, BI_EXEC_USAGE);
    }
  }
  if (i >= argc) return 0; /* redirections already applied permanently */
  sh->flow = SH_FLOW_EXIT;
  if (!bi_exec_found(sh, argv[i])) {
    interp_errf(sh, "exec: %s: not found", argv[i]);
    return sh->status = 127;
  }
  sh->flow = SH_FLOW_NONE;
  rc = interp_run_argv(sh, argc - i, argv + i, 1);
  if (rc < 0) return rc;
  sh->status = rc;
  sh->flow = SH_FLOW_EXIT;
  return rc;
}

int bi_bash(shell *sh, int argc, char **argv) {
  int i = 1;
  unsigned opts = 0;
  const char *cstr = NULL;
  for (; i < argc && (argv[i][0] == '-' || argv[i][0] == '+') && argv[i][1];
       i++) {
    const char *o;
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    if (!strcmp(argv[i], "--norc") || !strcmp(argv[i], "--noprofile") ||
        !strcmp(argv[i], "--posix"))
      continue;
    if (argv[i][0] == '+') continue;
    for (o = argv[i] + 1; *o; o++) {
      switch (*o) {
      case 'c': cstr = ""; break;
      case 'e': opts |= SH_O_ERREXIT; break;
      case 'u': opts |= SH_O_NOUNSET; break;
      case 'x': opts |= SH_O_XTRACE; break;
      case 'f': opts |= SH_O_NOGLOB; break;
      case 'o':
        if (i + 1 < argc && !strcmp(argv[i + 1], "pipefail"))
          opts |= SH_O_PIPEFAIL;
        i++;
        break;
      case 's':
      case 'l':
      case 'i': break;
      default:
        interp_errf(sh, "%s: -%c: invalid option", argv[0], *o);
        return 2;
      }
    }
  }
  if (cstr) {
    char **av;
    int rc;
    if (i >= argc) {
      interp_errf(sh, "%s: -c: option requires an argument", argv[0]);
      return 2;
    }
    cstr = argv[i++];
    /* bash -c 'cmd' name args: $0 is name */
    av = argv + i - 1;
    if (i < argc) {
      char **nav = mem_zalloc(sh->m, (size_t)(argc - i + 1) * sizeof *nav);
      int k;
      if (!nav) return MSB_ENOMEM;
      for (k = 0; k < argc - i; k++) nav[k] = argv[i + k];
      {
        char *copy = mem_strdup(sh->m, cstr);
        if (!copy) {
          mem_free(sh->m, nav);
          return MSB_ENOMEM;
        }
        rc = interp_run_script(sh, nav[0], copy, strlen(copy), argc - i, nav,
                               opts | SH_O_CSTRING);
        mem_free(sh->m, copy);
      }
      mem_free(sh->m, nav);
      return rc;
    }
    {
      char *copy = mem_strdup(sh->m, cstr);
      char *one[2];
      if (!copy) return MSB_ENOMEM;
      one[0] = argv[0];
      one[1] = NULL;
      (void)av;
      rc = interp_run_script(sh, argv[0], copy, strlen(copy), 1, one,
                             opts | SH_O_CSTRING);
      mem_free(sh->m, copy);
      return rc;
    }
  }
  if (i >= argc) {
    const uint8_t *in;
    size_t n;
    char *copy;
    char *one[2];
    int rc;
    interp_input(sh, 0, &in, &n);
    if ((rc = interp_input_end(sh, 0))) return rc;
    copy = mem_strndup(sh->m, (const char *)in, n);
    if (!copy) return MSB_ENOMEM;
    interp_consume(sh, 0, n);
    one[0] = argv[0];
    one[1] = NULL;
    rc = interp_run_script(sh, argv[0], copy, n, 1, one, opts);
    mem_free(sh->m, copy);
    return rc;
  }
  {
    buf p;
    const uint8_t *data;
    size_t len;
    int rc;
    char *copy;
    buf_init(&p, sh->m);
    interp_abspath(sh, argv[i], &p);
    rc = p.err ? p.err : vfs_read(sh->fs, buf_str(&p), &data, &len);
    buf_finish(&p);
    if (rc == MSB_ENOMEM) return rc;
    if (rc) {
      buf b;
      buf_init(&b, sh->m);
      buf_printf(&b, "%s: %s: %s\n", argv[0], argv[i], msb_strerror(rc));
      if (!b.err) interp_write(sh, 2, b.p, b.len);
      buf_finish(&b);
      return rc == MSB_EISDIR ? 126 : 127;
    }
    copy = mem_strndup(sh->m, (const char *)data, len);
    if (!copy) return MSB_ENOMEM;
    rc = interp_run_script(sh, argv[i], copy, len, argc - i, argv + i, opts);
    mem_free(sh->m, copy);
    return rc;
  }
}

/* The builtins that run shell code (eval, source, bash) are called
 * directly, so a paced run can pause inside them: the wasm build's
 * Asyncify follows direct calls only (see interp_pace). The rest are
 * called through the table and run whole within a slice. */
int builtin_run(shell *sh, const sh_builtin *b, int argc, char **argv) {
  int rc;
  if (b->fn == bi_eval) return bi_eval(sh, argc, argv);
  if (b->fn == bi_source) return bi_source(sh, argc, argv);
  if (b->fn == bi_bash) return bi_bash(sh, argc, argv);
  sh->run->no_yield++;
  rc = b->fn(sh, argc, argv);
  sh->run->no_yield--;
  return rc;
}
