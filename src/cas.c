/* cas.c - content-addressed state export and import (see cas.h).
 *
 * Export walks /tmp and /workspace depth-first and builds each
 * directory's piece as its entries come (sorted already), closing it when
 * the walk leaves the directory: its key goes into the parent's piece. A
 * file's key is the hash its contents cache, so only listings are hashed.
 *
 * Import never builds a tree itself: it turns the pieces into the
 * uncompressed tar a snapshot is, with the root hash record, and hands it
 * to snap_import_state. The tree, quotas, names, modes, session and root
 * hash are then checked by the one restore path, all or nothing. What is
 * checked here is what a tar cannot express: a key without a piece, a
 * listing that is not one, and a tree of shared pieces that expands past
 * the limits (a directory piece may be referenced many times).
 *
 * When every piece was hashed against its key, the keys are the files'
 * hashes, so the root hash is checked here from the listings alone
 * (sha256_dir_*, the filesystem's construction) and the tar goes without
 * its root hash record: restore would hash every file a second time. */
#include "cas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"

static void cas_u32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

static uint32_t cas_get32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         p[3];
}

static uint64_t cas_get64(const uint8_t *p) {
  return (uint64_t)cas_get32(p) << 32 | cas_get32(p + 4);
}

/* Appends a record's header; its payload follows. */
static void cas_rec(buf *out, int tag, size_t len) {
  uint8_t h[5];
  h[0] = (uint8_t)tag;
  cas_u32(h + 1, (uint32_t)len);
  buf_put(out, h, 5);
}

/* key, mode, mtime: the fixed part of an entry and of 'T' / 'W'. */
static void cas_meta(buf *out, const uint8_t key[32], uint32_t mode,
                     int64_t mtime) {
  uint8_t b[12];
  cas_u32(b, mode);
  cas_u32(b + 4, (uint32_t)((uint64_t)mtime >> 32));
  cas_u32(b + 8, (uint32_t)(uint64_t)mtime);
  buf_put(out, b, 4);
  buf_put(out, b + 4, 8);
  buf_put(out, key, 32);
}

/* An entry's kind letter: a command file (an empty file marked by
 * vfs_set_prog) is 'X', its key naming a piece that holds the command's
 * name, so the mark travels as snapshots carry it. A later name of a file
 * is 'H' (cas_leaf_key). */
static int cas_kind(const vfs *fs, const struct vfs_stat *s) {
  if (s->kind == VFS_DIR) return 'D';
  if (s->kind != VFS_FILE) return 'L';
  return s->prog && !s->size && vfs_prog_name(fs, s->prog) ? 'X' : 'F';
}

static void cas_entry(buf *piece, int kind, uint32_t mode, int64_t mtime,
                      const uint8_t key[32], const char *name, size_t nl) {
  uint8_t b[4];
  buf_putc(piece, kind);
  cas_meta(piece, key, mode, mtime);
  cas_u32(b, (uint32_t)nl);
  buf_put(piece, b, 4);
  buf_put(piece, name, nl);
}

/* ---- export --------------------------------------------------------- */

typedef struct cas_frame {
  vfs_dir d;
  size_t plen; /* the directory's path length in the path buffer */
  size_t nlen; /* its name's length (the path's tail) */
  uint32_t mode;
  int64_t mtime;
  int keep; /* no multi-name file below: the node vouches for its subtree */
  buf piece;
} cas_frame;

typedef struct cas_pin {
  vfs_dir d; /* pins d.dir */
  uint8_t key[32];
} cas_pin;

struct cas_cache {
  cas_pin *e; /* sorted by node address once complete */
  size_t n, cap;
};

typedef struct cas_out {
  vfs *fs;
  mem *m;
  buf *out;
  buf path, tmp;
  cas_frame *st;
  size_t sp, cap;
  const cas_cache *old; /* lookups; NULL for a full export */
  cas_cache next;       /* this export's directories */
  arc_links links;      /* multi-name files met so far */
} cas_out;

static void cas_cache_clear(cas_cache *c) {
  while (c->n) vfs_closedir(&c->e[--c->n].d);
}

/* Frees a cache and unpins its nodes (NULL accepted). */
void cas_cache_destroy(vfs *fs, mem *m, cas_cache *c) {
  (void)fs;
  if (!c) return;
  cas_cache_clear(c);
  mem_free(m, c->e);
  mem_free(m, c);
}

static int cas_nodecmp(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)((const cas_pin *)a)->d.dir;
  uintptr_t y = (uintptr_t)((const cas_pin *)b)->d.dir;
  return x < y ? -1 : x > y;
}

static const cas_pin *cas_lookup(const cas_cache *c, const vfs_dir *d) {
  cas_pin k;
  if (!c || !c->n) return NULL;
  k.d = *d;
  return bsearch(&k, c->e, c->n, sizeof *c->e, cas_nodecmp);
}

/* Keeps an open directory and its key for the next export; takes d. */
static int cas_keep(cas_out *o, vfs_dir *d, const uint8_t key[32]) {
  cas_cache *c = &o->next;
  if (c->n == c->cap) {
    size_t nc = c->cap ? c->cap * 2 : 64;
    cas_pin *ne = mem_realloc(o->m, c->e, nc * sizeof *ne);
    if (!ne) {
      vfs_closedir(d);
      return MSB_ENOMEM;
    }
    c->e = ne;
    c->cap = nc;
  }
  c->e[c->n].d = *d;
  memcpy(c->e[c->n++].key, key, 32);
  return 0;
}

/* Enters the directory at the current path; when the last export saw the
 * same node, emits 'U', puts its key in key and returns 1 instead. */
static int cas_push(cas_out *o, size_t nlen, const struct vfs_stat *s,
                    uint8_t key[32]) {
  cas_frame *f;
  const cas_pin *hit;
  vfs_dir d;
  int rc;
  if (o->sp == o->cap) {
    size_t nc = o->cap ? o->cap * 2 : 16;
    cas_frame *ns = mem_realloc(o->m, o->st, nc * sizeof *ns);
    if (!ns) return MSB_ENOMEM;
    o->st = ns;
    o->cap = nc;
  }
  rc = vfs_opendir(o->fs, buf_str(&o->path), &d);
  if (rc) return rc;
  hit = cas_lookup(o->old, &d);
  if (hit) {
    memcpy(key, hit->key, 32);
    cas_rec(o->out, 'U', 32);
    buf_put(o->out, key, 32);
    rc = cas_keep(o, &d, key);
    return rc ? rc : o->out->err ? o->out->err : 1;
  }
  f = &o->st[o->sp];
  f->d = d;
  f->plen = o->path.len;
  f->nlen = nlen;
  f->mode = s->mode;
  f->mtime = s->mtime_ns;
  f->keep = s->links == 0;
  buf_init(&f->piece, o->m);
  buf_put(&f->piece, CAS_DIR_MAGIC, CAS_DIR_MAGIC_LEN);
  o->sp++;
  return 0;
}

/* The key of a file, command file or link at the current path; *kind
 * becomes 'H' for a later name of a file met before, whose piece is the
 * first name's member path. */
static int cas_leaf_key(cas_out *o, const struct vfs_stat *s, int *kind,
                        uint8_t key[32]) {
  const char *first;
  int rc;
  buf_clear(&o->tmp);
  if (*kind == 'F' && s->nlink > 1 &&
      (first = arc_links_seen(&o->links, s->ino, buf_str(&o->path) + 1))) {
    *kind = 'H';
    rc = buf_puts(&o->tmp, first);
  } else if (*kind == 'F') {
    if (o->links.names.err) return o->links.names.err;
    return vfs_hash(o->fs, buf_str(&o->path), 0, key);
  } else if (*kind == 'X') {
    rc = buf_puts(&o->tmp, vfs_prog_name(o->fs, s->prog));
  } else {
    rc = vfs_readlink(o->fs, buf_str(&o->path), &o->tmp);
  }
  if (rc) return rc;
  sha256_digest(o->tmp.p ? o->tmp.p : "", o->tmp.len, key);
  /* targets and names are small and a host could not read them as bytes */
  cas_rec(o->out, 'L', 32 + o->tmp.len);
  buf_put(o->out, key, 32);
  buf_put(o->out, o->tmp.p, o->tmp.len);
  return o->out->err;
}

/* Closes the innermost directory: its 'D' record, then its entry in the
 * parent's piece (or key for the caller when it is the top). */
static int cas_pop(cas_out *o, uint8_t key[32]) {
  cas_frame *f = &o->st[--o->sp];
  uint8_t pl[4];
  int rc = f->piece.err;
  if (rc) vfs_closedir(&f->d);
  if (!rc) {
    sha256_digest(f->piece.p, f->piece.len, key);
    if (f->keep)
      rc = cas_keep(o, &f->d, key);
    else
      vfs_closedir(&f->d);
  }
  if (!rc) {
    cas_rec(o->out, 'D', 32 + 4 + f->plen + f->piece.len);
    buf_put(o->out, key, 32);
    cas_u32(pl, (uint32_t)f->plen);
    buf_put(o->out, pl, 4);
    buf_put(o->out, o->path.p, f->plen);
    buf_put(o->out, f->piece.p, f->piece.len);
    rc = o->out->err;
  }
  if (!rc && o->sp)
    cas_entry(&o->st[o->sp - 1].piece, 'D', f->mode, f->mtime, key,
              o->path.p + f->plen - f->nlen, f->nlen);
  buf_finish(&f->piece);
  return rc;
}

/* Walks one top directory; emits its 'T' / 'W' record. */
static int cas_top(cas_out *o, const char *top, int tag) {
  struct vfs_stat s;
  uint8_t key[32];
  const char *name;
  size_t nl;
  int rc = vfs_stat(o->fs, top, 0, &s);
  if (rc == MSB_ENOENT || (!rc && s.kind != VFS_DIR)) return 0;
  buf_clear(&o->path);
  buf_puts(&o->path, top);
  rc = o->path.err;
  if (!rc) rc = cas_push(o, 0, &s, key);
  if (rc == 1) {
    cas_rec(o->out, tag, 44);
    cas_meta(o->out, key, s.mode, s.mtime_ns);
    return o->out->err;
  }
  while (!rc && o->sp) {
    cas_frame *f = &o->st[o->sp - 1];
    buf_truncate(&o->path, f->plen);
    if (!vfs_readdir(&f->d, &name, &nl, &s)) {
      rc = cas_pop(o, key);
      if (!rc && !o->sp) {
        cas_rec(o->out, tag, 44);
        cas_meta(o->out, key, f->mode, f->mtime);
        rc = o->out->err;
      }
      continue;
    }
    buf_putc(&o->path, '/');
    buf_put(&o->path, name, nl);
    rc = o->path.err;
    if (!rc && s.kind == VFS_DIR) {
      rc = cas_push(o, nl, &s, key);
      if (rc == 1) {
        cas_entry(&f->piece, 'D', s.mode, s.mtime_ns, key, name, nl);
        rc = 0;
      }
    } else if (!rc) {
      int kind = cas_kind(o->fs, &s);
      rc = cas_leaf_key(o, &s, &kind, key);
      if (!rc) cas_entry(&f->piece, kind, s.mode, s.mtime_ns, key, name, nl);
    }
  }
  while (o->sp) {
    o->sp--;
    vfs_closedir(&o->st[o->sp].d);
    buf_finish(&o->st[o->sp].piece);
  }
  return rc;
}

/* Exports the state as records (see cas.h). */
int cas_export(vfs *fs, const char *cwd, const char *session, size_t slen,
               cas_cache **cache, int cached, buf *out) {
  cas_out o;
  uint8_t h[32];
  char num[24];
  int rc;
  memset(&o, 0, sizeof o);
  o.fs = fs;
  o.m = out->m;
  o.out = out;
  o.old = cached ? *cache : NULL;
  buf_init(&o.path, o.m);
  buf_init(&o.tmp, o.m);
  arc_links_init(&o.links, o.m);
  rc = cas_top(&o, "/tmp", 'T');
  if (!rc) rc = cas_top(&o, "/workspace", 'W');
  if (!rc) rc = vfs_hash(fs, "/workspace", 0, h);
  if (!rc) {
    snprintf(num, sizeof num, "%llu", (unsigned long long)vfs_revision(fs));
    cas_rec(out, 'R', 32);
    buf_put(out, h, 32);
    cas_rec(out, 'V', strlen(num));
    buf_puts(out, num);
    cas_rec(out, 'C', strlen(cwd));
    buf_puts(out, cwd);
    sha256_digest(session ? session : "", slen, h);
    cas_rec(out, 'S', 32 + slen);
    buf_put(out, h, 32);
    buf_put(out, session, slen);
    rc = out->err;
  }
  if (!rc && !*cache) {
    *cache = mem_alloc(o.m, sizeof **cache);
    if (*cache)
      memset(*cache, 0, sizeof **cache);
    else
      rc = MSB_ENOMEM;
  }
  if (!rc) {
    /* the new set pins what it holds before the old one lets go */
    if (o.next.n > 1) qsort(o.next.e, o.next.n, sizeof *o.next.e, cas_nodecmp);
    cas_cache_clear(*cache);
    mem_free(o.m, (*cache)->e);
    **cache = o.next;
  } else {
    cas_cache_clear(&o.next);
    mem_free(o.m, o.next.e);
  }
  mem_free(o.m, o.st);
  buf_finish(&o.path);
  buf_finish(&o.tmp);
  arc_links_finish(&o.links);
  return rc;
}

/* ---- import --------------------------------------------------------- */

typedef struct cas_piece {
  uint8_t key[32];
  const uint8_t *p;
  size_t len;
} cas_piece;

typedef struct cas_pos {
  const cas_piece *pc;
  size_t at;   /* next entry's offset in the piece */
  size_t prev; /* the previous entry's offset, 0 before the first */
  size_t plen; /* the directory's path length */
  sha256_ctx h; /* its digest so far, when hashing */
} cas_pos;

typedef struct cas_in {
  mem *m;
  const arc_limits *lim;
  cas_piece *pcs;
  size_t npc;
  const uint8_t *top[2]; /* 'T' and 'W' payloads */
  const uint8_t *root, *rev, *cwd, *sess, *sesskey;
  size_t revlen, cwdlen, sesslen;
  uint64_t members, bytes;
  buf path;
  cas_pos *st;
  size_t sp, cap;
  int trusted; /* 'K': keys are taken as given */
  int hashing; /* digesting the tree: /workspace, keys checked */
  uint8_t got[32], empty[32]; /* the digest found; SHA-256 of no bytes */
  char *why;
  size_t whylen;
} cas_in;

static int cas_fail(cas_in *s, const char *fmt, const uint8_t *key) {
  static const char dig[] = "0123456789abcdef";
  char hex[65] = "";
  int i;
  if (key) {
    for (i = 0; i < 32; i++) {
      hex[2 * i] = dig[key[i] >> 4];
      hex[2 * i + 1] = dig[key[i] & 15];
    }
    hex[64] = 0;
  }
  snprintf(s->why, s->whylen, fmt, hex);
  return MSB_ECORRUPT;
}

static int cas_keycmp(const void *a, const void *b) { return memcmp(a, b, 32); }

static const cas_piece *cas_find(const cas_in *s, const uint8_t key[32]) {
  return bsearch(key, s->pcs, s->npc, sizeof *s->pcs, cas_keycmp);
}

/* Reads the records: pieces into a sorted table (keys computed here),
 * the rest by tag. */
static int cas_read(cas_in *s, const uint8_t *p, size_t len) {
  const cas_piece *sess;
  size_t i = 0, n = 0, cap = 0;
  while (i < len) {
    uint32_t l;
    const uint8_t *d;
    if (len - i < 5) return cas_fail(s, "truncated record%s", NULL);
    l = cas_get32(p + i + 1);
    if (len - i - 5 < l) return cas_fail(s, "truncated record%s", NULL);
    d = p + i + 5;
    switch (p[i]) {
    case 'P':
      if (n == cap) {
        size_t nc = cap ? cap * 2 : 64;
        cas_piece *np = mem_realloc(s->m, s->pcs, nc * sizeof *np);
        if (!np) return MSB_ENOMEM;
        s->pcs = np;
        cap = nc;
      }
      if (l < 32) return cas_fail(s, "malformed piece record%s", NULL);
      if (s->trusted) {
        memcpy(s->pcs[n].key, d, 32);
      } else {
        sha256_digest(d + 32, l - 32, s->pcs[n].key);
        if (memcmp(d, s->pcs[n].key, 32))
          return cas_fail(s, "piece %s does not match its key", d);
      }
      s->pcs[n].p = d + 32;
      s->pcs[n++].len = l - 32;
      break;
    case 'K':
      if (l || n) return cas_fail(s, "misplaced trust record%s", NULL);
      s->trusted = 1;
      break;
    case 'T':
    case 'W':
      if (l != 44) return cas_fail(s, "malformed top directory record%s", NULL);
      s->top[p[i] == 'W'] = d;
      break;
    case 'R':
      if (l != 32) return cas_fail(s, "malformed root hash record%s", NULL);
      s->root = d;
      break;
    case 'V': s->rev = d, s->revlen = l; break;
    case 'C': s->cwd = d, s->cwdlen = l; break;
    case 'S':
      if (l != 32) return cas_fail(s, "malformed session record%s", NULL);
      s->sesskey = d;
      break;
    default: return cas_fail(s, "unknown record kind%s", NULL);
    }
    i += 5 + (size_t)l;
  }
  s->npc = n;
  if (n > 1) qsort(s->pcs, n, sizeof *s->pcs, cas_keycmp);
  if (!s->top[1]) return cas_fail(s, "no /workspace record%s", NULL);
  if (!s->root || !s->rev || !s->cwd || !s->sesskey)
    return cas_fail(s, "missing root hash, revision, cwd or session record%s",
                    NULL);
  sess = cas_find(s, s->sesskey);
  if (!sess) return cas_fail(s, "missing piece %s", s->sesskey);
  s->sess = sess->p;
  s->sesslen = sess->len;
  return 0;
}

/* A command file's piece: a name restore can look up (it refuses names
 * the sandbox has no command for); bytes a message can show. */
static int cas_command_ok(const cas_piece *pc) {
  size_t i;
  if (!pc->len || pc->len > 64) return 0;
  for (i = 0; i < pc->len; i++)
    if (pc->p[i] <= ' ' || pc->p[i] > '~' || pc->p[i] == '/') return 0;
  return 1;
}

/* Appends one member (type ARC_*, or 'X' for a command file): the bounds
 * a shared piece could otherwise escape are counted here, before the tar
 * grows. */
static int cas_member(cas_in *s, buf *tar, int type, const uint8_t *meta,
                      const cas_piece *pc) {
  arc_wentry w;
  char *text = NULL; /* a link's target or a command's name */
  int rc;
  if (type == 'X' && !cas_command_ok(pc))
    return cas_fail(s, "invalid command name in piece %s", pc->key);
  if (++s->members > s->lim->max_members)
    return cas_fail(s, "the tree has more entries than the node quota%s", NULL);
  s->bytes += (type == ARC_FILE ? pc->len : 0) + 1024;
  if (s->bytes > s->lim->max_out)
    return cas_fail(s, "the tree expands past the byte quota%s", NULL);
  memset(&w, 0, sizeof w);
  w.type = type;
  w.path = buf_str(&s->path) + 1;
  w.mode = cas_get32(meta);
  w.mtime_ns = (int64_t)cas_get64(meta + 4);
  w.uid = w.gid = 1000;
  w.uname = w.gname = "user";
  if (type == ARC_FILE) {
    w.data = pc->p;
    w.size = pc->len;
  } else if (type == ARC_SYMLINK || type == ARC_HARDLINK || type == 'X') {
    if (!pc->len || memchr(pc->p, 0, pc->len))
      return cas_fail(s, "invalid link target in piece %s", pc->key);
    text = mem_alloc(s->m, pc->len + 1);
    if (!text) return MSB_ENOMEM;
    memcpy(text, pc->p, pc->len);
    text[pc->len] = 0;
    w.type = type == 'X' ? ARC_FILE : type;
    if (type == 'X')
      w.command = text;
    else
      w.link = text;
  }
  rc = arc_tar_put(tar, &w);
  mem_free(s->m, text);
  return rc;
}

/* Enters a directory piece: checks its magic and pushes it. */
static int cas_enter(cas_in *s, const uint8_t *key) {
  const cas_piece *pc = cas_find(s, key);
  if (!pc) return cas_fail(s, "missing piece %s", key);
  if (pc->len < CAS_DIR_MAGIC_LEN ||
      memcmp(pc->p, CAS_DIR_MAGIC, CAS_DIR_MAGIC_LEN))
    return cas_fail(s, "piece %s is not a directory listing", key);
  if (s->sp == s->cap) {
    size_t nc = s->cap ? s->cap * 2 : 16;
    cas_pos *ns = mem_realloc(s->m, s->st, nc * sizeof *ns);
    if (!ns) return MSB_ENOMEM;
    s->st = ns;
    s->cap = nc;
  }
  s->st[s->sp].pc = pc;
  s->st[s->sp].at = CAS_DIR_MAGIC_LEN;
  s->st[s->sp].prev = 0;
  s->st[s->sp].plen = s->path.len;
  if (s->hashing) sha256_dir_init(&s->st[s->sp].h);
  s->sp++;
  return 0;
}

/* Leaves the innermost directory: its digest goes into its parent's, or
 * is the tree's. */
static void cas_leave(cas_in *s) {
  uint8_t d[32];
  cas_pos *f = &s->st[--s->sp];
  if (!s->hashing) return;
  sha256_final(&f->h, d);
  if (s->sp)
    sha256_update(&s->st[s->sp - 1].h, d, 32);
  else
    memcpy(s->got, d, 32);
}

/* Checks one entry's name: non-empty, no '/' or NUL, not "." or "..",
 * after the previous one in byte order. */
static int cas_name_ok(const uint8_t *nm, size_t nl, const uint8_t *prev,
                       size_t pl) {
  size_t k = nl < pl ? nl : pl;
  int c;
  if (!nl || memchr(nm, '/', nl) || memchr(nm, 0, nl)) return 0;
  if ((nl == 1 && nm[0] == '.') || (nl == 2 && !memcmp(nm, "..", 2))) return 0;
  if (!prev) return 1;
  c = memcmp(prev, nm, k);
  return c < 0 || (!c && pl < nl);
}

/* The contents' key of the file a hard link's piece names (its first
 * name's member path, "workspace/a/f"), found through the listings from
 * the top directory; NULL when there is no such file. A hashed import
 * needs it: a hard link's own key names its piece, not the contents its
 * name hashes as. */
static const uint8_t *cas_first_key(const cas_in *s, const cas_piece *leaf) {
  const uint8_t *p = leaf->p, *end = leaf->p + leaf->len, *key;
  if (leaf->len > 4 && !memcmp(p, "tmp/", 4) && s->top[0]) {
    key = s->top[0] + 12;
    p += 4;
  } else if (leaf->len > 10 && !memcmp(p, "workspace/", 10)) {
    key = s->top[1] + 12;
    p += 10;
  } else {
    return NULL;
  }
  if (end[-1] == '/') return NULL;
  while (p < end) {
    const uint8_t *slash = memchr(p, '/', (size_t)(end - p));
    size_t nl = slash ? (size_t)(slash - p) : (size_t)(end - p);
    const cas_piece *d = cas_find(s, key);
    size_t at = CAS_DIR_MAGIC_LEN;
    if (!d || d->len < at || memcmp(d->p, CAS_DIR_MAGIC, at)) return NULL;
    for (key = NULL; !key && d->len - at >= CAS_ENTRY_FIXED;) {
      const uint8_t *e = d->p + at;
      uint32_t el = cas_get32(e + 45);
      if (d->len - at - CAS_ENTRY_FIXED < el) return NULL;
      if (el == nl && !memcmp(e + CAS_ENTRY_FIXED, p, nl) &&
          e[0] == (slash ? 'D' : 'F'))
        key = e + 13;
      at += CAS_ENTRY_FIXED + el;
    }
    if (!key) return NULL;
    p += nl + (slash != NULL);
  }
  return key;
}

/* The next entry of the innermost directory, as a member. */
static int cas_step(cas_in *s, buf *tar) {
  cas_pos *f = &s->st[s->sp - 1];
  const cas_piece *pc = f->pc, *leaf = NULL;
  const uint8_t *e = pc->p + f->at, *prev = NULL;
  size_t left = pc->len - f->at, nl, pl = 0;
  int kind;
  if (f->prev) {
    pl = cas_get32(pc->p + f->prev + 45);
    prev = pc->p + f->prev + CAS_ENTRY_FIXED;
  }
  if (left < CAS_ENTRY_FIXED ||
      left - CAS_ENTRY_FIXED < (nl = cas_get32(e + 45)))
    return cas_fail(s, "directory piece %s is truncated", pc->key);
  kind = e[0];
  if (kind != 'F' && kind != 'D' && kind != 'L' && kind != 'X' && kind != 'H')
    return cas_fail(s, "directory piece %s has an unknown entry kind", pc->key);
  if (!cas_name_ok(e + CAS_ENTRY_FIXED, nl, prev, pl))
    return cas_fail(s,
                    "directory piece %s has an invalid, unsorted or "
                    "duplicate name",
                    pc->key);
  if (cas_get32(e + 1) > 07777)
    return cas_fail(s, "directory piece %s has an invalid mode", pc->key);
  f->prev = f->at;
  f->at += CAS_ENTRY_FIXED + nl;
  buf_truncate(&s->path, f->plen);
  buf_putc(&s->path, '/');
  buf_put(&s->path, e + CAS_ENTRY_FIXED, nl);
  if (s->path.err) return s->path.err;
  if (s->path.len > (size_t)s->lim->max_header)
    return cas_fail(s, "a path is longer than the limit%s", NULL);
  if (s->hashing)
    sha256_dir_entry(&f->h, kind == 'X' || kind == 'H' ? 'F' : kind,
                     e + CAS_ENTRY_FIXED, (uint32_t)nl);
  if (kind == 'D') {
    int rc = cas_member(s, tar, ARC_DIR, e + 1, NULL);
    return rc ? rc : cas_enter(s, e + 13);
  }
  leaf = cas_find(s, e + 13);
  if (!leaf) return cas_fail(s, "missing piece %s", e + 13);
  if (s->hashing) {
    const uint8_t *k = kind == 'X' ? s->empty : e + 13;
    if (kind == 'H' && !(k = cas_first_key(s, leaf)))
      return cas_fail(s, "hard link %s names no earlier file", e + 13);
    sha256_update(&f->h, k, 32);
  }
  return cas_member(s, tar,
                    kind == 'F'   ? ARC_FILE
                    : kind == 'L' ? ARC_SYMLINK
                    : kind == 'H' ? ARC_HARDLINK
                                  : 'X',
                    e + 1, leaf);
}

/* Appends one top directory and everything below it. */
static int cas_tree(cas_in *s, buf *tar, const char *name,
                    const uint8_t *meta) {
  int rc;
  if (cas_get32(meta) > 07777)
    return cas_fail(s, "the top directory record has an invalid mode%s", NULL);
  buf_clear(&s->path);
  buf_putc(&s->path, '/');
  buf_puts(&s->path, name);
  if (s->path.err) return s->path.err;
  rc = cas_member(s, tar, ARC_DIR, meta, NULL);
  if (!rc) rc = cas_enter(s, meta + 12);
  while (!rc && s->sp) {
    cas_pos *f = &s->st[s->sp - 1];
    if (f->at == f->pc->len)
      cas_leave(s);
    else
      rc = cas_step(s, tar);
  }
  s->sp = 0;
  return rc;
}

/* The global header: what a snapshot's records would say. */
static int cas_globals(cas_in *s, buf *tar) {
  static const char dig[] = "0123456789abcdef";
  char hex[64];
  buf rec;
  int i, rc;
  for (i = 0; i < 32; i++) {
    hex[2 * i] = dig[s->root[i] >> 4];
    hex[2 * i + 1] = dig[s->root[i] & 15];
  }
  buf_init(&rec, s->m);
  arc_pax_record(&rec, "MEMSANDBOX.cwd", (const char *)s->cwd, s->cwdlen);
  arc_pax_record(&rec, "MEMSANDBOX.format", "2", 1);
  arc_pax_record(&rec, "MEMSANDBOX.revision", (const char *)s->rev, s->revlen);
  if (s->trusted) arc_pax_record(&rec, "MEMSANDBOX.root_hash", hex, 64);
  if (s->sesslen) buf_put(&rec, s->sess, s->sesslen);
  rc = rec.err;
  if (!rc) rc = arc_tar_put_global(tar, rec.p, rec.len);
  buf_finish(&rec);
  return rc;
}

/* Builds the snapshot tar from import records (see cas.h). */
int cas_import_tar(mem *m, const uint8_t *rec, size_t len,
                   const arc_limits *lim, buf *tar, char *why, size_t whylen) {
  cas_in s;
  int rc;
  memset(&s, 0, sizeof s);
  s.m = m;
  s.lim = lim;
  s.why = why;
  s.whylen = whylen;
  why[0] = 0;
  buf_init(&s.path, m);
  rc = cas_read(&s, rec, len);
  if (!rc) rc = cas_globals(&s, tar);
  if (!rc && s.top[0]) rc = cas_tree(&s, tar, "tmp", s.top[0]);
  s.hashing = !s.trusted;
  sha256_digest("", 0, s.empty);
  if (!rc) rc = cas_tree(&s, tar, "workspace", s.top[1]);
  if (!rc && s.hashing && memcmp(s.got, s.root, 32))
    rc = cas_fail(&s, "root hash mismatch: the manifest records %s", s.root);
  if (!rc) rc = arc_tar_end(tar, 0);
  mem_free(m, s.pcs);
  mem_free(m, s.st);
  buf_finish(&s.path);
  return rc;
}
