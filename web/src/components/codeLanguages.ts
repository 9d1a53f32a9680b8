/**
 * The languages code blocks are highlighted in: what agents and their humans
 * paste most. Fewer than highlight.js's "common" set, to keep the chunk small;
 * anything else shows as plain code.
 */
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

export const CODE_LANGUAGES = { bash, css, diff, go, javascript, json, python, rust, shell, sql, typescript, xml, yaml };
export const CODE_ALIASES = { bash: ["sh", "zsh"], javascript: ["js"], typescript: ["ts", "tsx"], python: ["py"], yaml: ["yml"], xml: ["html"], shell: ["console"] };
