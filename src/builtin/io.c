/* io.c - the builtins that read input or format output: read, mapfile
 * (readarray), and printf (the command, plus -v). */
#include <string.h>

#include "builtin.h"

/* help read */
const help_text bi_help_read = {
    "read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p "
    "prompt] [-t timeout] [-u fd] [name ...]",
    "\n"
    "Reads one line from the standard input and splits it into words at the\n"
    "characters of IFS: each NAME gets a word, the last one gets the rest of\n"
    "the line.  Without NAMEs, the line goes to REPLY.  A backslash quotes\n"
    "the next character and joins continued lines unless -r is given.\n"
    "\n"
    "Options:\n"
    "  -a ARRAY   store the words in the indexed array ARRAY\n"
    "  -d DELIM   stop at DELIM instead of newline (empty: at a NUL byte)\n"
    "  -n N       stop after N characters, or earlier at the delimiter\n"
    "  -N N       read exactly N characters, ignoring delimiters\n"
    "  -p PROMPT  a prompt for a terminal: never shown, input is not one\n"
    "  -r         keep backslashes as they are\n"
    "  -u FD      read file descriptor FD\n"
    "  -e, -s, -t accepted and ignored: input is never a terminal here\n"
    "  -i is not supported in the sandbox.\n"
    "\n"
    "Exit status:\n"
    "0, or 1 at end of input, 2 or more for misuse.\n"};

/* read -t's argument: bash's decimal seconds ("+1", "1.", ".5"; "" and "."
 * are zero). Returns -1 when malformed, 0 for a zero timeout (only poll),
 * 1 otherwise. */
static int bi_read_timeout(const char *s) {
  int nonzero = 0, dot = 0;
  if (*s == '+') s++;
  for (; *s; s++) {
    if (*s == '.' && !dot)
      dot = 1;
    else if (*s >= '0' && *s <= '9')
      nonzero |= *s != '0';
    else
      return -1;
  }
  return nonzero;
}

int bi_read(shell *sh, int argc, char **argv) {
  int i, raw = 0, nchars = -1, exact = 0, fd = 0, status = 0, rc, poll = 0;
  const char *arr = NULL, *prompt = NULL;
  int delim = '\n';
  const uint8_t *in;
  size_t n, pos, used;
  buf line;
  int got_delim = 0;
  for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    const char *o = argv[i] + 1;
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    for (; *o; o++) {
      const char *val = NULL;
      if (strchr("adnNptu", *o)) {
        if (o[1])
          val = o + 1;
        else if (i + 1 < argc)
          val = argv[++i];
        else {
          interp_errf(sh, "read: -%c: option requires an argument", *o);
          return bi_usage(sh, "read",
                          "read [-ers] [-a array] [-d delim] "
                          "[-i text] [-n nchars] [-N nchars] [-p prompt] "
                          "[-t timeout] [-u fd] [name ...]");
        }
      }
      switch (*o) {
      case 'r': raw = 1; break;
      case 's':
      case 'e': break;
      case 'a': arr = val; break;
      case 'd': delim = val[0] ? (uint8_t)val[0] : 0; break;
      case 'n':
      case 'N': {
        int64_t v;
        if (!bi_parse_int(val, &v) || v < 0) {
          interp_errf(sh, "read: %s: invalid number", val);
          return 1;
        }
        nchars = (int)v;
        exact = *o == 'N';
        break;
      }
      case 'p': prompt = val; break;
      case 't':
        poll = bi_read_timeout(val);
        if (poll < 0) {
          interp_errf(sh, "read: %s: invalid timeout specification", val);
          return 1;
        }
        poll = !poll;
        break;
      case 'u': {
        int64_t v;
        if (!bi_parse_int(val, &v) || v < 0 || v > 2147483647) {
          interp_errf(sh, "read: %s: invalid file descriptor specification",
                      val);
          return 1;
        }
        if (v >= SH_NFD || !sh->fd[v]) {
          interp_errf(sh,
                      "read: %s: invalid file descriptor: Bad file "
                      "descriptor",
                      val);
          return 1;
        }
        fd = (int)v;
        break;
      }
      default: {
        char bad[3] = {'-', *o, 0};
        return bi_badopt(sh, "read", bad,
                         "read [-ers] [-a array] [-d delim] "
                         "[-i text] [-n nchars] [-N nchars] [-p prompt] "
                         "[-t timeout] [-u fd] [name ...]");
      }
      }
      if (val) break;
    }
  }
  (void)prompt;
  /* -t 0 only asks whether input is ready: in the sandbox it always is,
   * data or end of file, when the descriptor is open. */
  if (poll) return sh->fd[fd] ? 0 : 1;
  if (!sh->fd[fd]) {
    /* stdin closed (<&-) */
    interp_errf(sh, "read: read error: %d: Bad file descriptor", fd);
    return 1;
  }
  if (sh->fd[fd]->rderr) { /* `read < dir` */
    interp_errf(sh, "read: read error: %d: %s", fd,
                msb_strerror(sh->fd[fd]->rderr));
    return 1;
  }
  interp_input(sh, fd, &in, &n);
  buf_init(&line, sh->m);
  pos = 0;
  while (pos < n) {
    int c = in[pos];
    if (nchars >= 0 && (int)line.len >= nchars) break;
    pos++;
    if (!exact && c == delim) {
      got_delim = 1;
      break;
    }
    if (!raw && c == '\\' && !exact) {
      if (pos < n) {
        int c2 = in[pos++];
        if (c2 == '\n') continue;
        buf_putc(&line, '\\');
        buf_putc(&line, c2);
        continue;
      }
      continue;
    }
    if (c == 0) continue;
    buf_putc(&line, c);
  }
  used = pos;
  interp_consume(sh, fd, used);
  if (line.err) {
    buf_finish(&line);
    return MSB_ENOMEM;
  }
  if (!got_delim && (nchars < 0 || (int)line.len < nchars)) {
    int r2 = nchars ? interp_input_end(sh, fd) : 0;
    if (r2) {
      buf_finish(&line);
      return r2;
    }
    status = 1;
  }
  if (nchars == 0) status = 0;
  {
    char **f = NULL;
    int nf = 0, k;
    int names = argc - i;
    const char *s = buf_str(&line);
    if (exact || (arr == NULL && names == 0)) {
      /* REPLY keeps everything, no splitting */
      char *val = mem_strdup(sh->m, s);
      if (!val) {
        buf_finish(&line);
        return MSB_ENOMEM;
      }
      if (!raw) {
        size_t a2, b2;
        for (a2 = b2 = 0; val[a2]; a2++) {
          if (val[a2] == '\\' && val[a2 + 1]) a2++;
          val[b2++] = val[a2];
        }
        val[b2] = 0;
      }
      if (names == 1)
        rc = builtin_assign(sh, argv[i], val, 0);
      else
        rc = builtin_assign(sh, "REPLY", val, 0);
      mem_free(sh->m, val);
      buf_finish(&line);
      if (rc < 0) return rc;
      return rc ? 1 : status;
    }
    rc = expand_split_read(sh, s, line.len, arr ? 0 : names, &f, &nf);
    buf_finish(&line);
    if (rc) return rc;
    if (!raw)
      for (k = 0; k < nf; k++) {
        size_t a2, b2;
        for (a2 = b2 = 0; f[k][a2]; a2++) {
          if (f[k][a2] == '\\' && f[k][a2 + 1]) a2++;
          f[k][b2++] = f[k][a2];
        }
        f[k][b2] = 0;
      }
    if (arr) {
      var *v = var_bind(sh->vars, arr, 0);
      if (!v)
        rc = MSB_ENOMEM;
      else if (v->attr & VAR_READONLY) {
        interp_errf(sh, "%s: readonly variable", arr);
        rc = 1;
      } else {
        var_make_array(sh->vars, v, 0);
        for (k = 0; k < nf && !rc; k++)
          rc = var_set_index(sh->vars, arr, k, f[k], 0);
      }
    } else {
      for (k = 0; k < names && !rc; k++)
        rc = builtin_assign(sh, argv[i + k], k < nf ? f[k] : "", 0);
    }
    expand_free(sh, f, nf);
    if (rc < 0) return rc;
    if (rc) return 1;
  }
  return status;
}

/* help mapfile */
const help_text bi_help_mapfile = {
    "mapfile [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C "
    "callback] [-c quantum] [array]",
    "\n"
    "Stores the lines of the standard input (or of fd N with -u) in the\n"
    "indexed array ARRAY, one element each; ARRAY defaults to MAPFILE.\n"
    "\n"
    "Options:\n"
    "  -d DELIM    end lines at DELIM instead of newline\n"
    "  -n COUNT    read at most COUNT lines (0: all)\n"
    "  -O ORIGIN   store from index ORIGIN (default 0; the array is not\n"
    "              cleared first)\n"
    "  -s COUNT    skip the first COUNT lines\n"
    "  -t          drop the delimiter from each line\n"
    "  -u FD       read file descriptor FD\n"
    "  -C, -c      callbacks are not supported in the sandbox\n"
    "\n"
    "Exit status:\n"
    "0, unless an option is invalid or ARRAY cannot be assigned.\n"};

/* help readarray */
const help_text bi_help_readarray = {
    "readarray [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C "
    "callback] [-c quantum] [array]",
    "\n"
    "Another name for mapfile; `help mapfile' has the details.\n"};

/* mapfile -C: evaluates "CALLBACK INDEX 'LINE'" as bash does. */
static int bi_mapfile_callback(shell *sh, const char *callback, int64_t idx,
                               const char *line) {
  buf b;
  int rc;
  buf_init(&b, sh->m);
  buf_printf(&b, "%s %lld '", callback, (long long)idx);
  for (; *line; line++) {
    if (*line == '\'')
      buf_puts(&b, "'\\''");
    else
      buf_putc(&b, *line);
  }
  buf_putc(&b, '\'');
  rc = b.err ? b.err : interp_string(sh, b.p, b.len, sh->line);
  buf_finish(&b);
  return rc < 0 ? rc : 0;
}

int bi_mapfile(shell *sh, int argc, char **argv) {
  int i, trim = 0, fd = 0, rc = 0;
  int64_t count = 0, skip = 0, origin = 0;
  int delim = '\n', have_origin = 0;
  const char *name = "MAPFILE";
  const uint8_t *in;
  size_t n, pos = 0;
  var *v;
  int64_t idx, got = 0, quantum = 5000;
  const char *callback = NULL;
  for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    const char *o = argv[i] + 1;
    const char *val = NULL;
    if (!strcmp(argv[i], "--")) {
      i++;
      break;
    }
    if (strchr("dnOsuCc", *o)) {
      if (o[1])
        val = o + 1;
      else if (i + 1 < argc)
        val = argv[++i];
      else {
        interp_errf(sh, "%s: -%c: option requires an argument", argv[0], *o);
        return 2;
      }
    }
    switch (*o) {
    case 't': trim = 1; break;
    case 'd': delim = (uint8_t)val[0]; break;
    case 'n': bi_parse_int(val, &count); break;
    case 'O':
      bi_parse_int(val, &origin);
      have_origin = 1;
      break;
    case 's': bi_parse_int(val, &skip); break;
    case 'u': {
      int64_t v2;
      if (!bi_parse_int(val, &v2) || v2 < 0 || v2 >= SH_NFD || !sh->fd[v2]) {
        interp_errf(sh, "%s: %s: invalid file descriptor specification",
                    argv[0], val);
        return 1;
      }
      fd = (int)v2;
      break;
    }
    case 'C': callback = val; break;
    case 'c':
      if (!bi_parse_int(val, &quantum) || quantum <= 0) {
        interp_errf(sh, "%s: %s: invalid callback quantum", argv[0], val);
        return 1;
      }
      break;
    default: {
      char bad[3] = {'-', *o, 0};
      return bi_badopt(sh, argv[0], bad,
                       "mapfile [-d delim] [-n count] [-O origin] [-s count] "
                       "[-t] [-u fd] [-C callback] [-c quantum] [array]");
    }
    }
  }
  if (i < argc) name = argv[i];
  v = var_bind(sh->vars, name, 0);
  if (!v) return MSB_ENOMEM;
  if (v->attr & VAR_READONLY) {
    interp_errf(sh, "%s: readonly variable", name);
    return 1;
  }
  if (!have_origin)
    var_make_array(sh->vars, v, 0);
  else if (!(v->attr & VAR_ARRAY))
    var_make_array(sh->vars, v, 0);
  idx = origin;
  interp_input(sh, fd, &in, &n);
  while (pos < n && (!count || got < count)) {
    size_t st = pos, e;
    while (pos < n && in[pos] != (uint8_t)delim) pos++;
    e = pos;
    if (pos < n) pos++;
    if (skip > 0) {
      skip--;
      continue;
    }
    if (!trim && pos > e) e++;
    {
      char *s = mem_strndup(sh->m, (const char *)in + st, e - st);
      if (!s) return MSB_ENOMEM;
      if (callback && (got + 1) % quantum == 0) {
        /* The callback may read this descriptor too: what mapfile has
         * taken is consumed first, and the input fetched again. */
        interp_consume(sh, fd, pos);
        rc = bi_mapfile_callback(sh, callback, idx, s);
        interp_input(sh, fd, &in, &n);
        pos = 0;
      }
      if (!rc) rc = var_set_index(sh->vars, name, idx++, s, 0);
      mem_free(sh->m, s);
      if (rc) return rc;
    }
    got++;
    if (sh->lim->max_array_items && (uint64_t)got > sh->lim->max_array_items) {
      sh->run->limit = LIMIT_MAX_ARRAY_ITEMS;
      return MSB_ELIMIT;
    }
  }
  interp_consume(sh, fd, pos);
  if (!count || got < count) return interp_input_end(sh, fd);
  return 0;
}

/* help printf */
const help_text bi_help_printf = {
    "printf [-v var] format [arguments]",
    "\n"
    "Writes FORMAT with each % conversion replaced by the next ARGUMENT,\n"
    "reusing FORMAT while arguments remain.  Conversions are C's (%d %i %o\n"
    "%u %x %X %f %e %g %c %s and %%, with flags, width and precision), plus\n"
    "%b (expand backslash escapes in the argument), %q (quote it for reuse\n"
    "as shell input) and %(FMT)T (a date with strftime's FMT).  Backslash\n"
    "escapes in FORMAT are expanded.\n"
    "\n"
    "Options:\n"
    "  -v VAR   store the text in VAR instead of writing it\n"
    "\n"
    "Exit status:\n"
    "0, unless an option is invalid or an argument could not be converted.\n"};

int bi_printf(shell *sh, int argc, char **argv) {
  const cmd_desc *d = cmd_find("printf");
  const char *vname = NULL;
  int rc;
  if (!d) {
    interp_errf(sh, "printf: command not available");
    return 1;
  }
  if (argc >= 3 && !strcmp(argv[1], "-v"))
    vname = argv[2];
  else if (argc >= 2 && !strncmp(argv[1], "-v", 2) && argv[1][2])
    vname = argv[1] + 2;
  if (!vname) return interp_cmd(sh, d, argc, argv);
  {
    int shift = argv[1][2] ? 1 : 2;
    buf out, err;
    char **av = mem_zalloc(sh->m, (size_t)(argc - shift + 1) * sizeof *av);
    sh_stream *so, *se;
    sh_stream *o1 = sh->fd[1];
    int k;
    if (!av) return MSB_ENOMEM;
    av[0] = argv[0];
    for (k = shift + 1; k < argc; k++) av[k - shift] = argv[k];
    buf_init(&out, sh->m);
    buf_init(&err, sh->m);
    so = interp_stream_new(sh, SH_S_BUF);
    if (!so) {
      mem_free(sh->m, av);
      return MSB_ENOMEM;
    }
    so->ob = &out;
    (void)se;
    (void)err;
    sh->fd[1] = so;
    rc = interp_cmd(sh, d, argc - shift, av);
    sh->fd[1] = o1;
    interp_stream_unref(sh, so);
    mem_free(sh->m, av);
    if (rc >= 0) {
      int r2;
      char *br = strchr(vname, '[');
      if (out.err)
        r2 = MSB_ENOMEM;
      else if (br) {
        buf tmp;
        buf_init(&tmp, sh->m);
        buf_printf(&tmp, "%s=", vname);
        /* assign through the declare path for subscripts */
        buf_puts(&tmp, buf_str(&out));
        {
          int st = 0;
          r2 = bi_decl_one(sh, buf_str(&tmp), 0, 0, 0, 0, "printf", &st);
          if (!r2 && st) r2 = 1;
        }
        buf_finish(&tmp);
      } else if (!var_valid_name(vname, strlen(vname))) {
        interp_errf(sh, "printf: `%s': not a valid identifier", vname);
        r2 = 2;
      } else
        r2 = builtin_assign(sh, vname, buf_str(&out), 0);
      if (r2) rc = r2 < 0 ? r2 : 1;
    }
    buf_finish(&out);
    buf_finish(&err);
    return rc;
  }
}
