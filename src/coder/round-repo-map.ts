import { findMentions } from "../repomap/mentioned-idents.js";
import { mentionContext, progress, type CoderRun } from "./coder-session.js";
import { findFileMentions } from "./find-file-mentions.js";

/** The repo map for the current chat files, rebuilt only when they changed; a failure leaves it empty. */
export async function roundRepoMap(run: CoderRun): Promise<string | null> {
  const { options, deps, state } = run;
  if (!deps.repoMap || options.mapTokens <= 0) return null;
  const key = state.chatFiles.join("\n");
  if (state.map?.key === key) return state.map.text;
  progress(run, "mapping");
  try {
    // Every word of 4+ letters may be an identifier; file names and stems name files (docs/behaviour.md#repo-map).
    const mentions = findMentions(options.message, run.repoFiles, state.chatFiles);
    const request = mapRequestContext(run);
    const result = await deps.repoMap({
      chatFiles: state.chatFiles,
      mentionedFiles: [...new Set([...run.fromRequest, ...mentions.mentionedFiles])],
      mentionedIdents: mentions.mentionedIdents,
      mapTokens: options.mapTokens,
      requestText: request.text,
      ...(request.hintFiles.length ? { hintFiles: request.hintFiles } : {}),
    });
    state.map = { key, text: result.text };
  } catch {
    state.map = { key, text: "" }; // the map is an aid: a failure to build it must not fail the run
  }
  return state.map.text;
}

/** Most characters of an issue's text the map's ranking reads (its words, not its length, are what count). */
const MAX_RANKING_TEXT = 8_000;

/**
 * What the map's request-aware ranking gets: the request and the untrusted context's text (an issue's title, body
 * and comments), and as hints the context's files plus the files that text names. Those only steer the map: unlike
 * the files the request names, a file named in an issue body never joins the chat by that alone.
 */
function mapRequestContext(run: CoderRun): { text: string; hintFiles: string[] } {
  const { options } = run;
  const untrusted = (options.untrustedContext ?? [])
    .map((c) => c.text)
    .join("\n")
    .slice(0, MAX_RANKING_TEXT);
  const named = untrusted ? findFileMentions(untrusted, mentionContext(run)) : [];
  return {
    text: `${options.message}\n${untrusted}`.trim(),
    hintFiles: [...new Set([...(options.hintFiles ?? []), ...named])],
  };
}
