// The tag extraction of src/repomap/tag-worker.ts as a pool task (piscina, tinypool): the built code, so each pool
// runs the same JavaScript as ours does in the bench. A fresh copy of the blob owns its buffer (as tag-worker sends).
import { createTagExtractor } from "../../dist/repomap/extract-tags.js";
import { encodeFileTags } from "../../dist/repomap/tag-blob.js";

const extractor = createTagExtractor();

export default async function extract({ relPath, content }) {
  const tags = await extractor.extract(relPath, content);
  return tags ? new Uint8Array(encodeFileTags(tags)) : null;
}
