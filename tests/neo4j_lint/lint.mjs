// Lint Cypher with Neo4j's own parser and semantic analysis (@neo4j-cypher/language-support).
//
// stdin:  {"queries": [{"name", "text", "parameters"}], "dbSchema": {...},
//          "reference": {"procedures": [names], "functions": [names]}}   (reference optional)
//         Each query is linted against dbSchema with its own `parameters` declared, so an
//         undeclared $param is reported as well. `reference` asks for the signatures of
//         those names in the Neo4j snapshot bundled with the package, so the test can check
//         our hand-written dbschema.json against it.
// stdout: {"results": [{"name", "diagnostics": [{"severity", "message", "line", "column"}]}],
//          "reference": {"procedures": {name: {signature, builtIn} | null}, "functions": ...}}
//         severity: "error" or "warning". One process for everything: loading Neo4j's
//         semantic analysis takes seconds. Exit code 0 unless the input was unreadable.
import { readFileSync } from 'node:fs';
import { lintCypherQuery, testData } from '@neo4j-cypher/language-support';

const SEVERITY = { 1: 'error', 2: 'warning', 3: 'information', 4: 'hint' };

function lintAll(input) {
  const dbSchema = input.dbSchema ?? {};
  const results = (input.queries ?? []).map((q) => {
    const schema = { ...dbSchema, parameters: q.parameters ?? {} };
    // consoleCommandsEnabled: false -- Browser's `:param` lines live in comments, and a
    // console command in a query string sent by the driver would be an error.
    const { diagnostics } = lintCypherQuery(q.text, schema, { consoleCommandsEnabled: false });
    return {
      name: q.name,
      diagnostics: diagnostics.map((d) => ({
        severity: SEVERITY[d.severity] ?? String(d.severity),
        message: d.message,
        line: d.range.start.line + 1,
        column: d.range.start.character + 1,
      })),
    };
  });
  return results;
}

function referenceSignatures(input) {
  const version = input.version ?? 'CYPHER 5';
  const procs = testData.mockSchema.procedures[version] ?? {};
  const funcs = testData.mockSchema.functions[version] ?? {};
  const pick = (registry, names) =>
    Object.fromEntries(
      names.map((n) => [n, registry[n] ? { signature: registry[n].signature, builtIn: registry[n].isBuiltIn ?? false } : null]),
    );
  return {
    procedures: pick(procs, input.procedures ?? []),
    functions: pick(funcs, input.functions ?? []),
  };
}

const input = JSON.parse(readFileSync(0, 'utf8'));
const output = {
  results: lintAll(input),
  reference: input.reference ? referenceSignatures(input.reference) : null,
};
process.stdout.write(JSON.stringify(output));
