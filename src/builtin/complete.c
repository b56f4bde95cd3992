/* complete.c - programmable completion's builtins, as bash 5.2 has them
 * for a non-interactive shell: `complete` records, prints and removes
 * completion specs, `compopt` changes their options; `compgen` prints the
 * words an action list, a word list, a glob, a shell function or a command
 * give for a word (hosts and the browser terminal call it for tab
 * completion). `logout` lives here too: like them, it only means something
 * to an interactive shell.
 *
 * `complete -p` lists specs in bash's hash-table order (FNV-1 over 512
 * buckets, the newest first within a bucket) so listings match bash's.
 * The actions that need the host's user, group, host or service databases
 * or readline's key bindings are recorded by `complete` but refused by
 * `compgen` with a specific message. Directory listings come sorted (bash
 * gives readdir order, which no two filesystems share). */
#include <stdlib.h>
#include <string.h>

#include "../cmd/cmd.h"
#include "../glob.h"
#include "../trap.h"
#include "builtin.h"

/* One action (complete/compgen -A NAME, or its letter); the table order
 * is bash's order of generation and of printing. */
enum {
  CA_ALIAS,
  CA_ARRAYVAR,
  CA_BINDING,
  CA_BUILTIN,
  CA_COMMAND,
  CA_DIRECTORY,
  CA_DISABLED,
  CA_ENABLED,
  CA_EXPORT,
  CA_FILE,
  CA_FUNCTION,
  CA_GROUP,
  CA_HELPTOPIC,
  CA_HOSTNAME,
  CA_JOB,
  CA_KEYWORD,
  CA_RUNNING,
  CA_SERVICE,
  CA_SETOPT,
  CA_SHOPT,
  CA_SIGNAL,
  CA_STOPPED,
  CA_USER,
  CA_VARIABLE,
  CA_COUNT
};

static const struct {
  const char *name;
  char letter;   /* its short option, 0: only -A NAME */
  char unsupp;   /* compgen refuses it (host databases, readline) */
} bi_actions[CA_COUNT] = {
    {"alias", 'a', 0},   {"arrayvar", 0, 0},  {"binding", 0, 1},
    {"builtin", 'b', 0}, {"command", 'c', 0}, {"directory", 'd', 0},
    {"disabled", 0, 0},  {"enabled", 0, 0},   {"export", 'e', 0},
    {"file", 'f', 0},    {"function", 0, 0},  {"group", 'g', 1},
    {"helptopic", 0, 1}, {"hostname", 0, 1},  {"job", 'j', 0},
    {"keyword", 'k', 0}, {"running", 0, 0},   {"service", 's', 1},
    {"setopt", 0, 0},    {"shopt", 0, 0},     {"signal", 0, 0},
    {"stopped", 0, 0},   {"user", 'u', 1},    {"variable", 'v', 0},
};

/* complete -o / compgen -o names, in bash's printing order. */
static const char *const bi_copts[] = {"bashdefault", "default",  "dirnames",
                                       "filenames",   "noquote",  "nosort",
                                       "nospace",     "plusdirs", NULL};
enum {
  COPT_BASHDEFAULT = 1,
  COPT_DEFAULT = 2,
  COPT_DIRNAMES = 4,
  COPT_PLUSDIRS = 128
};

/* The string arguments, in bash's printing order (-F is printed bare). */
enum {
  CS_GLOB,
  CS_WORDS,
  CS_PREFIX,
  CS_SUFFIX,
  CS_FILTER,
  CS_COMMAND,
  CS_FUNC,
  CS_NSTR
};
static const char bi_cs_letters[CS_NSTR] = {'G', 'W', 'P', 'S', 'X', 'C', 'F'};

/* Reserved words, in bash's table order (compgen -k). */
static const char *const bi_keywords[] = {
    "if",     "then",  "else",  "elif", "fi",   "case",   "esac",     "for",
    "select", "while", "until", "do",   "done", "in",     "function", "time",
    "{",      "}",     "!",     "[[",   "]]",   "coproc", NULL};

/* bash's special names for complete -D, -E and -I. */
#define BI_DEFAULTCMD "_DefaultCmD_"
#define BI_EMPTYCMD "_EmptycmD_"
#define BI_INITIALWORD "_InitialWorD_"

typedef struct bi_compspec {
  char *name;
  uint32_t bucket; /* bash's hash bucket (listing order) */
  uint64_t seq;    /* insertion order: newest first within a bucket */
  uint32_t actions, opts;
  char *str[CS_NSTR];
} bi_compspec;

/* One parsed command line of complete/compgen. */
typedef struct bi_cargs {
  uint32_t actions, opts;
  const char *str[CS_NSTR];
  int print, remove, dflt, empty, initial;
  int first; /* index of the first operand */
} bi_cargs;

#define BI_COMPLETE_USAGE                                                 \
  "complete [-abcdefgjksuv] [-pr] [-DEI] [-o option] [-A action] [-G "    \
  "globpat] [-W wordlist] [-F function] [-C command] [-X filterpat] [-P " \
  "prefix] [-S suffix] [name ...]"
#define BI_COMPGEN_USAGE                                                 \
  "compgen [-abcdefgjksuv] [-o option] [-A action] [-G globpat] [-W "    \
  "wordlist] [-F function] [-C command] [-X filterpat] [-P prefix] [-S " \
  "suffix] [word]"

/* bash's hash_string (FNV-1) reduced to a bucket of 512. */
static uint32_t bi_comp_bucket(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) {
    h *= 16777619u;
    h ^= (unsigned char)*s;
  }
  return h & 511u;
}

static int bi_comp_action(const char *name) {
  int k;
  for (k = 0; k < CA_COUNT; k++)
    if (!strcmp(bi_actions[k].name, name)) return k;
  return -1;
}

static int bi_comp_letter(int c) {
  int k;
  for (k = 0; k < CA_COUNT; k++)
    if (bi_actions[k].letter == c) return k;
  return -1;
}

/* Parses the options shared by complete and compgen; 0, or the status to
 * return after a message. */
static int bi_comp_opts(shell *sh, int argc, char **argv, int compgen,
                        bi_cargs *a) {
  const char *name = argv[0];
  const char *usage = compgen ? BI_COMPGEN_USAGE : BI_COMPLETE_USAGE;
  const char *strs = "GWPSXCF";
  int i;
  memset(a, 0, sizeof *a);
  for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    const char *o = argv[i] + 1;
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    for (; *o; o++) {
      const char *val = NULL;
      int k;
      if (strchr("oA", *o) || strchr(strs, *o)) {
        if (o[1])
          val = o + 1;
        else if (i + 1 < argc)
          val = argv[++i];
        else {
          interp_errf(sh, "%s: -%c: option requires an argument", name, *o);
          return bi_usage(sh, name, usage);
        }
      }
      if (*o == 'o') {
        for (k = 0; bi_copts[k] && strcmp(bi_copts[k], val); k++);
        if (!bi_copts[k]) {
          interp_errf(sh, "%s: %s: invalid option name", name, val);
          return 2;
        }
        a->opts |= 1u << k;
      } else if (*o == 'A') {
        k = bi_comp_action(val);
        if (k < 0) {
          interp_errf(sh, "%s: %s: invalid action name", name, val);
          return 2;
        }
        a->actions |= 1u << k;
      } else if (strchr(strs, *o))
        a->str[strchr(strs, *o) - strs] = val;
      else if (!compgen && *o == 'p')
        a->print = 1;
      else if (!compgen && *o == 'r')
        a->remove = 1;
      else if (!compgen && *o == 'D')
        a->dflt = 1;
      else if (!compgen && *o == 'E')
        a->empty = 1;
      else if (!compgen && *o == 'I')
        a->initial = 1;
      else if ((k = bi_comp_letter(*o)) >= 0)
        a->actions |= 1u << k;
      else
        return bi_badletter(sh, name, *o, usage);
      if (val) break;
    }
  }
  a->first = i;
  return 0;
}

/* help compgen */
const help_text bi_help_compgen = {
    "compgen [-abcdefgjksuv] [-o option] [-A action] [-G globpat] [-W "
    "wordlist] [-F function] [-C command] [-X filterpat] [-P prefix] [-S "
    "suffix] [word]",
    "\n"
    "Prints, one per line, the words a completion with the given options\n"
    "would offer, keeping those that start with WORD when it is given:\n"
    "command names, files, directories, variables, functions, aliases or\n"
    "the words of a list (-W).  Most useful inside a completion function.\n"
    "Users, groups, host names and services do not exist in the sandbox.\n"
    "\n"
    "Exit status:\n"
    "0 when some word was printed, 1 when none matched, 2 on a bad option.\n"};

/* help complete */
const help_text bi_help_complete = {
    "complete [-abcdefgjksuv] [-pr] [-DEI] [-o option] [-A action] [-G "
    "globpat] [-W wordlist] [-F function] [-C command] [-X filterpat] [-P "
    "prefix] [-S suffix] [name ...]",
    "\n"
    "Records for each NAME how its arguments are to be completed; the\n"
    "options are compgen's.  With -p or no options, prints the recorded\n"
    "rules as commands that would record them again; -r removes the rules\n"
    "of each NAME, or all of them.  -D, -E and -I set the rule used for\n"
    "commands with none of their own, for an empty line and for the first\n"
    "word; when several are given, -D wins over -E, and -E over -I.\n"
    "\n"
    "Exit status:\n"
    "0 unless an option or a NAME is invalid.\n"};

/* ---- complete ------------------------------------------------------------ */

static void bi_comp_free_one(shell *sh, bi_compspec *c) {
  int k;
  mem_free(sh->m, c->name);
  for (k = 0; k < CS_NSTR; k++) mem_free(sh->m, c->str[k]);
}

void bi_complete_free(shell *sh) {
  size_t i;
  for (i = 0; i < sh->ncompspecs; i++) bi_comp_free_one(sh, &sh->compspecs[i]);
  mem_free(sh->m, sh->compspecs);
  sh->compspecs = NULL;
  sh->ncompspecs = 0;
}

static char *bi_comp_dup(mem *m, const char *s) {
  return s ? mem_strdup(m, s) : NULL;
}

/* Fills c from a's strings; 0 or MSB_ENOMEM (c then holds what it got). */
static int bi_comp_fill(mem *m, bi_compspec *c, const char *name,
                        uint32_t actions, uint32_t opts,
                        const char *const *str) {
  int k, rc = 0;
  c->name = mem_strdup(m, name);
  if (!c->name) rc = MSB_ENOMEM;
  c->bucket = bi_comp_bucket(name);
  c->actions = actions;
  c->opts = opts;
  for (k = 0; k < CS_NSTR; k++) {
    c->str[k] = bi_comp_dup(m, str[k]);
    if (str[k] && !c->str[k]) rc = MSB_ENOMEM;
  }
  return rc;
}

int bi_complete_copy(shell *c, const shell *sh) {
  size_t i;
  c->compspecs = NULL;
  c->ncompspecs = 0;
  if (!sh->ncompspecs) return 0;
  c->compspecs = mem_zalloc(c->m, sh->ncompspecs * sizeof *c->compspecs);
  if (!c->compspecs) return MSB_ENOMEM;
  for (i = 0; i < sh->ncompspecs; i++) {
    const bi_compspec *s = &sh->compspecs[i];
    bi_compspec *d = &c->compspecs[i];
    c->ncompspecs = i + 1;
    if (bi_comp_fill(c->m, d, s->name, s->actions, s->opts,
                     (const char *const *)s->str))
      return MSB_ENOMEM;
    d->seq = s->seq;
  }
  return 0;
}

static bi_compspec *bi_comp_find(shell *sh, const char *name) {
  size_t i;
  for (i = 0; i < sh->ncompspecs; i++)
    if (!strcmp(sh->compspecs[i].name, name)) return &sh->compspecs[i];
  return NULL;
}

/* Records a spec for name; a known name keeps its place in the listing. */
static int bi_comp_set(shell *sh, const char *name, const bi_cargs *a) {
  bi_compspec *c = bi_comp_find(sh, name), fresh;
  uint64_t seq = 0;
  size_t i;
  for (i = 0; i < sh->ncompspecs; i++)
    if (sh->compspecs[i].seq >= seq) seq = sh->compspecs[i].seq + 1;
  memset(&fresh, 0, sizeof fresh);
  if (bi_comp_fill(sh->m, &fresh, name, a->actions, a->opts, a->str)) {
    bi_comp_free_one(sh, &fresh);
    return MSB_ENOMEM;
  }
  if (c) {
    fresh.seq = c->seq;
    bi_comp_free_one(sh, c);
    *c = fresh;
    return 0;
  }
  fresh.seq = seq;
  c = mem_realloc(sh->m, sh->compspecs,
                  (sh->ncompspecs + 1) * sizeof *sh->compspecs);
  if (!c) {
    bi_comp_free_one(sh, &fresh);
    return MSB_ENOMEM;
  }
  sh->compspecs = c;
  sh->compspecs[sh->ncompspecs++] = fresh;
  return 0;
}

static void bi_comp_remove(shell *sh, size_t i) {
  bi_comp_free_one(sh, &sh->compspecs[i]);
  sh->compspecs[i] = sh->compspecs[--sh->ncompspecs];
}

/* bash's single quoting of a spec's string arguments. */
static void bi_comp_squote(buf *b, const char *s) {
  buf_putc(b, '\'');
  for (; *s; s++) {
    if (*s == '\'')
      buf_puts(b, "'\\''");
    else
      buf_putc(b, *s);
  }
  buf_putc(b, '\'');
}

/* One `complete -p` line. */
static void bi_comp_print(buf *b, const bi_compspec *c) {
  int k;
  buf_puts(b, "complete ");
  for (k = 0; bi_copts[k]; k++)
    if (c->opts & (1u << k)) buf_printf(b, "-o %s ", bi_copts[k]);
  for (k = 0; k < CA_COUNT; k++)
    if ((c->actions & (1u << k)) && bi_actions[k].letter)
      buf_printf(b, "-%c ", bi_actions[k].letter);
  for (k = 0; k < CA_COUNT; k++)
    if ((c->actions & (1u << k)) && !bi_actions[k].letter)
      buf_printf(b, "-A %s ", bi_actions[k].name);
  for (k = 0; k < CS_NSTR; k++) {
    if (!c->str[k]) continue;
    buf_printf(b, "-%c ", bi_cs_letters[k]);
    if (k == CS_FUNC)
      buf_puts(b, c->str[k]);
    else
      bi_comp_squote(b, c->str[k]);
    buf_putc(b, ' ');
  }
  if (!strcmp(c->name, BI_DEFAULTCMD))
    buf_puts(b, "-D\n");
  else if (!strcmp(c->name, BI_EMPTYCMD))
    buf_puts(b, "-E\n");
  else if (!strcmp(c->name, BI_INITIALWORD))
    buf_puts(b, "-I\n");
  else
    buf_printf(b, "%s\n", c->name);
}

/* bash's listing order: bucket, then the newest first. */
static int bi_comp_before(const bi_compspec *x, const bi_compspec *y) {
  if (x->bucket != y->bucket) return x->bucket < y->bucket;
  return x->seq > y->seq;
}

static int bi_comp_print_all(shell *sh) {
  buf b;
  size_t i, j;
  bi_compspec **v;
  if (!sh->ncompspecs) return 0;
  v = mem_alloc(sh->m, sh->ncompspecs * sizeof *v);
  if (!v) return MSB_ENOMEM;
  for (i = 0; i < sh->ncompspecs; i++) {
    v[i] = &sh->compspecs[i];
    for (j = i; j > 0 && bi_comp_before(v[j], v[j - 1]); j--) {
      bi_compspec *t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  }
  buf_init(&b, sh->m);
  for (i = 0; i < sh->ncompspecs; i++) bi_comp_print(&b, v[i]);
  mem_free(sh->m, v);
  return bi_out(sh, &b);
}

/* The names -D -E -I stand for, then the operands. */
static int bi_comp_names(const bi_cargs *a, int argc, char **argv,
                         const char **names) {
  int n = 0, i;
  if (a->dflt) names[n++] = BI_DEFAULTCMD;
  if (a->empty) names[n++] = BI_EMPTYCMD;
  if (a->initial) names[n++] = BI_INITIALWORD;
  for (i = a->first; i < argc; i++) names[n++] = argv[i];
  return n;
}

static int bi_comp_print_some(shell *sh, const char **names, int n) {
  buf b;
  int i, status = 0;
  buf_init(&b, sh->m);
  for (i = 0; i < n; i++) {
    bi_compspec *c = bi_comp_find(sh, names[i]);
    if (c)
      bi_comp_print(&b, c);
    else {
      int rc = bi_out(sh, &b);
      if (rc) return rc;
      buf_init(&b, sh->m);
      interp_errf(sh, "complete: %s: no completion specification", names[i]);
      status = 1;
    }
  }
  i = bi_out(sh, &b);
  return i ? i : status;
}

/* complete -r: an unknown name is an error once bash's table exists (any
 * spec was ever recorded). */
static int bi_comp_remove_some(shell *sh, const char **names, int n) {
  int i, status = 0;
  for (i = 0; i < n; i++) {
    bi_compspec *c = bi_comp_find(sh, names[i]);
    if (c)
      bi_comp_remove(sh, (size_t)(c - sh->compspecs));
    else if (sh->compspecs) {
      interp_errf(sh, "complete: %s: no completion specification", names[i]);
      status = 1;
    }
  }
  return status;
}

/* complete -r without names: every spec goes, the table stays. */
static void bi_comp_flush(shell *sh) {
  while (sh->ncompspecs) bi_comp_remove(sh, sh->ncompspecs - 1);
}

/* Whether any string argument (-G -W -P -S -X -C -F) was given. */
static int bi_comp_any(const bi_cargs *a) {
  int k;
  for (k = 0; k < CS_NSTR; k++)
    if (a->str[k]) return 1;
  return 0;
}

int bi_complete(shell *sh, int argc, char **argv) {
  bi_cargs a;
  const char **names;
  int n, rc, i, status = 0;
  rc = bi_comp_opts(sh, argc, argv, 0, &a);
  if (rc) return rc;
  names = mem_alloc(sh->m, (size_t)(argc + 3) * sizeof *names);
  if (!names) return MSB_ENOMEM;
  n = bi_comp_names(&a, argc, argv, names);
  if (a.remove) {
    if (n)
      status = bi_comp_remove_some(sh, names, n);
    else
      bi_comp_flush(sh);
  } else if (a.print || (!n && !a.actions && !a.opts && !bi_comp_any(&a))) {
    status = n ? bi_comp_print_some(sh, names, n) : bi_comp_print_all(sh);
  } else if (!n) {
    status = bi_usage(sh, "complete", BI_COMPLETE_USAGE);
  } else {
    for (i = 0; i < n && !status; i++) status = bi_comp_set(sh, names[i], &a);
  }
  mem_free(sh->m, names);
  return status;
}

/* ---- compgen ------------------------------------------------------------- */

/* The words gathered so far (owned strings). */
typedef struct bi_words {
  shell *sh;
  char **v;
  size_t n, cap;
  int err;
} bi_words;

static void bi_words_add(bi_words *w, const char *s, size_t len) {
  char *d;
  if (w->err) return;
  if (w->n == w->cap) {
    size_t cap = w->cap ? w->cap * 2 : 16;
    char **nv = mem_realloc(w->sh->m, w->v, cap * sizeof *nv);
    if (!nv) {
      w->err = MSB_ENOMEM;
      return;
    }
    w->v = nv;
    w->cap = cap;
  }
  d = mem_strndup(w->sh->m, s, len);
  if (!d) {
    w->err = MSB_ENOMEM;
    return;
  }
  w->v[w->n++] = d;
}

/* Adds s when it starts with word. */
static void bi_words_match(bi_words *w, const char *word, const char *s) {
  if (!strncmp(s, word, strlen(word))) bi_words_add(w, s, strlen(s));
}

static void bi_words_free(bi_words *w) {
  size_t i;
  for (i = 0; i < w->n; i++) mem_free(w->sh->m, w->v[i]);
  mem_free(w->sh->m, w->v);
}

static int bi_strp_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void bi_comp_aliases(bi_words *w, const char *word) {
  shell *sh = w->sh;
  const char **v;
  size_t i;
  if (!sh->naliases) return;
  v = mem_alloc(sh->m, sh->naliases * sizeof *v);
  if (!v) {
    w->err = MSB_ENOMEM;
    return;
  }
  for (i = 0; i < sh->naliases; i++) v[i] = sh->aliases[i].name;
  qsort(v, sh->naliases, sizeof *v, bi_strp_cmp);
  for (i = 0; i < sh->naliases; i++) bi_words_match(w, word, v[i]);
  mem_free(sh->m, v);
}

static void bi_comp_functions(bi_words *w, const char *word) {
  shell *sh = w->sh;
  const char **v;
  size_t i, n = 0;
  v = mem_alloc(sh->m, (sh->funcn + 1) * sizeof *v);
  if (!v) {
    w->err = MSB_ENOMEM;
    return;
  }
  for (i = 0; i < sh->funcn; i++)
    if (sh->funcs[i].name && sh->funcs[i].body) v[n++] = sh->funcs[i].name;
  qsort(v, n, sizeof *v, bi_strp_cmp);
  for (i = 0; i < n; i++) bi_words_match(w, word, v[i]);
  mem_free(sh->m, v);
}

/* The builtins as bash lists them: the shell's own and the commands that
 * count as builtins (echo, test...), merged in bytewise order. `enable -n`
 * is not supported, so all are enabled. The sandbox's own `bash` and `sh`
 * are commands in bash, not builtins. */
static void bi_comp_builtins(bi_words *w, const char *word) {
  size_t nb, nc, i = 0, j = 0;
  const sh_builtin *b = builtin_table(&nb);
  const cmd_desc *c = cmd_table(&nc);
  for (;;) {
    const char *name;
    while (j < nc && !(c[j].flags & CMD_BUILTIN)) j++;
    if (i >= nb && j >= nc) break;
    if (j >= nc || (i < nb && strcmp(b[i].name, c[j].name) <= 0)) {
      name = b[i++].name;
      if (j < nc && !strcmp(name, c[j].name)) j++;
    } else
      name = c[j++].name;
    if (strcmp(name, "bash") && strcmp(name, "sh"))
      bi_words_match(w, word, name);
  }
}

/* Whether a variable has a value (`declare x` and an empty array do not
 * complete). */
static int bi_comp_var_set(const var *v) {
  return (v->attr & (VAR_ARRAY | VAR_ASSOC)) ? v->n > 0 : v->val != NULL;
}

/* Variables (attr 0: all; else those with one of the attributes). */
static void bi_comp_vars(bi_words *w, const char *word, unsigned attr) {
  var **list;
  size_t n, i;
  if (var_list(w->sh->vars, w->sh->m, &list, &n)) {
    w->err = MSB_ENOMEM;
    return;
  }
  for (i = 0; i < n; i++)
    if ((!attr || (list[i]->attr & attr)) && bi_comp_var_set(list[i]))
      bi_words_match(w, word, list[i]->name);
  mem_free(w->sh->m, list);
}

/* Names in the directory part of word that complete its last part:
 * dirs_only for -d. Hidden names match like any (readline's default),
 * "." and ".." only a word that starts with a dot. */
static void bi_comp_files(bi_words *w, const char *word, int dirs_only) {
  shell *sh = w->sh;
  const char *slash = strrchr(word, '/');
  const char *base = slash ? slash + 1 : word;
  size_t dlen = slash ? (size_t)(slash - word) + 1 : 0, blen = strlen(base);
  buf dir, full;
  vfs_dir d;
  const char *name;
  size_t nlen;
  buf_init(&dir, sh->m);
  buf_init(&full, sh->m);
  buf_put(&dir, word, dlen);
  if (!dlen) buf_putc(&dir, '.');
  if (!dir.err && !vfs_abspath(sh->cwd, buf_str(&dir), &full) &&
      !vfs_opendir(sh->fs, buf_str(&full), &d)) {
    const char *dots[2] = {".", ".."};
    int k;
    for (k = 0; k < 2 && blen && base[0] == '.'; k++)
      if (!strncmp(dots[k], base, blen)) {
        buf one;
        buf_init(&one, sh->m);
        buf_put(&one, word, dlen);
        buf_puts(&one, dots[k]);
        if (!one.err) bi_words_add(w, one.p, one.len);
        buf_finish(&one);
      }
    while (vfs_readdir(&d, &name, &nlen, NULL) == 1) {
      buf one;
      struct vfs_stat st;
      if (nlen < blen || memcmp(name, base, blen)) continue;
      buf_init(&one, sh->m);
      buf_put(&one, word, dlen);
      buf_put(&one, name, nlen);
      if (!one.err && dirs_only) {
        buf path;
        buf_init(&path, sh->m);
        if (vfs_abspath(sh->cwd, buf_str(&one), &path) ||
            vfs_stat(sh->fs, buf_str(&path), 1, &st) || st.kind != VFS_DIR)
          one.len = 0;
        buf_finish(&path);
      }
      if (!one.err && one.len) bi_words_add(w, one.p, one.len);
      buf_finish(&one);
    }
    vfs_closedir(&d);
  }
  buf_finish(&dir);
  buf_finish(&full);
}

/* Executables on PATH, directory by directory (compgen -c). */
static void bi_comp_path(bi_words *w, const char *word) {
  shell *sh = w->sh;
  const char *path = var_value(sh->vars, "PATH"), *p;
  size_t wl = strlen(word);
  if (!path || strchr(word, '/')) return;
  for (p = path;; p++) {
    const char *e = strchr(p, ':');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    buf dir;
    vfs_dir d;
    buf_init(&dir, sh->m);
    if (len) buf_put(&dir, p, len);
    if (!len) buf_putc(&dir, '.');
    buf_putc(&dir, '/');
    if (!dir.err) {
      buf abs;
      buf_init(&abs, sh->m);
      if (!vfs_abspath(sh->cwd, buf_str(&dir), &abs) &&
          !vfs_opendir(sh->fs, buf_str(&abs), &d)) {
        const char *name;
        size_t nlen;
        size_t keep = abs.len;
        while (vfs_readdir(&d, &name, &nlen, NULL) == 1) {
          struct vfs_stat st;
          if (nlen < wl || memcmp(name, word, wl)) continue;
          abs.len = keep;
          if (keep && abs.p[keep - 1] != '/') buf_putc(&abs, '/');
          buf_put(&abs, name, nlen);
          if (!abs.err && !vfs_stat(sh->fs, buf_str(&abs), 1, &st) &&
              st.kind != VFS_DIR && (st.mode & 0111))
            bi_words_add(w, name, nlen);
        }
        vfs_closedir(&d);
      }
      buf_finish(&abs);
    }
    buf_finish(&dir);
    if (!e) break;
    p = e;
  }
}

static void bi_comp_list(bi_words *w, const char *word,
                         const char *const *names) {
  for (; *names; names++) bi_words_match(w, word, *names);
}

static void bi_comp_options(bi_words *w, const char *word, int shopt) {
  const char *n;
  size_t i;
  for (i = 0; (n = bi_option_name(shopt, i)); i++) bi_words_match(w, word, n);
}

/* EXIT, the signals by number (bash names the C library's 32 and 33
 * SIGJUNK), then the shell's own trap names. */
static void bi_comp_signals(bi_words *w, const char *word) {
  static const struct {
    int num;
    const char *name;
  } sigs[] = {
#define X(num, name) {num, "SIG" name},
#include "../signals.def"
#undef X
  };
  static const char *const tail[] = {"DEBUG", "ERR", "RETURN", NULL};
  size_t k = 0;
  int n;
  bi_words_match(w, word, "EXIT");
  for (n = 1; n <= TRAP_NSIG; n++) {
    buf junk;
    if (k < sizeof sigs / sizeof sigs[0] && sigs[k].num == n) {
      bi_words_match(w, word, sigs[k++].name);
      continue;
    }
    buf_init(&junk, w->sh->m);
    buf_printf(&junk, "SIGJUNK(%d)", n);
    if (!junk.err) bi_words_match(w, word, buf_str(&junk));
    buf_finish(&junk);
  }
  bi_comp_list(w, word, tail);
}

/* The words of one action. */
static void bi_comp_gen_action(bi_words *w, int act, const char *word) {
  switch (act) {
  case CA_ALIAS: bi_comp_aliases(w, word); break;
  case CA_ARRAYVAR: bi_comp_vars(w, word, VAR_ARRAY | VAR_ASSOC); break;
  case CA_BUILTIN: bi_comp_builtins(w, word); break;
  case CA_COMMAND:
    bi_comp_aliases(w, word);
    bi_comp_list(w, word, bi_keywords);
    bi_comp_functions(w, word);
    bi_comp_builtins(w, word);
    bi_comp_path(w, word);
    break;
  case CA_DIRECTORY: bi_comp_files(w, word, 1); break;
  case CA_ENABLED: bi_comp_builtins(w, word); break;
  case CA_EXPORT: bi_comp_vars(w, word, VAR_EXPORT); break;
  case CA_FILE: bi_comp_files(w, word, 0); break;
  case CA_FUNCTION: bi_comp_functions(w, word); break;
  case CA_KEYWORD: bi_comp_list(w, word, bi_keywords); break;
  case CA_SETOPT: bi_comp_options(w, word, 0); break;
  case CA_SHOPT: bi_comp_options(w, word, 1); break;
  case CA_SIGNAL: bi_comp_signals(w, word); break;
  case CA_VARIABLE: bi_comp_vars(w, word, 0); break;
  default: break; /* jobs, running, stopped: no jobs in the sandbox */
  }
}

/* -G: the glob's matches, whatever the word (as bash). */
static void bi_comp_glob(bi_words *w, const char *pat) {
  shell *sh = w->sh;
  char **res = NULL;
  size_t n = 0, i;
  uint64_t budget =
      sh->lim->max_glob_work ? sh->lim->max_glob_work : (uint64_t)-1;
  unsigned fl = (sh->shopts & SH_SO_EXTGLOB) ? GLOB_EXTGLOB : 0;
  if (sh->shopts & SH_SO_DOTGLOB) fl |= GLOB_DOTGLOB;
  if (glob_expand(sh->fs, sh->m, sh->cwd, pat, strlen(pat), fl, &budget, &res,
                  &n))
    return;
  for (i = 0; i < n; i++) bi_words_add(w, res[i], strlen(res[i]));
  glob_free(sh->m, res, n);
}

/* One -W word with quotes or expansions: the shell expands it in the
 * current shell (so `${x:=y}` assigns, as bash) and each resulting field
 * is a word. */
static void bi_comp_expand_word(bi_words *w, const char *field,
                                const char *word) {
  shell *sh = w->sh;
  buf cmd;
  ast_tree *tree = NULL;
  ast_node *root = NULL, *c;
  char **argv = NULL;
  int argc = 0, i;
  buf_init(&cmd, sh->m);
  buf_printf(&cmd, ": %s", field);
  if (!cmd.err &&
      !parse_string(sh->m, cmd.p, cmd.len, sh->line,
                    (sh->shopts & SH_SO_EXTGLOB) ? PARSE_EXTGLOB : 0, &tree,
                    &root, NULL)) {
    c = root && root->kind == AST_LIST ? root->u.list.items : NULL;
    if (c && !c->next && c->kind == AST_CMD && c->u.cmd.words &&
        c->u.cmd.words->next &&
        !expand_words(sh, c->u.cmd.words->next, &argv, &argc)) {
      for (i = 0; i < argc; i++) bi_words_match(w, word, argv[i]);
      expand_free(sh, argv, argc);
    }
  }
  ast_tree_release(tree);
  buf_finish(&cmd);
}

/* The end of the word of a -W list that starts at p: IFS characters end
 * it outside quotes, $(...) and `...` (bash's split_at_delims). */
static const char *bi_comp_word_end(const char *p, const char *ifs) {
  int depth = 0;
  char q = 0;
  for (; *p; p++) {
    if (*p == '\\' && q != '\'' && p[1])
      p++;
    else if (q) {
      if (*p == q) q = 0;
    } else if (*p == '\'' || *p == '"' || *p == '`')
      q = *p;
    else if (*p == '$' && p[1] == '(')
      depth++, p++;
    else if (*p == ')' && depth)
      depth--;
    else if (!depth && strchr(ifs, *p))
      break;
  }
  return p;
}

/* -W: the list split at IFS, each word expanded, filtered by word. */
static void bi_comp_wordlist(bi_words *w, const char *list, const char *word) {
  const char *ifs =
      var_lookup(w->sh->vars, "IFS") ? var_value(w->sh->vars, "IFS") : " \t\n";
  const char *p = list, *e;
  buf f;
  if (!ifs) ifs = "";
  buf_init(&f, w->sh->m);
  while (*p) {
    if (*ifs && strchr(ifs, *p)) {
      p++;
      continue;
    }
    e = bi_comp_word_end(p, ifs);
    f.len = 0;
    buf_put(&f, p, (size_t)(e - p));
    if (f.err) {
      w->err = MSB_ENOMEM;
      break;
    }
    if (strpbrk(buf_str(&f), "$`\"'\\~"))
      bi_comp_expand_word(w, buf_str(&f), word);
    else
      bi_words_match(w, word, buf_str(&f));
    p = e;
  }
  buf_finish(&f);
}

/* "CMD 'compgen' 'WORD' ''": the command line -F and -C run. */
static int bi_comp_callline(buf *b, const char *cmd, const char *word) {
  buf_printf(b, "%s compgen ", cmd);
  bi_comp_squote(b, word);
  buf_puts(b, " ''");
  return b->err;
}

/* -C: each output line of the command is a word. */
static void bi_comp_command(bi_words *w, const char *cmd, const char *word) {
  buf line, out;
  size_t i, st = 0;
  interp_errf(w->sh, "compgen: warning: -C option may not work as you expect");
  buf_init(&line, w->sh->m);
  buf_init(&out, w->sh->m);
  if (!bi_comp_callline(&line, cmd, word) &&
      interp_capture_text(w->sh, line.p, line.len, w->sh->line, &out) >= 0) {
    for (i = 0; i < out.len; i++)
      if (out.p[i] == '\n') {
        bi_words_add(w, out.p + st, i - st);
        st = i + 1;
      }
    if (st < out.len) bi_words_add(w, out.p + st, out.len - st);
  }
  buf_finish(&line);
  buf_finish(&out);
}

/* -F: the function runs in the shell; COMPREPLY's elements are words. */
static void bi_comp_function(bi_words *w, const char *fn, const char *word) {
  shell *sh = w->sh;
  buf line;
  var *v;
  interp_errf(sh, "compgen: warning: -F option may not work as you expect");
  if (!interp_func_get(sh, fn)) {
    interp_errf(sh, "compgen: function `%s' not found", fn);
    return;
  }
  var_unset(sh->vars, "COMPREPLY");
  buf_init(&line, sh->m);
  if (!bi_comp_callline(&line, fn, word) &&
      interp_string(sh, line.p, line.len, sh->line) >= 0) {
    v = var_lookup(sh->vars, "COMPREPLY");
    if (v && (v->attr & (VAR_ARRAY | VAR_ASSOC))) {
      var_elem **el = NULL;
      size_t n = 0, i;
      if (!var_elems(sh->m, v, &el, &n)) {
        for (i = 0; i < n; i++) bi_words_add(w, el[i]->val, strlen(el[i]->val));
        mem_free(sh->m, el);
      }
    } else if (v && var_value(sh->vars, "COMPREPLY")) {
      const char *s = var_value(sh->vars, "COMPREPLY");
      bi_words_add(w, s, strlen(s));
    }
  }
  buf_finish(&line);
}

/* -X: drops the words the pattern matches (`!PAT`: keeps only those); `&`
 * stands for the word being completed. */
static void bi_comp_filter(bi_words *w, const char *pat, const char *word) {
  shell *sh = w->sh;
  int keep_match = pat[0] == '!';
  size_t i, kept = 0;
  buf p;
  unsigned fl = (sh->shopts & SH_SO_EXTGLOB) ? GLOB_EXTGLOB : 0;
  buf_init(&p, sh->m);
  for (pat += keep_match; *pat; pat++) {
    if (*pat == '\\' && pat[1] == '&')
      buf_putc(&p, *++pat);
    else if (*pat == '&')
      buf_puts(&p, word);
    else
      buf_putc(&p, *pat);
  }
  if (p.err) {
    w->err = MSB_ENOMEM;
    buf_finish(&p);
    return;
  }
  for (i = 0; i < w->n; i++) {
    int m = glob_match(sh->m, buf_str(&p), p.len, w->v[i], strlen(w->v[i]), fl,
                       NULL) == 1;
    if (m == keep_match)
      w->v[kept++] = w->v[i];
    else
      mem_free(sh->m, w->v[i]);
  }
  w->n = kept;
  buf_finish(&p);
}

int bi_compgen(shell *sh, int argc, char **argv) {
  bi_cargs a;
  bi_words w;
  const char *word;
  int rc, k;
  size_t i;
  buf b;
  rc = bi_comp_opts(sh, argc, argv, 1, &a);
  if (rc) return rc;
  /* Nothing to generate is success in bash, unlike nothing generated. */
  if (!a.actions && !a.opts && !bi_comp_any(&a)) return 0;
  word = a.first < argc ? argv[a.first] : "";
  for (k = 0; k < CA_COUNT; k++)
    if ((a.actions & (1u << k)) && bi_actions[k].unsupp) {
      interp_errf(sh, "compgen: -A %s: not supported in memsandbox",
                  bi_actions[k].name);
      return 2;
    }
  memset(&w, 0, sizeof w);
  w.sh = sh;
  for (k = 0; k < CA_COUNT; k++)
    if (a.actions & (1u << k)) bi_comp_gen_action(&w, k, word);
  if (a.str[CS_GLOB]) bi_comp_glob(&w, a.str[CS_GLOB]);
  if (a.str[CS_WORDS]) bi_comp_wordlist(&w, a.str[CS_WORDS], word);
  if (a.str[CS_FUNC]) bi_comp_function(&w, a.str[CS_FUNC], word);
  if (a.str[CS_COMMAND]) bi_comp_command(&w, a.str[CS_COMMAND], word);
  if (a.str[CS_FILTER]) bi_comp_filter(&w, a.str[CS_FILTER], word);
  if (a.opts & COPT_PLUSDIRS) bi_comp_files(&w, word, 1);
  if (!w.n && (a.opts & COPT_DIRNAMES)) bi_comp_files(&w, word, 1);
  if (!w.n && (a.opts & (COPT_DEFAULT | COPT_BASHDEFAULT)))
    bi_comp_files(&w, word, 0);
  if (w.err) {
    bi_words_free(&w);
    return w.err;
  }
  buf_init(&b, sh->m);
  for (i = 0; i < w.n; i++)
    buf_printf(&b, "%s%s%s\n", a.str[CS_PREFIX] ? a.str[CS_PREFIX] : "", w.v[i],
               a.str[CS_SUFFIX] ? a.str[CS_SUFFIX] : "");
  rc = bi_out(sh, &b);
  k = w.n ? 0 : 1;
  bi_words_free(&w);
  return rc ? rc : k;
}

/* ---- compopt and logout ------------------------------------------------- */

/* help compopt */
const help_text bi_help_compopt = {
    "compopt [-o|+o option] [-DEI] [name ...]",
    "\n"
    "Turns completion options (-o) on or off (+o) in the rules already\n"
    "recorded by complete for each NAME, or in the rule of the completion\n"
    "running now when no NAME is given.  Without -o or +o, prints the\n"
    "options in force.  -D, -E and -I address the default, empty-line and\n"
    "first-word rules.\n"
    "\n"
    "Exit status:\n"
    "0 unless an option is invalid or a NAME has no rule.\n"};

#define BI_COMPOPT_USAGE "compopt [-o|+o option] [-DEI] [name ...]"

/* `compopt NAME`: every option, on or off. */
static void bi_compopt_print(buf *b, const bi_compspec *c, const char *name) {
  int k;
  buf_puts(b, "compopt ");
  for (k = 0; bi_copts[k]; k++)
    buf_printf(b, "%co %s ", (c->opts & (1u << k)) ? '-' : '+', bi_copts[k]);
  buf_printf(b, "%s\n", name);
}

/* Parses compopt's options; 0 or the status after a message. */
static int bi_compopt_opts(shell *sh, int argc, char **argv, uint32_t *on,
                           uint32_t *off, bi_cargs *a) {
  int i;
  memset(a, 0, sizeof *a);
  for (i = 1;
       i < argc && (argv[i][0] == '-' || argv[i][0] == '+') && argv[i][1];
       i++) {
    const char *o = argv[i] + 1;
    int plus = argv[i][0] == '+';
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    for (; *o; o++) {
      int k;
      if (*o == 'o') {
        const char *val = o[1] ? o + 1 : i + 1 < argc ? argv[++i] : NULL;
        if (!val) {
          interp_errf(sh, "compopt: -o: option requires an argument");
          return bi_usage(sh, "compopt", BI_COMPOPT_USAGE);
        }
        for (k = 0; bi_copts[k] && strcmp(bi_copts[k], val); k++);
        if (!bi_copts[k]) {
          interp_errf(sh, "compopt: %s: invalid option name", val);
          return 2;
        }
        *(plus ? off : on) |= 1u << k;
        break;
      }
      if (!plus && *o == 'D')
        a->dflt = 1;
      else if (!plus && *o == 'E')
        a->empty = 1;
      else if (!plus && *o == 'I')
        a->initial = 1;
      else
        return bi_badletter(sh, "compopt", *o, BI_COMPOPT_USAGE);
    }
  }
  a->first = i;
  return 0;
}

int bi_compopt(shell *sh, int argc, char **argv) {
  bi_cargs a;
  uint32_t on = 0, off = 0;
  const char **names;
  int n, i, status;
  buf b;
  status = bi_compopt_opts(sh, argc, argv, &on, &off, &a);
  if (status) return status;
  names = mem_alloc(sh->m, (size_t)(argc + 3) * sizeof *names);
  if (!names) return MSB_ENOMEM;
  n = bi_comp_names(&a, argc, argv, names);
  if (!n) {
    mem_free(sh->m, names);
    interp_errf(sh, "compopt: not currently executing completion function");
    return 1;
  }
  buf_init(&b, sh->m);
  for (i = 0; i < n; i++) {
    bi_compspec *c = bi_comp_find(sh, names[i]);
    if (!c) {
      interp_errf(sh, "compopt: %s: no completion specification", names[i]);
      status = 1;
    } else if (on | off)
      c->opts = (c->opts | on) & ~off;
    else
      bi_compopt_print(&b, c, names[i]);
  }
  mem_free(sh->m, names);
  i = bi_out(sh, &b);
  return i ? i : status;
}

/* help logout */
const help_text bi_help_logout = {
    "logout [n]",
    "\n"
    "Leaves a login shell with status N.  A script in the sandbox is never a\n"
    "login shell, so here it only reports that `exit' is the way out.\n"};

/* A script is never a login shell. */
int bi_logout(shell *sh, int argc, char **argv) {
  (void)argc;
  (void)argv;
  interp_errf(sh, "logout: not login shell: use `exit'");
  return 1;
}
