// Validates SARIF logs against the SARIF 2.1.0 JSON schema that the npm
// package @microsoft/jest-sarif ships (installed by tests/sarif/run.sh),
// with the ajv it depends on.  Prints one line per log, exit 1 on any error.
//   node validate.cjs NODE_MODULES LOG...
const path = require("path");
const fs = require("fs");
const [modules, ...logs] = process.argv.slice(2);
const Ajv = require(path.join(modules, "ajv"));
const schema = JSON.parse(fs.readFileSync(
  path.join(modules, "@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json"), "utf8"));
const ajv = new Ajv({ schemaId: "id", allErrors: true, unknownFormats: "ignore", logger: false });
ajv.addMetaSchema(require(path.join(modules, "ajv/lib/refs/json-schema-draft-04.json")));
const validate = ajv.compile(schema);
let bad = 0;
for (const log of logs) {
  const doc = JSON.parse(fs.readFileSync(log, "utf8"));
  if (validate(doc)) {
    console.log(`sarif: ${path.basename(log)}: valid SARIF 2.1.0, ${doc.runs[0].results.length} results`);
  } else {
    bad++;
    console.log(`sarif: ${path.basename(log)}: INVALID: ` +
      validate.errors.slice(0, 5).map(e => `${e.dataPath} ${e.message}`).join("; "));
  }
}
process.exit(bad ? 1 : 0);
