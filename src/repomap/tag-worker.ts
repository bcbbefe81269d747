/**
 * Worker-thread entry for {@link createExtractorPool}: extracts tags of the files it is sent and answers each with
 * the encoded blob (see tag-blob.ts), its bytes transferred rather than copied. Not imported by anything else.
 */
import { parentPort } from "node:worker_threads";
import { createTagExtractor } from "./extract-tags.js";
import { encodeFileTags } from "./tag-blob.js";
import { fail, ok } from "../result.js";
import type { ExtractReply, ExtractRequest } from "./extractor-pool.js";

const extractor = createTagExtractor();
const port = parentPort;

port?.on("message", (req: ExtractRequest) => {
  void extractor.extract(req.relPath, req.content).then(
    (ft) => {
      const blob = ft ? encodeFileTags(ft) : null;
      // A fresh copy owns its ArrayBuffer, so it can be transferred.
      const bytes = blob ? new Uint8Array(blob) : null;
      const reply: ExtractReply = { id: req.id, ...ok(bytes) };
      port.postMessage(reply, bytes ? [bytes.buffer] : []);
    },
    (error: unknown) => {
      const reply: ExtractReply = {
        id: req.id,
        ...fail("extract-failed", error instanceof Error ? error.message : String(error)),
      };
      port.postMessage(reply);
    },
  );
});
