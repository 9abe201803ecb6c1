//! Importing an OpenAPI 3.x or Swagger 2.0 description (JSON or YAML) as a plugin's
//! functions. What is taken: the server URL (`servers[0]` with its variables' defaults,
//! resolved against the manifest's URL; or Swagger's `host` + `basePath`), the
//! GET/POST/PUT/PATCH/DELETE operations on paths that start with exactly one `/`, their
//! path and query parameters and a JSON request body as the function's arguments, the
//! first security scheme as the plugin's auth, and names from `operationId` made
//! model-safe. Local `$ref`s are resolved with a depth limit; a reference cycle becomes
//! an open schema at the point it closes; a reference to another document is refused.
//!
//! Caps keep a hostile description small: the text, the paths, the parameters of one
//! operation and the functions. A description that cannot become a plugin is refused
//! with a typed error saying why; an operation that cannot become a function is skipped,
//! and the skip is reported with its reason.

use std::collections::{BTreeMap, HashSet};

use serde_json::{Map, Value, json};

use super::model::{Auth, AuthPlacement, HttpMethod, PluginFunction};
use super::names::model_safe;
use super::risk::Risk;

mod server;

use self::server::server_url;

/// The largest description read, in bytes.
pub const MAX_SPEC_BYTES: usize = 4 * 1024 * 1024;
/// The most paths a description may have.
pub const MAX_PATHS: usize = 200;
/// The most parameters one operation may have.
pub const MAX_PARAMETERS: usize = 50;
/// The most functions a plugin gets.
pub const MAX_FUNCTIONS: usize = 40;
/// The deepest chain of `$ref`s (and nested schemas) followed.
pub const MAX_REF_DEPTH: usize = 32;
/// The longest path template kept.
const MAX_PATH_CHARS: usize = 1024;
/// The longest description given to the model.
const MAX_DESCRIPTION_CHARS: usize = 1024;

/// Why a description was refused as a whole.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenApiError {
    /// Bigger than [`MAX_SPEC_BYTES`].
    #[error("the description has {0} bytes; the most is {MAX_SPEC_BYTES}")]
    TooLarge(usize),
    /// Neither JSON nor YAML, or not an object.
    #[error("the description is not a JSON or YAML object ({0})")]
    Unreadable(String),
    /// Not OpenAPI 3.x or Swagger 2.0.
    #[error("the description is not OpenAPI 3.x or Swagger 2.0 (it says {0})")]
    UnsupportedVersion(String),
    /// No `paths` object.
    #[error("the description has no paths object")]
    NoPaths,
    /// More than [`MAX_PATHS`] paths.
    #[error("the description has {0} paths; the most is {MAX_PATHS}")]
    TooManyPaths(usize),
    /// No server URL or host.
    #[error("the description names no server URL or host")]
    NoServer,
    /// A server URL that is not absolute `http(s)`.
    #[error("the server URL `{0}` is not an absolute http or https URL")]
    BadServer(String),
    /// A Swagger 2.0 `host` or `basePath` that carries more than it may.
    #[error("the Swagger host `{host}` is refused: {reason}")]
    BadSwaggerHost {
        /// The `host` (and `basePath`) as written.
        host: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// Swagger 2.0 `schemes` without `http` or `https`.
    #[error("the Swagger schemes {0:?} name neither http nor https; Hearth calls only HTTP APIs")]
    UnsupportedSchemes(Vec<String>),
    /// No operation could become a function.
    #[error("no operation could be used: {0}")]
    NoFunctions(String),
}

/// An operation left out, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// `METHOD /path`.
    pub operation: String,
    /// Why.
    pub reason: String,
}

/// What an import produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// `info.title`.
    pub title: String,
    /// `info.description`, shortened.
    pub description: String,
    /// The REST base URL, without a trailing `/`.
    pub server_url: String,
    /// The first security scheme.
    pub auth: Auth,
    /// The functions, at most [`MAX_FUNCTIONS`].
    pub functions: Vec<PluginFunction>,
    /// Operations left out.
    pub skipped: Vec<Skipped>,
}

/// Reads `text` (JSON or YAML) into a JSON value.
fn read(text: &str) -> Result<Value, OpenApiError> {
    if text.len() > MAX_SPEC_BYTES {
        return Err(OpenApiError::TooLarge(text.len()));
    }
    let value = match serde_json::from_str::<Value>(text) {
        Ok(value) => value,
        Err(json_error) => {
            let yaml: serde_norway::Value = serde_norway::from_str(text).map_err(|yaml_error| {
                let trimmed = text.trim_start();
                let why = if trimmed.starts_with('{') {
                    json_error.to_string()
                } else {
                    yaml_error.to_string()
                };
                OpenApiError::Unreadable(why)
            })?;
            yaml_to_json(yaml, 0)?
        }
    };
    if !value.is_object() {
        return Err(OpenApiError::Unreadable("not an object".into()));
    }
    Ok(value)
}

/// YAML allows keys JSON does not (`200:` is an integer); they become strings.
fn yaml_to_json(value: serde_norway::Value, depth: usize) -> Result<Value, OpenApiError> {
    use serde_norway::Value as Y;
    if depth > 256 {
        return Err(OpenApiError::Unreadable("nested too deeply".into()));
    }
    Ok(match value {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => serde_json::to_value(n).unwrap_or(Value::Null),
        Y::String(s) => Value::String(s),
        Y::Sequence(items) => Value::Array(
            items
                .into_iter()
                .map(|v| yaml_to_json(v, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Y::Mapping(map) => {
            let mut out = Map::new();
            for (key, value) in map {
                let key = match key {
                    Y::String(s) => s,
                    Y::Number(n) => n.to_string(),
                    Y::Bool(b) => b.to_string(),
                    _ => return Err(OpenApiError::Unreadable("a key is not a scalar".into())),
                };
                out.insert(key, yaml_to_json(value, depth + 1)?);
            }
            Value::Object(out)
        }
        Y::Tagged(tagged) => yaml_to_json(tagged.value, depth + 1)?,
    })
}

/// Follows local `$ref`s in `value`, recursively, within [`MAX_REF_DEPTH`]. A cycle
/// becomes `{}` (any value) where it would close.
struct Resolver<'a> {
    root: &'a Value,
}

impl Resolver<'_> {
    fn target(&self, reference: &str) -> Result<&Value, String> {
        let Some(pointer) = reference.strip_prefix('#') else {
            return Err(format!("refers to another document ({reference})"));
        };
        self.root
            .pointer(pointer)
            .ok_or_else(|| format!("refers to {reference}, which does not exist"))
    }

    fn resolve(&self, value: &Value, seen: &mut Vec<String>) -> Result<Value, String> {
        if seen.len() > MAX_REF_DEPTH {
            return Err(format!("nests deeper than {MAX_REF_DEPTH} levels"));
        }
        match value {
            Value::Object(map) => {
                if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
                    if seen.iter().any(|r| r == reference) {
                        return Ok(json!({}));
                    }
                    let target = self.target(reference)?;
                    seen.push(reference.to_string());
                    let resolved = self.resolve(target, seen);
                    seen.pop();
                    return resolved;
                }
                let mut out = Map::new();
                for (key, item) in map {
                    seen.push(String::new());
                    let resolved = self.resolve(item, seen);
                    seen.pop();
                    out.insert(key.clone(), resolved?);
                }
                Ok(Value::Object(out))
            }
            Value::Array(items) => items
                .iter()
                .map(|item| {
                    seen.push(String::new());
                    let resolved = self.resolve(item, seen);
                    seen.pop();
                    resolved
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array),
            other => Ok(other.clone()),
        }
    }
}

fn shorten(text: &str) -> String {
    let text = text.trim();
    if text.chars().count() <= MAX_DESCRIPTION_CHARS {
        return text.to_string();
    }
    let cut: String = text.chars().take(MAX_DESCRIPTION_CHARS - 1).collect();
    format!("{cut}…")
}

fn auth(spec: &Value) -> Auth {
    let schemes = spec
        .pointer("/components/securitySchemes")
        .or_else(|| spec.get("securityDefinitions"))
        .and_then(Value::as_object);
    let Some((_, scheme)) = schemes.and_then(|s| s.iter().next()) else {
        return Auth::None;
    };
    match scheme.get("type").and_then(Value::as_str) {
        Some("apiKey") => {
            let name = scheme.get("name").and_then(Value::as_str).unwrap_or("");
            let placement = match scheme.get("in").and_then(Value::as_str) {
                Some("header") => AuthPlacement::Header,
                Some("query") => AuthPlacement::Query,
                // A cookie is not something Hearth sends for a plugin.
                _ => return Auth::None,
            };
            if name.is_empty() {
                Auth::None
            } else {
                Auth::ApiKey {
                    name: name.to_string(),
                    placement,
                }
            }
        }
        Some("http") => match scheme
            .get("scheme")
            .and_then(Value::as_str)
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("bearer") => Auth::Bearer,
            Some("basic") => Auth::Basic,
            _ => Auth::None,
        },
        Some("basic") => Auth::Basic,
        Some("oauth2") | Some("openIdConnect") => Auth::Oauth2,
        _ => Auth::None,
    }
}

/// The parameters (path and query) and JSON body of one operation, as one object schema.
fn arguments(
    resolver: &Resolver<'_>,
    path_item: &Value,
    operation: &Value,
    path: &str,
) -> Result<Value, String> {
    let mut by_key: BTreeMap<(String, String), Value> = BTreeMap::new();
    for list in [path_item.get("parameters"), operation.get("parameters")]
        .into_iter()
        .flatten()
        .filter_map(Value::as_array)
    {
        for parameter in list {
            let parameter = resolver.resolve(parameter, &mut Vec::new())?;
            let name = parameter.get("name").and_then(Value::as_str).unwrap_or("");
            let place = parameter.get("in").and_then(Value::as_str).unwrap_or("");
            if name.is_empty() {
                return Err("a parameter has no name".into());
            }
            by_key.insert((place.to_string(), name.to_string()), parameter);
        }
    }
    if by_key.len() > MAX_PARAMETERS {
        return Err(format!(
            "{} parameters; the most is {MAX_PARAMETERS}",
            by_key.len()
        ));
    }
    let mut properties = Map::new();
    let mut required: Vec<Value> = Vec::new();
    for ((place, name), parameter) in &by_key {
        let schema = match place.as_str() {
            "path" | "query" => parameter.get("schema").cloned().unwrap_or_else(|| {
                // Swagger 2.0 puts the type on the parameter itself.
                let mut schema = Map::new();
                for key in ["type", "format", "enum", "items", "minimum", "maximum"] {
                    if let Some(value) = parameter.get(key) {
                        schema.insert(key.into(), value.clone());
                    }
                }
                Value::Object(schema)
            }),
            "body" => {
                let schema = parameter.get("schema").cloned().unwrap_or(json!({}));
                properties.insert("body".into(), schema);
                if parameter.get("required") == Some(&Value::Bool(true)) {
                    required.push("body".into());
                }
                continue;
            }
            // Headers, cookies and form fields are not the model's to set.
            _ => continue,
        };
        let mut schema = schema;
        if let (Some(object), Some(description)) = (
            schema.as_object_mut(),
            parameter.get("description").and_then(Value::as_str),
        ) {
            object.insert("description".into(), shorten(description).into());
        }
        properties.insert(name.clone(), schema);
        // Path parameters are always required, whatever the description says.
        if place == "path" || parameter.get("required") == Some(&Value::Bool(true)) {
            required.push(name.clone().into());
        }
    }
    // Every `{name}` in the path needs a path parameter.
    for segment in path.split('{').skip(1) {
        let name = segment.split('}').next().unwrap_or("");
        if !by_key.contains_key(&("path".to_string(), name.to_string())) {
            return Err(format!("the path parameter {{{name}}} is not declared"));
        }
    }
    if let Some(body) = operation.get("requestBody") {
        let body = resolver.resolve(body, &mut Vec::new())?;
        if let Some(schema) = body.pointer("/content/application~1json/schema") {
            properties.insert("body".into(), schema.clone());
            if body.get("required") == Some(&Value::Bool(true)) {
                required.push("body".into());
            }
        } else if body.get("required") == Some(&Value::Bool(true)) {
            return Err("its request body is not JSON".into());
        }
    }
    let schema = resolver.resolve(
        &json!({"type": "object", "properties": properties, "required": required}),
        &mut Vec::new(),
    )?;
    Ok(schema)
}

/// Imports `text`, fetched from `manifest_url` if it was.
pub fn import(text: &str, manifest_url: Option<&str>) -> Result<Imported, OpenApiError> {
    let spec = read(text)?;
    let version = spec
        .get("openapi")
        .or_else(|| spec.get("swagger"))
        .map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .unwrap_or_else(|| "no version".into());
    if !(version.starts_with("3.") || version == "2.0") {
        return Err(OpenApiError::UnsupportedVersion(version));
    }
    let paths = spec
        .get("paths")
        .and_then(Value::as_object)
        .ok_or(OpenApiError::NoPaths)?;
    if paths.len() > MAX_PATHS {
        return Err(OpenApiError::TooManyPaths(paths.len()));
    }
    let server_url = server_url(&spec, manifest_url)?;
    let resolver = Resolver { root: &spec };
    let mut functions: Vec<PluginFunction> = Vec::new();
    let mut skipped = Vec::new();
    let mut names: HashSet<String> = HashSet::new();
    for (path, item) in paths {
        let item = match resolver.resolve(item, &mut Vec::new()) {
            Ok(item) => item,
            Err(reason) => {
                skipped.push(Skipped {
                    operation: path.clone(),
                    reason: format!("the path item {reason}"),
                });
                continue;
            }
        };
        let Some(operations) = item.as_object() else {
            continue;
        };
        for (method_name, operation) in operations {
            if matches!(
                method_name.as_str(),
                "parameters" | "summary" | "description" | "servers"
            ) || method_name.starts_with("x-")
            {
                continue;
            }
            let label = format!("{} {path}", method_name.to_ascii_uppercase());
            let mut skip = |reason: String| {
                skipped.push(Skipped {
                    operation: label.clone(),
                    reason,
                })
            };
            let Some(method) = HttpMethod::parse(method_name) else {
                skip(format!(
                    "{} is not a method plugins may use",
                    method_name.to_ascii_uppercase()
                ));
                continue;
            };
            if !path.starts_with('/') || path.starts_with("//") || path.contains("://") {
                skip("the path must start with exactly one /".into());
                continue;
            }
            if path.len() > MAX_PATH_CHARS || path.contains(['?', '#', '\\']) {
                skip("the path is too long or has a query or fragment".into());
                continue;
            }
            if functions.len() >= MAX_FUNCTIONS {
                skip(format!("the plugin already has {MAX_FUNCTIONS} functions"));
                continue;
            }
            let parameters = match arguments(&resolver, &item, operation, path) {
                Ok(parameters) => parameters,
                Err(reason) => {
                    skip(reason);
                    continue;
                }
            };
            let description = operation
                .get("summary")
                .or_else(|| operation.get("description"))
                .and_then(Value::as_str)
                .map(shorten)
                .unwrap_or_else(|| label.clone());
            let base = model_safe(
                operation
                    .get("operationId")
                    .and_then(Value::as_str)
                    .unwrap_or(&format!("{method_name}_{path}")),
            );
            let mut name = base.clone();
            let mut n = 2;
            while names.contains(&name) {
                name = model_safe(&format!("{base}_{n}"));
                n += 1;
            }
            names.insert(name.clone());
            let declared = operation
                .get("x-risk")
                .and_then(|v| serde_json::from_value::<Risk>(v.clone()).ok());
            functions.push(PluginFunction {
                name,
                description,
                parameters,
                method: Some(method),
                path: Some(path.clone()),
                tool: None,
                risk: Risk::effective(Risk::floor_for_method(method), declared),
                enabled: true,
                app: None,
            });
        }
    }
    if functions.is_empty() {
        let why = skipped
            .first()
            .map(|s| format!("{}: {}", s.operation, s.reason))
            .unwrap_or_else(|| "the paths declare no operations".into());
        return Err(OpenApiError::NoFunctions(why));
    }
    let info = spec.get("info");
    Ok(Imported {
        title: info
            .and_then(|i| i.get("title"))
            .and_then(Value::as_str)
            .map(shorten)
            .unwrap_or_else(|| server_url.clone()),
        description: info
            .and_then(|i| i.get("description"))
            .and_then(Value::as_str)
            .map(shorten)
            .unwrap_or_default(),
        server_url,
        auth: auth(&spec),
        functions,
        skipped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PETSTORE_V3: &str = include_str!("../../../tests/data/openapi/petstore-v3.yaml");
    const PETSTORE_V2: &str = include_str!("../../../tests/data/openapi/petstore-v2.json");

    fn names(imported: &Imported) -> Vec<&str> {
        imported.functions.iter().map(|f| f.name.as_str()).collect()
    }

    #[test]
    fn the_petstore_imports_from_both_versions() {
        for (text, server) in [
            (PETSTORE_V3, "http://petstore.swagger.io/v1"),
            (PETSTORE_V2, "http://petstore.swagger.io/v1"),
        ] {
            let imported = import(text, None).unwrap();
            assert_eq!(imported.title, "Swagger Petstore");
            assert_eq!(imported.server_url, server);
            assert_eq!(names(&imported), ["listPets", "createPets", "showPetById"]);
            let show = &imported.functions[2];
            assert_eq!(show.method, Some(HttpMethod::Get));
            assert_eq!(show.path.as_deref(), Some("/pets/{petId}"));
            assert_eq!(show.risk, Risk::Read);
            assert_eq!(show.parameters["required"], json!(["petId"]));
            assert_eq!(
                show.parameters["properties"]["petId"]["type"],
                json!("string")
            );
            let list = &imported.functions[0];
            assert_eq!(
                list.parameters["properties"]["limit"]["type"],
                json!("integer")
            );
            assert_eq!(list.parameters["required"], json!([]));
            assert_eq!(imported.functions[1].risk, Risk::Write);
            assert!(imported.skipped.is_empty(), "{:?}", imported.skipped);
        }
    }

    fn spec(paths: Value) -> String {
        json!({
            "openapi": "3.0.3",
            "info": {"title": "Items"},
            "servers": [{"url": "https://api.example.com/v1"}],
            "paths": paths,
        })
        .to_string()
    }

    #[test]
    fn hostile_paths_and_methods_are_skipped_with_reasons() {
        let text = spec(json!({
            "/weather/{city}": {"get": {"operationId": "get-weather", "summary": "Weather",
                "parameters": [{"name": "city", "in": "path", "required": true, "schema": {"type": "string"}}]}},
            "//evil.test/pivot": {"get": {"operationId": "pivot"}},
            "https://evil.test/x": {"get": {"operationId": "absolute"}},
            "/debug": {"trace": {"operationId": "debug"}},
            "/items/{id}": {"get": {"operationId": "undeclared"}}
        }));
        let imported = import(&text, None).unwrap();
        assert_eq!(names(&imported), ["get_weather"]);
        assert_eq!(
            imported.functions[0].parameters["required"],
            json!(["city"])
        );
        let reasons: Vec<String> = imported
            .skipped
            .iter()
            .map(|s| format!("{}: {}", s.operation, s.reason))
            .collect();
        assert!(
            reasons
                .iter()
                .any(|r| r.starts_with("GET //evil.test/pivot: the path must start")),
            "{reasons:?}"
        );
        assert!(
            reasons
                .iter()
                .any(|r| r.starts_with("GET https://evil.test/x: the path must start")),
            "{reasons:?}"
        );
        assert!(
            reasons
                .iter()
                .any(|r| r == "TRACE /debug: TRACE is not a method plugins may use"),
            "{reasons:?}"
        );
        assert!(
            reasons.iter().any(|r| r.contains("{id} is not declared")),
            "{reasons:?}"
        );
    }

    #[test]
    fn descriptions_that_cannot_be_plugins_say_why() {
        assert_eq!(
            import(&json!({"openapi": "3.0.0", "info": {}}).to_string(), None),
            Err(OpenApiError::NoPaths)
        );
        assert_eq!(
            import(&json!({"openapi": "3.0.0", "paths": {}}).to_string(), None),
            Err(OpenApiError::NoServer)
        );
        assert_eq!(
            import(&json!({"swagger": "1.2", "paths": {}}).to_string(), None),
            Err(OpenApiError::UnsupportedVersion("1.2".into()))
        );
        assert!(matches!(
            import("]] not json or yaml [[", None),
            Err(OpenApiError::Unreadable(_))
        ));
        let mut many = Map::new();
        for i in 0..=MAX_PATHS {
            many.insert(format!("/p{i}"), json!({"get": {}}));
        }
        assert_eq!(
            import(&spec(Value::Object(many)), None),
            Err(OpenApiError::TooManyPaths(MAX_PATHS + 1))
        );
        assert!(matches!(
            import(&spec(json!({"/x": {"trace": {}}})), None),
            Err(OpenApiError::NoFunctions(why)) if why.contains("TRACE")
        ));
        let ftp = json!({"openapi": "3.0.0", "servers": [{"url": "ftp://files.example.com"}], "paths": {"/a": {"get": {}}}});
        assert!(matches!(
            import(&ftp.to_string(), None),
            Err(OpenApiError::BadServer(_))
        ));
        assert_eq!(
            import(&" ".repeat(MAX_SPEC_BYTES + 1), None),
            Err(OpenApiError::TooLarge(MAX_SPEC_BYTES + 1))
        );
    }

    #[test]
    fn servers_resolve_variables_relative_urls_and_swagger_hosts() {
        let text = json!({"openapi": "3.1.0",
            "servers": [{"url": "https://{region}.api.example.com/{version}",
                "variables": {"region": {"default": "eu"}, "version": {"default": "v2"}}}],
            "paths": {"/a": {"get": {}}}});
        assert_eq!(
            import(&text.to_string(), None).unwrap().server_url,
            "https://eu.api.example.com/v2"
        );
        let relative =
            json!({"openapi": "3.0.0", "servers": [{"url": "/api"}], "paths": {"/a": {"get": {}}}});
        assert_eq!(
            import(
                &relative.to_string(),
                Some("https://example.com/specs/openapi.json")
            )
            .unwrap()
            .server_url,
            "https://example.com/api"
        );
        assert!(matches!(
            import(&relative.to_string(), None),
            Err(OpenApiError::BadServer(_))
        ));
        let swagger = json!({"swagger": "2.0", "host": "api.example.com", "basePath": "/v1",
            "paths": {"/a": {"get": {}}}});
        assert_eq!(
            import(&swagger.to_string(), None).unwrap().server_url,
            "https://api.example.com/v1"
        );
    }

    #[test]
    fn swagger_hosts_and_schemes_that_say_more_than_a_host_are_refused() {
        let swagger = |host: &str, base: &str, schemes: Value| {
            let mut spec = json!({"swagger": "2.0", "host": host, "schemes": schemes,
                "paths": {"/a": {"get": {}}}});
            if !base.is_empty() {
                spec["basePath"] = json!(base);
            }
            import(&spec.to_string(), None)
        };
        for host in [
            "api.example.com/v1",
            "api.example.com?x=1",
            "api.example.com#frag",
            "user:pw@api.example.com",
            "api.example.com@127.0.0.1",
            "https://api.example.com",
            "api.example.com\\@evil.test",
            "api example.com",
            "",
        ] {
            assert!(
                matches!(
                    swagger(host, "", json!(["https"])),
                    Err(OpenApiError::BadSwaggerHost { .. })
                ),
                "{host:?}"
            );
        }
        for base in ["v1", "/v1?x", "/v1#x", "/@127.0.0.1"] {
            assert!(
                matches!(
                    swagger("api.example.com", base, json!(["https"])),
                    Err(OpenApiError::BadSwaggerHost { .. })
                ),
                "{base}"
            );
        }
        for schemes in [
            json!(["ws"]),
            json!(["wss"]),
            json!(["ftp"]),
            json!(["ws", "wss"]),
        ] {
            assert!(
                matches!(
                    swagger("api.example.com", "", schemes.clone()),
                    Err(OpenApiError::UnsupportedSchemes(_))
                ),
                "{schemes}"
            );
        }
        let error = swagger("api.example.com", "", json!(["wss"])).unwrap_err();
        assert!(error.to_string().contains("wss"), "{error}");
        // Ordinary hosts, ports and scheme lists still import.
        let url = |host, schemes| swagger(host, "/v2", schemes).unwrap().server_url;
        assert_eq!(
            url("api.example.com:8443", json!(["https"])),
            "https://api.example.com:8443/v2"
        );
        assert_eq!(
            url("API.Example.com", json!(["http"])),
            "http://api.example.com/v2"
        );
        assert_eq!(
            url("10.0.0.5:8080", json!(["http", "ws"])),
            "http://10.0.0.5:8080/v2"
        );
        assert_eq!(
            url("api.example.com", json!(["HTTPS", "http"])),
            "https://api.example.com/v2"
        );
    }

    #[test]
    fn bodies_refs_and_cycles() {
        let text = json!({
            "openapi": "3.0.0",
            "servers": [{"url": "https://api.example.com"}],
            "paths": {
                "/nodes": {"post": {"operationId": "addNode", "requestBody": {"required": true,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}}}}},
                "/far": {"get": {"operationId": "far", "parameters": [{"$ref": "other.yaml#/p"}]}},
                "/missing": {"get": {"operationId": "missing", "parameters": [{"$ref": "#/components/parameters/Nope"}]}},
                "/items/{id}": {"delete": {"operationId": "deleteItem", "x-risk": "read",
                    "parameters": [{"$ref": "#/components/parameters/Id"}]}}
            },
            "components": {
                "parameters": {"Id": {"name": "id", "in": "path", "schema": {"type": "integer"}}},
                "schemas": {"Node": {"type": "object", "properties": {
                    "label": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}}}
            }
        });
        let imported = import(&text.to_string(), None).unwrap();
        // Paths in key order (JSON objects are read sorted).
        assert_eq!(names(&imported), ["deleteItem", "addNode"]);
        let add = &imported.functions[1];
        assert_eq!(add.parameters["required"], json!(["body"]));
        assert_eq!(
            add.parameters["properties"]["body"]["properties"]["label"],
            json!({"type": "string"})
        );
        // The cycle closes as an open schema instead of recursing forever.
        assert_eq!(
            add.parameters["properties"]["body"]["properties"]["children"]["items"],
            json!({})
        );
        let delete = &imported.functions[0];
        assert_eq!(
            delete.risk,
            Risk::Destructive,
            "x-risk cannot lower a DELETE"
        );
        assert_eq!(
            delete.parameters["required"],
            json!(["id"]),
            "path parameters are required"
        );
        let reasons: Vec<&str> = imported.skipped.iter().map(|s| s.reason.as_str()).collect();
        assert!(
            reasons.iter().any(|r| r.contains("another document")),
            "{reasons:?}"
        );
        assert!(
            reasons.iter().any(|r| r.contains("does not exist")),
            "{reasons:?}"
        );
    }

    #[test]
    fn deep_reference_chains_stop_at_the_limit() {
        let mut schemas = Map::new();
        for i in 0..100 {
            schemas.insert(
                format!("S{i}"),
                json!({"$ref": format!("#/components/schemas/S{}", i + 1)}),
            );
        }
        schemas.insert("S100".into(), json!({"type": "string"}));
        let text = json!({
            "openapi": "3.0.0",
            "servers": [{"url": "https://api.example.com"}],
            "paths": {
                "/deep": {"get": {"operationId": "deep", "parameters": [
                    {"name": "q", "in": "query", "schema": {"$ref": "#/components/schemas/S0"}}]}},
                "/ok": {"get": {"operationId": "ok"}}
            },
            "components": {"schemas": schemas}
        });
        let imported = import(&text.to_string(), None).unwrap();
        assert_eq!(names(&imported), ["ok"]);
        assert!(
            imported.skipped[0].reason.contains("deeper than"),
            "{:?}",
            imported.skipped
        );
    }

    #[test]
    fn a_yaml_alias_bomb_is_refused() {
        let mut bomb =
            String::from("a: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\n");
        for level in 1..12 {
            let previous = (b'a' + level - 1) as char;
            let name = (b'a' + level) as char;
            bomb.push_str(&format!(
                "{name}: &{name} [*{previous},*{previous},*{previous},*{previous},*{previous},*{previous},*{previous},*{previous},*{previous}]\n"
            ));
        }
        assert!(matches!(
            import(&bomb, None),
            Err(OpenApiError::Unreadable(_))
        ));
    }

    #[test]
    fn names_auth_and_the_function_cap() {
        let mut paths = Map::new();
        for i in 0..(MAX_FUNCTIONS + 5) {
            paths.insert(
                format!("/r{i:02}"),
                json!({"get": {"operationId": "same name"}}),
            );
        }
        let text = json!({
            "openapi": "3.0.0",
            "servers": [{"url": "https://api.example.com"}],
            "paths": paths,
            "components": {"securitySchemes": {"key": {"type": "apiKey", "name": "X-Key", "in": "header"}}}
        });
        let imported = import(&text.to_string(), None).unwrap();
        assert_eq!(imported.functions.len(), MAX_FUNCTIONS);
        assert_eq!(imported.skipped.len(), 5);
        let unique: HashSet<&str> = names(&imported).into_iter().collect();
        assert_eq!(unique.len(), MAX_FUNCTIONS, "names are made unique");
        assert_eq!(imported.functions[1].name, "same_name_2");
        assert_eq!(
            imported.auth,
            Auth::ApiKey {
                name: "X-Key".into(),
                placement: AuthPlacement::Header
            }
        );
        let bearer = json!({"openapi": "3.0.0", "servers": [{"url": "https://a.example"}],
            "paths": {"/a": {"get": {}}},
            "components": {"securitySchemes": {"b": {"type": "http", "scheme": "Bearer"}}}});
        assert_eq!(
            import(&bearer.to_string(), None).unwrap().auth,
            Auth::Bearer
        );
    }
}
