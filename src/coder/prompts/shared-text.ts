/**
 * Wording of the message builder and the coder's reflections: how the request is framed around the format's own
 * prompts (which live with each format under src/edits/). Our own text.
 */

/** User turn that separates worked examples from the real task. */
export const EXAMPLES_DONE_USER =
  "That was only an example. I am now switching to a different code base: ignore the example files above and do not try to edit them.";
export const EXAMPLES_DONE_ASSISTANT = "Understood. I will only work with the files of the new code base.";

export const CHAT_FILES_PREFIX = `These are the current contents of the files you may edit. They are the authoritative versions: if any earlier message shows different contents for these files, trust this one.\n`;
export const CHAT_FILES_ACK = "Thanks. Any changes I make will be to these files, or to new files.";

/**
 * A later round's update of the chat files: only the files that changed since the model last saw them (its edits,
 * files added to the chat), appended after the conversation rather than rewriting the earlier listing, so the whole
 * earlier request stays a cacheable prefix.
 */
export const FILES_UPDATE_PREFIX = `These files changed since you last saw them (your edits were applied, or they were added to the chat). These are their current contents: they replace every earlier version of these files in this conversation.\n`;
export const FILES_UPDATE_ACK = "Thanks. I will work from these contents.";
/** The update's note on chat files that no longer exist. */
export function filesDeletedText(paths: readonly string[]): string {
  return `These files were deleted and are no longer in the chat:\n${paths.join("\n")}\n`;
}

export const READ_ONLY_PREFIX = `These files are for reference only. Do not edit them.\n`;
export const READ_ONLY_ACK = "Understood: I will read these files but not edit them.";

export const REPO_MAP_PREFIX = `Here is a summary of other files in the repository, with their important definitions. You have not seen the full contents of these files: ask for a file by its path before editing it.\n`;
export const REPO_MAP_ACK = "Understood. I will ask for a file before editing it.";

/** Replaces the chat-files slot when no file is in the chat yet but a repo map is known (docs/behaviour.md#the-edit-loop). */
export const NAME_FILES_USER = `No files have been shared for editing yet. Based on the request that follows and the repository summary, tell me which existing files will most likely need changes. Reply with their paths relative to the repository root, one per line, plus a sentence on why for each. Do not write any edits yet: I will share those files and then ask you for the edits.`;
export const NAME_FILES_ACK =
  "Understood. I will list the files that need changes and wait for their contents before editing.";

/** Reflection after files named in a reply were added (docs/behaviour.md#files-the-model-asks-for, fixed per docs/behaviour.md#files-the-model-asks-for). */
export function filesAddedText(added: readonly string[], appliedOthers: boolean): string {
  const list = added.join("\n");
  const applied = appliedOthers
    ? "\nThe edits in your last answer to files you had already seen were applied; do not send them again."
    : "";
  return `I added these files so you can edit them; their contents are shown above now:\n${list}\nAny edits you wrote for them without seeing them were NOT applied.${applied}\nPlease continue with the request, making the remaining edits.`;
}

/** Reflection for an answer with no edits when edits were asked for (docs/behaviour.md#answers-without-edits-are-reported: Aider stays silent, #3645). */
export const NO_EDITS_TEXT = `Your answer contained no edits I could recognise, so nothing was changed. If the request needs code changes, please reply again with the edits, following the edit format exactly. If you are sure no change is needed, reply with a short explanation and no edits.`;
