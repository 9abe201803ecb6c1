//! The built-in skill catalogues shipped in `public/data/skills/<locale>/`: each reads
//! as `skills-v1` with nothing dropped, the three locales list the same skills in the
//! same order and categories, and every definition exists and passes normalisation.

use std::path::PathBuf;

use hearth_core::locale::Locale;
use hearth_core::skill::catalog::{Catalog, read_catalog};
use hearth_core::skill::library::SkillLibrary;
use hearth_core::skill::normalise;

fn folder(locale: Locale) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../public/data/skills")
        .join(locale.tag())
}

fn catalog(locale: Locale) -> Catalog {
    let text = std::fs::read_to_string(folder(locale).join("catalog.json")).unwrap();
    let read = read_catalog(&text).unwrap();
    assert!(
        read.dropped.is_empty(),
        "{}: dropped {:?}",
        locale.tag(),
        read.dropped
    );
    assert_eq!(read.catalog.locale, locale.tag());
    read.catalog
}

#[test]
fn every_locale_ships_the_same_thirty_or_more_skills() {
    let english = catalog(Locale::En);
    assert!(
        english.skills.len() >= 30,
        "{} skills",
        english.skills.len()
    );
    let shape = |c: &Catalog| -> Vec<(String, String)> {
        c.skills
            .iter()
            .map(|s| (s.id.clone(), s.category.code().to_string()))
            .collect()
    };
    for locale in [Locale::ZhCn, Locale::Ja] {
        let other = catalog(locale);
        assert_eq!(shape(&other), shape(&english), "{}", locale.tag());
        // Translated, not copied: no title is the English one.
        for (theirs, ours) in other.skills.iter().zip(&english.skills) {
            assert_ne!(theirs.title, ours.title, "{} {}", locale.tag(), ours.id);
        }
    }
}

#[test]
fn every_definition_installs_and_holds_text_only() {
    for locale in Locale::ALL {
        let mut library = SkillLibrary::default();
        for meta in catalog(locale).skills {
            let path = folder(locale).join(format!("{}.md", meta.id));
            let content = std::fs::read_to_string(&path)
                .unwrap_or_else(|_| panic!("{} is missing", path.display()));
            assert!(
                content.starts_with(&format!("# {}", meta.title)),
                "{}",
                path.display()
            );
            assert!(!content.contains("http://") && !content.contains("https://"));
            let skill = normalise::normalise(meta.clone(), &content).unwrap();
            library
                .install_builtin(skill.meta, &skill.content, locale.tag(), 0.0)
                .unwrap();
        }
        // Nothing in the folder but the catalogue and its definitions.
        let files = std::fs::read_dir(folder(locale)).unwrap().count();
        assert_eq!(files, library.installed.len() + 1, "{}", locale.tag());
    }
}
