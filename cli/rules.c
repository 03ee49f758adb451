/* pbdiff CLI — the matching options (--key, --repeated-as-set, --ignore)
 * and scoped tolerances (--float-margin, --float-fraction SCOPE=VALUE)
 * turned into the library's rules for one schema. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const pbd_FieldDef *repeated_field(const pbd_DefPool *pool, const char *name,
                                          pbd_Status *s) {
  const pbd_FieldDef *fd = pbd_DefPool_FindFieldByFullName(pool, name);
  if (!fd) {
    pbd_Status_SetError(s, kPbd_Status_Usage, "no field %s in the schema (want package.Message.field)",
                        name);
    return NULL;
  }
  if (!fd->is_repeated || fd->is_map) {
    pbd_Status_SetError(s, kPbd_Status_Usage, "%s is not a repeated field (maps match by key already)",
                        name);
    return NULL;
  }
  return fd;
}

bool pbd_Cli_ParseMatchRule(const pbd_DefPool *pool, pbd_MatchKind kind, const char *spec,
                         pbd_MatchRule *rule, pbd_Status *s) {
  memset(rule, 0, sizeof *rule);
  rule->kind = kind;
  char name[512];
  const char *eq = strchr(spec, '=');
  size_t n = eq && kind == kPbd_Match_Key ? (size_t)(eq - spec) : strlen(spec);
  if (n >= sizeof name) {
    pbd_Status_SetError(s, kPbd_Status_Usage, "field name too long: %.60s...", spec);
    return false;
  }
  memcpy(name, spec, n);
  name[n] = '\0';
  if (!(rule->field = repeated_field(pool, name, s))) return false;
  if (kind != kPbd_Match_Key) return true;
  if (!eq || !eq[1]) {
    pbd_Status_SetError(s, kPbd_Status_Usage, "--key wants FIELD=SUBFIELD[+SUBFIELD...], not %s",
                        spec);
    return false;
  }
  const pbd_MessageDef *elem = rule->field->message_type;
  if (!elem) {
    pbd_Status_SetError(s, kPbd_Status_Usage, "%s is not a repeated message field", name);
    return false;
  }
  for (const char *p = eq + 1; *p;) {
    const char *plus = strchr(p, '+');
    size_t k = plus ? (size_t)(plus - p) : strlen(p);
    char sub[256];
    if (k == 0 || k >= sizeof sub || rule->key_count == kPbd_MaxKeyFields) {
      pbd_Status_SetError(s, kPbd_Status_Usage, "bad key list in %s (at most %d subfields)", spec,
                          kPbd_MaxKeyFields);
      return false;
    }
    memcpy(sub, p, k);
    sub[k] = '\0';
    const pbd_FieldDef *kf = pbd_MessageDef_FindFieldByName(elem, sub);
    if (!kf || kf->is_map || kf->type == kPbd_Type_Message || kf->type == kPbd_Type_Group) {
      pbd_Status_SetError(s, kPbd_Status_Usage,
                          "%s has no scalar field %s to use as a key", elem->full_name, sub);
      return false;
    }
    rule->key[rule->key_count++] = kf;
    p += k + (plus ? 1 : 0);
  }
  return true;
}

/* Turns --key, --repeated-as-set and --ignore into rules.  An --ignore that
 * names a field of the schema ignores that field everywhere; anything else
 * is a path pattern. */
/* "did you mean" for a name that is no field of m. */
static const char *closest_field(const pbd_MessageDef *m, const char *name) {
  const char **names = malloc(sizeof *names * (m->field_count + 1));
  if (!names) return NULL;
  for (uint32_t i = 0; i < m->field_count; i++) names[i] = m->fields[i]->name;
  const char *c = pbd_Cli_Closest(name, names, m->field_count);
  free((void *)names);
  return c;
}

static void no_such_field(const char *option, const char *pattern, const pbd_MessageDef *m,
                          const char *name, pbd_Status *s) {
  const char *c = closest_field(m, name);
  pbd_Status_SetError(s, kPbd_Status_Usage, "%s %s: %s has no field '%s'%s%s%s", option, pattern,
                      m->full_name, name, c ? " (did you mean '" : "", c ? c : "", c ? "'?)" : "");
}

/* The message a field's path goes on into (a map's values), or NULL. */
static const pbd_MessageDef *inner_type(const pbd_FieldDef *fd) {
  if (!fd->is_map || !fd->message_type) return fd->message_type;
  const pbd_FieldDef *value = pbd_MessageDef_FindFieldByNumber(fd->message_type, 2);
  return value ? value->message_type : NULL;
}

/* An --ignore (or a tolerance's scope, `option` says which) that is no
 * full field name is a path pattern over `type`:
 * each name in it must be a field of the message it stands in (until a `*`,
 * a field number, an extension or an Any payload, past which types are not
 * followed), so that a typo is an error, not a rule that matches nothing.
 * A pattern that reads as MESSAGE.FIELD is checked as a full field name. */
static bool check_pattern(const char *option, const pbd_DefPool *pool, const pbd_MessageDef *type,
                          const char *pattern, pbd_Status *s) {
  const pbd_MessageDef *m = type;
  char name[256];
  for (const char *p = pattern; *p;) {
    bool named_place = p == pattern || *p == '.';
    if (*p == '.') p++;
    if (*p == '[') {
      if (named_place) return true; /* an extension or an Any's type */
      bool quoted = false;
      for (p++; *p && (quoted || *p != ']'); p++) {
        if (*p == '\\' && quoted && p[1]) p++;
        else if (*p == '"') quoted = !quoted;
      }
      if (*p == ']') p++;
      continue;
    }
    size_t n = strcspn(p, ".[");
    if (n == 0 || n >= sizeof name) return true;
    memcpy(name, p, n);
    name[n] = '\0';
    p += n;
    if (!strcmp(name, "*") || strspn(name, "0123456789") == n) return true;
    const pbd_FieldDef *fd = m ? pbd_MessageDef_FindFieldByName(m, name) : NULL;
    if (!fd && m == type && strchr(pattern, '.') && !strpbrk(pattern, "[*")) {
      /* package.Message.field: the message part names a message */
      const char *dot = strrchr(pattern, '.');
      char msg[512];
      snprintf(msg, sizeof msg, "%.*s", (int)(dot - pattern), pattern);
      const pbd_MessageDef *owner = pbd_DefPool_FindMessageByName(pool, msg);
      if (owner) {
        no_such_field(option, pattern, owner, dot + 1, s);
        return false;
      }
    }
    if (!m) {
      pbd_Status_SetError(s, kPbd_Status_Usage, "%s %s: '%s' follows a field that is no message",
                          option, pattern, name);
      return false;
    }
    if (!fd) {
      no_such_field(option, pattern, m, name, s);
      return false;
    }
    m = inner_type(fd);
  }
  return true;
}

/* Across two schema versions a path may be in one of them only, so that
 * patterns are checked against the type with one schema alone. */
static bool one_schema(const pbd_CliOptions *o) {
  return !o->left_schemas.n && !o->right_schemas.n && !o->left_type && !o->right_type;
}

/* A field whose values a tolerance can reach: a float, or a message (whose
 * floats it covers). */
static bool may_hold_floats(const pbd_FieldDef *fd) {
  return fd->type == kPbd_Type_Float || fd->type == kPbd_Type_Double ||
         fd->type == kPbd_Type_Message || fd->type == kPbd_Type_Group;
}

/* One --float-margin or --float-fraction SCOPE=VALUE into a rule: the
 * scope a full field name of the schema, else a path pattern (as --ignore
 * tells them apart, and checked alike).  The scope is copied to *text,
 * which is advanced past it. */
static bool resolve_tolerance(const pbd_CliOptions *o, const pbd_CliSchema *out, bool margin,
                              const char *spec, pbd_ToleranceRule *r, char **text, pbd_Status *s) {
  const char *option = margin ? "--float-margin" : "--float-fraction";
  size_t len;
  double v;
  if (!pbd_Cli_ScopedTolerance(spec, &len, &v)) { /* checked when given; a library caller's */
    pbd_Status_SetError(s, kPbd_Status_Usage, "%s wants SCOPE=NUMBER, not '%s'", option, spec);
    return false;
  }
  char *scope = *text;
  memcpy(scope, spec, len);
  scope[len] = '\0';
  *text += len + 1;
  *r = (pbd_ToleranceRule){.margin = margin ? v : -1, .fraction = margin ? -1 : v};
  const pbd_FieldDef *fd = out->pool ? pbd_DefPool_FindFieldByFullName(out->pool, scope) : NULL;
  if (fd && !may_hold_floats(fd)) {
    pbd_Status_SetError(s, kPbd_Status_Usage,
                        "%s %s: the field holds no floats (a scope is a float, double or "
                        "message field, or a path pattern)",
                        option, scope);
    return false;
  }
  if (fd) {
    r->field = fd;
    return true;
  }
  if (out->type && one_schema(o) && !check_pattern(option, out->pool, out->type, scope, s))
    return false;
  r->pattern = scope;
  return true;
}

/* The scoped tolerances, margins first (each quantity is looked up apart,
 * so only the order among one option's rules matters). */
static bool resolve_tolerances(const pbd_CliOptions *o, pbd_CliSchema *out, pbd_Status *s) {
  size_t n = o->scoped_margins.n + o->scoped_fractions.n, bytes = 1;
  for (size_t i = 0; i < n; i++) {
    bool margin = i < o->scoped_margins.n;
    bytes += strlen(margin ? o->scoped_margins.v[i] : o->scoped_fractions.v[i - o->scoped_margins.n]) + 1;
  }
  out->tolerances = calloc(n + 1, sizeof *out->tolerances);
  out->tolerance_scopes = malloc(bytes);
  if (!out->tolerances || !out->tolerance_scopes) {
    pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
    return false;
  }
  char *text = out->tolerance_scopes;
  for (size_t i = 0; i < n; i++) {
    bool margin = i < o->scoped_margins.n;
    const char *spec = margin ? o->scoped_margins.v[i] : o->scoped_fractions.v[i - o->scoped_margins.n];
    if (!resolve_tolerance(o, out, margin, spec, &out->tolerances[i], &text, s)) return false;
  }
  return true;
}

bool pbd_Cli_ResolveRules(const pbd_CliOptions *o, pbd_CliSchema *out, pbd_Status *s) {
  if ((o->keys.n || o->sets.n) && !out->pool) {
    pbd_Status_SetError(s, kPbd_Status_Usage, "--key and --repeated-as-set need a schema (-s or --proto)");
    return false;
  }
  out->rules = calloc(o->keys.n + o->sets.n + 1, sizeof *out->rules);
  out->ignores = calloc(o->ignores.n + 1, sizeof *out->ignores);
  if (!out->rules || !out->ignores) {
    pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
    return false;
  }
  size_t n = 0;
  for (size_t i = 0; i < o->keys.n + o->sets.n; i++) {
    bool key = i < o->keys.n;
    const char *spec = key ? o->keys.v[i] : o->sets.v[i - o->keys.n];
    if (!pbd_Cli_ParseMatchRule(out->pool, key ? kPbd_Match_Key : kPbd_Match_Set, spec,
                                &out->rules[n], s)) {
      char msg[sizeof s->msg];
      memcpy(msg, s->msg, sizeof msg);
      pbd_Status_SetError(s, s->code, "%s: %.480s", key ? "--key" : "--repeated-as-set", msg);
      return false;
    }
    for (size_t k = 0; k < n; k++)
      if (out->rules[k].field == out->rules[n].field) {
        pbd_Status_SetError(s, kPbd_Status_Usage, "two matching rules for %s",
                            out->rules[n].field->full_name);
        return false;
      }
    n++;
  }
  for (size_t i = 0; i < o->ignores.n; i++) {
    const pbd_FieldDef *fd =
        out->pool ? pbd_DefPool_FindFieldByFullName(out->pool, o->ignores.v[i]) : NULL;
    if (fd) {
      out->ignores[i].field = fd;
      continue;
    }
    if (out->type && one_schema(o) &&
        !check_pattern("--ignore", out->pool, out->type, o->ignores.v[i], s))
      return false;
    out->ignores[i].pattern = o->ignores.v[i];
  }
  out->diff = o->compare.diff;
  out->diff.rules = out->rules;
  out->diff.rule_count = n;
  out->diff.key_trouble = pbd_Cli_KeyTrouble; /* said once at the end (cli/key_warnings.c) */
  out->diff.ignores = out->ignores;
  out->diff.ignore_count = o->ignores.n;
  if (!resolve_tolerances(o, out, s)) return false;
  out->diff.tolerances = out->tolerances;
  out->diff.tolerance_count = o->scoped_margins.n + o->scoped_fractions.n;
  return true;
}
