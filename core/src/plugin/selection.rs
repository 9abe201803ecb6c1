//! Which tools a reply offers. The user switches whole plugins and single functions on
//! and off ([`ToolPreferences`], part of the preferences record); installed plugins are
//! on once installed, built-ins are off until the user turns them on (every offered
//! tool costs context on every request). [`toolset`] turns the registered plugins and
//! those switches into what a request carries: the tool specs (at most
//! [`MAX_TOOLS_OFFERED`]), and for each name the plugin, function, risk and fingerprint
//! a call to it is executed and confirmed with. A name two active plugins expose is left
//! out and reported ([`super::registry::offered`]), never guessed.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::approval::{ApprovalKey, ConfirmMode};
use super::model::{Plugin, PluginFunction, Source};
use super::registry::{self, Collision};
use super::risk::Risk;
use super::tool_loop::MAX_TOOLS_OFFERED;
use crate::api::RegisteredPlugin;
use crate::provider::request::ToolSpec;

/// The user's tool switches and confirmation mode.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolPreferences {
    /// Whether calls wait for the user (off by default).
    pub confirm: ConfirmMode,
    /// Plugin id → on or off, where the user chose.
    pub plugins: BTreeMap<String, bool>,
    /// Plugin id → the functions the user switched off.
    pub functions_off: BTreeMap<String, BTreeSet<String>>,
}

impl ToolPreferences {
    /// Whether `plugin` is on: the user's choice, else on when installed and off when
    /// built in.
    pub fn plugin_on(&self, plugin: &Plugin) -> bool {
        self.plugins
            .get(&plugin.id)
            .copied()
            .unwrap_or(plugin.source != Source::Builtin)
    }

    /// Whether the function `name` of `plugin_id` is on (its plugin aside).
    pub fn function_on(&self, plugin_id: &str, name: &str) -> bool {
        !self
            .functions_off
            .get(plugin_id)
            .is_some_and(|off| off.contains(name))
    }

    /// Switches a plugin.
    pub fn set_plugin(&mut self, plugin_id: &str, on: bool) {
        self.plugins.insert(plugin_id.to_string(), on);
    }

    /// Switches one function.
    pub fn set_function(&mut self, plugin_id: &str, name: &str, on: bool) {
        let off = self.functions_off.entry(plugin_id.to_string()).or_default();
        if on {
            off.remove(name);
        } else {
            off.insert(name.to_string());
        }
        if off.is_empty() {
            self.functions_off.remove(plugin_id);
        }
    }

    /// Forgets everything about a plugin (it was uninstalled).
    pub fn forget(&mut self, plugin_id: &str) {
        self.plugins.remove(plugin_id);
        self.functions_off.remove(plugin_id);
    }
}

/// What a call to one offered name is executed and confirmed with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolTarget {
    /// The plugin.
    pub plugin_id: String,
    /// Its title, for the call's card.
    pub plugin_title: String,
    /// The function's name.
    pub function: String,
    /// Its risk.
    pub risk: Risk,
    /// Its fingerprint as listed.
    pub fingerprint: String,
    /// Whether the plugin takes a credential.
    pub needs_auth: bool,
    /// Whether an MCP App's page shows the function's results (its structured content
    /// is then kept with the call, for the page).
    pub has_page: bool,
}

impl ToolTarget {
    /// What a call to `function` of `plugin`, listed with `fingerprint`, runs.
    pub fn new(plugin: &Plugin, function: &PluginFunction, fingerprint: String) -> Self {
        Self {
            plugin_id: plugin.id.clone(),
            plugin_title: plugin.title.clone(),
            function: function.name.clone(),
            risk: function.risk,
            fingerprint,
            needs_auth: plugin.auth != super::model::Auth::None,
            has_page: function.app_page().is_some(),
        }
    }

    /// What a session approval of this target is bound to.
    pub fn approval_key(&self) -> ApprovalKey {
        ApprovalKey {
            plugin_id: self.plugin_id.clone(),
            function: self.function.clone(),
            risk: self.risk,
            fingerprint: self.fingerprint.clone(),
        }
    }
}

/// The tools of one request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Toolset {
    /// What the model is offered.
    pub specs: Vec<ToolSpec>,
    /// Offered name → what a call to it runs.
    pub targets: BTreeMap<String, ToolTarget>,
    /// Names left out because two plugins offer them.
    pub collisions: Vec<Collision>,
    /// Tools left out past [`MAX_TOOLS_OFFERED`].
    pub left_out: usize,
}

impl Toolset {
    /// Whether there is anything to offer.
    pub fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }

    /// Offers `function` of `plugin`, listed with `fingerprint`.
    fn add(&mut self, plugin: &Plugin, function: &super::model::PluginFunction, fingerprint: &str) {
        self.specs.push(ToolSpec {
            name: function.name.clone(),
            description: function.description.clone(),
            parameters: function.parameters.clone(),
        });
        self.targets.insert(
            function.name.clone(),
            ToolTarget::new(plugin, function, fingerprint.to_string()),
        );
    }
}

/// `toolset` with `function` of the built-in plugin `plugin_id` offered too, whatever the
/// user's switches say (a feature that needs it turned on, as web search needs the page
/// reader), unless its name is taken, the edge did not list it with a fingerprint, or
/// the toolset is full.
pub fn offer_builtin(
    toolset: &mut Toolset,
    builtins: &[RegisteredPlugin],
    plugin_id: &str,
    function: &str,
) {
    if toolset.targets.contains_key(function) || toolset.specs.len() >= MAX_TOOLS_OFFERED {
        return;
    }
    let Some(registered) = builtins.iter().find(|r| r.plugin.id == plugin_id) else {
        return;
    };
    let Some(listed) = registered
        .plugin
        .functions
        .iter()
        .find(|f| f.name == function && f.offered_to_model())
    else {
        return;
    };
    let Some(fingerprint) = registered.fingerprints.get(function) else {
        return;
    };
    toolset.add(&registered.plugin, listed, fingerprint);
}

/// The tools `builtins` and `installed` offer under `prefs`.
pub fn toolset(
    builtins: &[RegisteredPlugin],
    installed: &[RegisteredPlugin],
    prefs: &ToolPreferences,
) -> Toolset {
    let switched = |list: &[RegisteredPlugin]| -> Vec<(Plugin, BTreeMap<String, String>)> {
        list.iter()
            .filter(|r| prefs.plugin_on(&r.plugin))
            .map(|r| {
                let mut plugin = r.plugin.clone();
                for function in &mut plugin.functions {
                    function.enabled &= prefs.function_on(&plugin.id, &function.name);
                }
                (plugin, r.fingerprints.clone())
            })
            .collect()
    };
    let builtins = switched(builtins);
    let installed = switched(installed);
    let fingerprints: BTreeMap<&str, &BTreeMap<String, String>> = builtins
        .iter()
        .chain(installed.iter())
        .map(|(p, f)| (p.id.as_str(), f))
        .collect();
    let builtin_plugins: Vec<Plugin> = builtins.iter().map(|(p, _)| p.clone()).collect();
    let installed_plugins: Vec<Plugin> = installed.iter().map(|(p, _)| p.clone()).collect();
    let active = registry::active(&builtin_plugins, &installed_plugins);
    let (offered, collisions) = registry::offered(&active);
    let mut set = Toolset {
        collisions,
        ..Default::default()
    };
    for (plugin, function) in offered {
        // A tool only an MCP App's page may call is never offered to the model.
        if !function.offered_to_model() {
            continue;
        }
        // A function the edge listed without a fingerprint cannot be called safely.
        let Some(fingerprint) = fingerprints
            .get(plugin.id.as_str())
            .and_then(|f| f.get(&function.name))
        else {
            continue;
        };
        if set.specs.len() == MAX_TOOLS_OFFERED {
            set.left_out += 1;
            continue;
        }
        set.add(plugin, function, fingerprint);
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugin::model::{Auth, PluginFunction};
    use serde_json::json;

    fn plugin(id: &str, source: Source, functions: &[&str]) -> RegisteredPlugin {
        let listed = functions
            .iter()
            .map(|name| PluginFunction {
                name: name.to_string(),
                description: format!("{name} things"),
                parameters: json!({"type": "object"}),
                method: None,
                path: None,
                tool: None,
                risk: Risk::Write,
                enabled: true,
                app: None,
            })
            .collect();
        let plugin = Plugin::new(id, id.to_uppercase(), source, Auth::None, listed);
        let fingerprints = functions
            .iter()
            .map(|f| (f.to_string(), format!("sha256:{id}:{f}")))
            .collect();
        RegisteredPlugin {
            plugin,
            fingerprints,
            tools_fresh_for_ms: None,
        }
    }

    fn names(set: &Toolset) -> Vec<&str> {
        set.specs.iter().map(|s| s.name.as_str()).collect()
    }

    #[test]
    fn installed_plugins_are_on_and_builtins_off_until_chosen() {
        let builtins = [plugin(
            "builtin:web-reader",
            Source::Builtin,
            &["read_web_page"],
        )];
        let installed = [plugin("pets", Source::Openapi, &["get_pet", "delete_pet"])];
        let mut prefs = ToolPreferences::default();
        assert_eq!(
            names(&toolset(&builtins, &installed, &prefs)),
            ["delete_pet", "get_pet"]
        );
        prefs.set_plugin("builtin:web-reader", true);
        prefs.set_function("pets", "delete_pet", false);
        let set = toolset(&builtins, &installed, &prefs);
        assert_eq!(names(&set), ["get_pet", "read_web_page"]);
        let target = &set.targets["get_pet"];
        assert_eq!(target.plugin_id, "pets");
        assert_eq!(target.fingerprint, "sha256:pets:get_pet");
        assert_eq!(target.approval_key().risk, Risk::Write);
        prefs.set_plugin("pets", false);
        assert_eq!(
            names(&toolset(&builtins, &installed, &prefs)),
            ["read_web_page"]
        );
        prefs.set_function("pets", "delete_pet", true);
        assert!(prefs.functions_off.is_empty());
        prefs.forget("pets");
        assert!(!prefs.plugins.contains_key("pets"));
    }

    #[test]
    fn a_name_two_plugins_offer_is_left_out_and_reported() {
        let installed = [
            plugin("a", Source::Openapi, &["search", "only_a"]),
            plugin("b", Source::Mcp, &["search"]),
        ];
        let set = toolset(&[], &installed, &ToolPreferences::default());
        assert_eq!(names(&set), ["only_a"]);
        assert_eq!(set.collisions.len(), 1);
        assert_eq!(set.collisions[0].plugins, ["a", "b"]);
        // Switching one off resolves it.
        let mut prefs = ToolPreferences::default();
        prefs.set_function("b", "search", false);
        let set = toolset(&[], &installed, &prefs);
        assert_eq!(set.targets["search"].plugin_id, "a");
    }

    #[test]
    fn at_most_64_tools_are_offered_and_the_rest_counted() {
        let names_owned: Vec<String> = (0..70).map(|i| format!("tool_{i:02}")).collect();
        let refs: Vec<&str> = names_owned.iter().map(String::as_str).collect();
        let set = toolset(
            &[],
            &[plugin("many", Source::Openapi, &refs)],
            &ToolPreferences::default(),
        );
        assert_eq!(set.specs.len(), MAX_TOOLS_OFFERED);
        assert_eq!(set.left_out, 6);
        assert_eq!(set.specs.last().unwrap().name, "tool_63");
    }

    #[test]
    fn a_function_without_a_listed_fingerprint_is_not_offered() {
        let mut registered = plugin("p", Source::Openapi, &["a", "b"]);
        registered.fingerprints.remove("b");
        let set = toolset(&[], &[registered], &ToolPreferences::default());
        assert_eq!(names(&set), ["a"]);
    }

    #[test]
    fn a_builtin_is_offered_for_a_feature_once_and_only_as_listed() {
        let reader = plugin(
            crate::plugin::builtin::WEB_READER_ID,
            Source::Builtin,
            &[crate::plugin::builtin::READ_WEB_PAGE],
        );
        let name = crate::plugin::builtin::READ_WEB_PAGE;
        // Switched off by the user, still offered for the feature.
        let mut set = toolset(
            std::slice::from_ref(&reader),
            &[],
            &ToolPreferences::default(),
        );
        let before = set.specs.len();
        offer_builtin(
            &mut set,
            std::slice::from_ref(&reader),
            crate::plugin::builtin::WEB_READER_ID,
            name,
        );
        offer_builtin(
            &mut set,
            std::slice::from_ref(&reader),
            crate::plugin::builtin::WEB_READER_ID,
            name,
        );
        assert_eq!(set.specs.iter().filter(|s| s.name == name).count(), 1);
        assert!(set.specs.len() <= before + 1);
        assert_eq!(
            set.targets[name].plugin_id,
            crate::plugin::builtin::WEB_READER_ID
        );
        // Not listed by the edge (no fingerprint): not offered.
        let mut unlisted = reader.clone();
        unlisted.fingerprints.clear();
        let mut empty = Toolset::default();
        offer_builtin(
            &mut empty,
            &[unlisted],
            crate::plugin::builtin::WEB_READER_ID,
            name,
        );
        assert!(empty.is_empty());
        // An unknown plugin or function: nothing.
        offer_builtin(&mut empty, &[reader], "builtin:nothing", name);
        assert!(empty.is_empty());
    }
}
