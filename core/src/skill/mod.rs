//! Skills: text-only prompt modules the user installs and turns on, whose instructions
//! shape a turn's system prompt. Nothing here runs code: a skill that needs scripts,
//! external tools, the network or files is refused, and the refusal names the rule.
//!
//! - [`meta`]: what a skill is (metadata, declared requirements, when it helps).
//! - [`catalog`]: the built-in catalogues (`skills-v1`, one per locale, metadata only;
//!   a definition's text is fetched on install) read with bounds, unsafe entries dropped.
//! - [`normalise`]: the one check every skill passes before it is kept: text only,
//!   bounded fields, a well-formed id; [`TextSkill`] is a skill that passed.
//! - [`skill_md`]: Agent Skills `SKILL.md` files (front matter, body, text references)
//!   read into a [`TextSkill`] and written back out; scripts refused and reported.
//! - [`library`]: what this browser keeps: installed skills (built-in, edited, custom),
//!   the active set and the auto-selection switch, every change bounded and typed.
//! - [`turn`]: what one turn takes from the library: the skills injected into the system
//!   prompt, or the internal `select_text_skills` tool through which the model chooses
//!   up to four, and the record of which were applied.

pub mod catalog;
pub mod library;
pub mod meta;
pub mod normalise;
pub mod skill_md;
pub mod turn;

pub use library::{InstalledSkill, LibraryError, Origin, SkillLibrary};
pub use meta::{Activation, Category, RiskLevel, SkillMeta, SkillRisk};
pub use normalise::{Refusal, TextSkill, normalise};
pub use turn::{AppliedSkill, SkillMode};
