//! # hearth-core
//!
//! The rules of Hearth, shared by the browser app and the edge server. Everything here is
//! pure: no I/O, no clocks, no randomness, so it builds for `wasm32-unknown-unknown` and
//! for the host, and is tested natively.
//!
//! ## Layout
//!
//! - [`address`]: the app's addresses (`/c/<id>` a conversation, `/` a new chat), read
//!   from a path only when the id is one Hearth could have made.
//! - [`api`]: the request and response types of the edge routes, and the one JSON error
//!   shape every route answers with (`{error, code, statusCode, details?, retryAfter?}`).
//! - [`assistant`]: assistants (ready-made starts for a conversation: instructions, model,
//!   tools, skills, an opening message), the built-in catalogues and the user's library.
//! - [`byok`]: BYOK envelope format, bounds, contexts and the plaintext-secret check.
//! - [`calendar`]: calendar dates as days since 1970-01-01, and back.
//! - [`chat`]: the message tree (branches, active path, delete with undo), the generation
//!   state machine with stale-run protection, and the queue of messages sent mid-reply.
//! - [`context`]: the context planner every producer shares: input budget, bands,
//!   whole turns newest first, `CONTEXT_BUDGET_EXCEEDED`; token estimates marked `~`.
//! - [`diagram`]: which code blocks are Mermaid diagrams, whether one is still streaming,
//!   the bounds of a render, and the vendored Mermaid's path and integrity.
//! - [`filetype`]: what kind of file a byte buffer holds, from its magic number, its ZIP
//!   entries or its text, never from its name alone.
//! - [`image_header`]: an image's size from its header, so no bomb is ever decoded.
//! - [`launch`]: what a launch of the installed app asks for (a shortcut, a share, an
//!   opened file), read from its URL, and the draft a share becomes.
//! - [`knowledge`]: knowledge collections: files with their originals and extracted
//!   text, the recovery rules (cancel, retry, reconcile, reparse), and the passages a
//!   question finds in a conversation's collections.
//! - [`locale`]: the locales Hearth ships and how a browser's language list maps onto them.
//! - [`markdown`]: the one Markdown-to-HTML path for untrusted text, sanitised at the
//!   event level, with code blocks highlighted by language, and the splitter that finds a
//!   streaming reply's finished blocks.
//! - [`plugin`]: plugins and their functions: risk floors, contract fingerprints,
//!   model-safe and MCP tool names, argument checks, collisions and reserved ids.
//! - [`preferences`]: the user's chat preferences (default and title models, system
//!   prompt) and per-model metadata laid over a provider's listing.
//! - [`provider`]: model providers' wire protocols: SSE framing, stream parsers for
//!   OpenAI Chat, OpenAI Responses, Anthropic and Gemini, `<think>` splitting, tool-call
//!   reassembly. Bytes in, typed events out.
//! - [`safe_url`]: which URLs may become an image source or a link target in the page.
//! - [`skill`]: skills, text-only prompt modules: the built-in catalogues, the one
//!   normalisation (scripts, tools, network and files refused by rule), Agent Skills
//!   `SKILL.md` import and export, the library of installed and active skills, and what
//!   a turn takes from it (injected, or chosen by the model through an internal tool).
//! - [`search`]: the global search engine: tokenizer for every shipped locale, an
//!   incremental inverted index per source with BM25, prefix, typo and phrase matching,
//!   snippets, and a checked snapshot format.
//! - [`shortcuts`]: the keyboard shortcuts: which key press runs which action, and how
//!   each is written for the user.
//! - [`slash`]: the composer's `/` and `@` menus: when the text asks for one, and
//!   which entries match, best first.
//! - [`template`]: prompt templates: typed `{{variables}}` read and filled, and the
//!   library that keeps them with their earlier versions.
//! - [`stored_file`]: the files a message refers to in the browser's private file
//!   system, and which names a file brought in from outside may have.
//! - [`web_search`]: web search services' wire formats, cleaned results, one turn's
//!   search limits, and the one resolver of whether and how a turn can search.
//! - [`workspace`]: workspaces (instructions, a default model, tools, skills and
//!   collections for their conversations) and the one assembly of a turn's system prompt.
//! - [`zip_store`]: ZIP files of stored entries, written and read a piece at a time,
//!   every offset bounded (the export file's container).

pub mod address;
pub mod api;
pub mod ask_user;
pub mod assistant;
pub mod attachment;
pub mod byok;
pub mod calendar;
pub mod chat;
pub mod chunk;
pub mod context;
pub mod cost;
pub mod diagram;
pub mod document_parsing;
pub mod filetype;
pub mod html_text;
pub mod image_header;
pub mod knowledge;
pub mod launch;
pub mod locale;
pub mod markdown;
pub mod memory;
pub mod plugin;
pub mod preferences;
pub mod provider;
pub mod safe_url;
pub mod search;
pub mod shortcuts;
pub mod skill;
pub mod slash;
pub mod stored_file;
pub mod template;
pub mod url_policy;
pub mod voice;
pub mod web_search;
pub mod workspace;
pub mod zip_store;
