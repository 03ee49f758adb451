/* pbdiff CLI — the matching options (--key, --repeated-as-set, --ignore),
 * typed views of bytes (--bytes-as) and scoped tolerances (--float-margin,
 * --float-fraction SCOPE=VALUE) turned into the library's rules for one
 * schema. */
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
/* *last gets the field the pattern ends at (NULL when it ends past a
 * `*`, a number, an extension or an Any payload, where types are not
 * followed). */
static bool check_pattern_at(const char *option, const pbd_DefPool *pool,
                             const pbd_MessageDef *type, const char *pattern,
                             const pbd_FieldDef **last, pbd_Status *s) {
  const pbd_MessageDef *m = type;
  char name[256];
  *last = NULL;
  for (const char *p = pattern; *p;) {
    bool named_place = p == pattern || *p == '.';
    if (*p == '.') p++;
    if (*p == '[') {
      if (named_place) { /* an extension or an Any's type */
        *last = NULL;
        return true;
      }
      bool quoted = false;
      for (p++; *p && (quoted || *p != ']'); p++) {
        if (*p == '\\' && quoted && p[1]) p++;
        else if (*p == '"') quoted = !quoted;
      }
      if (*p == ']') p++;
      continue;
    }
    size_t n = strcspn(p, ".[");
    *last = NULL;
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
    *last = fd;
  }
  return true;
}

static bool check_pattern(const char *option, const pbd_DefPool *pool, const pbd_MessageDef *type,
                          const char *pattern, pbd_Status *s) {
  const pbd_FieldDef *last;
  return check_pattern_at(option, pool, type, pattern, &last, s);
}

/* Across two schema versions a path may be in one of them only, so that
 * patterns are checked against the type with one schema alone. */
static bool one_schema(const pbd_CliOptions *o) {
  return !o->left_schemas.n && !o->right_schemas.n && !o->left_type && !o->right_type;
}

/* ---- Typed views of bytes (--bytes-as) ---------------------------------------- */

static bool is_onnx_raw_data(const pbd_FieldDef *fd) {
  return !strcmp(fd->full_name, "onnx.TensorProto.raw_data");
}

/* The field a --bytes-as names: a full field name, else a path pattern
 * over the type that ends at one field; it must be a singular bytes
 * field. */
static const pbd_FieldDef *view_field(const pbd_CliOptions *o, const pbd_CliSchema *out,
                                      const char *name, const char *spec, pbd_Status *s) {
  const pbd_FieldDef *fd = pbd_DefPool_FindFieldByFullName(out->pool, name);
  if (!fd && out->type && one_schema(o)) {
    if (!check_pattern_at("--bytes-as", out->pool, out->type, name, &fd, s)) return NULL;
  }
  if (!fd) {
    pbd_Status_SetError(s, kPbd_Status_Usage,
                        "--bytes-as %s: '%s' is no field of the schema (want package.Message.field "
                        "or a path to one)", spec, name);
    return NULL;
  }
  if (fd->type != kPbd_Type_Bytes || fd->is_repeated) {
    pbd_Status_SetError(s, kPbd_Status_Usage,
                        "--bytes-as %s: %s is not a singular bytes field (only bytes are viewed "
                        "as numbers)", spec, fd->full_name);
    return NULL;
  }
  return fd;
}

/* One FIELD=KIND into out->views[*n] (or, for onnx.TensorProto.raw_data=onnx,
 * the preset). */
static bool resolve_view(const pbd_CliOptions *o, pbd_CliSchema *out, const char *spec, size_t *n,
                         pbd_Status *s) {
  const char *eq = strrchr(spec, '=');
  char name[512];
  if (!eq || eq == spec || !eq[1] || (size_t)(eq - spec) >= sizeof name) {
    pbd_Status_SetError(s, kPbd_Status_Usage, "--bytes-as wants FIELD=KIND or none, not '%s'", spec);
    return false;
  }
  memcpy(name, spec, (size_t)(eq - spec));
  name[eq - spec] = '\0';
  bool preset = !strcmp(eq + 1, "onnx");
  pbd_ElemKind kind = pbd_ElemKind_FromName(eq + 1);
  if (!preset && !kind) {
    pbd_Status_SetError(s, kPbd_Status_Usage,
                        "--bytes-as %s: no element kind '%s' (float, double, float16, bfloat16, "
                        "int8, uint8, int16, uint16, int32, uint32, int64, uint64, bool or onnx)",
                        spec, eq + 1);
    return false;
  }
  if (!out->pool) {
    pbd_Status_SetError(s, kPbd_Status_Usage, "--bytes-as needs a schema (-s or --proto)");
    return false;
  }
  const pbd_FieldDef *fd = view_field(o, out, name, spec, s);
  if (!fd) return false;
  if (preset && !is_onnx_raw_data(fd)) {
    pbd_Status_SetError(s, kPbd_Status_Usage,
                        "--bytes-as %s: 'onnx' is the view of onnx.TensorProto.raw_data, not of %s",
                        spec, fd->full_name);
    return false;
  }
  if (preset) {
    out->diff.onnx_tensors = true;
    return true;
  }
  for (size_t k = 0; k < *n; k++)
    if (out->views[k].field == fd) {
      pbd_Status_SetError(s, kPbd_Status_Usage, "--bytes-as: two views of %s", fd->full_name);
      return false;
    }
  out->views[(*n)++] = (pbd_BytesView){fd, kind};
  return true;
}

static bool has_onnx_tensors(const pbd_DefPool *pool) {
  const pbd_MessageDef *t = pool ? pbd_DefPool_FindMessageByName(pool, "onnx.TensorProto") : NULL;
  const pbd_FieldDef *raw = t ? pbd_MessageDef_FindFieldByNumber(t, 9) : NULL;
  return raw && raw->type == kPbd_Type_Bytes && is_onnx_raw_data(raw);
}

static void say_view_note(void *ctx, const char *line) {
  (void)ctx;
  fprintf(stderr, "pbdiff: note: %s\n", line);
}

/* --bytes-as into out->diff's views; the ONNX preset wherever the schema
 * has onnx.TensorProto, unless a 'none' turns every view off. */
static bool resolve_views(const pbd_CliOptions *o, pbd_CliSchema *out, pbd_Status *s) {
  bool none = false;
  for (size_t i = 0; i < o->bytes_as.n; i++) none = none || !strcmp(o->bytes_as.v[i], "none");
  out->diff.onnx_tensors = false;
  out->diff.bytes_views = NULL;
  out->diff.bytes_view_count = 0;
  if (none) return true;
  out->views = calloc(o->bytes_as.n + 1, sizeof *out->views);
  if (!out->views) {
    pbd_Status_SetError(s, kPbd_Status_OutOfMemory, "out of memory");
    return false;
  }
  size_t n = 0;
  for (size_t i = 0; i < o->bytes_as.n; i++)
    if (!resolve_view(o, out, o->bytes_as.v[i], &n, s)) return false;
  if (has_onnx_tensors(out->pool)) out->diff.onnx_tensors = true;
  out->diff.bytes_views = out->views;
  out->diff.bytes_view_count = n;
  if (!o->quiet) out->diff.view_note = say_view_note;
  return true;
}

/* The view --bytes-as gives a bytes field (None: none). */
static pbd_ElemKind view_of(const pbd_CliSchema *out, const pbd_FieldDef *fd) {
  for (size_t i = 0; i < out->diff.bytes_view_count; i++)
    if (out->diff.bytes_views[i].field == fd) return out->diff.bytes_views[i].kind;
  return kPbd_Elem_None;
}

/* A field whose values a tolerance can reach under the options in force:
 * a float, a message (whose floats it covers), or a bytes field read as
 * floats (--bytes-as, or raw_data under the ONNX preset, whose data_type
 * may be a float type). */
static bool may_hold_floats(const pbd_CliSchema *out, const pbd_FieldDef *fd) {
  if (fd->type == kPbd_Type_Bytes && view_of(out, fd)) return pbd_ElemKind_IsFloat(view_of(out, fd));
  if (fd->type == kPbd_Type_Bytes) return out->diff.onnx_tensors && is_onnx_raw_data(fd);
  return fd->type == kPbd_Type_Float || fd->type == kPbd_Type_Double ||
         fd->type == kPbd_Type_Message || fd->type == kPbd_Type_Group;
}

/* The error for a tolerance whose scope holds no floats: a tolerance
 * there would do nothing, so it is refused, with what would make it
 * apply. */
static void no_floats(const pbd_CliSchema *out, const char *option, const char *scope,
                      const pbd_FieldDef *fd, pbd_Status *s) {
  if (fd->type == kPbd_Type_Bytes && view_of(out, fd))
    pbd_Status_SetError(s, kPbd_Status_Usage,
                        "%s %s: %s is read as %s, which are no floats (a tolerance applies to "
                        "floats: --bytes-as %s=float or =double)",
                        option, scope, fd->full_name, pbd_ElemKind_Name(view_of(out, fd)),
                        fd->full_name);
  else if (fd->type == kPbd_Type_Bytes)
    pbd_Status_SetError(s, kPbd_Status_Usage,
                        "%s %s: %s is a bytes field, which holds no floats (to compare its bytes as "
                        "floats, give --bytes-as %s=float)",
                        option, scope, fd->full_name, fd->full_name);
  else
    pbd_Status_SetError(s, kPbd_Status_Usage,
                        "%s %s: %s holds no floats (a scope is a float, double or message field, a "
                        "bytes field under --bytes-as, or a path to one)",
                        option, scope, fd->full_name);
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
  if (fd && !may_hold_floats(out, fd)) {
    no_floats(out, option, scope, fd, s);
    return false;
  }
  if (fd) {
    r->field = fd;
    return true;
  }
  if (out->type && one_schema(o)) {
    const pbd_FieldDef *last;
    if (!check_pattern_at(option, out->pool, out->type, scope, &last, s)) return false;
    if (last && !may_hold_floats(out, last)) { /* a path that ends at a field of no floats */
      no_floats(out, option, scope, last, s);
      return false;
    }
  }
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
  if (!resolve_views(o, out, s)) return false;
  if (!resolve_tolerances(o, out, s)) return false;
  out->diff.tolerances = out->tolerances;
  out->diff.tolerance_count = o->scoped_margins.n + o->scoped_fractions.n;
  return true;
}
