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
    interp_abspath(sh, arg, &p);
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
    "Change the current directory to DIR.  The default DIR is the value of "
    "the\n"
    "HOME shell variable. If DIR is \"-\", it is converted to $OLDPWD.\n"
    "\n"
    "The variable CDPATH defines the search path for the directory "
    "containing\n"
    "DIR.  Alternative directory names in CDPATH are separated by a colon "
    "(:).\n"
    "A null directory name is the same as the current directory.  If DIR "
    "begins\n"
    "with a slash (/), then CDPATH is not used.\n"
    "\n"
    "If the directory is not found, and the shell option `cdable_vars' is "
    "set,\n"
    "the word is assumed to be  a variable name.  If that variable has a "
    "value,\n"
    "its value is used for DIR.\n"
    "\n"
    "Options:\n"
    "  -L\tforce symbolic links to be followed: resolve symbolic\n"
    "\t\tlinks in DIR after processing instances of `..'\n"
    "  -P\tuse the physical directory structure without following\n"
    "\t\tsymbolic links: resolve symbolic links in DIR before\n"
    "\t\tprocessing instances of `..'\n"
    "  -e\tif the -P option is supplied, and the current working\n"
    "\t\tdirectory cannot be determined successfully, exit with\n"
    "\t\ta non-zero status\n"
    "  -@\ton systems that support it, present a file with extended\n"
    "\t\tattributes as a directory containing the file attributes\n"
    "\n"
    "The default is to follow symbolic links, as if `-L' were specified.\n"
    "`..' is processed by removing the immediately previous pathname "
    "component\n"
    "back to a slash or the beginning of DIR.\n"
    "\n"
    "Exit Status:\n"
    "Returns 0 if the directory is changed, and if $PWD is set successfully "
    "when\n"
    "-P is used; non-zero otherwise.\n"};

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
    "  -L\tprint the value of $PWD if it names the current working\n"
    "\t\tdirectory\n"
    "  -P\tprint the physical directory, without any symbolic links\n"
    "\n"
    "By default, `pwd' behaves as if `-L' were specified.\n"
    "\n"
    "Exit Status:\n"
    "Returns 0 unless an invalid option is given or the current directory\n"
    "cannot be read.\n"};

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
    "Display the list of currently remembered directories.  Directories\n"
    "find their way onto the list with the `pushd' command; you can get\n"
    "back up through the list with the `popd' command.\n"
    "\n"
    "Options:\n"
    "  -c\tclear the directory stack by deleting all of the elements\n"
    "  -l\tdo not print tilde-prefixed versions of directories relative\n"
    "\t\tto your home directory\n"
    "  -p\tprint the directory stack with one entry per line\n"
    "  -v\tprint the directory stack with one entry per line prefixed\n"
    "\t\twith its position in the stack\n"
    "\n"
    "Arguments:\n"
    "  +N\tDisplays the Nth entry counting from the left of the list\n"
    "\t\tshown by dirs when invoked without options, starting with\n"
    "\t\tzero.\n"
    "\n"
    "  -N\tDisplays the Nth entry counting from the right of the list\n"
    "\t\tshown by dirs when invoked without options, starting with\n"
    "\t\tzero.\n"
    "\n"
    "Exit Status:\n"
    "Returns success unless an invalid option is supplied or an error "
    "occurs.\n"};

int bi_dirs(shell *sh, int argc, char **argv) {
  (void)argc;
  (void)argv;
  return bi_dirs_print(sh);
}

/* help pushd */
const help_text bi_help_pushd = {
    "pushd [-n] [+N | -N | dir]",
    "\n"
    "Adds a directory to the top of the directory stack, or rotates\n"
    "the stack, making the new top of the stack the current working\n"
    "directory.  With no arguments, exchanges the top two directories.\n"
    "\n"
    "Options:\n"
    "  -n\tSuppresses the normal change of directory when adding\n"
    "\t\tdirectories to the stack, so only the stack is manipulated.\n"
    "\n"
    "Arguments:\n"
    "  +N\tRotates the stack so that the Nth directory (counting\n"
    "\t\tfrom the left of the list shown by `dirs', starting with\n"
    "\t\tzero) is at the top.\n"
    "\n"
    "  -N\tRotates the stack so that the Nth directory (counting\n"
    "\t\tfrom the right of the list shown by `dirs', starting with\n"
    "\t\tzero) is at the top.\n"
    "\n"
    "  dir\tAdds DIR to the directory stack at the top, making it the\n"
    "\t\tnew current working directory.\n"
    "\n"
    "The `dirs' builtin displays the directory stack.\n"
    "\n"
    "Exit Status:\n"
    "Returns success unless an invalid argument is supplied or the "
    "directory\n"
    "change fails.\n"};

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
    "Removes entries from the directory stack.  With no arguments, removes\n"
    "the top directory from the stack, and changes to the new top "
    "directory.\n"
    "\n"
    "Options:\n"
    "  -n\tSuppresses the normal change of directory when removing\n"
    "\t\tdirectories from the stack, so only the stack is manipulated.\n"
    "\n"
    "Arguments:\n"
    "  +N\tRemoves the Nth entry counting from the left of the list\n"
    "\t\tshown by `dirs', starting with zero.  For example: `popd +0'\n"
    "\t\tremoves the first directory, `popd +1' the second.\n"
    "\n"
    "  -N\tRemoves the Nth entry counting from the right of the list\n"
    "\t\tshown by `dirs', starting with zero.  For example: `popd -0'\n"
    "\t\tremoves the last directory, `popd -1' the next to last.\n"
    "\n"
    "The `dirs' builtin displays the directory stack.\n"
    "\n"
    "Exit Status:\n"
    "Returns success unless an invalid argument is supplied or the "
    "directory\n"
    "change fails.\n"};

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
