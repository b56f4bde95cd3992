/* interp_redir.c - redirections: opening files as streams, here-documents,
 * `{var}` descriptors, and saving and restoring a command's descriptors. */
#include "interp_int.h"

#include <string.h>

void interp_save_fds(shell *sh, interp_saved *s) {
  int i;
  for (i = 0; i < SH_NFD; i++) s->fd[i] = interp_stream_ref(sh->fd[i]);
}

void interp_restore_fds(shell *sh, interp_saved *s) {
  int i;
  for (i = 0; i < SH_NFD; i++) interp_fd_set(sh, i, s->fd[i]);
}

/* Stream reading a whole file; *status 1 with a message on failure. */
static sh_stream *interp_open_in(shell *sh, const char *word, int *status) {
  buf p;
  const uint8_t *data;
  size_t len;
  sh_stream *s;
  int rc;
  *status = 0;
  if (!strcmp(word, "/dev/null")) return interp_stream_new(sh, SH_S_IN);
  if (!strcmp(word, "/dev/stdin")) return interp_stream_ref(sh->fd[0]);
  if (!strncmp(word, "/dev/fd/", 8) && word[8] >= '0' && word[8] <= '9' &&
      !word[9]) {
    if (sh->fd[word[8] - '0']) return interp_stream_ref(sh->fd[word[8] - '0']);
  }
  buf_init(&p, sh->m);
  interp_abspath(sh, word, &p);
  if (p.err) {
    buf_finish(&p);
    *status = MSB_ENOMEM;
    return NULL;
  }
  rc = vfs_read(sh->fs, buf_str(&p), &data, &len);
  buf_finish(&p);
  if (rc == MSB_EISDIR) {
    /* bash opens a directory fine; the reader's read() fails */
    s = interp_stream_new(sh, SH_S_IN);
    if (s) s->rderr = rc;
    if (!s) *status = MSB_ENOMEM;
    return s;
  }
  if (rc) {
    if (rc == MSB_ENOMEM) {
      *status = rc;
      return NULL;
    }
    interp_errf(sh, "%s: %s", word, msb_strerror(rc));
    *status = 1;
    return NULL;
  }
  s = interp_stream_new(sh, SH_S_IN);
  if (s) s->regular = 1;
  if (s && len) {
    s->data = mem_alloc(sh->m, len);
    if (!s->data) {
      interp_stream_unref(sh, s);
      s = NULL;
    } else {
      memcpy(s->data, data, len);
      s->len = len;
    }
  }
  if (!s) *status = MSB_ENOMEM;
  return s;
}

/* Output stream for a file: truncates (or creates) unless append. */
static sh_stream *interp_open_out(shell *sh, const char *word, int append,
                                  int clobber, int *status) {
  buf p;
  sh_stream *s;
  vfs_undo *undo = NULL;
  struct vfs_stat st;
  int rc;
  *status = 0;
  if (!strcmp(word, "/dev/null")) return interp_stream_new(sh, SH_S_NULL);
  if (!strcmp(word, "/dev/stdout")) return interp_stream_ref(sh->fd[1]);
  if (!strcmp(word, "/dev/stderr")) return interp_stream_ref(sh->fd[2]);
  if (!strncmp(word, "/dev/fd/", 8) && word[8] >= '0' && word[8] <= '9' &&
      !word[9] && sh->fd[word[8] - '0'])
    return interp_stream_ref(sh->fd[word[8] - '0']);
  buf_init(&p, sh->m);
  interp_abspath(sh, word, &p);
  if (p.err) {
    buf_finish(&p);
    *status = MSB_ENOMEM;
    return NULL;
  }
  rc = vfs_stat(sh->fs, buf_str(&p), 1, &st);
  if (!rc && st.kind == VFS_DIR)
    rc = MSB_EISDIR;
  else if (!rc && !clobber && !append && (sh->opts & SH_O_NOCLOBBER)) {
    interp_errf(sh, "%s: cannot overwrite existing file", word);
    buf_finish(&p);
    *status = 1;
    return NULL;
  } else if (sh->run->sec && !(undo = mem_alloc(sh->m, sizeof *undo)))
    rc = MSB_ENOMEM;
  else {
    if (undo) vfs_undo_begin(sh->fs, buf_str(&p), undo);
    rc = vfs_write(sh->fs, buf_str(&p), "", 0,
                   (append ? VFS_APPEND : 0) | VFS_KEEP_MODE, 0666 & ~sh->umask,
                   NULL);
    if (undo) vfs_undo_mine(sh->fs, undo);
  }
  if (rc) {
    if (undo) vfs_undo_finish(sh->fs, undo);
    mem_free(sh->m, undo);
    buf_finish(&p);
    if (rc == MSB_ENOMEM) {
      *status = rc;
      return NULL;
    }
    interp_errf(sh, "%s: %s", word, msb_strerror(rc));
    *status = 1;
    return NULL;
  }
  s = interp_stream_new(sh, SH_S_FILE);
  if (s) {
    s->path = buf_steal(&p, NULL);
    s->undo = undo;
  } else if (undo) {
    vfs_undo_finish(sh->fs, undo);
    mem_free(sh->m, undo);
  }
  buf_finish(&p);
  if (!s || !s->path) {
    interp_stream_unref(sh, s);
    *status = MSB_ENOMEM;
    return NULL;
  }
  return s;
}

sh_stream *interp_bytes_stream(shell *sh, const char *s, size_t n) {
  sh_stream *st = interp_stream_new(sh, SH_S_IN);
  if (!st) return NULL;
  if (n) {
    st->data = mem_alloc(sh->m, n);
    if (!st->data) {
      interp_stream_unref(sh, st);
      return NULL;
    }
    memcpy(st->data, s, n);
    st->len = n;
  }
  return st;
}

void interp_word_text(const ast_word *w, buf *b) {
  const ast_part *p;
  for (p = w ? w->parts : NULL; p; p = p->next) {
    switch (p->kind) {
    case AST_P_LIT: buf_put(b, p->text, p->len); break;
    case AST_P_SQ:
      if (p->flags & AST_PF_BACKSLASH)
        buf_putc(b, '\\');
      else
        buf_putc(b, '\'');
      buf_put(b, p->text, p->len);
      if (!(p->flags & AST_PF_BACKSLASH)) buf_putc(b, '\'');
      break;
    case AST_P_PARAM:
      if (p->param->flags & AST_PE_BRACED)
        buf_printf(b, "${%s}", p->param->name);
      else
        buf_printf(b, "$%s", p->param->name);
      break;
    case AST_P_TILDE:
      buf_putc(b, '~');
      buf_put(b, p->text, p->len);
      break;
    case AST_P_DQ: {
      ast_word tmp;
      memset(&tmp, 0, sizeof tmp);
      tmp.parts = p->parts;
      buf_putc(b, '"');
      interp_word_text(&tmp, b);
      buf_putc(b, '"');
      break;
    }
    default: buf_put(b, p->text, p->len); break;
    }
  }
}

/* Expands a redirection target to exactly one word. */
static int interp_redir_word(shell *sh, ast_word *w, char **out) {
  char **av;
  int ac, rc;
  *out = NULL;
  rc = expand_words(sh, w, &av, &ac);
  if (rc) return rc;
  if (ac != 1) {
    buf t;
    expand_free(sh, av, ac);
    buf_init(&t, sh->m);
    interp_word_text(w, &t);
    interp_errf(sh, "%s: ambiguous redirect", buf_str(&t));
    buf_finish(&t);
    return 1;
  }
  *out = av[0];
  mem_free(sh->m, av);
  return 0;
}

static int interp_parse_fd(const char *s, int *fd, int *move) {
  int v = 0, n = 0;
  *move = 0;
  while (s[n] >= '0' && s[n] <= '9' && n < 4) v = v * 10 + (s[n++] - '0');
  if (!n) return 0;
  if (s[n] == '-' && !s[n + 1])
    *move = 1;
  else if (s[n])
    return 0;
  *fd = v;
  return 1;
}

static int interp_redir(shell *sh, ast_redir *r, interp_saved *sv);

/* {var}>&- and {var}<&-: closes the fd whose number var holds. */
static int interp_redir_var_close(shell *sh, ast_redir *r, interp_saved *sv) {
  ast_redir one = *r;
  const char *val = var_value(sh->vars, r->varname);
  int fd, move;
  if (!val) {
    interp_errf(sh, "%s: ambiguous redirect", r->varname);
    return 1;
  }
  if (!interp_parse_fd(val, &fd, &move) || move)
    return 0; /* bash closes nothing and says nothing */
  one.varname = NULL;
  one.fd = fd;
  return interp_redir(sh, &one, sv);
}

/* {var}>file and the rest: bash opens the lowest free fd from 10 up,
 * stores its number in var and leaves it open after the command. */
static int interp_redir_var(shell *sh, ast_redir *r, interp_saved *sv) {
  ast_redir one = *r;
  char nb[24];
  int fd, rc;
  if (r->op == AST_R_DUPIN || r->op == AST_R_DUPOUT) {
    char *word = NULL;
    int close;
    if ((rc = interp_redir_word(sh, r->target, &word))) return rc;
    close = !strcmp(word, "-");
    mem_free(sh->m, word);
    if (close) return interp_redir_var_close(sh, r, sv);
  }
  for (fd = SH_FD_VAR_BASE; fd < SH_NFD && sh->fd[fd]; fd++) continue;
  if (fd >= SH_NFD) {
    interp_errf(sh, "%s: cannot assign fd to variable", r->varname);
    return 1;
  }
  one.varname = NULL;
  one.fd = fd;
  if ((rc = interp_redir(sh, &one, sv))) return rc;
  expand_fmt_i64(nb, fd);
  rc = builtin_assign(sh, r->varname, nb, 0);
  if (rc) {
    interp_fd_set(sh, fd, NULL);
    if (rc < 0) return rc;
    interp_errf(sh, "%s: cannot assign fd to variable", r->varname);
    return 1;
  }
  /* the command's end restores the saved fds: this one stays open */
  interp_stream_unref(sh, sv->fd[fd]);
  sv->fd[fd] = interp_stream_ref(sh->fd[fd]);
  return 0;
}

/* Applies one redirection. Returns 0, 1 (failed, message printed) or a
 * fatal code. sv holds the fds the command's end restores. */
static int interp_redir(shell *sh, ast_redir *r, interp_saved *sv) {
  int fd = r->fd, st = 0, rc, move, src;
  char *word = NULL;
  sh_stream *s = NULL;
  if (r->varname) return interp_redir_var(sh, r, sv);
  if (fd < 0)
    fd = (r->op == AST_R_IN || r->op == AST_R_RDWR || r->op == AST_R_DUPIN ||
          r->op == AST_R_HERESTR || r->op == AST_R_HEREDOC)
             ? 0
             : 1;
  if (fd >= SH_NFD) {
    interp_errf(sh, "%d: Bad file descriptor", fd);
    return 1;
  }
  switch (r->op) {
  case AST_R_HEREDOC: {
    char *body = NULL;
    if (r->heredoc_quoted) {
      const ast_part *p = r->body ? r->body->parts : NULL;
      buf b;
      buf_init(&b, sh->m);
      for (; p; p = p->next) buf_put(&b, p->text, p->len);
      s = interp_bytes_stream(sh, buf_str(&b), b.len);
      rc = b.err;
      buf_finish(&b);
      if (rc) return rc;
    } else {
      rc = expand_heredoc(sh, r->body, &body);
      if (rc) return rc;
      s = interp_bytes_stream(sh, body, strlen(body));
      mem_free(sh->m, body);
    }
    if (!s) return MSB_ENOMEM;
    interp_fd_set(sh, fd, s);
    return 0;
  }
  case AST_R_HERESTR: {
    char *v = NULL;
    size_t n;
    rc = expand_string(sh, r->target, &v);
    if (rc) return rc;
    n = strlen(v);
    s = interp_stream_new(sh, SH_S_IN);
    if (s && !(s->data = mem_alloc(sh->m, n + 1))) {
      interp_stream_unref(sh, s);
      s = NULL;
    }
    if (!s) {
      mem_free(sh->m, v);
      return MSB_ENOMEM;
    }
    memcpy(s->data, v, n);
    s->data[n] = '\n';
    s->len = n + 1;
    mem_free(sh->m, v);
    interp_fd_set(sh, fd, s);
    return 0;
  }
  default: break;
  }
  rc = interp_redir_word(sh, r->target, &word);
  if (rc) return rc;
  switch (r->op) {
  case AST_R_IN: s = interp_open_in(sh, word, &st); break;
  case AST_R_RDWR: {
    struct vfs_stat vst;
    buf p;
    buf_init(&p, sh->m);
    interp_abspath(sh, word, &p);
    if (!p.err && vfs_stat(sh->fs, buf_str(&p), 1, &vst) == MSB_ENOENT)
      vfs_write(sh->fs, buf_str(&p), "", 0, 0, 0666 & ~sh->umask, NULL);
    buf_finish(&p);
    s = interp_open_in(sh, word, &st);
    break;
  }
  case AST_R_OUT:
  case AST_R_CLOBBER:
  case AST_R_APPEND:
    s = interp_open_out(sh, word, r->op == AST_R_APPEND, r->op == AST_R_CLOBBER,
                        &st);
    break;
  case AST_R_ALL:
  case AST_R_ALL_APPEND:
    s = interp_open_out(sh, word, r->op == AST_R_ALL_APPEND, 0, &st);
    if (s) {
      interp_fd_set(sh, 1, interp_stream_ref(s));
      fd = 2;
    }
    break;
  case AST_R_DUPIN:
  case AST_R_DUPOUT:
    if (!strcmp(word, "-")) {
      interp_fd_set(sh, fd, NULL);
      mem_free(sh->m, word);
      return 0;
    }
    if (!interp_parse_fd(word, &src, &move)) {
      if (r->op == AST_R_DUPOUT && r->fd < 0) {
        s = interp_open_out(sh, word, 0, 0, &st);
        if (s) {
          interp_fd_set(sh, 1, interp_stream_ref(s));
          fd = 2;
        }
        break;
      }
      interp_errf(sh, "%s: ambiguous redirect", word);
      st = 1;
      break;
    }
    if (src >= SH_NFD || !sh->fd[src]) {
      /* bash names the word as written: `$fd: Bad file descriptor' */
      buf t;
      buf_init(&t, sh->m);
      interp_word_text(r->target, &t);
      interp_errf(sh, "%s: Bad file descriptor", buf_str(&t));
      buf_finish(&t);
      st = 1;
      break;
    }
    s = interp_stream_ref(sh->fd[src]);
    if (move && src != fd) interp_fd_set(sh, src, NULL);
    break;
  default: st = 1; break;
  }
  mem_free(sh->m, word);
  if (!s) return st ? st : MSB_ENOMEM;
  interp_fd_set(sh, fd, s);
  return 0;
}

/* Applies a redirection list; on failure the fds are as before. */
int interp_redirs(shell *sh, ast_redir *r, interp_saved *sv) {
  int rc;
  interp_save_fds(sh, sv);
  for (; r; r = r->next) {
    sh->line = r->line ? r->line : sh->line;
    rc = interp_redir(sh, r, sv);
    if (rc) {
      sh->fail = CMD_FAIL_REDIRECT;
      interp_restore_fds(sh, sv);
      return rc;
    }
  }
  return 0;
}
