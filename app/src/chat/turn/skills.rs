//! The skills a reply applies (`hearth_core::skill::turn`): only installed, active ones.
//! With auto-selection on and a model that takes tools, the model first chooses among
//! them through the internal `select_text_skills` tool (a task call: nothing shown or
//! stored while it runs); otherwise every active skill applies. Their instructions join
//! the system prompt after the user's own, and the reply records which were applied and
//! how; a conversation's assistant or workspace may name its own skills instead of the
//! user's active ones. A continuation keeps the skills its reply was written with. With no active
//! skills nothing changes and nothing mentions skills; a library that cannot be read is
//! said in a toast and the answer goes ahead without skills.

use hearth_core::chat::MessageRecord;
use hearth_core::preferences::ModelRef;
use hearth_core::skill::library::InstalledSkill;
use hearth_core::skill::turn::{
    SkillPlan, applied, chosen, plan_of, selection_request, with_skills,
};
use hearth_core::skill::{AppliedSkill, SkillMode, TextSkill};
use hearth_core::workspace::scope::{Limits, active_skills};

use super::prepare::Prepared;
use super::{Mode, TurnContext};

/// Adds the skills of this reply (`record`, as the run starts) to `prepared`'s system
/// prompt; which were applied.
pub(super) async fn apply(
    context: TurnContext,
    prepared: &mut Prepared,
    record: &MessageRecord,
    mode: Mode,
    limits: Limits<'_>,
) -> Vec<AppliedSkill> {
    let library = match context.skills.ensure_loaded().await {
        Ok(library) => library,
        Err(error) => {
            // Said, not swallowed: this answer goes ahead without skills.
            let reason = match error {
                crate::skills::SkillsError::Unreadable(reason) => reason,
                _ => String::new(),
            };
            context.toasts.show(
                crate::ui::toast::ToastKind::Error,
                context
                    .i18n
                    .t_with(crate::i18n::Key::SkillsReadFailed, &[("reason", &reason)]),
            );
            return Vec::new();
        }
    };
    // An assistant or workspace that names its skills applies those.
    let active = active_skills(&library, limits);
    let (skills, record_of): (Vec<&InstalledSkill>, Vec<AppliedSkill>) = match mode {
        Mode::Continue => record
            .skill_invocations
            .iter()
            .filter_map(|a| library.get(&a.id).map(|skill| (skill, a.clone())))
            .unzip(),
        Mode::Fresh => match plan_of(active, &library, prepared.target.capabilities.tools) {
            SkillPlan::Nothing => (Vec::new(), Vec::new()),
            SkillPlan::Inject(skills) => {
                let record_of = applied(&skills, SkillMode::Manual);
                (skills, record_of)
            }
            SkillPlan::Choose(candidates) => {
                let model = ModelRef {
                    provider_id: record.provider_id.clone().unwrap_or_default(),
                    model: record.model.clone().unwrap_or_default(),
                };
                let request = selection_request(
                    &prepared.turn.model,
                    &prepared.turn.history.newest.content,
                    &candidates,
                );
                let ids =
                    match crate::chat::task::tool_calls(context.targets, &model, request).await {
                        Ok(calls) => chosen(&calls, &candidates),
                        Err(error) => {
                            // The reply goes ahead without skills rather than fail over them.
                            leptos::logging::warn!("skill selection failed: {}", error.log_line());
                            Vec::new()
                        }
                    };
                let skills: Vec<&InstalledSkill> =
                    ids.iter().filter_map(|id| library.get(id)).collect();
                let record_of = applied(&skills, SkillMode::Auto);
                (skills, record_of)
            }
        },
    };
    let texts: Vec<&TextSkill> = skills.iter().map(|s| &s.skill).collect();
    prepared.turn.system = with_skills(prepared.turn.system.take(), &texts);
    record_of
}
