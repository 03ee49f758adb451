/* pbdiff — many path patterns matched at once (path.h, pbd_PatternSet).
 *
 * A .pbdiff written by `pbdiff noise` over a large corpus can hold hundreds
 * of thousands of `ignore` patterns, and the walk asks at every path whether
 * one matches: trying each in turn makes that quadratic.  Most patterns are
 * literal paths, or literal but for `[*]` in place of indices and keys; those
 * are found in a hash table, the path itself or the path with each index or
 * key written `[*]`.  The rest (`*` for a field name, literal indices beside
 * `[*]`) are tried one by one, as before. */
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "pbdiff/diff/path.h"

struct pbd_PatternSet {
  const char **slots;   /* open addressing: literal patterns, then [*] ones */
  size_t mask;
  const char **others;  /* tried one by one */
  size_t nothers;
  bool any_literal, any_starred;
};

/* Whether every '*' of the pattern stands in a `[*]` and no other bracket
 * holds anything: then it matches a path exactly when the path with each
 * bracket written `[*]` is the pattern. */
static bool only_starred_brackets(const char *p) {
  for (; *p; p++) {
    if (p[0] == '[') {
      if (p[1] != '*' || p[2] != ']') return false;
      p += 2;
    } else if (*p == '*') {
      return false;
    }
  }
  return true;
}

static size_t slot_of(const pbd_PatternSet *s, const char *text, size_t len) {
  return (size_t)XXH3_64bits(text, len) & s->mask;
}

static bool insert(pbd_PatternSet *s, const char *p) {
  size_t len = strlen(p);
  for (size_t i = slot_of(s, p, len);; i = (i + 1) & s->mask) {
    if (!s->slots[i]) {
      s->slots[i] = p;
      return true;
    }
    if (!strcmp(s->slots[i], p)) return true;
  }
}

static bool contains(const pbd_PatternSet *s, const char *text, size_t len) {
  for (size_t i = slot_of(s, text, len); s->slots[i]; i = (i + 1) & s->mask)
    if (strlen(s->slots[i]) == len && !memcmp(s->slots[i], text, len)) return true;
  return false;
}

pbd_PatternSet *pbd_PatternSet_New(const char *const *patterns, size_t n) {
  pbd_PatternSet *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  size_t cap = 16;
  while (cap < 2 * n + 2) cap *= 2;
  s->slots = calloc(cap, sizeof *s->slots);
  s->others = malloc(sizeof *s->others * (n ? n : 1));
  s->mask = cap - 1;
  if (!s->slots || !s->others) {
    pbd_PatternSet_Free(s);
    return NULL;
  }
  for (size_t i = 0; i < n; i++) {
    const char *p = patterns[i];
    if (!p) continue;
    if (!strchr(p, '*') || only_starred_brackets(p)) {
      insert(s, p);
      if (strchr(p, '*')) s->any_starred = true;
      else s->any_literal = true;
    } else {
      s->others[s->nothers++] = p;
    }
  }
  return s;
}

void pbd_PatternSet_Free(pbd_PatternSet *s) {
  if (!s) return;
  free(s->slots);
  free(s->others);
  free(s);
}

/* The path with each index or key written `[*]` (quoted keys may hold
 * brackets), into out. */
static void star_brackets(const char *t, pbd_Buf *out) {
  pbd_Buf_Truncate(out, 0);
  while (*t) {
    if (*t != '[') {
      pbd_Buf_Append(out, t++, 1);
      continue;
    }
    bool quoted = false;
    for (t++; *t && (quoted || *t != ']'); t++) {
      if (*t == '\\' && quoted && t[1]) t++;
      else if (*t == '"') quoted = !quoted;
    }
    if (*t == ']') t++;
    pbd_Buf_AppendStr(out, "[*]");
  }
}

bool pbd_PatternSet_Matches(const pbd_PatternSet *s, const char *text, pbd_Buf *scratch) {
  if (s->any_literal && contains(s, text, strlen(text))) return true;
  if (s->any_starred) {
    star_brackets(text, scratch);
    if (!scratch->oom && contains(s, scratch->data ? scratch->data : "", scratch->len)) return true;
  }
  for (size_t i = 0; i < s->nothers; i++)
    if (pbd_Path_PatternMatches(s->others[i], text)) return true;
  return false;
}
