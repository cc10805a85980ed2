// Parses Synapse chat streams with the `ai` package's own parser, for ai v5, v6 and v7.
//
// Usage: node check_streams.mjs streams.json  (a JSON list of {"name", "sse"})
// Prints a JSON list of {"name", "version", "schema_errors", "chunk_types", "error", "message"}:
// `schema_errors` are chunks uiMessageChunkSchema rejected; `error` is what readUIMessageStream
// (with terminateOnError) raised, if anything; `message` is the UI message it assembled last.
import { readFileSync } from 'node:fs';
import * as ai5 from 'ai5';
import * as ai6 from 'ai6';
import * as ai7 from 'ai7';

const VERSIONS = { v5: ai5, v6: ai6, v7: ai7 };

function byteStream(text) {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  });
}

async function check(ai, sse) {
  // Every chunk goes through the schema first; then the valid ones through the message reader.
  const schemaErrors = [];
  const values = [];
  const parsed = ai.parseJsonEventStream({ stream: byteStream(sse), schema: ai.uiMessageChunkSchema });
  for await (const result of parsed) {
    if (result.success) values.push(result.value);
    else schemaErrors.push(String(result.error?.message ?? result.error).slice(0, 500));
  }
  const chunks = new ReadableStream({
    start(controller) {
      for (const value of values) controller.enqueue(value);
      controller.close();
    },
  });
  let message = null;
  let error = null;
  try {
    for await (const current of ai.readUIMessageStream({ stream: chunks, terminateOnError: true })) {
      message = current;
    }
  } catch (caught) {
    error = String(caught?.message ?? caught);
  }
  return { schema_errors: schemaErrors, chunk_types: values.map((value) => value.type), error, message };
}

const streams = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const results = [];
for (const { name, sse } of streams) {
  for (const [version, ai] of Object.entries(VERSIONS)) {
    results.push({ name, version, ...(await check(ai, sse)) });
  }
}
process.stdout.write(JSON.stringify(results));
