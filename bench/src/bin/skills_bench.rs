//! `skills_bench [BENCHMARKS.md]`: what skills cost a turn, natively, with 1,000 skills
//! installed (about 2 KB of instructions each) and the 20 active ones the library
//! allows. Times a turn's assembly (`hearth_core::skill::turn`: the plan, the system
//! prompt with every active skill, and the request in which the model chooses among
//! them; and in a workspace that names its own skills) and reading the stored library record back (JSON, then every skill checked
//! again by `SkillLibrary::repaired`, as the app does once per page). Records the
//! `skills` section of the benchmarks file; the budget is 5 ms for the assembly.
//!
//! Native figures stand in for the browser's: the app runs the same code as wasm,
//! typically 1.5–3× slower.

use std::time::{Duration, Instant};

use hearth_bench::record;
use hearth_core::skill::library::{MAX_ACTIVE, Origin, SkillLibrary};
use hearth_core::skill::normalise::TextSkill;
use hearth_core::skill::turn::{SkillPlan, plan, plan_of, selection_request, with_skills};
use hearth_core::skill::{Activation, Category, SkillMeta};
use hearth_core::workspace::Workspace;

const INSTALLED: usize = 1_000;
const RUNS: usize = 200;

fn library() -> SkillLibrary {
    let body = "1. Read the request closely and restate the goal in one line.\n\
                2. Work through it step by step, naming assumptions.\n\
                3. Answer with a short summary, then details as a list.\n"
        .repeat(12);
    let mut library = SkillLibrary {
        auto_select: true,
        ..Default::default()
    };
    for i in 0..INSTALLED {
        let meta = SkillMeta {
            id: format!("skill-{i}"),
            title: format!("Skill number {i}"),
            description: "Shapes answers into a clear, checked structure for this kind of task."
                .into(),
            category: Category::ALL[i % Category::ALL.len()],
            tags: vec!["structure".into(), "checks".into(), format!("t{i}")],
            activation: Activation {
                use_when: vec!["The user asks for a structured answer.".into(); 3],
                avoid_when: vec!["Small talk.".into()],
                example_queries: vec!["Plan my week.".into(); 2],
            },
            ..Default::default()
        };
        let content = format!("# Skill number {i}\n\n{body}");
        if i < 100 {
            library
                .add_custom(meta, &content, Origin::Custom, 0.0)
                .expect("custom skill");
        } else {
            library
                .install_builtin(meta, &content, "en", 0.0)
                .expect("built-in skill");
        }
    }
    // The active set: spread over the library, so lookups walk it.
    for i in 0..MAX_ACTIVE {
        library
            .set_active(&format!("skill-{}", i * (INSTALLED / MAX_ACTIVE) + 7), true)
            .expect("active");
    }
    library
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time<T>(mut work: impl FnMut() -> T) -> (Duration, Duration) {
    let samples: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(work());
            start.elapsed()
        })
        .collect();
    let worst = *samples.iter().max().expect("runs");
    (median(samples), worst)
}

fn main() {
    let out = record::out_file();
    let label = record::label();
    let library = library();
    let question = "Plan a three-day trip to Kyoto with a budget.".repeat(10);
    let assemble = |library: &SkillLibrary, auto: bool| -> usize {
        match plan(library, auto) {
            SkillPlan::Nothing => 0,
            SkillPlan::Inject(skills) => {
                let texts: Vec<&TextSkill> = skills.iter().map(|s| &s.skill).collect();
                with_skills(Some("Be brief.".into()), &texts).map_or(0, |s| s.len())
            }
            SkillPlan::Choose(candidates) => {
                let request = selection_request("model", &question, &candidates);
                let texts: Vec<&TextSkill> = candidates.iter().take(4).map(|s| &s.skill).collect();
                request.system.map_or(0, |s| s.len())
                    + with_skills(Some("Be brief.".into()), &texts).map_or(0, |s| s.len())
            }
        }
    };
    let (inject, inject_worst) = time(|| assemble(&library, false));
    let (choose, choose_worst) = time(|| assemble(&library, true));
    // A workspace that names its own 20 skills: they are found among the installed
    // (`hearth_core::workspace::scope::active_skills`), then every one injected.
    let workspace = Workspace {
        skills: Some(
            (0..MAX_ACTIVE)
                .map(|i| format!("skill-{}", i * (INSTALLED / MAX_ACTIVE) + 11))
                .collect(),
        ),
        ..Default::default()
    };
    let (scoped, scoped_worst) = time(|| {
        let active = hearth_core::workspace::scope::active_skills(
            &library,
            hearth_core::workspace::scope::limits(None, Some(&workspace)),
        );
        match plan_of(active, &library, false) {
            SkillPlan::Inject(skills) => {
                let texts: Vec<&TextSkill> = skills.iter().map(|s| &s.skill).collect();
                with_skills(Some("Be brief.".into()), &texts).map_or(0, |s| s.len())
            }
            _ => 0,
        }
    });
    let stored = serde_json::to_string(&library).expect("serialises");
    let (reload, reload_worst) = time(|| {
        let read: SkillLibrary = serde_json::from_str(&stored).expect("reads");
        read.repaired().0.installed.len()
    });
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let body = format!(
        "### Skills in a turn\n\n\
         {label}. Measured by `bench/src/bin/skills_bench.rs` (release, native; the app runs \
         the same `hearth_core::skill` as wasm, typically 1.5–3× slower). {INSTALLED} skills \
         installed (100 custom), about 2 KB of instructions each, {MAX_ACTIVE} active; median \
         and worst of {RUNS} runs. Budget: a turn's assembly ≤ 5 ms with 1,000 installed.\n\n\
         | step | median | worst |\n\
         |---|---:|---:|\n\
         | a turn's assembly, every active skill injected | {:.3} ms | {:.3} ms |\n\
         | a turn's assembly, the model choosing (selection request + 4 injected) | {:.3} ms | {:.3} ms |\n\
         | a turn's assembly in a workspace naming its own {MAX_ACTIVE} skills (found, then injected) | {:.3} ms | {:.3} ms |\n\
         | reading the library record ({:.1} MiB) and checking every skill, once per page | {:.1} ms | {:.1} ms |\n",
        ms(inject),
        ms(inject_worst),
        ms(choose),
        ms(choose_worst),
        ms(scoped),
        ms(scoped_worst),
        stored.len() as f64 / (1024.0 * 1024.0),
        ms(reload),
        ms(reload_worst),
    );
    print!("{body}");
    record::write_section(&out, "skills", &body).expect("write the benchmarks file");
}
