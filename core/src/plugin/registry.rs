//! Which function a name means. Built-in plugins come first and their ids are reserved:
//! an installed plugin may not take one, and a stale stored entry with a built-in's id
//! loses to the built-in. Among the active plugins' enabled functions, a name offered by
//! two plugins is a collision: it is left out of the tools offered and reported with
//! both plugin ids, never resolved by guessing.

use std::collections::BTreeMap;

use super::model::{Plugin, PluginFunction, Source};

/// Whether `id` belongs to Hearth's built-in plugins (`builtin:` ids).
pub fn is_reserved(id: &str) -> bool {
    id.trim().to_ascii_lowercase().starts_with("builtin:")
}

/// Why an installed plugin was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// The id belongs to a built-in.
    #[error("`{0}` is a reserved built-in plugin id")]
    Reserved(String),
    /// The plugin claims to be built in.
    #[error("only Hearth's own plugins can be built in")]
    NotBuiltin,
}

/// Checks a plugin about to be installed.
pub fn check_installable(plugin: &Plugin) -> Result<(), RegistryError> {
    if plugin.source == Source::Builtin {
        return Err(RegistryError::NotBuiltin);
    }
    if is_reserved(&plugin.id) {
        return Err(RegistryError::Reserved(plugin.id.clone()));
    }
    Ok(())
}

/// The active plugins: every built-in, then each installed plugin whose id no built-in
/// (or earlier installed plugin) has.
pub fn active<'a>(builtins: &'a [Plugin], installed: &'a [Plugin]) -> Vec<&'a Plugin> {
    let mut out: Vec<&Plugin> = builtins.iter().collect();
    for plugin in installed {
        if plugin.source != Source::Builtin
            && !is_reserved(&plugin.id)
            && out.iter().all(|p| p.id != plugin.id)
        {
            out.push(plugin);
        }
    }
    out
}

/// A function name offered by more than one active plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collision {
    /// The name.
    pub name: String,
    /// The plugins offering it, in order.
    pub plugins: Vec<String>,
}

impl std::fmt::Display for Collision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "function {} is provided by multiple active plugins: {}",
            self.name,
            self.plugins.join(", ")
        )
    }
}

/// The tools a model is offered from `plugins`, and the collisions left out.
pub fn offered<'a>(
    plugins: &[&'a Plugin],
) -> (Vec<(&'a Plugin, &'a PluginFunction)>, Vec<Collision>) {
    let mut by_name: BTreeMap<&str, Vec<(&'a Plugin, &'a PluginFunction)>> = BTreeMap::new();
    for plugin in plugins {
        for function in plugin.functions.iter().filter(|f| f.enabled) {
            by_name
                .entry(function.name.as_str())
                .or_default()
                .push((plugin, function));
        }
    }
    let mut tools = Vec::new();
    let mut collisions = Vec::new();
    for (name, owners) in by_name {
        if owners.len() == 1 {
            tools.push(owners[0]);
        } else {
            collisions.push(Collision {
                name: name.to_string(),
                plugins: owners.iter().map(|(p, _)| p.id.clone()).collect(),
            });
        }
    }
    (tools, collisions)
}

/// What the name `name` means among `plugins`.
#[derive(Debug, PartialEq)]
pub enum Resolved<'a> {
    /// Exactly one function.
    Function(&'a Plugin, &'a PluginFunction),
    /// No active, enabled function has it.
    Unknown,
    /// More than one plugin offers it.
    Collision(Collision),
}

/// Resolves a name the model called.
pub fn resolve<'a>(plugins: &[&'a Plugin], name: &str) -> Resolved<'a> {
    let owners: Vec<(&'a Plugin, &'a PluginFunction)> = plugins
        .iter()
        .flat_map(|p| {
            p.functions
                .iter()
                .filter(|f| f.enabled && f.name == name)
                .map(move |f| (*p, f))
        })
        .collect();
    match owners.as_slice() {
        [] => Resolved::Unknown,
        [(plugin, function)] => Resolved::Function(plugin, function),
        many => Resolved::Collision(Collision {
            name: name.to_string(),
            plugins: many.iter().map(|(p, _)| p.id.clone()).collect(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugin::model::{Auth, HttpMethod};
    use crate::plugin::risk::Risk;
    use serde_json::json;

    fn plugin(id: &str, source: Source, functions: &[&str]) -> Plugin {
        let functions = functions
            .iter()
            .map(|name| PluginFunction {
                name: name.to_string(),
                description: String::new(),
                parameters: json!({"type": "object"}),
                method: Some(HttpMethod::Get),
                path: Some(format!("/{name}")),
                tool: None,
                risk: Risk::Read,
                enabled: true,
                app: None,
            })
            .collect();
        Plugin {
            server_url: Some("https://api.example.com".into()),
            ..Plugin::new(id, id, source, Auth::None, functions)
        }
    }

    #[test]
    fn builtin_ids_are_reserved_and_win_over_stale_entries() {
        let builtin = plugin("builtin:web-reader", Source::Builtin, &["read_page"]);
        let impostor = plugin("builtin:web-reader", Source::Openapi, &["read_page"]);
        assert_eq!(
            check_installable(&impostor),
            Err(RegistryError::Reserved("builtin:web-reader".into()))
        );
        assert_eq!(
            check_installable(&plugin("x", Source::Builtin, &[])),
            Err(RegistryError::NotBuiltin)
        );
        let builtins = [builtin];
        let installed = [impostor, plugin("a", Source::Openapi, &["lookup"])];
        let ids: Vec<&str> = active(&builtins, &installed)
            .iter()
            .map(|p| p.id.as_str())
            .collect();
        assert_eq!(ids, ["builtin:web-reader", "a"]);
        let only = active(&builtins, &installed);
        assert_eq!(
            only[0].source,
            Source::Builtin,
            "the built-in, not the stored copy"
        );
    }

    #[test]
    fn a_shared_name_is_a_reported_collision_never_a_guess() {
        let a = plugin("a", Source::Openapi, &["lookup", "only_a"]);
        let b = plugin("b", Source::Mcp, &["lookup"]);
        let plugins = [&a, &b];
        let (tools, collisions) = offered(&plugins);
        let names: Vec<&str> = tools.iter().map(|(_, f)| f.name.as_str()).collect();
        assert_eq!(names, ["only_a"]);
        assert_eq!(
            collisions[0].to_string(),
            "function lookup is provided by multiple active plugins: a, b"
        );
        assert!(matches!(
            resolve(&plugins, "lookup"),
            Resolved::Collision(_)
        ));
        assert!(matches!(resolve(&plugins, "only_a"), Resolved::Function(p, _) if p.id == "a"));
        assert_eq!(resolve(&plugins, "missing"), Resolved::Unknown);
        // A disabled function neither collides nor resolves.
        let mut b_off = b.clone();
        b_off.functions[0].enabled = false;
        let plugins = [&a, &b_off];
        assert!(matches!(resolve(&plugins, "lookup"), Resolved::Function(p, _) if p.id == "a"));
        assert!(offered(&plugins).1.is_empty());
    }
}
