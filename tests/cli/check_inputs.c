/* Inputs and per-path settings through the CLI: the .pbdiff config,
 * gzip, --skip-prefix, text-format and JSON inputs, schema versions per
 * side, and delimited streams aligned message by message. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "tu_cli.h"

TU_CLI_FIXTURES("inputs", NULL)

/* Runs a shell command in the test's directory (tu_sh: $P, $R); checks the
 * status and stdout (NULL: not checked) and returns stderr (malloc'd). */
static char *run(const char *cmd, int want, const char *want_out) {
  const Run *r = tu_sh("%s", cmd);
  ck_assert_msg(r->rc == want, "%s\nstatus %d (want %d)\nstdout: %s\nstderr: %s", cmd, r->rc, want,
                r->out, r->err);
  if (want_out)
    ck_assert_msg(!strcmp(r->out, want_out), "%s\nstdout: [%s]\nwant: [%s]", cmd, r->out, want_out);
  return strdup(r->err);
}

static void put_text(const char *name, const char *text) { put_bytes(name, text, strlen(text)); }

/* ---- config --------------------------------------------------------------- */

START_TEST(config_by_path) {
  free(run("mkdir -p golden sub/deep && cp $R/testdata/proto/sem3.proto .", 0, NULL));
  put_text(".pbdiff",
           "# per-path schemas\n"
           "[file \"*.pb\"]\n"
           "    proto = sem3.proto\n"
           "    type = sem3.M\n"
           "[file \"golden/*.pb\"]\n"
           "    proto = sem3.proto\n"
           "    type = sem3.M\n"
           "    key = sem3.M.rm=s   ; keyed in golden files only\n");
  put("golden/a.pb", "7a 05 08 01 12 01 61 7a 05 08 02 12 01 62");
  put("golden/b.pb", "7a 05 08 02 12 01 62 7a 05 08 03 12 01 61");
  put("x.pb", "08 01");
  put("y.pb", "08 02");
  /* the schema comes from the config: names, not numbers */
  free(run("$P x.pb y.pb", 1, "i32: 1 -> 2\n"));
  /* the later section wins for golden/: matched by key */
  free(run("$P golden/a.pb golden/b.pb", 1, "rm[s=\"a\"] (sem3.Inner):\n  a: 1 -> 3\n"));
  /* found from a subdirectory too, and paths are relative to the config */
  free(run("cd sub/deep && $P ../../x.pb ../../y.pb", 1, "i32: 1 -> 2\n"));
  /* the command line wins: without a schema by the config's */
  free(run("$P --key sem3.M.rm=a golden/a.pb golden/b.pb", 1, NULL));
  /* --config FILE instead of the found one */
  put_text("other.cfg", "[file \"*.pb\"]\n  type = sem3.Inner\n  proto = sem3.proto\n");
  free(run("$P --config other.cfg x.pb y.pb", 1, "a: 1 -> 2\n"));
  /* errors name the file and line */
  put_text("bad.cfg", "[file \"*.pb\"]\n  type = sem3.M\n  colour = red\n");
  char *err = run("$P --config bad.cfg x.pb y.pb", 2, "");
  ck_assert_msg(strstr(err, "bad.cfg: line 3: unknown key 'colour'"), "%s", err);
  free(err);
  err = run("$P --config missing.cfg x.pb y.pb", 2, "");
  ck_assert_msg(strstr(err, "missing.cfg: cannot open config"), "%s", err);
  free(err);
  /* typos are errors that name the closest valid word; so are headers
   * without their closing quote or bracket, and lines of any length are read
   * whole (a long comment hides nothing) */
  put_text("typo.cfg", "[fil \"*.pb\"]\n  type = sem3.M\n");
  err = run("$P --config typo.cfg x.pb y.pb", 2, "");
  ck_assert_msg(strstr(err, "typo.cfg: line 1: unknown section 'fil' (did you mean 'file'?)"), "%s", err);
  free(err);
  put_text("typo2.cfg", "[file \"*.pb\"]\n  typ = sem3.M\n");
  err = run("$P --config typo2.cfg x.pb y.pb", 2, "");
  ck_assert_msg(strstr(err, "typo2.cfg: line 2: unknown key 'typ' (did you mean 'type'?)"), "%s", err);
  free(err);
  put_text("open.cfg", "[file \"*.pb\"\n  type = sem3.M\n");
  err = run("$P --config open.cfg x.pb y.pb", 2, "");
  ck_assert_msg(strstr(err, "open.cfg: line 1: bad section header"), "%s", err);
  free(err);
  put_text("core.cfg", "[core]\n  x = 1\n");
  err = run("$P --config core.cfg x.pb y.pb", 2, "");
  ck_assert_msg(strstr(err, "core.cfg: line 1: unknown section 'core'"), "%s", err);
  free(err);
  {
    pbd_Buf long_line = {0};
    pbd_Buf_AppendStr(&long_line, "[file \"*.pb\"]\n  proto = sem3.proto\n  type = sem3.M\n# ");
    for (int i = 0; i < 5000; i++) pbd_Buf_AppendChar(&long_line, 'x');
    pbd_Buf_AppendStr(&long_line, " skip-prefix = 1\n");
    put_text("long.cfg", long_line.data);
    pbd_Buf_Free(&long_line);
    free(run("$P --config long.cfg x.pb y.pb", 1, "i32: 1 -> 2\n"));
  }
  put_text("bad2.cfg", "type = sem3.M\n");
  err = run("$P --config bad2.cfg x.pb y.pb", 2, "");
  ck_assert_msg(strstr(err, "bad2.cfg: line 1: 'type' outside a [file \"GLOB\"] section"), "%s", err);
  free(err);
}
END_TEST

/* ---- envelopes -------------------------------------------------------------- */

START_TEST(gzip_and_prefix) {
  put("a.pb", "08 01 10 02");
  put("b.pb", "10 02 08 01");
  free(run("gzip -c b.pb > b.pb.gz && $P a.pb b.pb.gz", 0, ""));
  /* several gzip members: their data concatenated (here: a message merged) */
  free(run("gzip -c a.pb > a.gz && cat a.gz b.pb.gz > ab.gz && cat a.pb b.pb > ab.pb && $P ab.pb ab.gz", 0, ""));
  /* a 4-byte magic before the message, as Kubernetes stores objects */
  put("k1.bin", "6b 38 73 00 08 01 10 02");
  put("k2.bin", "6b 38 73 00 10 02 08 01");
  free(run("$P --skip-prefix 4 k1.bin k2.bin", 0, ""));
  char *err = run("$P k1.bin k2.bin", 2, "");
  ck_assert_msg(strstr(err, "k1.bin"), "%s", err);
  free(err);
  err = run("$P --skip-prefix 100 k1.bin k2.bin", 2, "");
  ck_assert_msg(strstr(err, "k1.bin: 8 bytes, shorter than --skip-prefix 100"), "%s", err);
  free(err);
  /* gzip and a prefix together: the prefix is inside the compressed data */
  free(run("gzip -c k2.bin > k2.gz && $P --skip-prefix 4 k1.bin k2.gz", 0, ""));
  /* corrupt gzip data */
  free(run("head -c 12 k2.gz > cut.gz", 0, NULL));
  err = run("$P a.pb cut.gz", 2, "");
  ck_assert_msg(strstr(err, "cut.gz: gzip data cut short"), "%s", err);
  free(err);
}
END_TEST

/* ---- text format and JSON ---------------------------------------------------- */

START_TEST(textproto_and_json_inputs) {
  const char *S = "--proto $R/testdata/proto/sem3.proto -t sem3.M";
  char cmd[2048];
  /* the golden file in text format vs the binary output */
  snprintf(cmd, sizeof cmd,
           "protoc --encode=sem3.M -I$R/testdata/proto -I/usr/include $R/testdata/proto/sem3.proto "
           "< $R/testdata/inputs/rec.textproto > out.pb && $P %s $R/testdata/inputs/rec.textproto out.pb",
           S);
  free(run(cmd, 0, ""));
  snprintf(cmd, sizeof cmd, "printf '\\010\\011' > nine.pb && $P %s $R/testdata/inputs/rec.textproto nine.pb", S);
  char *err = run(cmd, 1, NULL);
  free(err);
  /* by name or by option; -s descriptor sets work too */
  snprintf(cmd, sizeof cmd,
           "cp $R/testdata/inputs/rec.textproto golden.txt && $P %s --left-format textproto golden.txt out.pb", S);
  free(run(cmd, 0, ""));
  snprintf(cmd, sizeof cmd,
           "protoc --include_imports -I$R/testdata/proto -I/usr/include -o sem3.desc sem3.proto && "
           "$P -s sem3.desc -t sem3.M $R/testdata/inputs/rec.textproto out.pb");
  free(run(cmd, 0, ""));
  /* errors name the file and the line */
  snprintf(cmd, sizeof cmd, "$P %s $R/testdata/inputs/bad.textproto out.pb", S);
  err = run(cmd, 2, "");
  ck_assert_msg(strstr(err, "bad.textproto: line 2, column ") && strstr(err, "nope"), "%s", err);
  free(err);
  /* text format without a schema */
  err = run("$P $R/testdata/inputs/rec.textproto out.pb", 2, "");
  ck_assert_msg(strstr(err, "a text-format input needs a schema"), "%s", err);
  free(err);
  /* JSON, by extension */
  put_text("rec.json", "{\"i32\": 7, \"str\": \"hello\", \"ri\": [1, 2, 3], \"ms\": {\"a\": 1}}");
  snprintf(cmd, sizeof cmd, "$P %s rec.json out.pb", S);
  free(run(cmd, 0, ""));
  put_text("bad.json", "{\"i32\": 7,\n \"nope\": 1}");
  snprintf(cmd, sizeof cmd, "$P %s bad.json out.pb", S);
  err = run(cmd, 2, "");
  ck_assert_msg(strstr(err, "bad.json") && strstr(err, "line 2"), "%s", err);
  free(err);
}
END_TEST

/* ---- schema versions -------------------------------------------------------- */

START_TEST(schema_versions) {
  /* Rec v1 { name: "a" count: 2 size: 3 } vs v2 { title: "a" count: 2 size: "3" } */
  put("v1.pb", "0a 01 61 10 02 18 03");
  put("v2.pb", "0a 01 61 10 02 1a 01 33");
  put("v2same.pb", "0a 01 61 10 02");
  const char *S = "--left-schema $R/testdata/inputs/v1.proto --right-schema $R/testdata/inputs/v2.proto "
                  "-t ver.Rec";
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "$P %s v1.pb v2same.pb", S);
  free(run(cmd, 1, "size: 3 -> 0\n")); /* the renamed field is no difference */
  snprintf(cmd, sizeof cmd, "$P %s v1.pb v2.pb", S);
  free(run(cmd, 1, "size: int32 3 -> string \"3\"\n")); /* the retyped one is */
  snprintf(cmd, sizeof cmd, "$P --left-schema $R/testdata/inputs/v1.proto --left-type ver.Rec "
                            "--right-schema $R/testdata/inputs/v2.proto --right-type ver.Rec v2same.pb v2same.pb");
  free(run(cmd, 0, ""));
  /* a map key retyped: entries of two key kinds, never read as each other */
  put("mk1.pb", "0a 05 0a 01 61 10 01");
  put("mk2.pb", "0a 04 08 07 10 01");
  free(run("$P --left-schema $R/testdata/inputs/mapkey_v1.proto --right-schema "
           "$R/testdata/inputs/mapkey_v2.proto -t mk.M mk1.pb mk2.pb",
           1, "m[7]: added 1\nm[\"a\"]: removed 1\n"));
  /* a field made repeated: every value of the repeated side is seen */
  put("rp1.pb", "08 05");
  put("rp2.pb", "08 05 08 06");
  free(run("$P --left-schema $R/testdata/inputs/rep_v1.proto --right-schema "
           "$R/testdata/inputs/rep_v2.proto -t rp.M rp1.pb rp2.pb", 1, "a[1]: added 6\n"));
  free(run("$P --left-schema $R/testdata/inputs/rep_v2.proto --right-schema "
           "$R/testdata/inputs/rep_v1.proto -t rp.M rp2.pb rp1.pb", 1, "a[1]: removed 6\n"));
  /* the same bytes read by both versions: the retyped field shows */
  snprintf(cmd, sizeof cmd, "$P %s v1.pb v1.pb", S);
  free(run(cmd, 1, "size: 3 -> 0\n3[0]: added 3\n"));
}
END_TEST

/* ---- delimited streams -------------------------------------------------------- */

START_TEST(delimited_alignment) {
  /* 10 000 sem3.Rec messages; RIGHT has one more in the middle */
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "/usr/bin/python3 -c '\n"
           "import sys\n"
           "def v(n):\n"
           "  o=b\"\"\n"
           "  while True:\n"
           "    b=n&0x7f; n>>=7\n"
           "    if n: o+=bytes([b|0x80])\n"
           "    else: return o+bytes([b])\n"
           "def rec(i):\n"
           "  name=(\"r%%d\" %% i).encode(); m=b\"\\x0a\"+v(len(name))+name+b\"\\x10\"+v(i+1)\n"
           "  return v(len(m))+m\n"
           "l=b\"\".join(rec(i) for i in range(10000))\n"
           "r=b\"\".join(rec(i) for i in range(5000))+rec(77777)+b\"\".join(rec(i) for i in range(5000,10000))\n"
           "open(\"l.bin\",\"wb\").write(l); open(\"r.bin\",\"wb\").write(r)\n"
           "' && $P --delimited --proto $R/testdata/proto/sem3.proto -t sem3.Rec l.bin r.bin");
  free(run(cmd, 1, "[5000]: added { name: \"r77777\" n: 77778 }\n"));
}
END_TEST

/* ---- gRPC's compressed messages -------------------------------------------- */

/* Frames of 24 MiB each (a field written 12 Mi times) (about 24 KiB compressed), against a bound
 * of 64 MiB: the third would pass it, which its gzip trailer declares, so
 * the error comes before it is inflated, names the message and the bound
 * (not the room left), and memory stays near the bound (issue 21).  The
 * input itself is under 100 KiB. */
START_TEST(grpc_inflation_bound) {
  free(run("/usr/bin/python3 -c '\n"
           "import gzip, struct\n"
           "z = gzip.compress(b\"\\x08\\x01\" * (12 << 20), mtime=0)\n"
           "open(\"big.grpc\", \"wb\").write((b\"\\x01\" + struct.pack(\">I\", len(z)) + z) * 4)\n"
           "'", 0, NULL));
  char *err = run("/usr/bin/time -f 'rss %M' $P --max-input-bytes 67108864 --framing grpc "
                  "big.grpc big.grpc", 2, "");
  ck_assert_msg(strstr(err, "big.grpc: message 2 (a compressed frame of ") &&
                    strstr(err, "): declares 25165824 inflated bytes (gzip trailer), over "
                                "67108864 bytes, the most an input may hold (--max-input-bytes) "
                                "at byte "),
                "%s", err);
  long rss_kb = 0;
  const char *r = strstr(err, "rss ");
  if (r) rss_kb = atol(r + 4);
  ck_assert_msg(rss_kb > 0, "%s", err);
#ifndef __SANITIZE_ADDRESS__ /* ASan's realloc copies and keeps freed blocks */
  ck_assert_msg(rss_kb < 64 * 1024 + 32 * 1024, "peak memory %ld KiB for a 64 MiB bound", rss_kb);
#endif
  free(err);
  /* within the bound, the same frames compare */
  free(run("$P -q --max-input-bytes 134217728 --framing grpc big.grpc big.grpc", 0, ""));
}
END_TEST

/* ---- a file truncated while it is read --------------------------------------- */

/* LEFT is mapped first; RIGHT is a FIFO, which pbdiff opens only after
 * LEFT is mapped (the writer's open waits for it), so LEFT is truncated
 * after mapping and before any of it past the first page is read, every
 * time.  Before the fix the comparison died of SIGBUS (status 135). */
START_TEST(input_truncated_while_read) {
  free(run("/usr/bin/python3 -c 'open(\"big.pb\", \"wb\").write(b\"\\x0a\\x08abcdefgh\" * 100000)' && "
           "printf '\\010\\001' > small.pb && mkfifo r.pb", 0, NULL));
  char *err = run("{ ( $P big.pb r.pb > out 2> err; echo $? > rc ) & "
                  "exec 3> r.pb; truncate -s 100 big.pb; cat small.pb >&3; exec 3>&-; wait; "
                  "cat err >&2; exit $(cat rc); }", 2, NULL);
  ck_assert_str_eq(err, "pbdiff: big.pb: the file was truncated while being read (another "
                        "process changed it)\n");
  free(err);
  free(run("cat out", 0, "")); /* no result on stdout */
}
END_TEST

int main(void) {
  Suite *s = suite_create("inputs");
  TCase *t = tcase_create("inputs");
  tcase_set_timeout(t, 120);
  tcase_add_unchecked_fixture(t, suite_setup, suite_teardown);
  tcase_add_checked_fixture(t, test_setup, test_teardown);
  tcase_add_test(t, config_by_path);
  tcase_add_test(t, gzip_and_prefix);
  tcase_add_test(t, textproto_and_json_inputs);
  tcase_add_test(t, schema_versions);
  tcase_add_test(t, delimited_alignment);
  tcase_add_test(t, grpc_inflation_bound);
  tcase_add_test(t, input_truncated_while_read);
  suite_add_tcase(s, t);
  return tu_main(s);
}
