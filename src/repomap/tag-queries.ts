import type { LanguageId } from "../treesitter/languages.js";
import { C_QUERY, CPP_QUERY } from "./queries/c-family-query.js";
import { C_SHARP_QUERY } from "./queries/c-sharp-query.js";
import { GO_QUERY } from "./queries/go-query.js";
import { JAVA_QUERY } from "./queries/java-query.js";
import { JAVASCRIPT_QUERY, TSX_QUERY, TYPESCRIPT_QUERY } from "./queries/javascript-family-query.js";
import { PHP_QUERY } from "./queries/php-query.js";
import { PYTHON_QUERY } from "./queries/python-query.js";
import { RUBY_QUERY } from "./queries/ruby-query.js";
import { RUST_QUERY } from "./queries/rust-query.js";

/** Our tag query (`.scm` source) for each language we parse. */
export const TAG_QUERIES: Readonly<Record<LanguageId, string>> = {
  typescript: TYPESCRIPT_QUERY,
  tsx: TSX_QUERY,
  javascript: JAVASCRIPT_QUERY,
  python: PYTHON_QUERY,
  go: GO_QUERY,
  rust: RUST_QUERY,
  java: JAVA_QUERY,
  c: C_QUERY,
  cpp: CPP_QUERY,
  ruby: RUBY_QUERY,
  c_sharp: C_SHARP_QUERY,
  php: PHP_QUERY,
};
