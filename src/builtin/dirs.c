/* dirs.c - the working directory and its stack: cd, pwd, dirs, pushd,
 * popd. */
#include <string.h>

#include "builtin.h"

static int bi_chdir(shell *sh, const char *arg, const char *shown,
                    int physical) {
  buf p;
  struct vfs_stat st;
  int rc;
  char *np;
  buf_init(&p, sh->m);
  if (physical) {
    buf t;
    buf_init(&t, sh->m);
    interp_abspath(sh, arg, &t);
    rc = t.err ? t.err : vfs_realpath(sh->fs, buf_str(&t), 0, &p);
    buf_finish(&t);
  } else {
    vfs_abspath(sh->cwd, arg, &p); /* logical: link/.. is where we were */
    rc = p.err;
  }
  if (!rc) rc = vfs_stat(sh->fs, buf_str(&p), 1, &st);
  if (!rc && st.kind != VFS_DIR) rc = MSB_ENOTDIR;
  /* a directory the policy hides cannot become the cwd */
  if (!rc) rc = vfs_access(sh->fs, buf_str(&p), VFS_ACC_READ);
  if (rc) {
    buf_finish(&p);
    if (rc == MSB_ENOMEM) return rc;
    interp_errf(sh, "cd: %s: %s", shown, msb_strerror(rc));
    return 1;
  }
  np = buf_steal(&p, NULL);
  buf_finish(&p);
  if (!np) return MSB_ENOMEM;
  var_set(sh->vars, "OLDPWD", sh->cwd, 0);
  mem_free(sh->m, sh->cwd);
  sh->cwd = np;
  var_set(sh->vars, "PWD", np, 0);
  return 0;
}

/* help cd */
const help_text bi_help_cd = {
    "cd [-L|[-P [-e]] [-@]] [dir]",
    "\n"
    "Makes DIR the working directory and updates PWD and OLDPWD.  With no\n"
    "DIR, goes to $HOME; `cd -' goes to $OLDPWD and prints it.  A relative\n"
    "DIR not starting with `.' or `..' is searched for in the colon-separated\n"
    "directories of CDPATH first; a directory found that way is printed.\n"
    "\n"
    "Options:\n"
    "  -L   keep symbolic links in the new PWD, resolving `..' textually\n"
    "       (the default)\n"
    "  -P   resolve symbolic links to the physical directory\n"
    "  -e   with -P, fail when the new directory cannot be determined\n"
    "  -@   accepted for compatibility; extended attributes do not exist here\n"
    "\n"
    "Exit status:\n"
    "0 when the directory changed, otherwise nonzero.\n"};

int bi_cd(shell *sh, int argc, char **argv) {
  int i = 1, phys = 0, rc;
  const char *dir;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    const char *o;
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    for (o = argv[i] + 1; *o; o++) {
      if (*o == 'P')
        phys = 1;
      else if (*o == 'L')
        phys = 0;
      else if (*o == 'e' || *o == '@')
        ;
      else
        return bi_badletter(sh, "cd", *o, "cd [-L|[-P [-e]] [-@]] [dir]");
    }
  }
  if (argc - i > 1) {
    interp_errf(sh, "cd: too many arguments");
    return 1;
  }
  if (i >= argc) {
    dir = var_value(sh->vars, "HOME");
    if (!dir) {
      interp_errf(sh, "cd: HOME not set");
      return 1;
    }
    if (!*dir) return 0;
    return bi_chdir(sh, dir, dir, phys);
  }
  dir = argv[i];
  if (!strcmp(dir, "-")) {
    const char *old = var_value(sh->vars, "OLDPWD");
    char *copy;
    if (!old) {
      interp_errf(sh, "cd: OLDPWD not set");
      return 1;
    }
    copy = mem_strdup(sh->m, old);
    if (!copy) return MSB_ENOMEM;
    rc = bi_chdir(sh, copy, copy, phys);
    mem_free(sh->m, copy);
    if (!rc) {
      buf b;
      buf_init(&b, sh->m);
      buf_printf(&b, "%s\n", sh->cwd);
      return bi_out(sh, &b);
    }
    return rc;
  }
  if (!*dir) return 0;
  return bi_chdir(sh, dir, dir, phys);
}

/* help pwd */
const help_text bi_help_pwd = {
    "pwd [-LP]",
    "\n"
    "Options:\n"
    "  -L   print $PWD, which may contain symbolic links (the default)\n"
    "  -P   print the path with symbolic links resolved\n"
    "\n"
    "Exit status:\n"
    "0, unless an option is invalid or the directory cannot be read.\n"};

int bi_pwd(shell *sh, int argc, char **argv) {
  buf b;
  int i, phys = 0;
  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-P"))
      phys = 1;
    else if (!strcmp(argv[i], "-L"))
      phys = 0;
    else if (argv[i][0] == '-' && argv[i][1])
      return bi_badopt(sh, "pwd", argv[i], "pwd [-LP]");
  }
  buf_init(&b, sh->m);
  if (phys) {
    if (vfs_realpath(sh->fs, sh->cwd, 0, &b)) {
      buf_clear(&b);
      buf_puts(&b, sh->cwd);
    }
  } else
    buf_puts(&b, sh->cwd);
  buf_putc(&b, '\n');
  return bi_out(sh, &b);
}

static int bi_dirs_print(shell *sh) {
  buf b;
  int i;
  const char *home = var_value(sh->vars, "HOME");
  size_t hl = home ? strlen(home) : 0;
  buf_init(&b, sh->m);
  for (i = -1; i < sh->ndirs; i++) {
    const char *d = i < 0 ? sh->cwd : sh->dirstack[sh->ndirs - 1 - i];
    if (i >= 0) buf_putc(&b, ' ');
    if (hl && !strncmp(d, home, hl) && (d[hl] == '/' || !d[hl])) {
      buf_putc(&b, '~');
      buf_puts(&b, d + hl);
    } else
      buf_puts(&b, d);
  }
  buf_putc(&b, '\n');
  return bi_out(sh, &b);
}

/* help dirs */
const help_text bi_help_dirs = {
    "dirs [-clpv] [+N] [-N]",
    "\n"
    "Prints the directory stack that pushd and popd keep, the working\n"
    "directory first, on one line, with the home directory shown as `~'.\n"
    "The options and +N, -N are not supported in the sandbox and are\n"
    "ignored.\n"
    "\n"
    "Exit status:\n"
    "Always 0.\n"};

int bi_dirs(shell *sh, int argc, char **argv) {
  (void)argc;
  (void)argv;
  return bi_dirs_print(sh);
}

/* help pushd */
const help_text bi_help_pushd = {
    "pushd [-n] [+N | -N | dir]",
    "\n"
    "Changes to DIR, keeps the previous directory on the stack and prints\n"
    "the stack as dirs does.  The forms without DIR, +N, -N and -n are not\n"
    "supported in the sandbox.\n"
    "\n"
    "Exit status:\n"
    "0, unless DIR is missing or the directory change fails.\n"};

int bi_pushd(shell *sh, int argc, char **argv) {
  char *old, **ns;
  int rc;
  if (argc < 2) {
    interp_errf(sh, "pushd: no other directory");
    return 1;
  }
  old = mem_strdup(sh->m, sh->cwd);
  if (!old) return MSB_ENOMEM;
  rc = bi_chdir(sh, argv[1], argv[1], 0);
  if (rc) {
    mem_free(sh->m, old);
    return rc;
  }
  ns = mem_realloc(sh->m, sh->dirstack, ((size_t)sh->ndirs + 1) * sizeof *ns);
  if (!ns) {
    mem_free(sh->m, old);
    return MSB_ENOMEM;
  }
  sh->dirstack = ns;
  ns[sh->ndirs++] = old;
  return bi_dirs_print(sh);
}

/* help popd */
const help_text bi_help_popd = {
    "popd [-n] [+N | -N]",
    "\n"
    "Takes the top directory off the stack, changes to it and prints the\n"
    "stack as dirs does.  -n, +N and -N are not supported in the sandbox\n"
    "and are ignored.\n"
    "\n"
    "Exit status:\n"
    "0, unless the stack is empty or the directory change fails.\n"};

int bi_popd(shell *sh, int argc, char **argv) {
  char *d;
  int rc;
  (void)argc;
  (void)argv;
  if (!sh->ndirs) {
    interp_errf(sh, "popd: directory stack empty");
    return 1;
  }
  d = sh->dirstack[--sh->ndirs];
  rc = bi_chdir(sh, d, d, 0);
  mem_free(sh->m, d);
  if (rc) return rc;
  return bi_dirs_print(sh);
}
