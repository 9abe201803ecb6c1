//! Function names a model may see. OpenAI-style tool schemas allow `[A-Za-z0-9_-]` and at
//! most 64 characters, so names from an OpenAPI `operationId` or an MCP server are made
//! model-safe here. MCP tools become `mcp_<server>__<tool>`; a name that would be too long
//! is shortened with a hash of the original pair, and a name already taken gets a hash
//! suffix too, so two tools never share a name. The original tool name is kept on the
//! function ([`super::PluginFunction::tool`]) for the call back to the server.

use std::collections::HashSet;

/// The longest function name providers accept.
pub const MAX_NAME_CHARS: usize = 64;

/// FNV-1a, 32 bits: a short, stable disambiguator (not a security boundary; the
/// fingerprint is).
fn fnv1a32(text: &str) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in text.bytes() {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

/// `text` with every run of characters outside `[A-Za-z0-9_]` (and `-`) made one `_`,
/// edges trimmed; `fallback` when nothing is left.
fn slug(text: &str, fallback: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let trimmed = out.trim_matches('_');
    if trimmed.is_empty() {
        fallback.to_string()
    } else {
        trimmed.to_string()
    }
}

/// A model-safe function name from an `operationId` (or `method_path`): at most
/// [`MAX_NAME_CHARS`], never starting with a digit.
pub fn model_safe(name: &str) -> String {
    let mut safe = slug(name, "fn");
    if safe.starts_with(|c: char| c.is_ascii_digit()) {
        safe.insert_str(0, "fn_");
    }
    if safe.len() > MAX_NAME_CHARS {
        let suffix = format!("_{:08x}", fnv1a32(name));
        safe.truncate(MAX_NAME_CHARS - suffix.len());
        safe = format!("{}{suffix}", safe.trim_end_matches('_'));
    }
    safe
}

/// Gives MCP tools unique model-facing names within one server.
#[derive(Debug, Default)]
pub struct McpNames {
    taken: HashSet<String>,
}

impl McpNames {
    /// A namer that treats `taken` names as used already.
    pub fn new(taken: impl IntoIterator<Item = String>) -> Self {
        Self {
            taken: taken.into_iter().collect(),
        }
    }

    /// The name for `tool` of `server`: `mcp_<server>__<tool>`, shortened (with a hash of
    /// the pair) past [`MAX_NAME_CHARS`], and hashed again when already taken.
    pub fn name(&mut self, server: &str, tool: &str) -> String {
        let server_slug = slug(server, "server").to_ascii_lowercase();
        let tool_slug = slug(tool, "tool").to_ascii_lowercase();
        let mut name = format!("mcp_{server_slug}__{tool_slug}");
        if name.len() > MAX_NAME_CHARS {
            let suffix = format!("_{:08x}", fnv1a32(&format!("{server}:{tool}")));
            let room = MAX_NAME_CHARS - "mcp_".len() - "__".len() - suffix.len();
            // The tool part matters more to the model; the server part gives way first.
            let server_room = (room / 3).min(server_slug.len());
            let tool_room = room - server_room;
            let server_part: String = server_slug.chars().take(server_room).collect();
            let tool_part: String = tool_slug.chars().take(tool_room).collect();
            name = format!("mcp_{server_part}__{tool_part}{suffix}");
        }
        let mut index = 0u32;
        let base = name.clone();
        while self.taken.contains(&name) {
            index += 1;
            let suffix = format!("_{:08x}", fnv1a32(&format!("{server}:{tool}:{index}")));
            let keep = base.len().min(MAX_NAME_CHARS - suffix.len());
            name = format!("{}{suffix}", &base[..keep]);
        }
        self.taken.insert(name.clone());
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed(name: &str) -> bool {
        !name.is_empty()
            && name.len() <= MAX_NAME_CHARS
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    }

    #[test]
    fn operation_ids_become_model_safe() {
        assert_eq!(model_safe("get-weather"), "get_weather");
        assert_eq!(model_safe("findPetsByStatus"), "findPetsByStatus");
        assert_eq!(model_safe("GET /pets/{id}"), "GET_pets_id");
        assert_eq!(model_safe("123go"), "fn_123go");
        assert_eq!(model_safe("¿?"), "fn");
        let long = model_safe(&"very_long_operation_name_".repeat(10));
        assert!(allowed(&long) && long.len() <= MAX_NAME_CHARS, "{long}");
        assert_ne!(
            model_safe(&"a".repeat(100)),
            model_safe(&format!("{}b", "a".repeat(99))),
            "a shortened name keeps a hash of the whole"
        );
    }

    #[test]
    fn mcp_tools_get_prefixed_names_within_the_limit() {
        let mut names = McpNames::default();
        assert_eq!(
            names.name("io.github/context7", "resolve-library-id"),
            "mcp_io_github_context7__resolve_library_id"
        );
        let long = names.name(&"vendor".repeat(20), &"tool".repeat(20));
        assert!(allowed(&long), "{long}");
        assert!(long.starts_with("mcp_vendor"), "{long}");
        assert!(long.contains("__tooltool"), "{long}");
        // Deterministic: the same pair gets the same name in a fresh namer.
        assert_eq!(
            McpNames::default().name(&"vendor".repeat(20), &"tool".repeat(20)),
            long
        );
    }

    #[test]
    fn colliding_tools_get_distinct_names() {
        let mut names = McpNames::default();
        let first = names.name("everything", "echo tool");
        let second = names.name("everything", "echo-tool");
        let third = names.name("everything", "echo_tool");
        assert_eq!(first, "mcp_everything__echo_tool");
        assert_ne!(first, second);
        assert_ne!(second, third);
        for name in [&first, &second, &third] {
            assert!(allowed(name), "{name}");
        }
        // Names taken elsewhere (another plugin) are avoided too.
        let mut names = McpNames::new(["mcp_everything__add".to_string()]);
        assert_ne!(names.name("everything", "add"), "mcp_everything__add");
    }
}
